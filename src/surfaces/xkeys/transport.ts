/**
 * The thin transport for X-keys: list HID devices and open one as a `HIDDevice` of `@xkeys-lib/core`.
 * Everything that speaks the protocol lives in `surface.ts` and `driver.ts` and builds the library's own
 * `XKeys` over that device, so tests swap only this file's interface for an in-memory `HIDDevice`.
 */
import type { HIDDevice } from '@xkeys-lib/core'
import { lateImport } from '../../installed.js'
import { listNodeHid, type HidListing, type HidTransport } from '../usb-hid/identity.js'
import { findXkeysModel, type XkeysModel } from '../../families/xkeys.js'

/**
 * One HID device that the model table recognises as an X-keys panel, with its USB interface (the library
 * picks its product by product id and interface).
 */
export type XkeysListing = HidListing & { model: XkeysModel; interface: number }

/** What the driver needs from the operating system. */
export type XkeysTransport = HidTransport<XkeysListing, HIDDevice>

/** The production transport over node-hid (loaded on first use, so a machine without it still starts). */
export function nodeHidXkeysTransport(): XkeysTransport {
  return {
    async list() {
      const listed = await listNodeHid(findXkeysModel)
      return listed.map((l) => ({ ...l, interface: l.model.hidDevices.find(([pid]) => pid === l.productId)![1] }))
    },
    async open(path) {
      const HID = await lateImport('node-hid', () => import('node-hid'))
      // The library's own node-hid wrapper: a write queue and `flush()`, input reports as Buffers.
      const { NodeHIDDevice } = await lateImport('xkeys', () => import('xkeys/dist/node-hid-wrapper.js'))
      const hid = await HID.HIDAsync.open(path)
      return new NodeHIDDevice(hid)
    },
  }
}
