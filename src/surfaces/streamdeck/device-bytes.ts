/**
 * The device bytes of key images, cached: what the library sends for one key or LCD segment (the image
 * encoded as the model takes it, JPEG or BMP, at its size and rotation, split into the model's HID
 * reports), kept by the face's identity (what the key renderer caches by), the model and the control.
 * A switch back to a page seen before sends cached reports only: no drawing, no encoding.
 *
 * The control is part of the key because the reports carry the key index (or the strip region) in
 * their headers; the same face on two keys is two entries. One cache serves every deck of a process (a
 * second XL reuses the first one's bytes), bounded in bytes; `deviceBytesCached()` is its size for
 * `/metrics`. Imports only the LRU, so the metrics room may read it without loading the HID stack.
 */
import type { PreparedBuffer } from '@elgato-stream-deck/core'
import { LruMap } from '../../lru.js'

/**
 * ASSUMED (issue 29, "a few MB"): 4 MiB of device bytes by default. A 96×96 XL key at JPEG quality 95 is
 * 3–8 KB of reports, so about 700 keys: twenty XL pages, far more than a control room pages through.
 */
const DEVICE_BYTES_CACHE_BYTES = 4 * 1024 * 1024

/** One cached write: the library's prepared reports and what the surface records them as showing. */
export interface DeviceBytes {
  prepared: PreparedBuffer
  /** What the surface records as shown, exactly as for a fresh write (the pixels' hash). */
  hash: string
  /** Total bytes of the reports. */
  bytes: number
}

/**
 * A prepared buffer's reports, where the library keeps them (`do_not_touch`: Uint8Arrays, or base64
 * strings when jsonSafe); an empty list when it keeps them otherwise. The one place that reads the field.
 */
export function preparedReports(prepared: PreparedBuffer): readonly unknown[] {
  const inner = (prepared as unknown as { do_not_touch?: unknown }).do_not_touch
  return Array.isArray(inner) ? (inner as unknown[]) : []
}

/** Total bytes of a prepared buffer's reports (the library keeps them as Uint8Arrays unless jsonSafe). */
export function preparedBytes(prepared: PreparedBuffer): number {
  let total = 0
  for (const b of preparedReports(prepared)) total += b instanceof Uint8Array ? b.byteLength : String(b).length
  return total
}

export class DeviceBytesCache {
  private readonly lru: LruMap<string, DeviceBytes>
  /** Hits and misses, for the bench and tests. */
  readonly stats = { hits: 0, misses: 0 }

  constructor(readonly maxBytes: number = DEVICE_BYTES_CACHE_BYTES) {
    // The entry count is no bound of its own: bytes are.
    this.lru = new LruMap(Number.MAX_SAFE_INTEGER, { maxWeight: maxBytes, weigh: (e) => e.bytes })
  }

  /** The cache key: model, control and the face's identity. */
  static key(model: string, control: string, face: string): string {
    return `${model}\u0000${control}\u0000${face}`
  }

  get(key: string): DeviceBytes | undefined {
    const hit = this.lru.get(key)
    if (hit) this.stats.hits++
    else this.stats.misses++
    return hit
  }

  set(key: string, value: DeviceBytes): void {
    // A bound of 0 keeps nothing (the LRU would keep the newest entry).
    if (this.maxBytes <= 0) return
    this.lru.set(key, value)
  }

  /** Bytes of reports kept now. */
  get bytes(): number {
    return this.lru.totalWeight
  }

  get size(): number {
    return this.lru.size
  }
}

/** The process's cache, shared by every Stream Deck driver that is not handed one of its own. */
export const sharedDeviceBytes = new DeviceBytesCache()

/** Bytes the shared cache holds now (`/metrics`). */
export function deviceBytesCached(): number {
  return sharedDeviceBytes.bytes
}
