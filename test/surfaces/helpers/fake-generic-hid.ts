/** In-memory generic HID devices (the node-hid boundary of `src/surfaces/report-map/driver.ts`): listed, opened, reporting. */
import { EventEmitter } from 'node:events'
import type { HidListing, HidTransport } from '../../../src/surfaces/report-map/driver.js'

/** Shaped like node-hid's HIDAsync: emits `data` with each input report. */
export class MemoryHidDevice extends EventEmitter {
  closed = false
  constructor(readonly path: string) {
    super()
  }
  close(): Promise<void> {
    this.closed = true
    return Promise.resolve()
  }
  /** An input report from the device. */
  report(bytes: number[]): void {
    this.emit('data', Buffer.from(bytes))
  }
}

export class MemoryHidTransport implements HidTransport {
  readonly opened: MemoryHidDevice[] = []
  lists = 0
  constructor(public listings: HidListing[] = []) {}
  list(): Promise<HidListing[]> {
    this.lists++
    return Promise.resolve([...this.listings])
  }
  open(path: string): Promise<MemoryHidDevice> {
    if (!this.listings.some((l) => l.path === path)) return Promise.reject(new Error(`no HID device at ${path}`))
    const d = new MemoryHidDevice(path)
    this.opened.push(d)
    return Promise.resolve(d)
  }
  /** The latest device opened at this path and not closed. */
  current(path: string): MemoryHidDevice | undefined {
    return this.opened.filter((d) => d.path === path && !d.closed).at(-1)
  }
}
