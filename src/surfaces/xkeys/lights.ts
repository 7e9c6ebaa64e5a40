/**
 * How an X-keys panel's backlights look (the web mirror draws them so): the library's rule per
 * backlight type (`@xkeys-lib/core` `setBacklight`). RGB panels show the colour; the older panels have a
 * blue and a red LED under each key, blue lit by any blue in the colour and red by any red or green, both
 * together showing violet; stick buttons have one LED.
 */
import { BackLightType } from '@xkeys-lib/core'
import { lit, type LightChooser, type LightRule } from '../lights.js'
import { parseColor } from '../../face/key-paint.js'
import type { SurfaceDescription } from '../types.js'
import { XKEYS_MODELS } from './models.js'
import { backlightOf } from './surface.js'

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
