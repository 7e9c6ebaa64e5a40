/**
 * `@elgato-stream-deck/tcp`, loaded on first use: only a daemon whose config names a `streamdeck-net`
 * surface ever loads it (and its own copy of the library's core, 7.3.2, which it pins). What we take:
 * its HID devices over a framed connection (`TcpCoraHidDevice`, `TcpLegacyHidDevice`: every report the
 * deck sends or takes is theirs to encode and decode), its parser of a dock's child-device record, and
 * its core's model table and factories, the same the library's connection manager builds decks with.
 *
 * The library's connection manager itself is not used (see `link.ts` for why); its one private piece we
 * need, the properties service of a deck reached directly (brightness and serial over TCP, which a deck
 * behind a dock answers like a USB deck), is `TcpProperties` below.
 */
import { createRequire } from 'node:module'
import type { StreamDeck } from '@elgato-stream-deck/core'
import { installFastTransform } from '../streamdeck/fast-transform.js'
import { lateImport } from '../../installed.js'
import type { DeckLink } from './link.js'

/** A child deck as the dock reports it. */
export interface ChildInfo {
  serialNumber: string
  tcpPort: number
  vendorId: number
  productId: number
}

/** The library's HID device over one link, as we use it. */
export interface TcpHid {
  readonly isPrimary: boolean
  getDeviceInfo(): Promise<{ vendorId: number; productId: number }>
  getChildDeviceInfo(): Promise<ChildInfo | null>
  set onChildInfoChange(cb: (info: ChildInfo | null) => void)
  getFeatureReport(reportId: number, length: number): Promise<Uint8Array>
  sendFeatureReport(data: Uint8Array): Promise<void>
  on(event: 'error', listener: (err: unknown) => void): unknown
}

/** The properties service the library's factories take (its core's `PropertiesService`). */
export interface DeckProperties {
  setBrightness(percentage: number): Promise<void>
  resetToLogo(): Promise<void>
  getFirmwareVersion(): Promise<string>
  getAllFirmwareVersions(): Promise<Record<string, string>>
  getSerialNumber(): Promise<string>
}

/** `(rgba, width, height) => jpeg bytes`, as the library calls it. */
export type EncodeJPEG = (buffer: Uint8Array, width: number, height: number) => Promise<Uint8Array>

/** One model of the library's core: its id, product ids and factory. */
export interface NetModel {
  readonly id: string
  readonly productIds: readonly number[]
  readonly productName: string
  factory(hid: TcpHid, options: { encodeJPEG: EncodeJPEG }, properties?: DeckProperties): StreamDeck
}

export interface NetLibrary {
  hidDevice(link: DeckLink): TcpHid
  models: readonly NetModel[]
}

let loading: Promise<NetLibrary> | undefined

/** The library, loaded once. */
export function loadNetLibrary(): Promise<NetLibrary> {
  loading ??= lateImport("the network decks' library", load)
  return loading
}

interface HidModule {
  TcpCoraHidDevice: new (link: DeckLink) => TcpHid
}
interface LegacyModule {
  TcpLegacyHidDevice: new (link: DeckLink) => TcpHid
}

async function load(): Promise<NetLibrary> {
  // Deep imports of the library's own files: why the version is pinned exactly in package.json.
  // Why the casts: the library's deep modules are typed against its own core (7.3.2), whose types are
  // not ours (7.6.x); the structural interfaces above are what this folder uses of them, and the deck a
  // factory returns has the whole API the Stream Deck surface calls (both cores have it).
  const cora = (await import('@elgato-stream-deck/tcp/dist/hid-device/cora.js')) as unknown as HidModule
  const legacy = (await import('@elgato-stream-deck/tcp/dist/hid-device/legacy.js')) as unknown as LegacyModule
  // The core the library pins, as its own modules require it (a nested copy beside ours).
  const tcp = createRequire(import.meta.url).resolve('@elgato-stream-deck/tcp')
  const requireFromTcp = createRequire(tcp)
  const core = requireFromTcp('@elgato-stream-deck/core') as { DEVICE_MODELS: readonly NetModel[] }
  // Network decks draw and encode on the loop: that core's pixel conversion by rows where it gives the
  // same bytes (../streamdeck/fast-transform.ts).
  installFastTransform(tcp)
  return {
    hidDevice: (link) => (link.isCora ? new cora.TcpCoraHidDevice(link) : new legacy.TcpLegacyHidDevice(link)),
    models: core.DEVICE_MODELS,
  }
}

/**
 * Brightness and serial of a deck reached directly (the Studio, the Network Dock), as the library's
 * connection manager sends them (ASSUMED from its private `TcpPropertiesService`, 7.3.2): brightness is
 * the 1024-byte report `03 08 <percent>`; the serial is report 0x84, its length at byte 3.
 */
export class TcpProperties implements DeckProperties {
  constructor(private readonly device: TcpHid) {}

  async setBrightness(percentage: number): Promise<void> {
    if (percentage < 0 || percentage > 100) throw new RangeError('brightness is a percentage, 0 to 100')
    const report = new Uint8Array(1024)
    report.set([0x03, 0x08, percentage])
    await this.device.sendFeatureReport(report)
  }

  resetToLogo(): Promise<void> {
    return Promise.reject(new Error('not supported over the network'))
  }

  async getFirmwareVersion(): Promise<string> {
    const data = await this.device.getFeatureReport(0x83, -1)
    return new TextDecoder('ascii').decode(data.subarray(8, 16))
  }

  async getAllFirmwareVersions(): Promise<Record<string, string>> {
    return { ap2: await this.getFirmwareVersion() }
  }

  async getSerialNumber(): Promise<string> {
    const data = await this.device.getFeatureReport(0x84, -1)
    const length = Math.min(data[3] ?? 0, Math.max(0, data.length - 4))
    return new TextDecoder('ascii').decode(data.subarray(4, 4 + length))
  }
}
