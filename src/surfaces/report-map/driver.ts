/**
 * The report-map driver: any HID device claimed by vendor and product id (and usage page, where a
 * device has several interfaces), its input reports decoded through the report map of its config.
 * Input only: a generic device has no feedback the driver could know.
 *
 * The mapping file calls it `driver: hid` (the pinned format); the code calls it the report-map driver,
 * so that "HID" means only the transport the Stream Deck, Contour and X-keys drivers share (`../usb-hid/`).
 */
import { EventHub } from '../../events.js'
import { lateImport } from '../../installed.js'
import { createLogger, type Logger } from '../../log.js'
import type { Surface, SurfaceDriver, SurfaceEvents } from '../types.js'
import type { Feedback } from '../../face/feedback.js'
import { reportMapControls, type ReportMapDeviceConfig } from '../../families/report-map.js'
import { MAX_REPORT_BYTES, ReportDecoder, toSurfaceEvents, type ReportMap } from './report-map.js'
import type { ControlDescriptor, SurfaceDescription, DetectedDevice } from '../../face/surface.js'

/** What the driver sees of a listed HID interface (a subset of node-hid's `Device`). */
export interface HidListing {
  path: string
  vendorId: number
  productId: number
  usagePage?: number
  product?: string
  serialNumber?: string
}

/** An open HID device, shaped like node-hid's `HIDAsync`. */
export interface HidDeviceLike {
  on(event: 'data', listener: (data: Buffer) => void): unknown
  on(event: 'error', listener: (error: Error) => void): unknown
  off(event: 'data', listener: (data: Buffer) => void): unknown
  off(event: 'error', listener: (error: Error) => void): unknown
  close(): Promise<void>
}

/** The HID transport boundary: list and open. Tests pass an in-memory one. */
export interface HidTransport {
  list(): Promise<HidListing[]>
  open(path: string): Promise<HidDeviceLike>
}

export type { ReportMapDeviceConfig } from '../../families/report-map.js'

/** node-hid, loaded on first use. */
export function nodeHidReportMapTransport(): HidTransport {
  return {
    async list() {
      const HID = await lateImport('node-hid', () => import('node-hid'))
      return (await HID.devicesAsync()).flatMap((d) =>
        d.path
          ? [
              {
                path: d.path,
                vendorId: d.vendorId,
                productId: d.productId,
                ...(d.usagePage !== undefined ? { usagePage: d.usagePage } : {}),
                ...(d.product ? { product: d.product } : {}),
                ...(d.serialNumber ? { serialNumber: d.serialNumber } : {}),
              },
            ]
          : [],
      )
    },
    async open(path) {
      const HID = await lateImport('node-hid', () => import('node-hid'))
      return HID.HIDAsync.open(path)
    },
  }
}

const hex4 = (n: number): string => n.toString(16).padStart(4, '0')

export { reportMapControls } from '../../families/report-map.js'

export interface ReportMapDriverOptions {
  transport?: HidTransport
  devices?: readonly ReportMapDeviceConfig[]
  logger?: Logger
}

/** The driver's name in the mapping file (`driver: hid`), in device records and in logs. */
const REPORT_MAP_DRIVER = 'hid'

export class ReportMapDriver implements SurfaceDriver {
  readonly name = REPORT_MAP_DRIVER
  private readonly transport: HidTransport
  private readonly log: Logger
  private devices: readonly ReportMapDeviceConfig[]

  constructor(opts: ReportMapDriverOptions = {}) {
    this.transport = opts.transport ?? nodeHidReportMapTransport()
    this.log = opts.logger ?? createLogger(REPORT_MAP_DRIVER)
    this.devices = opts.devices ?? []
  }

  /** Replaces the configured devices (a reload). */
  configure(devices: readonly ReportMapDeviceConfig[]): void {
    this.devices = devices
  }

  async detect(): Promise<DetectedDevice[]> {
    // Only configured devices are this driver's: with none, node-hid is not even asked.
    if (this.devices.length === 0) return []
    const out: DetectedDevice[] = []
    for (const l of await this.transport.list()) {
      const config = this.configOf(l)
      if (!config) continue
      out.push({
        driver: this.name,
        id: l.serialNumber ? l.serialNumber : `${hex4(l.vendorId)}:${hex4(l.productId)}@${l.path}`,
        model: config.name ?? l.product ?? `HID ${hex4(l.vendorId)}:${hex4(l.productId)}`,
        vendorId: l.vendorId,
        productId: l.productId,
        path: l.path,
        ...(l.serialNumber ? { serial: l.serialNumber } : {}),
      })
    }
    return out
  }

  async open(device: DetectedDevice): Promise<ReportMapSurface> {
    if (!device.path) throw new Error(`hid: device ${device.id} has no path to open`)
    const listing = (await this.transport.list()).find((l) => l.path === device.path)
    const config = listing && this.configOf(listing)
    if (!config) throw new Error(`hid: device ${device.id} is no longer configured or present`)
    const hid = await this.transport.open(device.path)
    return new ReportMapSurface(hid, config.map, {
      id: device.id,
      model: device.model,
      logger: this.log.child(device.id),
    })
  }

  /** Every HID interface present, configured or not (`learn --raw`). */
  listAll(): Promise<HidListing[]> {
    return this.transport.list()
  }

  /** Opens a HID interface by path for its undecoded input reports (`learn --raw`, to write a map). */
  openRaw(path: string): Promise<HidDeviceLike> {
    return this.transport.open(path)
  }

  /** A detected device's controls, from its report map (undefined when it is no longer configured or present). */
  async controlsOf(device: DetectedDevice): Promise<ControlDescriptor[] | undefined> {
    const listing = (await this.transport.list()).find((l) => l.path === device.path)
    const config = listing && this.configOf(listing)
    return config ? reportMapControls(config.map) : undefined
  }

  private configOf(l: HidListing): ReportMapDeviceConfig | undefined {
    return this.devices.find(
      (c) =>
        c.vendorId === l.vendorId &&
        c.productId === l.productId &&
        (c.usagePage === undefined || c.usagePage === l.usagePage),
    )
  }
}

export class ReportMapSurface implements Surface {
  readonly description: SurfaceDescription
  private readonly hub = new EventHub<SurfaceEvents>()
  readonly events = this.hub.listenable
  private readonly decoder: ReportDecoder
  private closing: Promise<void> | undefined
  private readonly onData = (data: Buffer): void => {
    if (this.closing || data.length > MAX_REPORT_BYTES) return
    const events = toSurfaceEvents(this.description.id, this.decoder.decode(data), performance.now())
    for (const e of events) this.hub.emit('input', e)
  }
  private readonly onError = (err: Error): void => {
    if (!this.closing) this.hub.emit('error', err)
  }

  constructor(
    private readonly hid: HidDeviceLike,
    map: ReportMap,
    private readonly opts: { id: string; model: string; logger: Logger },
  ) {
    this.decoder = new ReportDecoder(map)
    this.description = { id: opts.id, driver: REPORT_MAP_DRIVER, model: opts.model, controls: reportMapControls(map) }
    hid.on('data', this.onData)
    hid.on('error', this.onError)
  }

  /** A generic device shows nothing the driver knows of. */
  setFeedback(_control: string, _feedback: Feedback): void {}

  setBrightness(_percent: number): void {}

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.hid.off('data', this.onData)
      try {
        await this.hid.close()
      } catch (err) {
        this.opts.logger.debug('HID device did not close cleanly', { error: err })
      }
      this.hid.off('error', this.onError)
      this.hub.emit('closed')
    })()
    return this.closing
  }
}
