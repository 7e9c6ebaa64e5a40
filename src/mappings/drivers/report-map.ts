/**
 * The report-map family (`driver: hid`), mapping side (see `common.ts`); the surface side is
 * `src/surfaces/report-map/`. An entry names its device by vendor and product id and reads its input
 * reports through the report map it carries; its controls are the map's.
 */
import { z } from 'zod'
import type { ClaimMatch } from '../../families/claims.js'
import { reportMapControls, reportMapSchema, type ReportMapDeviceConfig } from '../../families/report-map.js'
import { CONFIG_LIMITS } from '../limits.js'
import { rehearseField, type MappingFamily, type SurfaceEntry } from './common.js'

const schema = z
  .strictObject({
    driver: z.literal('hid'),
    vendor_id: z.int().min(0).max(0xffff),
    product_id: z.int().min(0).max(0xffff),
    usage_page: z
      .int()
      .min(0)
      .max(0xffff)
      .optional()
      .describe('The interface to read, where the device has several (e.g. 1 = generic desktop).'),
    serial: z.string().min(1).optional().describe('Claims the device with this serial number.'),
    name: z.string().min(1).max(CONFIG_LIMITS.name).optional().describe('Display name (default: the product string).'),
    map: reportMapSchema,
    ...rehearseField,
  })
  .describe('Any HID device (pedal, game controller, button box), its input reports read through a report map.')

/** A `hid` surface entry as the report-map driver's device config (the daemon passes all of them). */
export function reportMapDeviceConfig(s: SurfaceEntry<typeof schema>): ReportMapDeviceConfig {
  return {
    vendorId: s.vendor_id,
    productId: s.product_id,
    ...(s.usage_page !== undefined ? { usagePage: s.usage_page } : {}),
    ...(s.name !== undefined ? { name: s.name } : {}),
    map: s.map,
  }
}

export const reportMap: MappingFamily<typeof schema, ReportMapDeviceConfig> = {
  schema,
  controlsOf: (_name, entry) => Promise.resolve({ controls: reportMapControls(entry.map) }),
  claimOf(name, entry) {
    const match: ClaimMatch = { vendorId: entry.vendor_id, productId: entry.product_id }
    if (entry.serial !== undefined) match.serial = entry.serial
    return { name, driver: entry.driver, match }
  },
  driverOptions: reportMapDeviceConfig,
  deviceName: (entry) => Promise.resolve(entry.name ?? `HID device ${hex4(entry.vendor_id)}:${hex4(entry.product_id)}`),
}

function hex4(n: number): string {
  return n.toString(16).padStart(4, '0')
}
