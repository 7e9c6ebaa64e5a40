/**
 * How an X-keys panel's backlights look: the library's rule per backlight type (`@xkeys-lib/core`
 * `setBacklight`), which the driver lights by (`backlightOf`) and the web mirror draws. RGB panels show
 * the colour; the older panels have a blue and a red LED under each key, blue lit by any blue in the
 * colour and red by any red or green, both together showing violet; stick buttons have one LED.
 *
 * Apart from the models (`xkeys.ts`): the config loader takes those, and no light rule with them.
 */
import { BackLightType } from '@xkeys-lib/core'
import { parseColor } from '../face/key-paint.js'
import type { Feedback } from '../face/feedback.js'
import type { SurfaceDescription } from '../face/surface.js'
import { lit, type LightChooser, type LightRule } from './lights.js'
import { XKEYS_MODELS } from './xkeys.js'

const hex2 = (n: number): string => n.toString(16).padStart(2, '0')

/** The backlight a feedback asks for: `rrggbb` and whether it flashes. */
export function backlightOf(fb: Feedback): { color: string; flashing: boolean } {
  if (fb.led === 'off') return { color: '000000', flashing: false }
  const rgb = parseColor(fb.color) ?? (fb.led === 'on' || fb.led === 'blink' ? ([255, 255, 255] as const) : undefined)
  if (!rgb) return { color: '000000', flashing: false }
  return { color: rgb.map(hex2).join(''), flashing: fb.led === 'blink' }
}

/** The older X-keys panels' blue and red backlights, and both lit at once. */
export const XKEYS_BLUE = '#2f6bff'
export const XKEYS_RED = '#ff3030'
export const XKEYS_BLUE_AND_RED = '#c050ff'

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
 * The keys' light rule of a panel, by the backlight type of its model (the description names the
 * model; the table knows the type the library writes by). Other controls, and a model without
 * backlights, take the common rule.
 */
export function xkeysLights(description: Pick<SurfaceDescription, 'model'>): LightChooser | undefined {
  const product = XKEYS_MODELS.find((m) => m.name === description.model)?.product
  const rule = product && xkeysRule(product.backLightType)
  return rule && ((control) => (control.kind === 'key' ? rule : undefined))
}
