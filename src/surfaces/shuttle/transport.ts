/**
 * The thin transport for Contour Shuttles: list HID devices and open one as a `HIDDevice` of
 * `@shuttle-lib/core`. Everything that reads the device's reports lives in `surface.ts` and builds the
 * library's own `Shuttle` over that device, so tests swap only this file's interface for an in-memory
 * `HIDDevice`.
 */
import type { HIDDevice } from '@shuttle-lib/core'
import { lateImport } from '../../installed.js'
import { listNodeHid, type HidListing, type HidTransport } from '../usb-hid/identity.js'
import { findShuttleModel, type ShuttleModel } from '../../families/shuttle.js'

/** One HID device that the model table recognises as a Contour Shuttle. */
export type ShuttleListing = HidListing & { model: ShuttleModel }

/** What the driver needs from the operating system. */
export type ShuttleTransport = HidTransport<ShuttleListing, HIDDevice>

/** The production transport over node-hid (loaded on first use, so a machine without it still starts). */
export function nodeHidShuttleTransport(): ShuttleTransport {
  return {
    list: () => listNodeHid(findShuttleModel),
    async open(path) {
      const HID = await lateImport('node-hid', () => import('node-hid'))
      // The library's own node-hid wrapper: input reports as they come (these devices use no report id).
      const { NodeHIDDevice } = await lateImport('shuttle-node', () => import('shuttle-node/dist/node-hid-wrapper.js'))
      const hid = await HID.HIDAsync.open(path)
      return new NodeHIDDevice(hid)
    },
  }
}
