/** Reading a browser screenshot's pixels (decoded with @napi-rs/canvas), for the browser tests. */
import { createCanvas, loadImage } from '@napi-rs/canvas'

export type Rgb = [number, number, number]
export interface Pixels {
  width: number
  height: number
  data: Uint8ClampedArray
}

export async function decodePng(png: Buffer): Promise<Pixels> {
  const image = await loadImage(png)
  const canvas = createCanvas(image.width, image.height)
  const ctx = canvas.getContext('2d')
  ctx.drawImage(image, 0, 0)
  const { width, height, data } = ctx.getImageData(0, 0, image.width, image.height)
  return { width, height, data }
}

export function pixelAt(p: Pixels, x: number, y: number): Rgb {
  const i = (Math.round(y) * p.width + Math.round(x)) * 4
  return [p.data[i]!, p.data[i + 1]!, p.data[i + 2]!]
}

export function near(actual: Rgb, expected: Rgb, tolerance = 3): boolean {
  return actual.every((v, i) => Math.abs(v - expected[i]!) <= tolerance)
}

/** How many pixels of the box from (x0, y0) up to (x1, y1), ends excluded, are white ink (every channel over 220). */
export function whitePixels(p: Pixels, x0: number, y0: number, x1: number, y1: number): number {
  let n = 0
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (pixelAt(p, x, y).every((v) => v > 220)) n++
  return n
}

/** `#rrggbb` as numbers. */
export function rgbOf(hex: string): Rgb {
  const n = parseInt(hex.slice(1), 16)
  return [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]
}

/**
 * How far a key painted by the page (at `x0, y0` in a screenshot) is from the same key drawn by the
 * daemon's renderer (`rgba`, `size` square): `far` counts pixels off by more than 128 in some channel (a
 * shifted or missing stroke), `differing` those off by more than 32 (anti-aliasing at glyph edges, which
 * Chromium's and the daemon's Skia builds shade differently). The rounded corners are left out.
 */
export function keyDifference(
  shot: Pixels,
  x0: number,
  y0: number,
  rgba: Uint8Array,
  size: number,
): { far: number; differing: number; compared: number } {
  let far = 0
  let differing = 0
  let compared = 0
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if ((x < 8 || x >= size - 8) && (y < 8 || y >= size - 8)) continue
      const i = (y * size + x) * 4
      const actual = pixelAt(shot, x0 + x, y0 + y)
      const off = Math.max(...actual.map((v, c) => Math.abs(v - rgba[i + c]!)))
      if (off > 128) far++
      if (off > 32) differing++
      compared++
    }
  }
  return { far, differing, compared }
}
