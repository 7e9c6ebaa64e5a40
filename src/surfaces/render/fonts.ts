/**
 * The key fonts' files, on the daemon's side: DejaVu Sans Bold from its npm package (`keyFontPath` in
 * `./key-renderer.ts`), then the fallback fonts for what DejaVu lacks, from Debian's packages.
 *
 * Why Debian's packages rather than npm's: Noto Sans CJK Bold comes as one pan-CJK collection
 * (Japanese, Chinese and Korean, 20 MB) and Noto Color Emoji as one file (11 MB), each a single file
 * that Skia registers by path (memory-mapped: about 1 MB of resident memory once registered) and
 * Chromium loads as a `FontFace`; the npm packages split them into web subsets (fontsource, WOFF2 only)
 * or ship Japanese alone in nine weights (29 MB to download). Nothing here reads a fallback font before
 * a label needs one of its code points; without the package, those characters draw as boxes, as before,
 * and `missingGlyphs` (for `check`) says which package to install.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { readGlyphCoverage, type GlyphCoverage } from './font-coverage.js'
import { FAST_PATH_END, fallbackFontOf, type FallbackFont } from '../../face/key-paint.js'

const require = createRequire(import.meta.url)

/**
 * The shipped key font's file (DejaVu Sans Bold), resolved through its package, never the working
 * directory. The web server serves the same file to the page.
 */
export function keyFontPath(): string {
  return require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')
}

type FontFiles = Readonly<Record<FallbackFont['id'], { path: string; package: string }>>

/**
 * ASSUMED: where Debian puts the fallback fonts (bookworm's fonts-noto-color-emoji 2.042 and
 * fonts-noto-cjk 1:20220127, the same paths in trixie; `dpkg -L`). The CJK collection's first font
 * is Noto Sans CJK JP: every ideograph with Japanese forms, kana, Hangul.
 */
export const FALLBACK_FONT_FILES: FontFiles = {
  emoji: { path: '/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf', package: 'fonts-noto-color-emoji' },
  cjk: { path: '/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc', package: 'fonts-noto-cjk' },
}

/** The file of a fallback font, or undefined when it is not installed. */
export function fallbackFontFile(id: FallbackFont['id'], files: FontFiles = FALLBACK_FONT_FILES): string | undefined {
  const { path } = files[id]
  return existsSync(path) ? path : undefined
}

/** A character no key font draws (it shows as a box), and the Debian package that would draw it. */
export interface MissingGlyph {
  char: string
  codePoint: number
  /** Set when a fallback font would draw it but is not installed. */
  package?: string
}

/**
 * Code points that need no glyph: controls, zero-width joiners and spaces, variation selectors, tag
 * characters (they join or modify what stands beside them).
 */
function needsNoGlyph(c: number): boolean {
  return (
    c < 0x20 ||
    (c >= 0x7f && c < 0xa0) ||
    (c >= 0x200b && c <= 0x200f) ||
    (c >= 0x2028 && c <= 0x202e) ||
    (c >= 0x2060 && c <= 0x2064) ||
    (c >= 0xfe00 && c <= 0xfe0f) ||
    c === 0xfeff ||
    (c >= 0xe0000 && c <= 0xe007f) ||
    (c >= 0xe0100 && c <= 0xe01ef)
  )
}

/**
 * Coverage read once per font file (a few kB of ranges each), for the loader's warning about labels
 * (`src/mappings/check-glyphs.ts`, so `check` and a daemon's load alike), and only for a label with a
 * character past DejaVu's fast path: a file of Latin labels reads no font.
 */
const coverages = new Map<string, GlyphCoverage | Error>()
function coverageOf(path: string): GlyphCoverage | Error {
  let coverage = coverages.get(path)
  if (coverage === undefined) {
    try {
      coverage = readGlyphCoverage(path)
    } catch (err) {
      coverage = err instanceof Error ? err : new Error(String(err))
    }
    coverages.set(path, coverage)
  }
  return coverage
}

/**
 * The characters of `text` that no key font draws, each once, in order of first appearance: neither
 * DejaVu nor the fallback font that would draw it (not installed, or without the glyph). For `check`;
 * `files` is where the fallback fonts are (tests give one that is not installed).
 */
export function missingGlyphs(text: string, files: FontFiles = FALLBACK_FONT_FILES): MissingGlyph[] {
  const out: MissingGlyph[] = []
  const seen = new Set<number>()
  for (const char of text) {
    const c = char.codePointAt(0)!
    if (c < FAST_PATH_END || needsNoGlyph(c) || seen.has(c)) continue
    seen.add(c)
    const fallback = fallbackFontOf(c)
    if (fallback === undefined) {
      const dejavu = coverageOf(keyFontPath())
      if (dejavu instanceof Error || !dejavu.has(c)) out.push({ char, codePoint: c })
      continue
    }
    const path = fallbackFontFile(fallback.id, files)
    if (path === undefined) {
      out.push({ char, codePoint: c, package: files[fallback.id].package })
      continue
    }
    const coverage = coverageOf(path)
    if (coverage instanceof Error || !coverage.has(c)) out.push({ char, codePoint: c })
  }
  return out
}
