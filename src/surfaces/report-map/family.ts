/**
 * The report-map family (`driver: hid` in the mapping file), surface side (see `../driver-family.ts`):
 * its driver, which takes the mapping file's `hid` entries (ids and report maps) and knows a device's
 * controls from its map. The mapping side is `src/mappings/drivers/report-map.ts`.
 */
import type { DriverFamily } from '../driver-family.js'
import { ReportMapDriver, type ReportMapDeviceConfig, type ReportMapDriverOptions } from './driver.js'

export const reportMapFamily: DriverFamily<ReportMapDriverOptions, ReportMapDeviceConfig> = {
  create(options) {
    const driver = new ReportMapDriver(options)
    return { driver, controlsOf: (d) => driver.controlsOf(d) }
  },
  configure(driver, entries) {
    if (driver instanceof ReportMapDriver) driver.configure(entries)
  },
}
