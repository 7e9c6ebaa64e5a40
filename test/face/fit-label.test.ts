/**
 * Issue 29: a label's size is found by halving the range of sizes (`fitLabel`), no longer by trying
 * every size from the largest down. Held here to that size-by-size scan (the code it replaced, kept
 * below as the reference): the same size and the same lines for every label, key size and padding,
 * over text measured by the shipped font in Skia and by a made-up font whose widths are not additive
 * (pairs kern, as real fonts' do), so that no shortcut through sums of word widths could pass.
 *
 * The label is also split into words and measured once for all the sizes tried (no longer once per
 * size): `wrapAll` is held to the wrapping it replaced (kept below too), which split and measured as
 * it went.
 */
import { createRequire } from 'node:module'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  fitLabel,
  forgetTextWidths,
  KEY_FONT_FAMILY,
  KEY_TEXT,
  maxRefWidth,
  wrapAll,
  type KeyPaintContext,
} from '../../src/face/key-paint.js'
import { keyFontPath } from '../../src/surfaces/render/key-renderer.js'

const require = createRequire(import.meta.url)
const skia = require('@napi-rs/canvas') as typeof import('@napi-rs/canvas')

/** The scan `fitLabel` replaced, line for line. */
function scanned(
  ctx: KeyPaintContext,
  text: string,
  maxW: number,
  maxH: number,
  largest: number,
): { px: number; lines: string[] } {
  const fits = (lines: string[], px: number): boolean => lines.length * px * KEY_TEXT.lineHeight <= maxH
  let px = largest
  let lines: string[] = []
  for (; px >= KEY_TEXT.minFontPx; px--) {
    const broken = { count: 0 }
    lines = wrapAll(ctx, text, maxW, px, broken)
    if (broken.count === 0 && fits(lines, px)) break
  }
  if (px < KEY_TEXT.minFontPx) {
    px = largest
    lines = wrapAll(ctx, text, maxW, px)
    while (!fits(lines, px) && px > KEY_TEXT.minFontPx) lines = wrapAll(ctx, text, maxW, --px)
  }
  return { px, lines }
}

/** The wrapping `wrapAll` replaced, line for line: split and measured as it goes (the made-up font ignores the size). */
function wrappedAsBefore(
  ctx: KeyPaintContext,
  text: string,
  maxW: number,
  px: number,
): { lines: string[]; broken: number } {
  const width = (s: string): number => ctx.measureText(s).width
  const max = maxRefWidth(maxW, px)
  const broken = { count: 0 }
  const wrap = (paragraph: string): string[] => {
    const words = paragraph.split(/\s+/).filter((w) => w !== '')
    const space = width(' ')
    const lines: string[] = []
    let line = ''
    let w = 0
    for (const word of words) {
      const ww = width(word)
      if (line !== '' && w + space + ww <= max) {
        line += ' ' + word
        w += space + ww
        continue
      }
      if (line !== '') lines.push(line)
      line = ''
      w = 0
      if (ww <= max) {
        line = word
        w = ww
        continue
      }
      broken.count++
      for (const ch of word) {
        const cw = width(ch)
        if (line !== '' && w + cw > max) {
          lines.push(line)
          line = ''
          w = 0
        }
        line += ch
        w += cw
      }
    }
    if (line !== '') lines.push(line)
    return lines
  }
  const lines = text.split('\n').flatMap((p) => (p.trim() === '' ? [''] : wrap(p)))
  return { lines, broken: broken.count }
}

/** A context that only measures: each character its own width, and every adjacent pair kerned. */
function madeUpFont(): KeyPaintContext & { measured: number } {
  const advance = (c: string): number => 20 + ((c.codePointAt(0)! * 37) % 29) + 0.37
  const kern = (a: string, b: string): number => (((a.codePointAt(0)! * 13 + b.codePointAt(0)!) % 7) - 3) * 1.1
  const ctx = {
    measured: 0,
    measureText(s: string) {
      ctx.measured++
      const chars = [...s]
      let width = 0
      chars.forEach((c, i) => (width += advance(c) + (i > 0 ? kern(chars[i - 1]!, c) : 0)))
      return { width }
    },
  }
  return ctx as unknown as KeyPaintContext & { measured: number }
}

