/**
 * Issue 22, item 14: emoji and CJK labels draw as text on rendered keys, through the fallback chain
 * (DejaVu, then Noto Color Emoji, then Noto Sans CJK, from Debian's packages: scripts/ensure-system-deps.sh
 * installs them for the tests), each registered only once a label needs it. Pixel tests compare the real
 * Skia renderer against the same layout painted with DejaVu alone, which draws boxes.
 */
import { readFileSync } from 'node:fs'
import { createCanvas, GlobalFonts } from '@napi-rs/canvas'
import { describe, expect, it } from 'vitest'
import { FONT_RANGES_FILE, fontRangesText } from '../../../scripts/generate-font-ranges.js'
import { readGlyphCoverage } from '../../../src/surfaces/render/font-coverage.js'
import { FALLBACK_FONT_FILES, keyFontPath, missingGlyphs } from '../../../src/surfaces/render/fonts.js'
import {
  cssUnicodeRange,
  FALLBACK_FONTS,
  fallbackFontsFor,
  KEY_FONT_FAMILY,
  KEY_TEXT,
  paintKey,
  type KeyFace,
} from '../../../src/face/key-paint.js'
import { KeyRenderer, registeredFallbacks, type RenderedKey } from '../../../src/surfaces/render/key-renderer.js'

const SIZE = { width: 72, height: 72 }
const renderer = new KeyRenderer()

/** The same face painted by the same layout on Skia with DejaVu alone: what a key showed before. */
function dejavuOnly(face: KeyFace): Uint8ClampedArray {
  renderer.render({ text: 'x' }, SIZE) // registers DejaVu
  const ctx = createCanvas(72, 72).getContext('2d')
  const only = new Proxy(ctx, {
    set(target, prop, value: unknown) {
      const v =
        prop === 'font' && typeof value === 'string' ? value.replace(KEY_TEXT.fontStack, KEY_FONT_FAMILY) : value
      return Reflect.set(target, prop, v)
    },
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop)
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })
  paintKey(only, face, 72, 72)
  return ctx.getImageData(0, 0, 72, 72).data
}

const isInk = (d: ArrayLike<number>, i: number): boolean => d[i]! > 128 || d[i + 1]! > 128 || d[i + 2]! > 128
function ink(d: ArrayLike<number>): number {
  let n = 0
  for (let i = 0; i < d.length; i += 4) if (isInk(d, i)) n++
  return n
}
/** Pixels that are ink in `a` but not in `b`. */
function inkOnlyIn(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let n = 0
  for (let i = 0; i < a.length; i += 4) if (isInk(a, i) && !isInk(b, i)) n++
  return n
}
const rgba = (key: RenderedKey): Uint8Array => key.rgba

describe('fallback fonts on rendered keys', () => {
  it('a Latin label registers no fallback font', () => {
    renderer.render({ color: '#000000', text: 'Lower Third\nRunning', detail: 'hold 1.5 s' }, SIZE)
    renderer.render({ color: '#000000', text: 'Café ☀ Ωmega' }, SIZE) // DejaVu has these
    expect(registeredFallbacks()).toEqual([])
    expect(GlobalFonts.has('PanelbridgeCJK')).toBe(false)
    expect(GlobalFonts.has('PanelbridgeEmoji')).toBe(false)
  })

  it('a CJK label has ink where DejaVu alone draws boxes, and only then is the CJK font registered', () => {
    const face = { color: '#000000', text: '日本' }
    const boxes = dejavuOnly(face)
    // DejaVu alone: the two characters are its missing-glyph boxes, the same as for code points no font has.
    expect(ink(boxes)).toBeGreaterThan(0)
    expect(inkOnlyIn(boxes, dejavuOnly({ color: '#000000', text: '\u{10fffd}\u{10fffd}' }))).toBe(0)
    const key = renderer.render(face, SIZE)
    expect(registeredFallbacks()).toEqual(['cjk'])
    expect(inkOnlyIn(rgba(key), boxes)).toBeGreaterThan(150)
    expect(ink(rgba(key))).toBeGreaterThan(ink(boxes) * 1.5)
  })

  it('Hangul and kana come from the same collection; an emoji (a red apple) draws in colour from the emoji font', () => {
    const hangul = renderer.render({ color: '#000000', text: '뉴스' }, SIZE)
    expect(inkOnlyIn(rgba(hangul), dejavuOnly({ color: '#000000', text: '뉴스' }))).toBeGreaterThan(100)
    const face = { color: '#000000', text: '🍎' }
    const key = renderer.render(face, SIZE)
    expect(registeredFallbacks().sort()).toEqual(['cjk', 'emoji'])
    let coloured = 0
    for (let i = 0; i < key.rgba.length; i += 4) {
      const [r, g, b] = [key.rgba[i]!, key.rgba[i + 1]!, key.rgba[i + 2]!]
      if (Math.max(r, g, b) - Math.min(r, g, b) > 60) coloured++
    }
    expect(coloured).toBeGreaterThan(50)
    // DejaVu alone has no colour at all: white on black.
    const box = dejavuOnly(face)
    for (let i = 0; i < box.length; i += 4)
      expect(Math.max(box[i]!, box[i + 1]!, box[i + 2]!) - Math.min(box[i]!, box[i + 1]!, box[i + 2]!)).toBeLessThan(8)
  })
})

