/**
 * The Contour Shuttle family, surface side (see `../driver-family.ts`): its driver, its model table
 * (the library's `PRODUCTS`), where its controls sit on its face (`face.ts`) and its udev entries. The mapping side is `src/mappings/drivers/shuttle.ts`.
 */
import { modelControlsOf, type DriverFamily } from '../driver-family.js'
import { ShuttleDriver, type ShuttleDriverOptions } from './driver.js'
import { shuttleFace } from '../../families/shuttle-face.js'
import { SHUTTLE_MODELS, shuttleModels } from '../../families/shuttle.js'

export const shuttleFamily: DriverFamily<ShuttleDriverOptions> = {
  create: (options) => ({ driver: new ShuttleDriver(options), controlsOf: modelControlsOf(shuttleModels) }),
  models: shuttleModels,
  face: shuttleFace,
  udev: () =>
    SHUTTLE_MODELS.map((m) => ({ name: `Contour ${m.name}`, vendorId: m.vendorId, productIds: [m.productId] })),
}
