/**
 * The controls of each Stream Deck model as a browser deck has them, known without a device: the
 * library's model factory over an inert HID device (its control table is static: nothing is read or
 * written), mapped to the same control ids a USB deck of that model has (`key:N` for a key with a
 * display or a backlight, `button:N` without, `encoder:N`, `lcd:N` per strip segment), so a binding
 * moves between `driver: streamdeck` and `driver: browser-deck` unchanged.
 *
 * This table is also the bound on what a page may register: a model id it lacks is refused, and a
 * registered deck has exactly its model's controls, whatever the page says.
 */
import {
  DEVICE_MODELS2,
  DeviceModelId,
  DeviceModelType,
  MODEL_NAMES,
  type HIDDevice,
  type StreamDeck,
} from '@elgato-stream-deck/core'
import { EventEmitter } from 'eventemitter3'
import { controlId } from '../../face/control-id.js'
import type { ModelTable } from '../driver-family.js'
import type { ControlDescriptor } from '../types.js'

/** A browser deck's model as the daemon keeps it. */
export interface BrowserDeckModel {
  id: string
  name: string
  controls: readonly ControlDescriptor[]
  /** The key grid, as a USB deck of the model describes it. */
  grid?: { rows: number; columns: number }
}

/** The model ids a browser deck may be (USB decks: the library's ids but the Network Dock's). */
export const BROWSER_DECK_MODEL_IDS: readonly string[] = Object.values(DeviceModelId).filter(
  (id) => DEVICE_MODELS2[id].type !== DeviceModelType.NETWORK_DOCK,
)

/** A HID device that answers every call and sends nothing: enough for the factory to build a deck. */
class InertHid extends EventEmitter {
  close = (): Promise<void> => Promise.resolve()
  sendFeatureReport = (): Promise<void> => Promise.resolve()
  getFeatureReport = (_reportId: number, length: number): Promise<Uint8Array> =>
    Promise.resolve(new Uint8Array(Math.max(0, length)))
  sendReports = (): Promise<void> => Promise.resolve()
  getDeviceInfo = (): ReturnType<HIDDevice['getDeviceInfo']> =>
    Promise.resolve({ path: 'inert', productId: 0, vendorId: 0 })
  getChildDeviceInfo = (): ReturnType<HIDDevice['getChildDeviceInfo']> => Promise.resolve(null)
}

/** The control descriptors of a deck's control table, in the USB deck's ids. */
export function controlsOfDeck(deck: Pick<StreamDeck, 'CONTROLS'>): {
  controls: ControlDescriptor[]
  grid?: { rows: number; columns: number }
} {
  const controls: ControlDescriptor[] = []
  let rows = 0
  let columns = 0
  let segments = 0
  for (const c of deck.CONTROLS) {
    if (c.type === 'button') {
      const kind = c.feedbackType === 'none' ? 'button' : 'key'
      const capabilities =
        c.feedbackType === 'lcd' ? { image: { ...c.pixelSize } } : c.feedbackType === 'rgb' ? { rgb: true } : {}
      controls.push({ id: controlId(kind, c.index), kind, row: c.row, column: c.column, capabilities })
      if (kind === 'key') {
        rows = Math.max(rows, c.row + 1)
        columns = Math.max(columns, c.column + 1)
      }
    } else if (c.type === 'encoder') {
      const capabilities = c.hasLed || c.ledRingSteps > 0 ? { rgb: true } : {}
      controls.push({ id: controlId('encoder', c.index), kind: 'encoder', row: c.row, column: c.column, capabilities })
    } else {
      // As the USB deck: a strip that takes region writes is one segment per key column under it.
      const count = c.drawRegions ? Math.max(1, c.columnSpan) : 1
      const width = Math.floor(c.pixelSize.width / count)
      for (let i = 0; i < count; i++) {
        controls.push({
          id: controlId('lcd', segments++),
          kind: 'lcd',
          row: c.row,
          column: c.column + (count > 1 ? i : 0),
          capabilities: { image: { width, height: c.pixelSize.height } },
        })
      }
    }
  }
  return { controls, ...(rows > 0 ? { grid: { rows, columns } } : {}) }
}

const cache = new Map<string, Promise<BrowserDeckModel>>()

/** A model by its id (`xl`, `mk2`, ...); undefined for an id the table lacks. */
export function browserDeckModel(id: string): Promise<BrowserDeckModel> | undefined {
  if (!BROWSER_DECK_MODEL_IDS.includes(id)) return undefined
  let found = cache.get(id)
  if (!found) {
    found = (async () => {
      const deck = await DEVICE_MODELS2[id as DeviceModelId].factory(new InertHid() as unknown as HIDDevice, {
        encodeJPEG: () => Promise.resolve(new Uint8Array()),
      })
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