describe('which fallback a text needs (the same on the page and in the daemon)', () => {
  it('none for what DejaVu draws; emoji before CJK; the chain order', () => {
    expect(fallbackFontsFor('Lower Third 1-0 Ωμέγα Привет ☀ ★')).toEqual([])
    expect(fallbackFontsFor('日本').map((f) => f.id)).toEqual(['cjk'])
    expect(fallbackFontsFor('🎬').map((f) => f.id)).toEqual(['emoji'])
    // ⚽ is in both: the emoji font draws it.
    expect(fallbackFontsFor('⚽').map((f) => f.id)).toEqual(['emoji'])
    expect(fallbackFontsFor('ニュース 🎬').map((f) => f.id)).toEqual(['emoji', 'cjk'])
    expect(FALLBACK_FONTS.map((f) => f.family).join(', ')).toBe(KEY_TEXT.fontStack.split(', ').slice(1).join(', '))
  })

  it('the CSS unicode-range of a fallback lists its ranges', () => {
    const cjk = FALLBACK_FONTS.find((f) => f.id === 'cjk')!
    expect(cssUnicodeRange(cjk)).toMatch(/U\+4E00-9FEF/)
    expect(cssUnicodeRange(cjk).split(', ')).toHaveLength(cjk.ranges.length)
  })

  it('the committed table is what the installed fonts give (run npx tsx scripts/generate-font-ranges.ts when this fails)', () => {
    expect(fontRangesText()).toBe(readFileSync(FONT_RANGES_FILE, 'utf8'))
  })

  it('no range holds a code point DejaVu has, and every code point a fallback has is drawn by some font', () => {
    const dejavu = readGlyphCoverage(keyFontPath())
    for (const font of FALLBACK_FONTS) {
      for (const [a, b] of font.ranges)
        for (let c = a; c <= b; c++) if (dejavu.has(c)) expect.fail(`U+${c.toString(16)}`)
      const own = readGlyphCoverage(FALLBACK_FONT_FILES[font.id].path)
      for (const c of [0x65e5, 0xac00, 0x1f3ac, 0x26bd, 0x3042]) {
        if (own.has(c)) expect(dejavu.has(c) || fallbackFontsFor(String.fromCodePoint(c)).length).toBeTruthy()
      }
    }
  })
})

describe('missingGlyphs (for check)', () => {
  it('nothing for what the chain draws, joiners, modifiers and flags included', () => {
    expect(missingGlyphs('Lower Third\n{{play}} Ωμέγα')).toEqual([])
    expect(missingGlyphs('ニュース速報 뉴스 🎬 ⚽ ☀️ 👍🏽 👨‍👩‍👧 🇯🇵')).toEqual([])
  })

  it('each character no font draws, once, in order', () => {
    expect(missingGlyphs('ก\u{10fffd}กx\u{10fffd}')).toEqual([
      { char: 'ก', codePoint: 0x0e01 },
      { char: '\u{10fffd}', codePoint: 0x10fffd },
    ])
  })

  it('names the package when the fallback font that would draw it is not installed', () => {
    const files = {
      ...FALLBACK_FONT_FILES,
      cjk: { path: '/nonexistent/NotoSansCJK-Bold.ttc', package: 'fonts-noto-cjk' },
    }
    expect(missingGlyphs('日本 🎬', files)).toEqual([
      { char: '日', codePoint: 0x65e5, package: 'fonts-noto-cjk' },
      { char: '本', codePoint: 0x672c, package: 'fonts-noto-cjk' },
    ])
  })
})
