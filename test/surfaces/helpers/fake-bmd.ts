/**
 * In-memory HID devices for the Blackmagic panels (DaVinci Resolve Replay Editor, ATEM Micro Panel): the
 * only fake. The real `@blackmagic-controller/core` authenticates against it, builds its controller over
 * it and decodes the input reports the tests deliver; the reports are built from the library's own
 * layouts (its report ids, its controls' `encodedIndex`, the jog's int32 at byte 2, the lever's uint16
 * at byte 1) and the LEDs read back from the library's own LED reports (its controls' `ledBitIndex`).
 */
import type { HIDDevice, HIDDeviceEvents, HIDDeviceInfo } from '@blackmagic-controller/core'
import { EventEmitter } from 'eventemitter3'
import { bmdModelById, type BmdModel } from '../../../src/families/replay-editor.js'
import {
  MICRO_PANEL_REPORTS,
  reportLayoutOf,
  type BmdReportLayout,
} from '../../../src/surfaces/replay-editor/report-guard.js'
import type { BmdListing, BmdTransport } from '../../../src/surfaces/replay-editor/transport.js'
import { MemoryTransport } from './memory-transport.js'

/** The LED output reports of the Replay Editor (`ResolveReplayLedService`): the main one and the jog-mode keys'. */
const REPLAY_LED_REPORT = 0x09
const REPLAY_JOG_LED_REPORT = 0x04
/** The Micro Panel's (`DefaultLedService(device, 0x02, 32)`). */
const MICRO_LED_REPORT = 0x02

export class FakeBmdHid extends EventEmitter<HIDDeviceEvents> implements HIDDevice {
  /** Every LED report the library sent, in order. */
  readonly sent: Uint8Array[] = []
  readonly featureReports: Uint8Array[] = []
  closed = false
  /** The authentication step last sent (the library's handshake: 0, 1, 3). */
  private step = -1
  readonly layout: BmdReportLayout

  constructor(
    readonly path: string,
    readonly model: BmdModel,
  ) {
    super()
    this.layout = reportLayoutOf(model.id)
  }

  close(): Promise<void> {
    this.closed = true
    return Promise.resolve()
  }
  sendFeatureReport(data: Uint8Array): Promise<void> {
    this.featureReports.push(Uint8Array.from(data))
    this.step = data[1]!
    return Promise.resolve()
  }
  /** The handshake's answers: a challenge, then after the response, status 4 (passed) and the re-auth delay (600 s). */
  getFeatureReport(reportId: number, reportLength: number): Promise<Uint8Array> {
    const out = new Uint8Array(reportLength)
    out[0] = reportId
    if (this.step === 3) {
      out[1] = 0x04
      out[2] = 600 & 0xff
      out[3] = 600 >> 8
    } else {
      out.set([0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0].slice(0, reportLength - 2), 2)
    }
    return Promise.resolve(out)
  }
  sendReports(buffers: Uint8Array[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('device closed'))
    for (const b of buffers) this.sent.push(Uint8Array.from(b))
    return Promise.resolve()
  }
  getDeviceInfo(): Promise<HIDDeviceInfo> {
    return Promise.resolve({ path: this.path, productId: this.model.productIds[0]!, vendorId: this.model.vendorId })
  }

  input(data: readonly number[] | Uint8Array): void {
    this.emit('input', Uint8Array.from(data))
  }
  /** The buttons held now, by the library's names (`cue`): its button report, uint16 encoded indexes. */
  buttons(...names: string[]): void {
    const report = new Uint8Array(1 + 2 * 6)
    report[0] = this.layout.button
    names.forEach((name, i) => {
      const def = this.model.definitions.find((d) => d.type === 'button' && d.id === name)
      if (!def || def.type !== 'button') throw new Error(`no button ${name}`)
      report[1 + 2 * i] = def.encodedIndex & 0xff
      report[2 + 2 * i] = def.encodedIndex >> 8
    })
    this.input(report)
  }
  /** One jog report: the wheel's signed movement since the last, int32 little-endian at byte 2 (byte 1: mode). */
  jog(units: number): void {
    if (this.layout.jog === undefined) throw new Error('no jog')
    const report = new Uint8Array(7)
    report[0] = this.layout.jog
    new DataView(report.buffer).setInt32(2, units, true)
    this.input(report)
  }
  /** One lever report: uint16 little-endian at byte 1, 0..4096. */
  tbar(raw: number): void {
    const report = new Uint8Array(3)
    report[0] = this.layout.tbar
    new DataView(report.buffer).setUint16(1, raw, true)
    this.input(report)
  }

  /** The last LED report of this id, or undefined. */
  private lastLeds(id: number): Uint8Array | undefined {
    return this.sent.filter((r) => r[0] === id).at(-1)
  }
  private bit(report: Uint8Array | undefined, index: number): boolean {
    if (!report) return false
    return ((report[1 + Math.floor(index / 8)]! >> (index % 8)) & 1) === 1
  }
  /** Whether the LED of a button (library name) is lit in the last LED report. */
  led(name: string): boolean {
    const def = this.model.definitions.find((d) => d.type === 'button' && d.id === name)
    if (!def || def.type !== 'button' || def.feedbackType !== 'on-off') throw new Error(`no LED on ${name}`)
    if (def.ledBitIndex < 0) return this.bit(this.lastLeds(REPLAY_JOG_LED_REPORT), -def.ledBitIndex - 1)
    return this.bit(this.lastLeds(REPLAY_LED_REPORT), def.ledBitIndex)
  }
  /** The RGB LED of a Micro Panel button. */
  rgb(name: string): [boolean, boolean, boolean] {
    const def = this.model.definitions.find((d) => d.type === 'button' && d.id === name)
    if (!def || def.type !== 'button' || def.feedbackType !== 'rgb') throw new Error(`no RGB LED on ${name}`)
    const r = this.lastLeds(MICRO_LED_REPORT)
    return [0, 1, 2].map((i) => this.bit(r, def.ledBitIndex + i)) as [boolean, boolean, boolean]
  }
  /** The 16 lever LEDs, bottom first, as `1`/`0`. */
  tbarLeds(): string {
    const def = this.model.definitions.find((d) => d.type === 'tbar')
    if (!def || def.type !== 'tbar') throw new Error('no lever')
    const r = this.lastLeds(this.layout === MICRO_PANEL_REPORTS ? MICRO_LED_REPORT : REPLAY_LED_REPORT)
    return Array.from({ length: def.ledSegments }, (_, i) => (this.bit(r, def.ledBitIndex + i) ? '1' : '0')).join('')
  }
}

/** An in-memory transport of Blackmagic panels (see MemoryTransport). */
export class MemoryBmdTransport extends MemoryTransport<BmdListing, FakeBmdHid> implements BmdTransport {
  plug(modelId: string, path: string, serialNumber?: string): BmdListing {
    const model = bmdModelById(modelId)
    if (!model) throw new Error(`no Blackmagic model ${modelId}`)
    return this.add({
      path,
      model,
      vendorId: model.vendorId,
      productId: model.productIds[0]!,
      ...(serialNumber ? { serialNumber } : {}),
    })
  }
  protected makeDevice(listing: BmdListing): FakeBmdHid {
    return new FakeBmdHid(listing.path, listing.model)
  }
}
