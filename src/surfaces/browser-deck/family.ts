/**
 * The browser-deck family, surface side (see `../driver-family.ts`): a Stream Deck plugged into the
 * machine of a browser showing the daemon's page, opened by the page script through WebHID and
 * registered over the page's WebSocket (issue 26.2). Its driver lists the registered decks, its
 * hot-plug source is their registrations, and its page-device port is what the web server hands
 * deck messages to. The mapping side is `src/mappings/drivers/browser-deck.ts`.
 */
import type { DriverFamily } from '../driver-family.js'
import { BrowserDeckDriver, type BrowserDeckDriverOptions } from './driver.js'
import { browserDeckModels } from '../../families/browser-deck.js'
import { unclaimedDecks } from './unclaimed.js'

export const browserDeckFamily: DriverFamily<BrowserDeckDriverOptions> = {
  create: (options, shared) => {
    const renderer = shared.renderer ?? options?.renderer
    const driver = new BrowserDeckDriver({ ...options, ...(renderer ? { renderer } : {}) })
    return {
      driver,
      controlsOf: (device) =>
        device.modelId !== undefined ? browserDeckModels.controlsOf(device.modelId) : Promise.resolve(undefined),
    }
  },
  models: browserDeckModels,
  hotplug: (driver) => (driver instanceof BrowserDeckDriver ? driver.hub.hotplug() : undefined),
  pageDevices: (driver) => (driver instanceof BrowserDeckDriver ? driver.hub : undefined),
  unclaimedDevices: (driver) => (driver instanceof BrowserDeckDriver ? unclaimedDecks(driver.hub) : undefined),
}
