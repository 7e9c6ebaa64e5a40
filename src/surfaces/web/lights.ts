/**
 * What a mirrored backlight or LED shows for a feedback: the colour the device itself lights, worked
 * out with each driver's own rule, so that the page shows what the panel shows rather than what the
 * engine asked for. Server-side only (it reads the drivers' model tables).
 *
 * - X-keys: the library's rule per backlight type (`@xkeys-lib/core` `setBacklight`): RGB panels show
 *   the colour; the older panels have a blue and a red LED under each key, blue lit by any blue in the
 *   colour and red by any red or green, both together showing violet; stick buttons have one LED.
 * - MIDI: the profile's rule (`../midi/feedback.ts`): the LED state is `led`, else lit by a bright
 *   enough colour; an RGB pad shows its colour even when off (the engine's dim idle colour), a
 *   one-colour LED shows `ONE_COLOUR_LED` when lit.
 * - Any other driver: an RGB light shows the colour unless `led` is off; an LED is lit as MIDI's is.
 */
import { BackLightType } from '@xkeys-lib/core'
import { ledStateOf } from '../midi/feedback.js'
import { parseColor } from '../render/key-paint.js'
import type { ControlDescriptor, Feedback, SurfaceDescription } from '../types.js'
import { XKEYS_MODELS } from '../xkeys/models.js'
import { backlightOf } from '../xkeys/surface.js'
import { widgetOf } from './protocol.js'

/** A lit light: its colour and whether it blinks. */
export interface Light {
  /** `#rrggbb`, never black (a black light is a dark one). */
  color: string
  blink: boolean
}

/** The light a feedback gives one control; undefined when it is dark. */
export type LightRule = (feedback: Feedback) => Light | undefined

/** White: an RGB light asked to be on without a colour. */
export const WHITE_LIGHT = '#ffffff'
/** How a one-colour LED is drawn when lit: its colour is not in the device's description. */
export const ONE_COLOUR_LED = '#ffc940'
/** The older X-keys panels' blue and red backlights, and both lit at once. */
export const XKEYS_BLUE = '#2f6bff'
export const XKEYS_RED = '#ff3030'
export const XKEYS_BLUE_AND_RED = '#c050ff'

type Rgb = readonly [number, number, number]

const hex = (rgb: Rgb): string => '#' + rgb.map((v) => v.toString(16).padStart(2, '0')).join('')
const isBlack = (rgb: Rgb): boolean => rgb[0] === 0 && rgb[1] === 0 && rgb[2] === 0

function lit(color: string | undefined, blink: boolean): Light | undefined {
  return color === undefined ? undefined : { color, blink }
}

/** The colour of a feedback as `#rrggbb`, undefined for none, a malformed one or black. */
function colorOf(feedback: Feedback): string | undefined {
  const rgb = parseColor(feedback.color)
  return rgb && !isBlack(rgb) ? hex(rgb) : undefined
}

/** An RGB light that shows its colour unless its LED is off (X-keys RGB panels, Stream Deck buttons). */
const rgbLight: LightRule = (fb) => {
  if (fb.led === 'off') return undefined
  return lit(colorOf(fb) ?? (fb.led !== undefined ? WHITE_LIGHT : undefined), fb.led === 'blink')
}

/** A one-colour LED, lit by `led` or by a bright enough colour (the MIDI rule). */
const oneColourLed: LightRule = (fb) => {
  const state = ledStateOf(fb)
  return state === 'off' ? undefined : { color: ONE_COLOUR_LED, blink: state === 'blink' }
}

/** A MIDI RGB pad: its colour in every state (the idle colour when off), white when lit without one. */
const midiRgbPad: LightRule = (fb) => {
  const state = ledStateOf(fb)
  return lit(colorOf(fb) ?? (state === 'off' ? undefined : WHITE_LIGHT), state === 'blink')
}

function xkeysRule(type: BackLightType): LightRule | undefined {
  switch (type) {
    case BackLightType.NONE:
      return undefined
    case BackLightType.REMAP_24:
    case BackLightType.RGBx2:
      return (fb) => {
        const { color, flashing } = backlightOf(fb)
        return lit(color === '000000' ? undefined : `#${color}`, flashing)
      }
    case BackLightType.STICK_BUTTONS:
      // One LED per key, lit by any colour; drawn blue, the library's colour for a plain "on".
      return (fb) => {
        const { color, flashing } = backlightOf(fb)
        return lit(color === '000000' ? undefined : XKEYS_BLUE, flashing)
      }
    case BackLightType.LEGACY:
    case BackLightType.LINEAR:
      return (fb) => {
        const { color, flashing } = backlightOf(fb)
        const [r, g, b] = parseColor(`#${color}`) ?? [0, 0, 0]
        const red = r > 0 || g > 0
        const blue = b > 0
        return lit(red && blue ? XKEYS_BLUE_AND_RED : blue ? XKEYS_BLUE : red ? XKEYS_RED : undefined, flashing)
      }
  }
}

/**
 * The light rule of each pad that has a light (an RGB backlight or an LED), for one surface. Other
 * controls are left out.
 */
export function lightRules(
  description: Pick<SurfaceDescription, 'driver' | 'model' | 'controls'>,
): Map<string, LightRule> {
  const rules = new Map<string, LightRule>()
  // The X-keys description names the model; its table knows the backlight type the library writes by.
  const xkeys =
    description.driver === 'xkeys' ? XKEYS_MODELS.find((m) => m.name === description.model)?.product : undefined
  const xkeysLight = xkeys && xkeysRule(xkeys.backLightType)
  for (const c of description.controls) {
    const rule = ruleOf(description.driver, c, xkeysLight)
    if (rule) rules.set(c.id, rule)
  }
  return rules
}

function ruleOf(driver: string, c: ControlDescriptor, xkeysLight: LightRule | undefined): LightRule | undefined {
  const { rgb, led } = c.capabilities
  if (widgetOf(c) !== 'pad' || (!rgb && !led)) return undefined
  if (driver === 'xkeys' && c.kind === 'key') return xkeysLight ?? (rgb ? rgbLight : oneColourLed)
  if (driver === 'midi') return rgb ? midiRgbPad : oneColourLed
  return rgb ? rgbLight : oneColourLed
}
