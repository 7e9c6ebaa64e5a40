/**
 * The controls of each Stream Deck model as a browser deck has them, known without a device: the
 * library's model factory over an inert HID device (its control table is static: nothing is read or
 * written), mapped to the same control ids (`controlsOfDeck`, `streamdeck.ts`) a USB deck of that model has (`key:N` for a key with a
 * display or a backlight, `button:N` without, `encoder:N`, `lcd:N` per strip segment), so a binding
 * moves between `driver: streamdeck` and `driver: browser-deck` unchanged.
 *
 * This table is also the bound on what a page may register: a model id it lacks is refused, and a
 * registered deck has exactly its model's controls, whatever the page says.
 */
import { DEVICE_MODELS2, DeviceModelId, DeviceModelType, MODEL_NAMES } from '@elgato-stream-deck/core'
import type { FamilyFacts, ModelTable } from './family.js'
import { controlsOfDeck, inertDeck } from './streamdeck.js'
import type { ControlDescriptor } from '../face/surface.js'

/** A browser deck's model as the daemon keeps it. */
export interface BrowserDeckModel {
  id: string
  name: string
  controls: readonly ControlDescriptor[]
  /** The key grid, as a USB deck of the model describes it. */
  grid?: { rows: number; columns: number }
}

/** The model ids a browser deck may be (USB decks: the library's ids but the Network Dock's). */
const BROWSER_DECK_MODEL_IDS: readonly string[] = Object.values(DeviceModelId).filter(
  (id) => DEVICE_MODELS2[id].type !== DeviceModelType.NETWORK_DOCK,
)

const cache = new Map<string, Promise<BrowserDeckModel>>()

/** A model by its id (`xl`, `mk2`, ...); undefined for an id the table lacks. */
export function browserDeckModel(id: string): Promise<BrowserDeckModel> | undefined {
  if (!BROWSER_DECK_MODEL_IDS.includes(id)) return undefined
  let found = cache.get(id)
  if (!found) {
    found = (async () => {
      const deck = await inertDeck(id as DeviceModelId)
      const { controls, grid } = controlsOfDeck(deck)
      // Closing stops the library's own timers (the Galleon's keeps the process alive otherwise).
      await deck.close().catch(() => undefined)
      return { id, name: MODEL_NAMES[id as DeviceModelId], controls, ...(grid ? { grid } : {}) }
    })()
    cache.set(id, found)
  }
  return found
}

/** The browser deck model table (its family's `models`). */
export const browserDeckModels: ModelTable = {
  label: 'Stream Deck (browser)',
  ids: BROWSER_DECK_MODEL_IDS,
  controlsOf: async (id) => (await browserDeckModel(id))?.controls,
  nameOf: async (id) => (await browserDeckModel(id))?.name,
}

export const browserDeckFacts: FamilyFacts = { models: browserDeckModels }
