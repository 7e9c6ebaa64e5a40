/* eslint-disable @typescript-eslint/require-await -- an in-memory device answers at once; the HIDDevice interface is async */
/**
 * In-memory HID devices for Stream Deck tests: the only fake. The real `@elgato-stream-deck/core`
 * builds the deck over it, decodes the input reports we construct and encodes real output reports.
 */
import {
  DEVICE_MODELS2,
  type ChildHIDDeviceInfo,
  type DeviceModelId,
  type HIDDevice,
  type HIDDeviceEvents,
  type HIDDeviceInfo,
} from '@elgato-stream-deck/core'
import { EventEmitter } from 'eventemitter3'
import type { StreamDeckListing, StreamDeckTransport } from '../../../src/surfaces/streamdeck/transport.js'

export class FakeHidDevice extends EventEmitter<HIDDeviceEvents> implements HIDDevice {
  /** Every `sendReports` call, in order (while `record` is on). */
  readonly reports: Uint8Array[][] = []
  /**
   * Whether `sendReports` keeps a copy of what it is sent (the tests read `reports`). The benches turn
   * it off: a device keeps nothing, and thousands of kept pages would make the process's garbage
   * collector, not the code measured, the cost. `sent` counts either way.
   */
  record = true
  /** `sendReports` calls and the bytes they carried. */
  readonly sent = { calls: 0, bytes: 0 }
  readonly features: Uint8Array[] = []
  closed = false
  /** When set, the next writes reject with it (a device that fails mid-write). */
  failWith: Error | undefined
  constructor(readonly info: HIDDeviceInfo) {
    super()
  }
  async close(): Promise<void> {
    this.closed = true
  }
  async sendFeatureReport(data: Uint8Array): Promise<void> {
    if (this.failWith) throw this.failWith
    this.features.push(Uint8Array.from(data))
  }
  async getFeatureReport(reportId: number, reportLength: number): Promise<Uint8Array> {
    const b = new Uint8Array(reportLength)
    b[0] = reportId
    return b
  }
  async sendReports(buffers: Uint8Array[]): Promise<void> {
    if (this.failWith) throw this.failWith
    this.sent.calls++
    for (const b of buffers) this.sent.bytes += b.byteLength
    if (this.record) this.reports.push(buffers.map((b) => Uint8Array.from(b)))
  }
  async getDeviceInfo(): Promise<HIDDeviceInfo> {
    return this.info
  }
  async getChildDeviceInfo(): Promise<ChildHIDDeviceInfo | null> {
    return null
  }
  /** Delivers an input report as node-hid's wrapper would (report id already stripped). */
  input(data: Uint8Array): void {
    this.emit('input', data)
  }
}

/** Gen2 key state report: `keys` are hid indexes held down. */
export function gen2KeyReport(keys: number[], count = 32): Uint8Array {
  const r = new Uint8Array(512)
  r[0] = 0x00
  r[1] = count
  for (const k of keys) r[3 + k] = 1
  return r
}
/** Gen2 encoder rotate report: `deltas[i]` is the signed step count of encoder hid index i. */
export function encoderRotateReport(deltas: number[]): Uint8Array {
  const r = new Uint8Array(512)
  r[0] = 0x03
  r[3] = 0x01
  deltas.forEach((d, i) => (r[4 + i] = d & 0xff))
  return r
}
export function encoderPressReport(pressed: number[]): Uint8Array {
  const r = new Uint8Array(512)
  r[0] = 0x03
  r[3] = 0x00
  for (const i of pressed) r[4 + i] = 1
  return r
}
/** Gen2 LCD touch report: kind 1 = short press, 2 = long press, 3 = swipe. */
export function lcdTouchReport(kind: 1 | 2 | 3, x: number, y: number, x2 = 0, y2 = 0): Uint8Array {
  const r = new Uint8Array(512)
  const v = new DataView(r.buffer)
  r[0] = 0x02
  r[3] = kind
  v.setUint16(5, x, true)
  v.setUint16(7, y, true)
  v.setUint16(9, x2, true)
  v.setUint16(11, y2, true)
  return r
}

/**
 * Deterministic stand-in for the JPEG encoder: a 4-byte size header and the RGBA bytes the library hands
 * over, so output reports decode back to exact pixels.
 */
