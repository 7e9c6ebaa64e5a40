/**
 * A `HIDDevice` between the transport and the library that passes on only input reports long enough to
 * decode. The library reads a fixed layout with a `DataView` and would throw a `RangeError` out of the
 * HID layer's event handler on a short report; one guard here serves every report path.
 */
import type { HIDDevice, HIDEvents } from '@shuttle-lib/core'
import { EventEmitter } from 'eventemitter3'

/**
 * Bytes of a Contour input report as the library decodes it (`@shuttle-lib/core` `Shuttle.ts`): byte 0
 * the shuttle ring (int8, -7..7), byte 1 the jog counter (uint8), byte 2 unused, bytes 3–4 the buttons
 * (uint16 little-endian, one bit per button).
 */
export const SHUTTLE_REPORT_BYTES = 5

export class ShuttleReportGuard extends EventEmitter<HIDEvents> implements HIDDevice {
  /** Reports dropped because they were too short. */
  dropped = 0
  private readonly onData = (data: Uint8Array): void => {
    if (!(data instanceof Uint8Array) || data.byteLength < SHUTTLE_REPORT_BYTES) {
      this.dropped++
      this.onDrop?.(data instanceof Uint8Array ? data.byteLength : -1)
      return
    }
    this.emit('data', data)
  }
  private readonly onError = (err: unknown): void => {
    this.emit('error', err)
  }

  constructor(
    private readonly inner: HIDDevice,
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

  async close(): Promise<void> {
    this.inner.off('data', this.onData)
    // Why keep a listener: a late read error from a closed node-hid device must not become unhandled.
    this.inner.off('error', this.onError)
    this.inner.on('error', () => undefined)
    await this.inner.close()
  }
}
