/**
 * The X-keys family, surface side (see `../driver-family.ts`): its driver, its model table (the
 * library's `PRODUCTS`), how its backlights look, and its udev entry (by vendor: the library knows more
 * product ids than any list here would). The mapping side is `src/mappings/drivers/xkeys.ts`.
 */
import { XKEYS_VENDOR_ID } from '@xkeys-lib/core'
import { modelControlsOf, type DriverFamily } from '../driver-family.js'
import { XkeysDriver, type XkeysDriverOptions } from './driver.js'
import { xkeysLights } from '../../families/xkeys-lights.js'
import { xkeysModels } from '../../families/xkeys.js'

export const xkeysFamily: DriverFamily<XkeysDriverOptions> = {
  create: (options) => ({ driver: new XkeysDriver(options), controlsOf: modelControlsOf(xkeysModels) }),
  models: xkeysModels,
  lights: xkeysLights,
  udev: () => [{ name: 'P.I. Engineering X-keys', vendorId: XKEYS_VENDOR_ID }],
}
