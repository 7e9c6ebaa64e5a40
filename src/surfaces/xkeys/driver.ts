/**
 * The X-keys driver: detect (list, and read each new panel's unit id), open (build the library's `XKeys`
 * over a transport's `HIDDevice`, behind a report guard, and wait for its init handshake), and hand back
 * an `XkeysSurface`.
 *
 * Unit id: identical panels often report the same serial number, or none, and a hidraw path changes with
 * the port; the unit id (0..255, set by the user) is what tells them apart, and a config claims a panel
 * by it (`unit_id:`). Only the panel knows it, so detection opens each newly listed panel once, runs the
 * library's init handshake (two read-only requests: the version and the current state, whose first byte
 * is the unit id) and closes it again. The unit id is remembered while the panel stays listed at its
 * path; `open` checks the panel still answers with it.
 */
import { XKeys, type HIDDevice } from '@xkeys-lib/core'
import { createLogger, type Logger } from '../../log.js'
import { detectedHid, hidIdentity, openTarget } from '../usb-hid/identity.js'
import type { GuardedHid } from '../usb-hid/report-guard.js'
import type { SurfaceDriver } from '../types.js'
import { findXkeysModel, type XkeysModel } from '../../families/xkeys.js'
import { XkeysReportGuard, xkeysReportBytes } from './report-guard.js'
import { XkeysSurface } from './surface.js'
import { nodeHidXkeysTransport, type XkeysListing, type XkeysTransport } from './transport.js'
import type { DetectedDevice } from '../../face/surface.js'

/**
 * How long open waits for the panel's answers to the library's init (its version report and a full
 * state report). A panel that never answers would otherwise hold the open forever.
 */
export const XKEYS_INIT_TIMEOUT_MS = 3000

export interface XkeysDriverOptions {
  /** Defaults to node-hid. Tests pass an in-memory transport. */
  transport?: XkeysTransport
  initTimeoutMs?: number
}

export class XkeysDriver implements SurfaceDriver {
  readonly name = 'xkeys'
  private readonly transport: XkeysTransport
  private readonly initTimeoutMs: number
  private readonly log = createLogger('xkeys')
  /** The unit id read from the panel at each path (keyed by path and product id) while it stays listed. */
  private readonly unitIds = new Map<string, number>()

  constructor(opts: XkeysDriverOptions = {}) {
    this.transport = opts.transport ?? nodeHidXkeysTransport()
    this.initTimeoutMs = opts.initTimeoutMs ?? XKEYS_INIT_TIMEOUT_MS
  }

  async detect(): Promise<DetectedDevice[]> {
    const listings = await this.transport.list()
    const present = new Set(listings.map((l) => unitKey(l.path, l.productId)))
    for (const key of this.unitIds.keys()) if (!present.has(key)) this.unitIds.delete(key)
    return Promise.all(
      listings.map(async (l) => {
        const unitId = await this.unitIdOf(l)
        // Only what the listing says and the unit id read from the panel make the record.
        const { path, vendorId, productId, serialNumber } = l
        const listing = { path, vendorId, productId, ...(serialNumber !== undefined ? { serialNumber } : {}) }
        return detectedHid(this.name, unitId === undefined ? listing : { ...listing, unitId }, l.model)
      }),
    )
  }

  async open(device: DetectedDevice): Promise<XkeysSurface> {
    const { path, productId, model } = openTarget(this.name, device, findXkeysModel, 'X-keys model')
    const log = this.log.child(device.id)
    const { panel, reports } = await this.connect(device.id, path, model, productId, log)
    const key = unitKey(path, productId)
    if (device.unitId !== undefined && panel.unitId !== device.unitId) {
      this.unitIds.delete(key)
      await panel.close().catch((err: unknown) => log.debug('close after a failed open', { error: err }))
      throw new Error(
        `xkeys: ${device.id} answered with unit id ${panel.unitId}, not ${device.unitId}: another panel is at that path now`,
      )
    }
    this.unitIds.set(key, panel.unitId)
    return new XkeysSurface(panel, model, device.id, { logger: log, reports: reports.reports })
  }

  /** The panel's unit id: remembered, else read from the panel; undefined when it cannot be read. */
  private async unitIdOf(l: XkeysListing): Promise<number | undefined> {
    const key = unitKey(l.path, l.productId)
    const known = this.unitIds.get(key)
    if (known !== undefined) return known
    const id = hidIdentity(l)
    try {
      const { panel } = await this.connect(id, l.path, l.model, l.productId, this.log.child(id))
      const unitId = panel.unitId
      await panel.close()
      this.unitIds.set(key, unitId)
      this.log.clear(`probe:${l.path}`)
      return unitId
    } catch (err) {
      // Listed without a unit id: a claim by unit id does not take it; the next scan tries again.
      this.log.once(`probe:${l.path}`, 'warn', 'could not read the unit id of a panel; will try again', {
        device: id,
        error: err,
      })
      return undefined
    }
  }

  /** Opens a panel and runs the library's init handshake, bounded by the init timeout; `reports` is its guard. */
  private async connect(
    id: string,
    path: string,
    model: XkeysModel,
    productId: number,
    log: Logger,
  ): Promise<{ panel: XKeys; reports: XkeysReportGuard }> {
    const iface = model.hidDevices.find(([pid]) => pid === productId)![1]
    const hid = await this.transport.open(path)
    const guard = new XkeysReportGuard(hid as HIDDevice & GuardedHid, xkeysReportBytes(model.product), (length) =>
      log.once('short-report', 'warn', 'dropped an input report too short to decode', { length }),
    )
    let timer: NodeJS.Timeout | undefined
    try {
      const panel = new XKeys(
        guard,
        { product: model.name, vendorId: model.vendorId, productId, interface: iface },
        path,
      )
      await Promise.race([
        panel.init(),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new Error(`xkeys: ${id} did not answer the init handshake in ${this.initTimeoutMs} ms`)),
            this.initTimeoutMs,
          )
        }),
      ])
      return { panel, reports: guard }
    } catch (err) {
      await guard.close().catch((closeErr: unknown) => log.debug('close after a failed open', { error: closeErr }))
      throw err
    } finally {
      clearTimeout(timer)
    }
  }
}

const unitKey = (path: string, productId: number): string => `${productId}\u0000${path}`