// Empty words too: two separators in a row make blank paragraphs (`\n\n`) and runs of spaces.
const word = fc.stringMatching(/^[A-Za-z0-9éÅ&]{0,14}$/)
const label = fc
  .array(fc.tuple(word, fc.constantFrom(' ', ' ', '  ', '\n', ' \n ')), { minLength: 1, maxLength: 9 })
  .map((parts) =>
    parts
      .map(([w, sep]) => w + sep)
      .join('')
      .trim(),
  )
/** Key sizes the models have (72, 80, 96, 120, the + strip's 200×100) and odd ones. */
interface Box {
  width: number
  height: number
  pad: number
  bottomCut: number
}
const box: fc.Arbitrary<Box> = fc.record({
  width: fc.integer({ min: 24, max: 240 }),
  height: fc.integer({ min: 24, max: 240 }),
  pad: fc.integer({ min: 0, max: 12 }),
  bottomCut: fc.integer({ min: 0, max: 30 }),
})

describe('fitLabel: the size by halving, as the size-by-size scan', () => {
  beforeEach(() => forgetTextWidths())
  afterEach(() => forgetTextWidths())

  function sameAsScan(ctx: KeyPaintContext, text: string, b: Box): { px: number; lines: string[] } {
    const maxW = Math.max(1, b.width - 2 * b.pad)
    const maxH = Math.max(1, b.height - b.pad - b.bottomCut)
    const largest = Math.max(KEY_TEXT.minFontPx, Math.floor(b.height * 0.3))
    const got = fitLabel(ctx, text, maxW, maxH, largest)
    expect(got).toEqual(scanned(ctx, text, maxW, maxH, largest))
    return got
  }

  it('gives the scan’s size and lines for generated labels, widths that kern', () => {
    const ctx = madeUpFont()
    const sizes = new Set<number>()
    fc.assert(
      fc.property(label, box, (text, b) => {
        sizes.add(sameAsScan(ctx, text, b).px)
      }),
      { numRuns: 4000 },
    )
    // The runs cover labels that fit at the largest size, at the smallest, and between.
    expect(sizes.size).toBeGreaterThan(15)
  })

  it('gives the scan’s size and lines with the shipped font in Skia', () => {
    skia.GlobalFonts.registerFromPath(keyFontPath(), KEY_FONT_FAMILY)
    const ctx = skia.createCanvas(8, 8).getContext('2d') as unknown as KeyPaintContext
    const labels = [
      'GO',
      'Replay',
      'Lower third 12',
      'Title with a rather long name that wraps over lines',
      'Supercalifragilisticexpialidocious',
      'Cam 1\nCam 2\nCam 3\nCam 4',
      'W W W W W W W W W W W W W W W W W W W W',
      'AVAVAVA To Ty',
    ]
    for (const text of labels)
      for (const size of [72, 80, 96, 120])
        sameAsScan(ctx, text, { width: size, height: size, pad: Math.round(size * 0.06), bottomCut: 0 })
    fc.assert(
      fc.property(label, box, (text, b) => void sameAsScan(ctx, text, b)),
      { numRuns: 400 },
    )
  })

  it('wraps a label as the wrapping before it, which split and measured as it went', () => {
    const ctx = madeUpFont()
    let brokenSeen = 0
    fc.assert(
      fc.property(
        label,
        fc.integer({ min: 8, max: 230 }),
        fc.integer({ min: KEY_TEXT.minFontPx, max: 72 }),
        (text, maxW, px) => {
          const broken = { count: 0 }
          const lines = wrapAll(ctx, text, maxW, px, broken)
          const before = wrappedAsBefore(ctx, text, maxW, px)
          expect({ lines, broken: broken.count }).toEqual(before)
          brokenSeen += before.broken > 0 ? 1 : 0
        },
      ),
      { numRuns: 3000 },
    )
    // Words broken between characters are among the runs.
    expect(brokenSeen).toBeGreaterThan(100)
  })
})
