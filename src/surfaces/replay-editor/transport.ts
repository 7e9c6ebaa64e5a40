/**
 * The thin transport for the Blackmagic panels: list HID devices and open one as the `HIDDevice` of
 * `@blackmagic-controller/core`. Everything that reads the device's reports lives in the library, built
 * over that device in `driver.ts`, so tests swap only this file's interface for an in-memory device.
 */
import type { HIDDevice } from '@blackmagic-controller/core'
import { lateImport } from '../../installed.js'
import { listNodeHid, type HidListing, type HidTransport } from '../usb-hid/identity.js'
import { findBmdModel, type BmdModel } from '../../families/replay-editor.js'

/** One HID device that the model table recognises as a Blackmagic panel. */
export type BmdListing = HidListing & { model: BmdModel }

/** What the driver needs from the operating system. */
export type BmdTransport = HidTransport<BmdListing, HIDDevice>

/** The production transport over node-hid (loaded on first use, so a machine without it still starts). */
export function nodeHidBmdTransport(): BmdTransport {
  return {
    list: () => listNodeHid((vendorId, productId) => findBmdModel(vendorId, productId)),
    async open(path) {
      const HID = await lateImport('node-hid', () => import('node-hid'))
      // The library's own node-hid wrapper: input reports as `input`, LED reports through `sendReports`.
      const { NodeHIDDevice } = await lateImport(
        '@blackmagic-controller/node',
        () => import('@blackmagic-controller/node/dist/hid-device.js'),
      )
      return new NodeHIDDevice(await HID.HIDAsync.open(path))
    },
  }
}
