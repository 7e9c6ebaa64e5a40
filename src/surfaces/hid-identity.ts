/**
 * Identity and detection records of USB HID devices, shared by every HID driver (Stream Deck, Contour
 * Shuttle, X-keys): one rule for how a device is told apart, so that a device keeps its name, feedback
 * and back-off whichever driver found it.
 *
 * X-keys panels carry a unit id (0..255, set by the user, 0 from the factory) because identical panels
 * often report the same serial number or none; where the driver knows it, it is part of the identity.
 */
import type { DetectedDevice } from './types.js'

/** A USB vendor or product id as udev and lsusb write it: four lower-case hex digits. */
export const hex4 = (n: number): string => n.toString(16).padStart(4, '0')

/** What a HID listing tells of a device before it is opened. */
export interface HidListing {
  path: string
  vendorId: number
  productId: number
  serialNumber?: string
  /** The panel's unit id, for devices that have one (X-keys). */
  unitId?: number
}

/**
 * Stable identity: the serial number, else `vendor:product@path` in hex; then `#unitN` where the device
 * has a unit id (`SAME#unit3` and `SAME#unit7` are two panels).
 */
export function hidIdentity(l: HidListing): string {
  const base =
    l.serialNumber && l.serialNumber.trim() !== ''
      ? l.serialNumber.trim()
      : `${hex4(l.vendorId)}:${hex4(l.productId)}@${l.path}`
  return l.unitId === undefined ? base : `${base}#unit${l.unitId}`
}

/** The detection record of a listed device whose model the driver recognised. */
export function detectedHid(driver: string, l: HidListing, model: { id: string; name: string }): DetectedDevice {
  return {
    driver,
    id: hidIdentity(l),
    model: model.name,
    modelId: model.id,
    vendorId: l.vendorId,
    productId: l.productId,
    path: l.path,
    ...(l.serialNumber ? { serial: l.serialNumber } : {}),
    ...(l.unitId !== undefined ? { unitId: l.unitId } : {}),
  }
}
