/**
 * A faster stand-in for the library's pixel conversion (issue 29), installed by the driver in the loop's
 * thread, where every key image is converted. Before a key image is encoded, `@elgato-stream-deck/core`
 * turns the pixels to the model's orientation and colour order with `transformImageBuffer`, a loop of
 * DataView reads and writes per pixel: a large part of a cold key's cost even with V8's optimising
 * compiler, and more than drawing the key without it (`npm run bench surfaces` and `npm run bench
 * flags` print both conversions, the latter under each set of V8 flags).
 *
 * For the case the JPEG models take (RGBA in, RGBA out, flipped on either axis, not rotated), the same
 * colour bytes come from copying whole rows as 32-bit pixels (reversed for a horizontal flip; the 180°
 * turn of an unpadded image, the XL's keys, is one reverse of the whole image); every other case goes
 * to the library's own function. `installFastTransform` replaces the library's export in this thread
 * only after checking that both give equal colour bytes on probe images for every case it takes, so a
 * library whose conversion changed keeps its own.
 *
 * The alpha byte is left as the source's, where the library writes 255: every 'rgba' conversion of
 * `@elgato-stream-deck/core` goes straight into its JPEG encoder (services/imagePacker/jpeg.js,
 * lcdSegmentDisplay/generic.js and neo.js), and both encoders ignore the fourth byte (jpeg-turbo's
 * FORMAT_RGBA, jpeg-js reads r, g, b and skips it), so the JPEG is the same bytes. Setting it costs a
 * loop over every pixel, the very cost the row copies avoid. The key renderer's pixels are opaque anyway
 * (its background is painted first).
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
    if (target.xFlip && target.yFlip && source.stride === width * 4) {
      // Turned 180°, no padding: the pixels in reverse order, one native call.
      dst.set(new Uint32Array(imageBuffer.buffer, base, width * height))
      dst.reverse()
      return out
    }
    for (let y = 0; y < height; y++) {
      const y2 = target.yFlip ? height - y - 1 : y
      const row = new Uint32Array(imageBuffer.buffer, base + y2 * source.stride, width)
      dst.set(row, y * width)
      if (target.xFlip) dst.subarray(y * width, (y + 1) * width).reverse()
    }
    return out
  }
}

/** Whether two RGBA images have the same colour bytes (every pixel's first three; the alpha byte aside). */
export function sameColours(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length || a.length % 4 !== 0) return false
  for (let i = 0; i < a.length; i += 4) {
    if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) return false
  }
  return true
}

/**
 * Whether `a` and `b` give the same colour bytes on probe images (rows padded or not, with an offset or
 * not), for every case the fast path takes. Colour bytes only: the fast path leaves alpha as the
 * source's, which the JPEG encoders after it never read (see above).
 */
function agree(a: TransformImageBuffer, b: TransformImageBuffer): boolean {
  const [w, h] = [7, 5]
  for (const padded of [0, 3 * 4]) {
    const stride = w * 4 + padded
    const pixels = new Uint8Array(stride * h + 8)
    for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 37 + 11) % 256
    for (const xFlip of [false, true]) {
      for (const yFlip of [false, true]) {
        for (const offset of [0, 8]) {
          const args = [{ format: 'rgba', offset, stride }, { colorMode: 'rgba', xFlip, yFlip }, 0, w, h] as const
          if (!sameColours(a(pixels, ...args), b(pixels, ...args))) return false
        }
      }
    }
  }
  return true
}

interface Installed {
  /** The library's module whose export is replaced. */
  util: { transformImageBuffer?: TransformImageBuffer }
  original: TransformImageBuffer
  fast: TransformImageBuffer
}
/** By the library's `util.js` path: the network decks' library has its own copy of the core. */
const installed = new Map<string, Installed>()

/** The `util.js` of the `@elgato-stream-deck/core` that a module at `from` requires. */
function utilPath(from: string): string {
  const require = createRequire(from)
  return join(dirname(require.resolve('@elgato-stream-deck/core')), 'util.js')
}

/**
 * Puts the fast conversion in place of the library's in this thread, when both agree on the probes;
 * says whether it did. The library reads its export at each call (`(0, util_js_1.transformImageBuffer)`).
 * `from` is a module whose `@elgato-stream-deck/core` to patch (by default ours). Idempotent: the probes
 * run once a thread and copy of the core.
 */
export function installFastTransform(from: string = import.meta.url): boolean {
  try {
    const path = utilPath(from)
    const done = installed.get(path)
    if (done) {
      done.util.transformImageBuffer = done.fast
      return true
    }
    const util = createRequire(import.meta.url)(path) as Installed['util']
    const original = util.transformImageBuffer
    if (typeof original !== 'function') return false
    const fast = fastTransform(original)
    if (!agree(original, fast)) return false
    util.transformImageBuffer = fast
    installed.set(path, { util, original, fast })
    return true
  } catch {
    return false
  }
}

/**
 * Puts the library's own conversion back in this thread (until the next `installFastTransform`): the
 * path before issue 29 in the bench, and the library's own bytes the tests compare with. Says whether
 * the fast one was in place.
 */
export function uninstallFastTransform(from: string = import.meta.url): boolean {
  const done = installed.get(utilPath(from))
  if (!done || done.util.transformImageBuffer !== done.fast) return false
  done.util.transformImageBuffer = done.original
  return true
}
