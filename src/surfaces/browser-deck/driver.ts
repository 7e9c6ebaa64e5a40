/**
 * The browser-deck driver: detection lists the decks pages have registered (`./hub.ts`), opening one
 * makes it a `BrowserDeckSurface` under the name of the `surfaces:` entry that claims it (by serial or
 * model, as a USB deck). Nothing is loaded for it until a page registers a deck: the model table is
 * built on the first registration, the key renderer only for a key whose feedback carries an image.
 */
import type { KeyRenderer } from '../render/key-renderer.js'
import type { SurfaceDriver } from '../types.js'
import { KeyImages } from '../web/key-images.js'
import { BROWSER_DECK_DRIVER, BrowserDeckHub } from './hub.js'
import { BrowserDeckSurface } from './surface.js'
import type { DetectedDevice } from '../../face/surface.js'
import type { SurfaceClaim } from '../../families/claims.js'

export interface BrowserDeckDriverOptions {
  /** The registrations; tests pass their own. */
  hub?: BrowserDeckHub
  /** Shared renderer, for keys whose feedback carries an image. */
  renderer?: KeyRenderer
}

export class BrowserDeckDriver implements SurfaceDriver {
  readonly name = BROWSER_DECK_DRIVER
  readonly hub: BrowserDeckHub
  private images: KeyImages | undefined

  constructor(private readonly opts: BrowserDeckDriverOptions = {}) {
    this.hub = opts.hub ?? new BrowserDeckHub()
  }

  claimsChanged(claims: readonly SurfaceClaim[] | 'all'): void {
    this.hub.setClaims(claims)
  }

  detect(): Promise<DetectedDevice[]> {
    return Promise.resolve(this.hub.list())
  }

  open(device: DetectedDevice): Promise<BrowserDeckSurface> {
    const reg = this.hub.get(device.id)
    if (!reg) return Promise.reject(new Error(`browser-deck: ${device.id} is no longer registered by its page`))
    const surface = new BrowserDeckSurface(reg, {
      images: () => (this.images ??= new KeyImages(this.opts.renderer)),
      send: (message) => this.hub.tell(reg, message),
    })
    this.hub.tell(reg, { type: 'deck-state', deck: reg.deck, state: 'open' })
    return Promise.resolve(surface)
  }
}
