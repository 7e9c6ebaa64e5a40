/**
 * The driver's stand-in for the library's pixel conversion gives the library's colour bytes, byte
 * for byte: every case it takes (RGBA to RGBA, flipped either way, rows with padding, an offset, any
 * alpha) against the library's own `transformImageBuffer`, and the cases it leaves to the library. The
 * alpha byte stays the source's (the library writes 255; its JPEG encoders never read it). Installed in
 * the library's place once per thread and copy of the core, and taken out again.
 */
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  fastTransform,
  installFastTransform,
  sameColours,
  uninstallFastTransform,
  type TransformImageBuffer,
} from '../../../src/surfaces/streamdeck/fast-transform.js'

const require = createRequire(import.meta.url)
/** The library's module as its own files require it (and a copy's, from the network decks' library). */
const utilOf = (from: NodeJS.Require): { transformImageBuffer: TransformImageBuffer } =>
  from(join(dirname(from.resolve('@elgato-stream-deck/core')), 'util.js')) as {
    transformImageBuffer: TransformImageBuffer
  }
const util = utilOf(require)
const library = util.transformImageBuffer
const tcp = require.resolve('@elgato-stream-deck/tcp')
const nestedUtil = utilOf(createRequire(tcp))

/** Pixels of every byte value, alpha included, `pad` bytes after each row and `offset` before the first. */
function pixels(width: number, height: number, pad: number, offset: number): Uint8Array {
  const out = new Uint8Array(offset + (width * 4 + pad) * height)
  for (let i = 0; i < out.length; i++) out[i] = (i * 151 + 7) % 256
  return out
}

describe('fastTransform', () => {
  it('gives the library colour bytes for RGBA with flips, padding and offsets', () => {
    let fellBack = 0
    const fast = fastTransform((...args) => {
      fellBack++
      return library(...args)
    })
    for (const [width, height] of [
      [96, 96],
      [200, 100],
      [3, 1],
    ] as const) {
      for (const pad of [0, 8]) {
        for (const offset of [0, 4, 12]) {
          for (const xFlip of [false, true]) {
            for (const yFlip of [false, true]) {
              const src = pixels(width, height, pad, offset)
              const args = [
                { format: 'rgba', offset, stride: width * 4 + pad },
                { colorMode: 'rgba', xFlip, yFlip },
                0,
                width,
                height,
              ] as const
              const mine = fast(src, ...args)
              expect(
                sameColours(mine, library(src, ...args)),
                `${width}x${height} pad ${pad} offset ${offset} x ${xFlip} y ${yFlip}`,
              ).toBe(true)
            }
          }
        }
      }
    }
    expect(fellBack).toBe(0)
  })

  it('leaves rotation, other colour orders, a header and unaligned pixels to the library, with its bytes', () => {
    const calls: string[] = []
    const fast = fastTransform((...args) => {
      calls.push(`${args[2].colorMode}${args[2].rotate ? ' rotate' : ''} pad ${args[3]}`)
      return library(...args)
    })
    const src = pixels(8, 6, 0, 0)
    const cases = [
      [src, { format: 'rgba', offset: 0, stride: 32 }, { colorMode: 'rgba', rotate: true, yFlip: true }, 0],
      [src, { format: 'rgba', offset: 0, stride: 32 }, { colorMode: 'bgr', xFlip: true, yFlip: true }, 54],
      [src, { format: 'rgba', offset: 0, stride: 32 }, { colorMode: 'rgba', xFlip: true }, 54],
      [src.subarray(1, 1 + 8 * 6 * 4 - 4), { format: 'rgba', offset: 0, stride: 28 }, { colorMode: 'rgba' }, 0],
    ] as const
    for (const [buf, source, target, pad] of cases) {
      const width = buf === src ? 8 : 7
      expect(
        Buffer.from(fast(buf, source, target, pad, width, 6)).equals(
          Buffer.from(library(buf, source, target, pad, width, 6)),
        ),
      ).toBe(true)
    }
    expect(calls).toEqual(['rgba rotate pad 0', 'bgr pad 54', 'rgba pad 54', 'rgba pad 0'])
  })
})

describe('fastTransform alpha', () => {
  it("keeps the source's alpha byte where the library writes 255, and moves it with its pixel", () => {
    const fast = fastTransform(library)
    // 3×2 pixels: colour n*10+{1,2,3}, alpha n (pixel n = 0..5), unpadded: the 180° turn in one reverse.
    const src = new Uint8Array(6 * 4)
    for (let n = 0; n < 6; n++) src.set([n * 10 + 1, n * 10 + 2, n * 10 + 3, n], n * 4)
    const args = [
      { format: 'rgba', offset: 0, stride: 12 },
      { colorMode: 'rgba', xFlip: true, yFlip: true },
      0,
      3,
      2,
    ] as const
    const mine = fast(src, ...args)
    const theirs = library(src, ...args)
    expect(sameColours(mine, theirs)).toBe(true)
    expect([...mine.filter((_, i) => i % 4 === 3)]).toEqual([5, 4, 3, 2, 1, 0])
    expect([...theirs.filter((_, i) => i % 4 === 3)]).toEqual([255, 255, 255, 255, 255, 255])
    expect([...mine.subarray(0, 4)]).toEqual([51, 52, 53, 5])
  })

  it('sameColours tells a colour byte apart and ignores the alpha byte', () => {
    const a = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])
    expect(sameColours(a, new Uint8Array([1, 2, 3, 99, 5, 6, 7, 0]))).toBe(true)
    expect(sameColours(a, new Uint8Array([1, 2, 3, 4, 5, 6, 9, 8]))).toBe(false)
    expect(sameColours(a, a.subarray(0, 4))).toBe(false)
  })
})

describe('installFastTransform', () => {
  /** RGBA turned 180° with alpha 7: the library writes 255, the fast conversion keeps 7. */
  const alphaAfter = (convert: TransformImageBuffer): number =>
    convert(
      new Uint8Array(16).fill(7),
      { format: 'rgba', offset: 0, stride: 8 },
      { colorMode: 'rgba', xFlip: true, yFlip: true },
      0,
      2,
      2,
    )[3]!

  it('puts the fast conversion in the library’s place, once, and takes it out again', () => {
    expect(util.transformImageBuffer).toBe(library)
    expect(installFastTransform()).toBe(true)
    const fast = util.transformImageBuffer
    expect(fast).not.toBe(library)
    expect(alphaAfter(fast)).toBe(7)
    // Idempotent: the same conversion, not one wrapped around the other.
    expect(installFastTransform()).toBe(true)
    expect(util.transformImageBuffer).toBe(fast)
    expect(uninstallFastTransform()).toBe(true)
    expect(util.transformImageBuffer).toBe(library)
    expect(alphaAfter(util.transformImageBuffer)).toBe(255)
    expect(uninstallFastTransform()).toBe(false)
    expect(installFastTransform()).toBe(true)
    expect(util.transformImageBuffer).toBe(fast)
    uninstallFastTransform()
  })

  it('patches the copy of the core a module requires: the network decks’ library has its own', () => {
    expect(nestedUtil).not.toBe(util)
    const nested = nestedUtil.transformImageBuffer
    expect(installFastTransform(tcp)).toBe(true)
    expect(nestedUtil.transformImageBuffer).not.toBe(nested)
    expect(alphaAfter(nestedUtil.transformImageBuffer)).toBe(7)
    expect(util.transformImageBuffer).toBe(library)
    expect(uninstallFastTransform(tcp)).toBe(true)
    expect(nestedUtil.transformImageBuffer).toBe(nested)
  })
})
