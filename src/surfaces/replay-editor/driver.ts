/**
 * The Blackmagic panels driver (DaVinci Resolve Replay Editor, ATEM Micro Panel): detect (list, never
 * open), open (the transport's `HIDDevice` behind a report guard, the library's own authentication
 * handshake, then the library's controller built by its model's factory), and hand back a `BmdSurface`.
 */
import { DEVICE_MODELS2 } from '@blackmagic-controller/core'
import { createLogger } from '../../log.js'
import { detectedHid, openTarget } from '../usb-hid/identity.js'
import type { SurfaceDriver } from '../types.js'
import { findBmdModel } from '../../families/replay-editor.js'
import { BmdReportGuard, reportLayoutOf } from './report-guard.js'
import { BmdSurface } from './surface.js'
import { nodeHidBmdTransport, type BmdTransport } from './transport.js'
import type { DetectedDevice } from '../../face/surface.js'

export interface BmdDriverOptions {
  /** Defaults to node-hid. Tests pass an in-memory transport. */
  transport?: BmdTransport
}

export class BmdDriver implements SurfaceDriver {
  readonly name = 'replay-editor'
  private readonly transport: BmdTransport
  private readonly log = createLogger('replay-editor')

  constructor(opts: BmdDriverOptions = {}) {
    this.transport = opts.transport ?? nodeHidBmdTransport()
  }

  async detect(): Promise<DetectedDevice[]> {
    const listings = await this.transport.list()
    return listings.map((l) => detectedHid(this.name, l, l.model))
  }

  async open(device: DetectedDevice): Promise<BmdSurface> {
    const { path, model } = openTarget(this.name, device, findBmdModel, 'Blackmagic panel')
    const hid = await this.transport.open(path)
    const log = this.log.child(device.id)
    const guard = new BmdReportGuard(hid, reportLayoutOf(model.id))
    try {
      const spec = DEVICE_MODELS2[model.id]
      // The panel answers nothing until the app side passes its challenge (the library's own handshake).
      const authenticate = spec.authenticate ?? null
      const nextAuthMaxDelay = authenticate ? await authenticate(guard) : null
      const panel = spec.factory(guard, { nextAuthMaxDelay, authenticate })
      return new BmdSurface(panel, guard, model, device.id, { logger: log })
    } catch (err) {
      await guard.close().catch((closeErr: unknown) => log.debug('close after a failed open', { error: closeErr }))
      throw err
    }
  }
}
