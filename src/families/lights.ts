/**
 * Lights: what a backlight or LED shows for a feedback. The common rules live here (an RGB light shows
 * its colour; a one-colour LED lights by `led`, else by a bright enough colour); a family whose device
 * lights differently (X-keys' blue and red LEDs, MIDI pads that show their idle colour when off) gives
 * its own rules in a file of its own, listed in FAMILY_LIGHTS (`index.ts`). The web mirror draws with them, so the page
 * shows what the panel shows rather than what the engine asked for.
 */
import { parseColor } from '../face/key-paint.js'
import type { Feedback } from '../face/feedback.js'
import type { ControlDescriptor } from '../face/surface.js'

/**
 * ASSUMED (issue 22: a stale key is never shown in its last on-air colour): what a backlight or LED is
 * given for a feedback. A stale one (`badge: 'stale'`: the application is gone, so the state it showed
 * is unknown) is dark: a light has no picture to dim and hatch as a key's, and its last colour (a red
 * tally, a lit "on air") would say what is no longer known. Its value (a ring, a meter) is kept: that is
 * the control's own position. The manager gives it to every control that has a light and no image,
 * and the web mirror draws its lights from it, so the page shows what the panel shows.
 */
export function lightFeedback(feedback: Feedback): Feedback {
  if (feedback.badge !== 'stale') return feedback
  const { color: _color, ...rest } = feedback
  return { ...rest, led: 'off' }
}

/** Whether a control shows feedback by a light only (a backlight or LED, no image): `lightFeedback` is its. */
export function lightOnly(control: ControlDescriptor): boolean {
  const { image, rgb, led } = control.capabilities
  return image === undefined && (rgb === true || led === true)
}

/** A lit light: its colour and whether it blinks. */
export interface Light {
  /** `#rrggbb`, never black (a black light is a dark one). */
  color: string
  blink: boolean
}

/** The light a feedback gives one control; undefined when it is dark. */
export type LightRule = (feedback: Feedback) => Light | undefined

/** A family's light rule for a control of one of its surfaces; undefined: the common rule. */
export type LightChooser = (control: ControlDescriptor) => LightRule | undefined

export type LedState = 'off' | 'on' | 'blink'

/** White: an RGB light asked to be on without a colour. */
export const WHITE_LIGHT = '#ffffff'
/** How a one-colour LED is drawn when lit: its colour is not in the device's description. */
export const ONE_COLOUR_LED = '#ffc940'

/**
 * Below this relative luminance (0..1) a colour counts as unlit for a one-colour LED whose feedback
 * gives no LED state: the engine's "unlit" grey (#202020) must not light it.
 */
const LIT_LUMINANCE = 0.25

type Rgb = readonly [number, number, number]

/** `#rrggbb` (exactly) as its channels; undefined for anything else. */
export function hexRgb(color: string): [number, number, number] | undefined {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color)
  return m ? [parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16)] : undefined
}

function luminance(color: string): number {
  const c = hexRgb(color)
  return c ? (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255 : 0
}

/** The LED state a feedback asks for: its `led`, else lit when its colour is bright enough. */
export function ledStateOf(feedback: Feedback): LedState {
  if (feedback.led !== undefined) return feedback.led
  return feedback.color !== undefined && luminance(feedback.color) >= LIT_LUMINANCE ? 'on' : 'off'
}

const hex = (rgb: Rgb): string => '#' + rgb.map((v) => v.toString(16).padStart(2, '0')).join('')
const isBlack = (rgb: Rgb): boolean => rgb[0] === 0 && rgb[1] === 0 && rgb[2] === 0

/** A light of this colour, or none for no colour. */
export function lit(color: string | undefined, blink: boolean): Light | undefined {
  return color === undefined ? undefined : { color, blink }
}

/** The colour of a feedback as `#rrggbb`, undefined for none, a malformed one or black. */
export function colorOf(feedback: Feedback): string | undefined {
  const rgb = parseColor(feedback.color)
  return rgb && !isBlack(rgb) ? hex(rgb) : undefined
}

/** An RGB light that shows its colour unless its LED is off (X-keys RGB panels, Stream Deck buttons). */
export const rgbLight: LightRule = (fb) => {
  if (fb.led === 'off') return undefined
  return lit(colorOf(fb) ?? (fb.led !== undefined ? WHITE_LIGHT : undefined), fb.led === 'blink')
}

/** A one-colour LED, lit by `led` or by a bright enough colour. */
export const oneColourLed: LightRule = (fb) => {
  const state = ledStateOf(fb)
  return state === 'off' ? undefined : { color: ONE_COLOUR_LED, blink: state === 'blink' }
}
