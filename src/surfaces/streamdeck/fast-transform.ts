/**
 * A faster stand-in for the library's pixel conversion, for the key workers only (issue 29). Before
 * a key image is encoded, `@elgato-stream-deck/core` turns the pixels to the model's orientation and
 * colour order with `transformImageBuffer`, a loop of DataView reads and writes per pixel: measured
 * here at 2.5–4 ms a 96×96 key with V8's optimizing compiler and 15 ms under the daemon's V8 flags
 * (`--no-opt`, see bench/daemon.bench.ts), the largest part of a cold key's cost, more than drawing it.
 *
 * For the case the JPEG models take (RGBA in, RGBA out, flipped on either axis, not rotated), the same
 * bytes come from copying whole rows as 32-bit pixels (reversed for a horizontal flip) and setting
 * alpha to 255; every other case goes to the library's own function. `installFastTransform` replaces
 * the library's export in this thread only after checking that both give equal bytes on probe images
 * for every case it takes, so a library whose conversion changed keeps its own.
 */
import { createRequire } from 'node:module'
import { endianness } from 'node:os'
import { dirname, join } from 'node:path'

/** The library's `transformImageBuffer` arguments (dist/util.d.ts of @elgato-stream-deck/core). */
type SourceOptions = { format: string; offset: number; stride: number }
type TargetOptions = { colorMode: string; xFlip?: boolean; yFlip?: boolean; rotate?: boolean }
export type TransformImageBuffer = (
  imageBuffer: Uint8Array,
  sourceOptions: SourceOptions,
  targetOptions: TargetOptions,
  destPadding: number,
  imageWidth: number,
  imageHeight: number,
) => Uint8Array

/** The conversion of RGBA to RGBA with flips by rows, else `original`'s. */
export function fastTransform(original: TransformImageBuffer): TransformImageBuffer {
  const littleEndian = endianness() === 'LE'
  return (imageBuffer, source, target, destPadding, width, height) => {
    const base = imageBuffer.byteOffset + source.offset
    const takes =
      littleEndian &&
      !target.rotate &&
      source.format === 'rgba' &&
      target.colorMode === 'rgba' &&
      destPadding === 0 &&
      base % 4 === 0 &&
      source.stride % 4 === 0 &&
      source.offset >= 0 &&
      source.offset + (height - 1) * source.stride + width * 4 <= imageBuffer.byteLength
    if (!takes) return original(imageBuffer, source, target, destPadding, width, height)
    const out = new Uint8Array(width * height * 4)
    const dst = new Uint32Array(out.buffer)
    for (let y = 0; y < height; y++) {
      const y2 = target.yFlip ? height - y - 1 : y
      const row = new Uint32Array(imageBuffer.buffer, base + y2 * source.stride, width)
      dst.set(row, y * width)
      if (target.xFlip) dst.subarray(y * width, (y + 1) * width).reverse()
    }
    // Alpha 255, as the library writes it (the byte at +3 is the high byte of a little-endian pixel).
    for (let i = 0; i < dst.length; i++) dst[i] = dst[i]! | 0xff000000
    return out
  }
}

/** Whether `a` and `b` give the same bytes on probe images, for every case the fast path takes. */
function agree(a: TransformImageBuffer, b: TransformImageBuffer): boolean {
  const [w, h] = [7, 5]
  const padded = 3 * 4
  const stride = w * 4 + padded
  const pixels = new Uint8Array(stride * h + 8)
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 37 + 11) % 256
  for (const xFlip of [false, true]) {
    for (const yFlip of [false, true]) {
      for (const offset of [0, 8]) {
        const args = [{ format: 'rgba', offset, stride }, { colorMode: 'rgba', xFlip, yFlip }, 0, w, h] as const
        if (!Buffer.from(a(pixels, ...args)).equals(Buffer.from(b(pixels, ...args)))) return false
      }
    }
  }
  return true
}

/**
 * Puts the fast conversion in place of the library's in this thread, when both agree on the probes;
 * says whether it did. The library reads its export at each call (`(0, util_js_1.transformImageBuffer)`).
 */
export function installFastTransform(): boolean {
  try {
    const require = createRequire(import.meta.url)
    const util = require(join(dirname(require.resolve('@elgato-stream-deck/core')), 'util.js')) as {
      transformImageBuffer?: TransformImageBuffer
    }
    const original = util.transformImageBuffer
    if (typeof original !== 'function') return false
    const fast = fastTransform(original)
    if (!agree(original, fast)) return false
    util.transformImageBuffer = fast
    return true
  } catch {
    return false
  }
}