export async function rawImageEncoder(buffer: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  const out = new Uint8Array(4 + buffer.length)
  const v = new DataView(out.buffer)
  v.setUint16(0, width, true)
  v.setUint16(2, height, true)
  out.set(buffer, 4)
  return out
}

export interface DecodedImage {
  width: number
  height: number
  rgba: Uint8Array
}
function decodeRaw(payload: Uint8Array): DecodedImage {
  const v = new DataView(payload.buffer, payload.byteOffset, payload.byteLength)
  const width = v.getUint16(0, true)
  const height = v.getUint16(2, true)
  return { width, height, rgba: payload.subarray(4, 4 + width * height * 4) }
}

/** Reassembles gen2 key image writes (header 02 07 key last lenLE pageLE, 1024-byte reports) per key. */
export function decodeGen2KeyImages(calls: Uint8Array[][]): Map<number, DecodedImage[]> {
  const out = new Map<number, DecodedImage[]>()
  for (const reports of calls) {
    let key = -1
    const parts: Uint8Array[] = []
    for (const r of reports) {
      if (r[0] !== 0x02 || r[1] !== 0x07) continue
      key = r[2]!
      const len = r[4]! | (r[5]! << 8)
      parts.push(r.subarray(8, 8 + len))
    }
    if (key < 0) continue
    const payload = Buffer.concat(parts)
    const list = out.get(key) ?? []
    list.push(decodeRaw(payload))
    out.set(key, list)
  }
  return out
}

/** Reassembles LCD region writes (header 02 0c x y w h last part len, all LE16). */
export function decodeLcdRegions(
  calls: Uint8Array[][],
): { x: number; y: number; width: number; height: number; image: DecodedImage }[] {
  const out: { x: number; y: number; width: number; height: number; image: DecodedImage }[] = []
  for (const reports of calls) {
    const parts: Uint8Array[] = []
    let head: DataView | undefined
    for (const r of reports) {
      if (r[0] !== 0x02 || r[1] !== 0x0c) continue
      const v = new DataView(r.buffer, r.byteOffset, r.byteLength)
      head ??= v
      parts.push(r.subarray(16, 16 + v.getUint16(13, true)))
    }
    if (!head) continue
    out.push({
      x: head.getUint16(2, true),
      y: head.getUint16(4, true),
      width: head.getUint16(6, true),
      height: head.getUint16(8, true),
      image: decodeRaw(Buffer.concat(parts)),
    })
  }
  return out
}

/** Rotates RGBA pixels by 180° (both axes flipped), as several models mount their panels. */
export function rotate180(rgba: Uint8Array): Uint8Array {
  const out = new Uint8Array(rgba.length)
  const n = rgba.length / 4
  for (let i = 0; i < n; i++) out.set(rgba.subarray(i * 4, i * 4 + 4), (n - 1 - i) * 4)
  return out
}

/** An in-memory transport: devices appear and disappear as tests say, each open makes a fresh FakeHidDevice. */
export class MemoryStreamDeckTransport implements StreamDeckTransport {
  readonly present = new Map<string, StreamDeckListing>()
  readonly opened: FakeHidDevice[] = []
  /** Called for every open, to let a test arm a device (e.g. make it fail). */
  onOpen: ((dev: FakeHidDevice, path: string) => void) | undefined

  plug(model: DeviceModelId, path: string, serialNumber?: string): StreamDeckListing {
    const spec = DEVICE_MODELS2[model]
    const listing: StreamDeckListing = {
      path,
      model,
      vendorId: spec.vendorId,
      productId: spec.productIds[0]!,
      ...(serialNumber ? { serialNumber } : {}),
    }
    this.present.set(path, listing)
    return listing
  }
  unplug(path: string): void {
    this.present.delete(path)
  }
  async list(): Promise<StreamDeckListing[]> {
    return [...this.present.values()]
  }
  async open(path: string): Promise<HIDDevice> {
    const l = this.present.get(path)
    if (!l) throw new Error(`no device at ${path}`)
    const dev = new FakeHidDevice({ path, vendorId: l.vendorId, productId: l.productId })
    this.opened.push(dev)
    this.onOpen?.(dev, path)
    return dev
  }
  lastOpened(path: string): FakeHidDevice | undefined {
    return this.opened.filter((d) => d.info.path === path).at(-1)
  }
}
