/**
 * The Stream Deck family, as data: the USB models a config may name and the controls of each, known
 * without a device (the YAML loader checks `desk/key:40` against the model the config names), and the
 * USB ids its udev rules open. The library's model factory builds a deck over an inert HID device (its
 * control table is static; nothing is read or written), and `controlsOfDeck` maps its controls to
 * control ids exactly as an opened deck's surface does (`src/surfaces/streamdeck/surface.ts`; a test
 * holds the two equal for every model).
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
import { controlId } from '../face/control-id.js'
import type { FamilyFacts, ModelTable } from './family.js'
import type { ControlDescriptor } from '../face/surface.js'

/** Whether a model is a USB device (the network dock is reached over TCP; its product id is not real). */
export function isUsbDeckModel(model: DeviceModelId): boolean {
  return DEVICE_MODELS2[model].type !== DeviceModelType.NETWORK_DOCK
}

/** The model ids a config may name (the library's `DeviceModelId` values, USB models only). */
export const STREAMDECK_MODEL_IDS: readonly string[] = Object.values(DeviceModelId).filter((id) => isUsbDeckModel(id))

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

/** A model's deck built over an inert HID device, for its control table and product name. */
export async function inertDeck(model: DeviceModelId): Promise<StreamDeck> {
  return DEVICE_MODELS2[model].factory(new InertHid() as unknown as HIDDevice, {
    encodeJPEG: () => Promise.resolve(new Uint8Array()),
  })
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

/** What a model's deck says of itself without a device: its product name and controls. */
interface DeckModel {
  name: string
  controls: readonly ControlDescriptor[]
}

const cache = new Map<string, Promise<DeckModel>>()

/** The controls of a model by its id (`plus`, `xl`, ...); undefined for an id the library lacks. */
export function streamDeckModelControls(model: string): Promise<readonly ControlDescriptor[]> | undefined {
  return deckModel(model)?.then((m) => m.controls)
}

/** The product name of a model by its id (`xl` → `Stream Deck XL`); undefined for an id the library lacks. */
export function streamDeckModelName(model: string): Promise<string> | undefined {
  return deckModel(model)?.then((m) => m.name)
}

function deckModel(model: string): Promise<DeckModel> | undefined {
  if (!STREAMDECK_MODEL_IDS.includes(model)) return undefined
  let found = cache.get(model)
  if (!found) {
    found = (async () => {
      const deck = await inertDeck(model as DeviceModelId)
      const { controls } = controlsOfDeck(deck)
      // Closing stops the library's own timers (the Galleon's keeps the process alive otherwise).
      await deck.close().catch(() => undefined)
      return { name: deck.PRODUCT_NAME, controls }
    })()
    cache.set(model, found)
  }
  return found
}

/** The Stream Deck model table (its family's `models`). */
export const streamdeckModels: ModelTable = {
  label: 'Stream Deck',
  ids: STREAMDECK_MODEL_IDS,
  controlsOf: (id) => Promise.resolve(streamDeckModelControls(id)),
  nameOf: (id) => Promise.resolve(streamDeckModelName(id)),
}

export const streamdeckFacts: FamilyFacts = {
  models: streamdeckModels,
  udev: () =>
    Object.values(DeviceModelId)
      .filter(isUsbDeckModel)
      .map((id) => ({
        name: MODEL_NAMES[id],
        vendorId: DEVICE_MODELS2[id].vendorId,
        productIds: [...DEVICE_MODELS2[id].productIds],
      })),
}
