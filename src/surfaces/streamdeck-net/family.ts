/**
 * The network Stream Deck family, surface side (see `../driver-family.ts`): its driver, which takes the
 * mapping file's `streamdeck-net` entries (the addresses to keep connected) and is its own hot-plug
 * source (a deck up or gone), and its model table. A network deck is a Stream Deck: the Studio, or the
 * deck plugged into a Network Dock, so the model table, the lights and the surface are the USB decks'
 * (`../streamdeck/`), fed a deck that `@elgato-stream-deck/tcp` built. The mapping side is
 * `src/mappings/drivers/streamdeck-net.ts`.
 */
import type { DriverFamily } from '../driver-family.js'
import {
  StreamDeckNetDriver,
  netDeviceBytesCached,
  type NetDeckConfig,
  type StreamDeckNetDriverOptions,
} from './driver.js'
import { netDeckModels } from '../../families/streamdeck-net.js'

export const streamdeckNetFamily: DriverFamily<StreamDeckNetDriverOptions, NetDeckConfig> = {
  create: (options, shared) => {
    const driver = new StreamDeckNetDriver({
      ...options,
      ...(shared.renderer !== undefined ? { renderer: shared.renderer } : {}),
      ...(shared.passive !== undefined ? { passive: options?.passive ?? shared.passive } : {}),
    })
    return {
      driver,
      controlsOf: (device) =>
        device.modelId !== undefined ? netDeckModels.controlsOf(device.modelId) : Promise.resolve(undefined),
    }
  },
  models: netDeckModels,
  configure(driver, entries) {
    if (driver instanceof StreamDeckNetDriver) driver.configure(entries)
  },
  // The driver's class, not its name: a wrapper (learn's recording driver) has no connections of its own.
  hotplug: (driver) => (driver instanceof StreamDeckNetDriver ? driver.hotplug : undefined),
  cachedImageBytes: netDeviceBytesCached,
}
