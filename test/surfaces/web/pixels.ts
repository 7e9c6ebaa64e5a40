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

/** `#rrggbb` as numbers. */
export function rgbOf(hex: string): Rgb {
  const n = parseInt(hex.slice(1), 16)
  return [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]
}
