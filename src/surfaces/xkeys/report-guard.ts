/**
 * The X-keys report guard (see `../usb-hid/report-guard.ts`): the library reads fixed byte offsets with
 * `Buffer.readUInt8`, which throws out of the HID layer's event handler on a short report; how short
 * depends on the product (`xkeysReportBytes`).
 */
import type { HIDDevice, Product } from '@xkeys-lib/core'
import { HidReportGuard, type GuardedHid } from '../usb-hid/report-guard.js'

/** The version report (byte 1 = 214) carries the firmware version at byte 10. */
const VERSION_REPORT_BYTES = 11
/** The RailDriver's reports are remapped from bytes 0..12. */
const RAILDRIVER_REPORT_BYTES = 13

/** The shortest input report the library can decode for this product: one past the last byte it reads. */
export function xkeysReportBytes(p: Product): number {
  const ends = [VERSION_REPORT_BYTES, RAILDRIVER_REPORT_BYTES, 2 + p.bBytes]
  if (p.timestampByte !== undefined) ends.push(p.timestampByte + 4)
  for (const j of p.hasJog ?? []) ends.push(j.jogByte + 1)
  for (const s of p.hasShuttle ?? []) ends.push(s.shuttleByte + 1)
  for (const t of p.hasTbar ?? []) ends.push(t.tbarByte + 1)
  for (const r of p.hasRotary ?? []) ends.push(r.rotaryByte + 1)
  for (const e of p.hasExtraButtons ?? []) ends.push(e.ebByte + 1)
  for (const j of p.hasJoystick ?? []) ends.push(Math.max(j.joyXbyte, j.joyYbyte, j.joyZbyte) + 1)
  for (const t of p.hasTrackball ?? [])
    ends.push(Math.max(t.trackXbyte_H, t.trackXbyte_L, t.trackYbyte_H, t.trackYbyte_L) + 1)
  return Math.max(...ends)
}

/** The X-keys guard: drops reports too short for the product, hands the library `Buffer`s. */
export class XkeysReportGuard extends HidReportGuard implements HIDDevice {
  constructor(
    private readonly device: HIDDevice & GuardedHid,
    minBytes: number,
    onDrop?: (length: number) => void,
  ) {
    // The library reads with Buffer methods; node-hid hands over Buffers, other transports may not.
    super(device, minBytes, onDrop, (data) => (Buffer.isBuffer(data) ? data : Buffer.from(data)))
  }

  flush(): Promise<void> {
    return this.device.flush()
  }
}
