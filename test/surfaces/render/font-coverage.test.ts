/**
 * The cmap reader (`font-coverage.ts`): what the shipped fonts cover, and files that are not fonts,
 * cut short or made of random bytes give an error or a coverage, never a crash or a hang.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { GlyphCoverage, readGlyphCoverage } from '../../../src/surfaces/render/font-coverage.js'
import { FALLBACK_FONT_FILES, keyFontPath } from '../../../src/surfaces/render/fonts.js'

const dir = mkdtempSync(join(tmpdir(), 'panelbridge-fonts-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
function file(name: string, bytes: Uint8Array | string): string {
  const path = join(dir, name)
  writeFileSync(path, bytes)
  return path
}

describe('readGlyphCoverage', () => {
  it('DejaVu Sans Bold: Latin, Greek, Cyrillic and some symbols, no CJK or emoji pictographs', () => {
    const dejavu = readGlyphCoverage(keyFontPath())
    for (const c of 'Aé€ΩЖ☀★') expect(dejavu.has(c.codePointAt(0)!)).toBe(true)
    for (const c of ['日', 'ア', '한', '🍎']) expect(dejavu.has(c.codePointAt(0)!)).toBe(false)
    // Every printable code point below U+0250 (the layout's fast path needs no fallback there).
    for (let c = 0x20; c < 0x250; c++) if (c < 0x7f || c >= 0xa0) expect(dejavu.has(c)).toBe(true)
    expect(dejavu.size).toBeGreaterThan(5000)
  })

  it('the first font of a collection (the CJK .ttc) and a colour emoji font', () => {
    const cjk = readGlyphCoverage(FALLBACK_FONT_FILES.cjk.path)
    for (const c of ['日', 'ア', '한', '简', '繁']) expect(cjk.has(c.codePointAt(0)!)).toBe(true)
    const emoji = readGlyphCoverage(FALLBACK_FONT_FILES.emoji.path)
    for (const c of ['🍎', '🎬', '⚽', '🇯']) expect(emoji.has(c.codePointAt(0)!)).toBe(true)
    expect(emoji.has('日'.codePointAt(0)!)).toBe(false)
  })

  it('a file that is not a font, or one cut short, is an error', () => {
    expect(() => readGlyphCoverage(file('text.ttf', 'not a font at all, just some text'))).toThrow()
    const dejavu = readFileSync(keyFontPath())
    expect(() => readGlyphCoverage(file('cut.ttf', dejavu.subarray(0, 2000)))).toThrow(/outside/)
    const ttc = Buffer.alloc(16)
    ttc.write('ttcf', 0, 'latin1')
    expect(() => readGlyphCoverage(file('empty.ttc', ttc))).toThrow(/no fonts/)
  })

  it('random bytes, or a real font with bytes changed, never crash or hang the reader', () => {
    const dejavu = readFileSync(keyFontPath())
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 4096 }),
        fc.array(fc.tuple(fc.nat({ max: 600 }), fc.integer({ min: 0, max: 255 })), { maxLength: 40 }),
        (random, edits) => {
          const mutated = Buffer.from(dejavu.subarray(0, 700))
          for (const [at, v] of edits) mutated[at % mutated.length] = v
          for (const bytes of [random, Buffer.concat([mutated, dejavu.subarray(700)])]) {
            try {
              const coverage = readGlyphCoverage(file('fuzz.ttf', bytes))
              expect(coverage.size).toBeLessThanOrEqual(0x110000)
            } catch (err) {
              expect(err).toBeInstanceOf(Error)
            }
          }
        },
      ),
      { numRuns: 150 },
    )
  })
})

describe('GlyphCoverage', () => {
  it('merges overlapping and adjacent ranges and answers by binary search', () => {
    const c = new GlyphCoverage([
      [10, 20],
      [21, 25],
      [5, 12],
      [40, 40],
      [30, 29],
    ])
    expect(c.size).toBe(22)
    expect([4, 5, 25, 26, 39, 40, 41].map((n) => c.has(n))).toEqual([false, true, true, false, false, true, false])
  })
})
