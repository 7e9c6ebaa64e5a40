/**
 * The thin transport for Stream Decks: list HID devices and open one as a `HIDDevice` of
 * `@elgato-stream-deck/core`. Everything that speaks the protocol lives in `surface.ts` and `driver.ts`
 * and builds the deck with the library's own model factory, so tests swap only this file's interface for
 * an in-memory `HIDDevice`.
 */
import type { HIDDevice } from '@elgato-stream-deck/core'
import { DEVICE_MODELS2, DeviceModelId, type DeviceModelSpec } from '@elgato-stream-deck/core'
import { lateImport } from '../../installed.js'
import type { HidListing, HidTransport } from '../usb-hid/identity.js'

export { hex4 } from '../usb-hid/identity.js'

export { isUsbDeckModel } from '../../families/streamdeck.js'

/** One HID device that the model table recognises as a Stream Deck. */
export type StreamDeckListing = HidListing & { model: DeviceModelId }

/** What the driver needs from the operating system. */
export type StreamDeckTransport = HidTransport<StreamDeckListing, HIDDevice>

/** Finds the model for a vendor/product pair (and HID usage/interface where the model needs them). */
export function findModel(
  vendorId: number,
  productId: number,
  usage?: number,
  iface?: number,
): { id: DeviceModelId; spec: Omit<DeviceModelSpec, 'id' | 'productName'> } | undefined {
  for (const id of Object.values(DeviceModelId)) {
    const spec = DEVICE_MODELS2[id]
    if (spec.vendorId !== vendorId || !spec.productIds.includes(productId)) continue
    if (spec.hidUsage !== undefined && usage !== undefined && spec.hidUsage !== usage) continue
    if (spec.hidInterface !== undefined && iface !== undefined && spec.hidInterface !== iface) continue
    return { id, spec }
  }
  return undefined
}

/** The production transport over node-hid (loaded on first use, so a machine without it still starts). */
export function nodeHidTransport(): StreamDeckTransport {
  return {
    async list() {
      const HID = await lateImport('node-hid', () => import('node-hid'))
      const out = new Map<string, StreamDeckListing>()
      for (const dev of await HID.devicesAsync()) {
        if (!dev.path || out.has(dev.path)) continue
        const found = findModel(dev.vendorId, dev.productId, dev.usage, dev.interface)
        if (!found) continue
        out.set(dev.path, {
          path: dev.path,
          model: found.id,
          vendorId: dev.vendorId,
          productId: dev.productId,
          ...(dev.serialNumber ? { serialNumber: dev.serialNumber } : {}),
        })
      }
      return [...out.values()]
    },
    async open(path) {
      const HID = await lateImport('node-hid', () => import('node-hid'))
      // The library's own node-hid wrapper: one write queue, input reports with the report id stripped.
      const { NodeHIDDevice } = await lateImport(
        '@elgato-stream-deck/node',
        () => import('@elgato-stream-deck/node/dist/hid-device.js'),
      )
      const hid = await HID.HIDAsync.open(path)
      return new NodeHIDDevice(hid)
    },
  }
}
