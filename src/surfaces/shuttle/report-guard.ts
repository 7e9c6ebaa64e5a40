/**
 * The Contour report guard (see `../usb-hid/report-guard.ts`): the library reads a fixed layout with a
 * `DataView` and would throw a `RangeError` out of the HID layer's event handler on a short report.
 */
import type { HIDDevice } from '@shuttle-lib/core'
import { HidReportGuard } from '../usb-hid/report-guard.js'

/**
 * Bytes of a Contour input report as the library decodes it (`@shuttle-lib/core` `Shuttle.ts`): byte 0
 * the shuttle ring (int8, -7..7), byte 1 the jog counter (uint8), byte 2 unused, bytes 3–4 the buttons
 * (uint16 little-endian, one bit per button).
 */
const SHUTTLE_REPORT_BYTES = 5

/** The Contour guard: reports shorter than `SHUTTLE_REPORT_BYTES` are dropped. */
export class ShuttleReportGuard extends HidReportGuard implements HIDDevice {
  constructor(inner: HIDDevice, onDrop?: (length: number) => void) {
    super(inner, SHUTTLE_REPORT_BYTES, onDrop)
  }
}
