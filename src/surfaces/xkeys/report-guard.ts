/**
 * A `HIDDevice` between the transport and the library that passes on only input reports long enough for
 * the library to decode. The library reads fixed byte offsets with `Buffer.readUInt8`, which throws out of
 * the HID layer's event handler on a short report; one guard here serves every report path.
 */
import { EventEmitter } from 'node:events'
import type { HIDDevice, Product } from '@xkeys-lib/core'

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

export class XkeysReportGuard extends EventEmitter implements HIDDevice {
  /** Reports dropped because they were too short. */
  dropped = 0
  private readonly onData = (data: unknown): void => {
    if (!(data instanceof Uint8Array) || data.byteLength < this.minBytes) {
      this.dropped++
      this.onDrop?.(data instanceof Uint8Array ? data.byteLength : -1)
      return
    }
    // The library reads with Buffer methods; node-hid hands over Buffers, other transports may not.
    this.emit('data', Buffer.isBuffer(data) ? data : Buffer.from(data))
  }
  private readonly onError = (err: unknown): void => {
    this.emit('error', err)
  }

  constructor(
    private readonly inner: HIDDevice & { off(event: string, handler: (...args: never[]) => void): unknown },
    private readonly minBytes: number,
    /** Told the length of each dropped report (-1 for something that is not bytes). */
    private readonly onDrop?: (length: number) => void,
  ) {
    super()
    inner.on('data', this.onData)
    inner.on('error', this.onError)
  }

  write(data: number[]): void {
    this.inner.write(data)
  }

  flush(): Promise<void> {
    return this.inner.flush()
  }

  async close(): Promise<void> {
    this.inner.off('data', this.onData)
    this.inner.off('error', this.onError)
    // Why keep a listener: a late read error from a closed node-hid device must not become unhandled.
    this.inner.on('error', () => undefined)
    await this.inner.close()
  }
}
