/**
 * How a MIDI surface's pads light on the web mirror: a one-colour LED by the common rule, an RGB pad in
 * the profile's palette colour even when off. Apart from `midi.ts`: the config loader takes that, and no
 * light rule with it.
 */
import type { SurfaceDescription } from '../face/surface.js'
import { colorOf, ledStateOf, lit, WHITE_LIGHT, type LightChooser, type LightRule } from './lights.js'

/** A MIDI RGB pad: its colour in every state (the idle colour when off), white when lit without one. */
const rgbPad: LightRule = (fb) => {
  const state = ledStateOf(fb)
  return lit(colorOf(fb) ?? (state === 'off' ? undefined : WHITE_LIGHT), state === 'blink')
}

/** The pads' light rule of a MIDI surface (any profile). */
export function midiLights(_description: Pick<SurfaceDescription, 'model'>): LightChooser | undefined {
  return (control) => (control.capabilities.rgb ? rgbPad : undefined)
}
