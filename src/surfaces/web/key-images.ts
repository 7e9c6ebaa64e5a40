/**
 * Key images for the browser, for the one case the page does not paint a key itself: a feedback that
 * carries a pre-rendered image. The hardware's own KeyRenderer draws the key (image, detail, level,
 * badge); this module only turns the rendered pixels into a PNG data URL and caches that by the
 * renderer's content hash.
 */
import { encodePng, KeyRenderer, type RenderedKey } from '../render/key-renderer.js'
import { LruMap } from '../../lru.js'
import type { Feedback } from '../../face/feedback.js'

export interface KeySize {
  width: number
  height: number
}

/** The part of the KeyRenderer the web surface uses (tests and the daemon may share one renderer). */
export interface KeyImageRenderer {
  render(feedback: Feedback, size: KeySize): RenderedKey
}

/** Data URLs kept; a PNG data URL of a 96×96 key is a few kilobytes. */
const KEY_IMAGE_CACHE_ENTRIES = 512

export class KeyImages {
  private readonly cache: LruMap<string, string>

  constructor(
    private readonly renderer: KeyImageRenderer = new KeyRenderer(),
    maxEntries = KEY_IMAGE_CACHE_ENTRIES,
  ) {
    this.cache = new LruMap(maxEntries)
  }

  /** Renders one control's feedback and returns it as a `data:image/png;base64,` URL. */
  dataUrl(feedback: Feedback, size: KeySize): string {
    const key = this.renderer.render(feedback, size)
    const cacheKey = `${key.width}x${key.height}:${String(key.hash)}`
    const hit = this.cache.get(cacheKey)
    if (hit !== undefined) return hit
    const url = 'data:image/png;base64,' + encodePng(key).toString('base64')
    this.cache.set(cacheKey, url)
    return url
  }
}
