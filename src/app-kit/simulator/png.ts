/**
 * Tiny image helpers for icons and thumbnails: a solid-colour PNG encoder (zlib, no canvas), and a
 * fixed JPEG for project thumbnails.
 */
import { crc32, deflateSync } from 'node:zlib'
import { APP_ERRORS } from '../../api/protocol.js'
import { LruMap } from '../../lru.js'
import { HandlerError } from './types.js'
import { SIM_LIMITS } from './limits.js'

/** Largest icon side the simulator draws, pixels (bigger requests are refused as 'invalid params'). */
const MAX_ICON_SIDE = 1920

/** An icon side as asked for: from 1 to MAX_ICON_SIDE, else 'invalid params'. */
export function iconSide(n: number): number {
  if (n < 1 || n > MAX_ICON_SIDE) throw new HandlerError(APP_ERRORS.invalidParams)
  return n
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, 'ascii')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0)
  return Buffer.concat([head, data, crc])
}

/** A PNG of `width`×`height` filled with `#rrggbb`, with a darker band along the bottom third. */
export function solidPng(width: number, height: number, color: string): Buffer {
  const rgb = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16) || 0)
  const dark = rgb.map((c) => Math.round(c * 0.5))
  const row = (fill: number[]): Buffer => {
    const r = Buffer.alloc(1 + width * 3) // filter byte 0, then RGB triplets
    for (let x = 0; x < width; x++) r.set(fill, 1 + x * 3)
    return r
  }
  const top = row(rgb)
  const bottom = row(dark)
  const band = Math.floor((height * 2) / 3)
  const raw = Buffer.concat(Array.from({ length: height }, (_, y) => (y < band ? top : bottom)))
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8-bit RGB, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

const iconCache = new LruMap<string, string>(SIM_LIMITS.iconCacheEntries)
let iconRenderCount = 0

/**
 * The icon of a title as a `data:` URL, drawn once per size and colour: getTitleControlInfo asks for
 * one per title per call, and 200 titles at 1920×1920 took seconds when each was drawn afresh.
 */
export function iconDataUrl(width: number, height: number, color: string): string {
  const key = `${width}x${height}#${color}`
  let url = iconCache.get(key)
  if (url === undefined) {
    url = `data:image/png;base64,${solidPng(width, height, color).toString('base64')}`
    iconRenderCount++
    iconCache.set(key, url)
  }
  return url
}

/** Icons cached now, and icons drawn since the process started (diagnostics; tests of the cache). */
export function iconCacheStats(): { size: number; renders: number } {
  return { size: iconCache.size, renders: iconRenderCount }
}

/** A 16×9 JPEG used as every project's thumbnail (base64, as replies carry it; files.ts decodes it for files). */
export const THUMBNAIL_JPEG_BASE64 =
  '/9j/4AAQSkZJRgABAQAAAQABAAD/4gHYSUNDX1BST0ZJTEUAAQEAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADb/2wBDAA0JCgsKCA0LCgsODg0PEyAVExISEyccHhcgLikxMC4pLSwzOko+MzZGNywtQFdBRkxOUlNSMj5aYVpQYEpRUk//2wBDAQ4ODhMREyYVFSZPNS01T09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT0//wAARCAAJABADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAAAAQG/8QAGBAAAgMAAAAAAAAAAAAAAAAAAAITUaH/xAAVAQEBAAAAAAAAAAAAAAAAAAAABf/EACARAAACCwAAAAAAAAAAAAAAAAABAgMEFBVRUoGh0fD/2gAMAwEAAhEDEQA/AM9G9aI3rSgB/WSLri3AmepLGh//2Q=='
