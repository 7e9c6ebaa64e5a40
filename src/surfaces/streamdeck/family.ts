/**
 * The Stream Deck family, surface side (see `../driver-family.ts`): its driver, its model table (the
 * library's `DEVICE_MODELS2`, USB models only) and its udev entries. The mapping side is
 * `src/mappings/drivers/streamdeck.ts`.
 */
import { DEVICE_MODELS2, DeviceModelId, MODEL_NAMES } from '@elgato-stream-deck/core'
import { modelControlsOf, type DriverFamily } from '../driver-family.js'
import { deviceBytesCached } from './device-bytes.js'
import { StreamDeckDriver, type StreamDeckDriverOptions } from './driver.js'
import { streamdeckModels } from './models.js'
import { isUsbDeckModel } from './transport.js'

export const streamdeckFamily: DriverFamily<StreamDeckDriverOptions> = {
  create: (options, shared) => ({
    driver: new StreamDeckDriver({ ...options, renderer: shared.renderer ?? options?.renderer }),
    controlsOf: modelControlsOf(streamdeckModels),
  }),
  models: streamdeckModels,
  cachedImageBytes: deviceBytesCached,
  udev: () =>
    Object.values(DeviceModelId)
      .filter(isUsbDeckModel)
      .map((id) => ({
        name: MODEL_NAMES[id],
        vendorId: DEVICE_MODELS2[id].vendorId,
        productIds: [...DEVICE_MODELS2[id].productIds],
      })),
}
