/**
 * The Contour Shuttle driver (ShuttleXpress, ShuttlePro v1/v2): detect (list, never open), open (build
 * the library's `Shuttle` over a transport's `HIDDevice`, behind a report guard), and hand back a
 * `ShuttleSurface`.
 */
import { Shuttle } from '@shuttle-lib/core'
import { createLogger } from '../../log.js'
import { detectedHid, hidIdentity, openTarget } from '../usb-hid/identity.js'
import type { SurfaceDriver } from '../types.js'
import { findShuttleModel } from '../../families/shuttle.js'
import { ShuttleReportGuard } from './report-guard.js'
import { ShuttleSurface } from './surface.js'
import { nodeHidShuttleTransport, type ShuttleTransport } from './transport.js'
import type { DetectedDevice } from '../../face/surface.js'

export interface ShuttleDriverOptions {
  /** Defaults to node-hid. Tests pass an in-memory transport. */
  transport?: ShuttleTransport
}

/** Stable identity (the serial number, else `vendor:product@path`): the one rule of every HID driver. */
export const shuttleIdentity = hidIdentity

export class ShuttleDriver implements SurfaceDriver {
  readonly name = 'shuttle'
  private readonly transport: ShuttleTransport
  private readonly log = createLogger('shuttle')

  constructor(opts: ShuttleDriverOptions = {}) {
    this.transport = opts.transport ?? nodeHidShuttleTransport()
  }

  async detect(): Promise<DetectedDevice[]> {
    const listings = await this.transport.list()
    return listings.map((l) => detectedHid(this.name, l, l.model))
  }

  async open(device: DetectedDevice): Promise<ShuttleSurface> {
    const { path, model } = openTarget(this.name, device, findShuttleModel, 'Contour model')
    const hid = await this.transport.open(path)
    const log = this.log.child(device.id)
    const guard = new ShuttleReportGuard(hid, (length) =>
      log.once('short-report', 'warn', 'dropped an input report too short to decode', { length }),
    )
    try {
      // The library picks its product by vendor, product and interface; the model table already matched them.
      const shuttle = new Shuttle(
        guard,
        { product: model.name, vendorId: model.vendorId, productId: model.productId, interface: model.interface },
        path,
      )
      await shuttle.init()
      return new ShuttleSurface(shuttle, guard, model, device.id, { logger: log })
    } catch (err) {
      await guard.close().catch((closeErr: unknown) => log.debug('close after a failed open', { error: closeErr }))
      throw err
    }
  }
}
