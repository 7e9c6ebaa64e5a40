/**
 * How the Replay Editor's and the ATEM Micro Panel's buttons light, on the panel and on the page's
 * mirror: apart from the family's facts (`replay-editor.ts`), which the config loader reads without any
 * light rule.
 */
import type { Feedback } from '../face/feedback.js'
import type { SurfaceDescription } from '../face/surface.js'
import { colorOf, hexRgb, ledStateOf, ONE_COLOUR_LED, type LightChooser, type LightRule } from './lights.js'
import { BMD_MODELS } from './replay-editor.js'

/** What a button's light shows: a one-colour LED on or off, or an RGB LED's three channels, each on or off. */
export type ButtonLight = { type: 'on-off'; on: boolean } | { type: 'rgb'; red: boolean; green: boolean; blue: boolean }

/** An RGB LED's channel lights from half its range (the panel's channels are on or off). */
const CHANNEL_ON = 0x80

/**
 * The light a feedback gives a button: a one-colour LED by the common rule (`led`, else a bright
 * colour), an RGB one its colour channel by channel (white for `led` on with no colour). Neither blinks:
 * the library drives no flashing, so `blink` shows steady.
 */
export function buttonLight(type: 'on-off' | 'rgb', feedback: Feedback): ButtonLight {
  const state = ledStateOf(feedback)
  if (type === 'on-off') return { type, on: state !== 'off' }
  const color = feedback.led === 'off' ? undefined : (colorOf(feedback) ?? (state !== 'off' ? '#ffffff' : undefined))
  const rgb = color === undefined ? undefined : hexRgb(color)
  return {
    type,
    red: (rgb?.[0] ?? 0) >= CHANNEL_ON,
    green: (rgb?.[1] ?? 0) >= CHANNEL_ON,
    blue: (rgb?.[2] ?? 0) >= CHANNEL_ON,
  }
}

/** The page mirror's rule for a button's light: what `buttonLight` makes the panel show. */
function mirrorRule(type: 'on-off' | 'rgb'): LightRule {
  return (feedback) => {
    const light = buttonLight(type, feedback)
    if (light.type === 'on-off') return light.on ? { color: ONE_COLOUR_LED, blink: false } : undefined
    if (!light.red && !light.green && !light.blue) return undefined
    const hex = (on: boolean): string => (on ? 'ff' : '00')
    return { color: `#${hex(light.red)}${hex(light.green)}${hex(light.blue)}`, blink: false }
  }
}

/** How a panel's lights look on the page: as the panel shows them (steady, RGB channel by channel). */
export function replayEditorLights(description: Pick<SurfaceDescription, 'model'>): LightChooser | undefined {
  const model = BMD_MODELS.find((m) => m.name === description.model)
  if (!model) return undefined
  return (control) => {
    const button = model.buttons.find((b) => b.id === control.id)
    return button && button.feedback !== 'none' ? mirrorRule(button.feedback) : undefined
  }
}
