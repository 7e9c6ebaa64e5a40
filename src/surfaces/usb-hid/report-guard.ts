/**
 * A HID device between the transport and a device library that passes on only input reports long enough
 * for the library to decode. The Contour and X-keys libraries read fixed byte offsets (a `DataView`,
 * `Buffer.readUInt8`) and would throw out of the HID layer's event handler on a short report; one guard
 * here serves every report path of both.
 */
import { EventEmitter } from 'eventemitter3'
import type { Subscribable } from './hid-surface.js'

/** What the guard wraps: the transport's device. */
export interface GuardedHid extends Subscribable {
  write(data: number[]): void
  close(): Promise<void>
}

export class HidReportGuard extends EventEmitter<{ data: [data: Uint8Array]; error: [err: unknown] }> {
  /** Reports dropped because they were too short. */
  dropped = 0
  /**
   * `report`: every input report as the device sent it, short ones too, once the library and every
   * `data` listener have had it, so that the surface events it caused came before it (`learn --record`
   * pairs them). Apart from the guard's own events, which are the device library's.
   */
  readonly reports = new EventEmitter<{ report: [report: Uint8Array] }>()
  private readonly onData = (data: unknown): void => {
    try {
      if (!(data instanceof Uint8Array) || data.byteLength < this.minBytes) {
        this.dropped++
        this.onDrop?.(data instanceof Uint8Array ? data.byteLength : -1)
        return
      }
      this.emit('data', this.convert ? this.convert(data) : data)
    } finally {
      // The device's own buffer (node-hid may reuse it): a listener that keeps it copies it.
      if (data instanceof Uint8Array) this.reports.emit('report', data)
    }
  }
  private readonly onError = (err: unknown): void => {
    this.emit('error', err)
  }

  constructor(
    private readonly inner: GuardedHid,
    /** The shortest report passed on. */
    readonly minBytes: number,
    /** Told the length of each dropped report (-1 for something that is not bytes). */
    private readonly onDrop?: (length: number) => void,
    /** Turns a report into what the library reads (X-keys: a `Buffer`). */
    private readonly convert?: (data: Uint8Array) => Uint8Array,
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
    this.inner.off('error', this.onError)
    // Why keep a listener: a late read error from a closed node-hid device must not become unhandled.
    this.inner.on('error', () => undefined)
    await this.inner.close()
  }
}
