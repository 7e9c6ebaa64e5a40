/**
 * The X-keys driver: detect (list, never open), open (build the library's `XKeys` over a transport's
 * `HIDDevice`, behind a report guard, and wait for its init handshake), and hand back an `XkeysSurface`.
 */
import { XKeys, type HIDDevice } from '@xkeys-lib/core'
import { createLogger } from '../../log.js'
import { detectedHid, hex4, hidIdentity } from '../hid-identity.js'
import type { DetectedDevice, SurfaceDriver } from '../types.js'
import { findXkeysModel } from './models.js'
import { XkeysReportGuard, xkeysReportBytes } from './report-guard.js'
import { XkeysSurface } from './surface.js'
import { nodeHidXkeysTransport, type XkeysTransport } from './transport.js'

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

/** Stable identity: the serial number; else `vendor:product@path` in hex. */
/** Stable identity (the serial number, else `vendor:product@path`): the one rule of every HID driver. */
export const xkeysIdentity = hidIdentity

export class XkeysDriver implements SurfaceDriver {
  readonly name = 'xkeys'
  private readonly transport: XkeysTransport
  private readonly initTimeoutMs: number
  private readonly log = createLogger('xkeys')

  constructor(opts: XkeysDriverOptions = {}) {
    this.transport = opts.transport ?? nodeHidXkeysTransport()
    this.initTimeoutMs = opts.initTimeoutMs ?? XKEYS_INIT_TIMEOUT_MS
  }

  async detect(): Promise<DetectedDevice[]> {
    const listings = await this.transport.list()
    return listings.map((l) => detectedHid(this.name, l, l.model))
  }

  async open(device: DetectedDevice): Promise<XkeysSurface> {
    if (!device.path) throw new Error(`xkeys: device ${device.id} has no path to open`)
    const model =
      device.vendorId !== undefined && device.productId !== undefined
        ? findXkeysModel(device.vendorId, device.productId)
        : undefined
    if (!model) {
      throw new Error(`xkeys: ${hex4(device.vendorId ?? 0)}:${hex4(device.productId ?? 0)} is not a known X-keys model`)
    }
    const iface = model.hidDevices.find(([pid]) => pid === device.productId)![1]
    const hid = await this.transport.open(device.path)
    const log = this.log.child(device.id)
    const guard = new XkeysReportGuard(
      hid as HIDDevice & { off(event: string, handler: (...args: never[]) => void): unknown },
      xkeysReportBytes(model.product),
      (length) => log.once('short-report', 'warn', 'dropped an input report too short to decode', { length }),
    )
    let timer: NodeJS.Timeout | undefined
    try {
      const panel = new XKeys(
        guard,
        { product: model.name, vendorId: model.vendorId, productId: device.productId!, interface: iface },
        device.path,
      )
      await Promise.race([
        panel.init(),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () =>
              reject(new Error(`xkeys: ${device.id} did not answer the init handshake in ${this.initTimeoutMs} ms`)),
            this.initTimeoutMs,
          )
        }),
      ])
      return new XkeysSurface(panel, model, device.id, { logger: log })
    } catch (err) {
      await guard.close().catch((closeErr: unknown) => log.debug('close after a failed open', { error: closeErr }))
      throw err
    } finally {
      clearTimeout(timer)
    }
  }
}
