/**
 * The Contour Shuttle family, surface side (see `../driver-family.ts`): its driver. What the family
 * is (its models, face and udev entries) is `src/families/shuttle.ts`; the mapping side is
 * `src/mappings/drivers/shuttle.ts`.
 */
import { modelControlsOf, type DriverFamily } from '../driver-family.js'
import { ShuttleDriver, type ShuttleDriverOptions } from './driver.js'
import { shuttleModels } from '../../families/shuttle.js'

export const shuttleFamily: DriverFamily<ShuttleDriverOptions> = {
  create: (options) => ({ driver: new ShuttleDriver(options), controlsOf: modelControlsOf(shuttleModels) }),
  models: shuttleModels,
}
