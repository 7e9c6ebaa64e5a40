/**
 * The Blackmagic panels' report guard: the library decodes each input report with a `DataView` at fixed
 * offsets (`@blackmagic-controller/core` `services/input/default.js`) and would throw a `RangeError` out
 * of the HID layer's event handler on a report too short for its id, or on a button report of even
 * length (it reads whole uint16 pairs to the end). Such reports are dropped, or cut to whole pairs.
 */
import { DeviceModelId, type HIDDevice, type HIDDeviceEvents, type HIDDeviceInfo } from '@blackmagic-controller/core'
import { EventEmitter } from 'eventemitter3'

/** Report ids and the shortest length the library reads of each, per model (its `DefaultInputService` options). */
export interface BmdReportLayout {
  button: number
  tbar: number
  jog?: number
  battery: number
}

/** The Replay Editor's input report ids (`models/resolve-replay-editor.js`). */
const REPLAY_EDITOR_REPORTS: BmdReportLayout = { button: 0x04, tbar: 0x0a, jog: 0x03, battery: 0x06 }
/** The ATEM Micro Panel's (`models/atem-micro-panel.js`). */
export const MICRO_PANEL_REPORTS: BmdReportLayout = { button: 0x03, tbar: 0x08, battery: 0x06 }

/** The input report layout of a model. */
export function reportLayoutOf(model: DeviceModelId): BmdReportLayout {
  return model === DeviceModelId.AtemMicroPanel ? MICRO_PANEL_REPORTS : REPLAY_EDITOR_REPORTS
}

/** Bytes the library reads: tbar uint16 at 1, jog int32 at 2, battery uint8 at 2. */
const TBAR_BYTES = 3
const JOG_BYTES = 6
const BATTERY_BYTES = 3

export class BmdReportGuard extends EventEmitter<HIDDeviceEvents> implements HIDDevice {
  dropped = 0
  /**
   * Every input report as the device sent it, after the library had it: the surface hands on the button
   * events the report caused, then `learn --record` gets the report.
   */
  readonly reports = new EventEmitter<{ report: [report: Uint8Array] }>()
  private readonly onInput = (data: Uint8Array): void => {
    try {
      const passed = this.pass(data)
      if (passed === undefined) {
        this.dropped++
        return
      }
      if (passed[0] === this.layout.button) this.quietly(() => this.emit('input', passed))
      else this.emit('input', passed)
    } finally {
      this.reports.emit('report', data)
    }
  }
  private readonly onError = (err: unknown): void => void this.emit('error', err)

  constructor(
    private readonly inner: HIDDevice,
    private readonly layout: BmdReportLayout,
  ) {
    super()
    inner.on('input', this.onInput)
    inner.on('error', this.onError)
  }

  /**
   * Runs the library's decoding of a button report with `console.log` muted: its input service prints
   * every button report to stdout ("button presses", a debugging line left in 0.2.2), which would land in
   * `learn`'s and `devices`' output. Its button events are held by the surface and handed on after this
   * returns (on `report`), so nothing of ours runs while it is muted.
   */
  private quietly(decode: () => void): void {
    const log = console.log
    console.log = () => undefined
    try {
      decode()
    } finally {
      console.log = log
    }
  }

  private pass(data: Uint8Array): Uint8Array | undefined {
    if (!(data instanceof Uint8Array) || data.byteLength < 1) return undefined
    const id = data[0]
    if (id === this.layout.button) return data.byteLength % 2 === 1 ? data : data.subarray(0, data.byteLength - 1)
    if (id === this.layout.tbar) return data.byteLength >= TBAR_BYTES ? data : undefined
    if (id === this.layout.jog) return data.byteLength >= JOG_BYTES ? data : undefined
    if (id === this.layout.battery) return data.byteLength >= BATTERY_BYTES ? data : undefined
    return data // the library ignores other ids
  }

  sendFeatureReport(data: Uint8Array): Promise<void> {
    return this.inner.sendFeatureReport(data)
  }
  getFeatureReport(reportId: number, reportLength: number): Promise<Uint8Array> {
    return this.inner.getFeatureReport(reportId, reportLength)
  }
  sendReports(buffers: Uint8Array[]): Promise<void> {
    return this.inner.sendReports(buffers)
  }
  getDeviceInfo(): Promise<HIDDeviceInfo> {
    return this.inner.getDeviceInfo()
  }
  async close(): Promise<void> {
    this.inner.off('input', this.onInput)
    this.inner.off('error', this.onError)
    // Why keep a listener: a late read error from a closed node-hid device must not become unhandled.
    this.inner.on('error', () => undefined)
    await this.inner.close()
  }
}
