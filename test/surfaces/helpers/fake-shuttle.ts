/**
 * In-memory HID devices for Contour Shuttle tests: the only fake. The real `@shuttle-lib/core` builds
 * its `Shuttle` over it and decodes the input reports the tests deliver.
 */
import type { HIDDevice, HIDEvents } from '@shuttle-lib/core'
import { EventEmitter } from 'eventemitter3'
import { shuttleModelById } from '../../../src/families/shuttle.js'
import type { ShuttleListing, ShuttleTransport } from '../../../src/surfaces/shuttle/transport.js'
import { MemoryTransport } from './memory-transport.js'

export class FakeShuttleHid extends EventEmitter<HIDEvents> implements HIDDevice {
  /** Every `write`, in order (the library writes nothing to these devices; kept to prove it). */
  readonly writes: number[][] = []
  closed = false
  constructor(readonly path: string) {
    super()
  }
  write(data: number[]): void {
    this.writes.push([...data])
  }
  close(): Promise<void> {
    this.closed = true
    return Promise.resolve()
  }
  /** Delivers an input report as node-hid does (these devices use no report id). */
  input(data: Uint8Array | readonly number[]): void {
    this.emit('data', Uint8Array.from(data))
  }
  /** A 5-byte report: ring (-7..7), jog counter (0..255), buttons as a 16-bit mask. */
  report(ring: number, jog: number, buttons = 0): void {
    this.input([ring & 0xff, jog & 0xff, 0, buttons & 0xff, (buttons >> 8) & 0xff])
  }
}

/** An in-memory transport of Contour devices (see MemoryTransport). */
export class MemoryShuttleTransport
  extends MemoryTransport<ShuttleListing, FakeShuttleHid>
  implements ShuttleTransport
{
  plug(modelId: string, path: string, serialNumber?: string): ShuttleListing {
    const model = shuttleModelById(modelId)
    if (!model) throw new Error(`no Contour model ${modelId}`)
    return this.add({
      path,
      model,
      vendorId: model.vendorId,
      productId: model.productId,
      ...(serialNumber ? { serialNumber } : {}),
    })
  }
  protected makeDevice(listing: ShuttleListing): FakeShuttleHid {
    return new FakeShuttleHid(listing.path)
  }
}
