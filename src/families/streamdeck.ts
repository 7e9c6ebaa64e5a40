/**
 * The controls of a Stream Deck model, known without a device: the YAML loader checks `desk/key:40`
 * against the model the config names. The library's model factory builds a deck over an inert HID
 * device (its control table is static; nothing is read or written), and the real `StreamDeckSurface`
 * maps it to control ids, so the ids are exactly those of an opened device.
 */
import { DEVICE_MODELS2, DeviceModelId, type HIDDevice } from '@elgato-stream-deck/core'
import { EventEmitter } from 'eventemitter3'
import type { ModelTable } from '../surfaces/driver-family.js'
import { KeyRenderer } from '../surfaces/render/key-renderer.js'
import type { ControlDescriptor } from '../surfaces/types.js'
import { StreamDeckSurface } from '../surfaces/streamdeck/surface.js'
import { isUsbDeckModel } from '../surfaces/streamdeck/transport.js'

/** The model ids a config may name (the library's `DeviceModelId` values, USB models only). */
export const STREAMDECK_MODEL_IDS: readonly string[] = Object.values(DeviceModelId).filter((id) => isUsbDeckModel(id))

/** A HID device that answers every call and sends nothing: enough for the factory to build a deck. */
class InertHid extends EventEmitter {
  close(): Promise<void> {
    return Promise.resolve()
  }
  sendFeatureReport(): Promise<void> {
    return Promise.resolve()
  }
  getFeatureReport(_reportId: number, length: number): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(length))
  }
  sendReports(): Promise<void> {
    return Promise.resolve()
  }
  getDeviceInfo(): ReturnType<HIDDevice['getDeviceInfo']> {
    return Promise.resolve({ path: 'inert', productId: 0, vendorId: 0 })
  }
  getChildDeviceInfo(): ReturnType<HIDDevice['getChildDeviceInfo']> {
    return Promise.resolve(null)
  }
}

/** What a model's deck says of itself without a device: its product name and controls. */
interface DeckModel {
  name: string
  controls: readonly ControlDescriptor[]
}

const cache = new Map<string, Promise<DeckModel>>()
let renderer: KeyRenderer | undefined

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
      const deck = await DEVICE_MODELS2[model as DeviceModelId].factory(new InertHid() as unknown as HIDDevice, {
        encodeJPEG: () => Promise.resolve(new Uint8Array()),
      })
      const surface = new StreamDeckSurface(deck, model, { renderer: (renderer ??= new KeyRenderer()) })
      const { controls, model: name } = surface.description
      // Closing stops the library's own timers (the Galleon's keeps the process alive otherwise).
      await surface.close()
      return { name, controls }
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
