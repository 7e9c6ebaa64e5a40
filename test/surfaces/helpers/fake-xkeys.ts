/**
 * In-memory HID devices for X-keys tests: the only fake. The real `@xkeys-lib/core` builds its `XKeys`
 * over it; like the library's own test mock, the device answers the init handshake (the version request
 * 214 and the generate-data request 177) with a version report and a full-state report carrying the
 * unit id.
 */
import { EventEmitter } from 'node:events'
import type { HIDDevice } from '@xkeys-lib/core'
import { xkeysModelById } from '../../../src/families/xkeys.js'
import type { XkeysListing, XkeysTransport } from '../../../src/surfaces/xkeys/transport.js'
import { MemoryTransport } from './memory-transport.js'

/** Length of the replies (X-keys input reports are 32 bytes or more). */
const REPLY_BYTES = 32

export class FakeXkeysHid extends EventEmitter implements HIDDevice {
  /** Every write after the init handshake, as space-separated hex. */
  readonly writes: string[] = []
  /** The handshake writes. */
  readonly initWrites: string[] = []
  closed = false
  /** When set, writes throw it (a device that fails mid-write). */
  failWith: Error | undefined
  /** When false, the device never answers the init handshake. */
  answers = true
  private initDone = false

  constructor(
    readonly path: string,
    readonly unitId = 0,
    readonly firmware = 1,
  ) {
    super()
  }
  write(data: number[]): void {
    if (this.failWith) throw this.failWith
    const hex = data.map((b) => b.toString(16).padStart(2, '0')).join(' ')
    ;(this.initDone ? this.writes : this.initWrites).push(hex)
    if (!this.answers) return
    if (data[1] === 214) {
      const r = Buffer.alloc(REPLY_BYTES)
      r[1] = 214
      r[10] = this.firmware
      this.emit('data', r)
    } else if (data[1] === 177) {
      const r = Buffer.alloc(REPLY_BYTES)
      r[0] = this.unitId
      r[1] = 2 // the generate-data flag
      this.initDone = true
      this.emit('data', r)
    }
  }
  flush(): Promise<void> {
    return Promise.resolve()
  }
  close(): Promise<void> {
    this.closed = true
    return Promise.resolve()
  }
  /** Delivers an input report as node-hid does. */
  input(data: Uint8Array | readonly number[]): void {
    this.emit('data', Buffer.from(data))
  }
}

/** An in-memory transport of X-keys devices (see MemoryTransport), each with its unit id. */
export class MemoryXkeysTransport
  extends MemoryTransport<XkeysListing & { unitId: number }, FakeXkeysHid>
  implements XkeysTransport
{
  plug(modelId: string, path: string, opts: { serialNumber?: string; unitId?: number } = {}): XkeysListing {
    const model = xkeysModelById(modelId)
    if (!model) throw new Error(`no X-keys model ${modelId}`)
    const [productId, iface] = model.hidDevices[0]!
    return this.add({
      path,
      model,
      vendorId: model.vendorId,
      productId,
      interface: iface,
      unitId: opts.unitId ?? 0,
      ...(opts.serialNumber ? { serialNumber: opts.serialNumber } : {}),
    })
  }
  protected makeDevice(listing: XkeysListing & { unitId: number }): FakeXkeysHid {
    return new FakeXkeysHid(listing.path, listing.unitId)
  }
}

/** An XK-24 report: unit id, then the key bits by the panel's own key number (1..24, down the columns). */
export function xk24Report(unitId: number, pressed: number[]): number[] {
  const r = new Array<number>(32).fill(0)
  r[0] = unitId
  for (const n of pressed) r[2 + Math.floor((n - 1) / 6)]! |= 1 << ((n - 1) % 6)
  return r
}
