/**
 * Identity and detection records of USB HID devices, shared by every HID driver (Stream Deck, Contour
 * Shuttle, X-keys): one rule for how a device is told apart, so that a device keeps its name, feedback
 * and back-off whichever driver found it.
 *
 * X-keys panels carry a unit id (0..255, set by the user, 0 from the factory) because identical panels
 * often report the same serial number or none; where the driver knows it, it is part of the identity.
 */
import { lateImport } from '../../installed.js'
import type { DetectedDevice } from '../../face/surface.js'

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
 * What a HID family's driver needs from the operating system: its devices listed (each with its model)
 * without opening them, and one opened by its OS path. Tests swap it for an in-memory device.
 */
export interface HidTransport<L extends HidListing, D> {
  list(): Promise<L[]>
  open(path: string): Promise<D>
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

/**
 * What opening a detected device needs: its path, product id and model (found by vendor and product
 * id). Throws a clear error, naming the driver and `what` the model table holds, when one is missing.
 */
export function openTarget<M>(
  driver: string,
  device: DetectedDevice,
  find: (vendorId: number, productId: number) => M | undefined,
  what: string,
): { path: string; productId: number; model: M } {
  if (!device.path) throw new Error(`${driver}: device ${device.id} has no path to open`)
  const { vendorId, productId } = device
  const model = vendorId !== undefined && productId !== undefined ? find(vendorId, productId) : undefined
  if (model === undefined) {
    throw new Error(`${driver}: ${hex4(vendorId ?? 0)}:${hex4(productId ?? 0)} is not a known ${what}`)
  }
  return { path: device.path, productId: productId!, model }
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

/**
 * The HID devices node-hid lists whose model `modelOf` recognises (by vendor id, product id and USB
 * interface), each once with its model. node-hid is loaded on first use, so a machine without it still
 * starts.
 */
export async function listNodeHid<M>(
  modelOf: (vendorId: number, productId: number, iface: number) => M | undefined,
): Promise<(HidListing & { model: M })[]> {
  const HID = await lateImport('node-hid', () => import('node-hid'))
  const out = new Map<string, HidListing & { model: M }>()
  for (const dev of await HID.devicesAsync()) {
    // Why once per path: node-hid lists a device once per interface or usage.
    if (!dev.path || out.has(dev.path)) continue
    const model = modelOf(dev.vendorId, dev.productId, dev.interface)
    if (model === undefined) continue
    out.set(dev.path, {
      path: dev.path,
      model,
      vendorId: dev.vendorId,
      productId: dev.productId,
      ...(dev.serialNumber ? { serialNumber: dev.serialNumber } : {}),
    })
  }
  return [...out.values()]
}
