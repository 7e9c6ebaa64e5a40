/**
 * Key bitmaps for Satellite clients: the shared key renderer draws a key at the size its client asked
 * for (its cache is the local decks' own), and this encodes it as the client negotiated (raw RGB in
 * base64, or a PNG or WebP data URL), keeping the encoded text by the pixels' hash in a cache bounded
 * in bytes, so a page of keys shown again on several devices is encoded once.
 */
import { LruMap } from '../../lru.js'
import type { Feedback } from '../../face/feedback.js'
import { encodeKey, KeyRenderer, type RenderedKey } from '../render/key-renderer.js'
import type { SatelliteBitmapFormat } from './protocol.js'

/** The part of the key renderer drawing takes (tests and the daemon share one). */
export interface SatelliteKeyRenderer {
  render(feedback: Feedback, size: { width: number; height: number }): RenderedKey
}

/** ASSUMED: encoded bitmaps kept, bytes: a few pages of keys for several devices. */
const ENCODED_CACHE_BYTES = 8 * 1024 * 1024

export class SatelliteImages {
  private readonly cache = new LruMap<string, string>(2048, {
    maxWeight: ENCODED_CACHE_BYTES,
    weigh: (text) => text.length,
  })

  constructor(private readonly renderer: SatelliteKeyRenderer = new KeyRenderer()) {}

  /** A key's `BITMAP` value: its feedback drawn at `size`, encoded as `format`. */
  bitmap(feedback: Feedback, size: { w: number; h: number }, format: SatelliteBitmapFormat): string {
    const key = this.renderer.render(feedback, { width: size.w, height: size.h })
    const cacheKey = `${format}:${key.hash}`
    const hit = this.cache.get(cacheKey)
    if (hit !== undefined) return hit
    const text =
      format === 'rgb' ? rgbBase64(key) : `data:image/${format};base64,${encodeKey(key, format).toString('base64')}`
    this.cache.set(cacheKey, text)
    return text
  }

  /** Bytes of encoded bitmaps kept (`/metrics`). */
  get cachedBytes(): number {
    return this.cache.totalWeight
  }
}

/** The key's pixels as raw RGB (the alpha dropped: every face the renderer paints is opaque), base64. */
function rgbBase64(key: RenderedKey): string {
  const n = key.width * key.height
  const rgb = Buffer.allocUnsafe(n * 3)
  const { rgba } = key
  for (let i = 0, j = 0; i < n; i++, j += 4) {
    rgb[i * 3] = rgba[j]!
    rgb[i * 3 + 1] = rgba[j + 1]!
    rgb[i * 3 + 2] = rgba[j + 2]!
  }
  return rgb.toString('base64')
}
