/**
 * The satellite driver: detection lists the devices Satellite clients have added (`./hub.ts`); opening
 * one makes it a `SatelliteSurface` under the name of the `surfaces:` entry that claims it by its device
 * id. The driver owns the server (`./server.ts`), which the daemon starts, moves and stops through the
 * family's service as the mapping file's `satellite:` says.
 */
import type { KeyRenderer } from '../render/key-renderer.js'
import type { SurfaceDriver } from '../types.js'
import type { DetectedDevice } from '../../face/surface.js'
import { SATELLITE_DRIVER, SatelliteHub } from './hub.js'
import { SatelliteImages } from './images.js'
import { SATELLITE_LIMITS, type SatelliteLimits } from './protocol.js'
import { SatelliteServer, type SatelliteServerOptions } from './server.js'
import { SatelliteSurface } from './surface.js'

export interface SatelliteDriverOptions {
  /** The devices; tests pass their own. */
  hub?: SatelliteHub
  /** Shared renderer (the daemon's, whose cache the local decks use too). */
  renderer?: KeyRenderer
  /** Tests lower the bounds. */
  limits?: Partial<SatelliteLimits>
  /** The peer check over `allow` (tests). */
  allowed?: SatelliteServerOptions['allowed']
  /** The announcer of `announce: true` (tests pass a fake). */
  announcer?: SatelliteServerOptions['announcer']
}

export class SatelliteDriver implements SurfaceDriver {
  readonly name = SATELLITE_DRIVER
  readonly hub: SatelliteHub
  readonly server: SatelliteServer
  readonly images: SatelliteImages
  private readonly drawsPerTurn: number

  constructor(opts: SatelliteDriverOptions = {}) {
    this.hub = opts.hub ?? new SatelliteHub()
    this.images = new SatelliteImages(opts.renderer)
    this.server = new SatelliteServer({
      hub: this.hub,
      ...(opts.limits ? { limits: opts.limits } : {}),
      ...(opts.allowed ? { allowed: opts.allowed } : {}),
      ...(opts.announcer ? { announcer: opts.announcer } : {}),
    })
    this.drawsPerTurn = opts.limits?.drawsPerTurn ?? SATELLITE_LIMITS.drawsPerTurn
  }

  detect(): Promise<DetectedDevice[]> {
    return Promise.resolve(this.hub.list())
  }

  open(device: DetectedDevice): Promise<SatelliteSurface> {
    const found = this.hub.get(device.id)
    if (!found) return Promise.reject(new Error(`satellite: ${device.id} is no longer added by its client`))
    return Promise.resolve(new SatelliteSurface(found, { images: this.images, drawsPerTurn: this.drawsPerTurn }))
  }
}
