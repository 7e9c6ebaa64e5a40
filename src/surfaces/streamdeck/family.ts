/**
 * The Stream Deck family, surface side (see `../driver-family.ts`): its driver, its model table (the
 * library's `DEVICE_MODELS2`, USB models only) and its udev entries. The mapping side is
 * `src/mappings/drivers/streamdeck.ts`.
 */
import { modelControlsOf, type DriverFamily } from '../driver-family.js'
import { deviceBytesCached } from './device-bytes.js'
import { StreamDeckDriver, type StreamDeckDriverOptions } from './driver.js'
import { streamdeckModels } from '../../families/streamdeck.js'

export const streamdeckFamily: DriverFamily<StreamDeckDriverOptions> = {
  create: (options, shared) => ({
    driver: new StreamDeckDriver({ ...options, renderer: shared.renderer ?? options?.renderer }),
    controlsOf: modelControlsOf(streamdeckModels),
  }),
  models: streamdeckModels,
  cachedImageBytes: deviceBytesCached,
}
