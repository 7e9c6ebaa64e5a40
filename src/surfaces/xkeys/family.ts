/**
 * The X-keys family, surface side (see `../driver-family.ts`): its driver. What the family is
 * (its models, backlights and udev entry) is `src/families/xkeys.ts`; the mapping side is `src/mappings/drivers/xkeys.ts`.
 */
import { modelControlsOf, type DriverFamily } from '../driver-family.js'
import { XkeysDriver, type XkeysDriverOptions } from './driver.js'
import { xkeysModels } from '../../families/xkeys.js'

export const xkeysFamily: DriverFamily<XkeysDriverOptions> = {
  create: (options) => ({ driver: new XkeysDriver(options), controlsOf: modelControlsOf(xkeysModels) }),
  models: xkeysModels,
}
