/**
 * How a key looks: the layout and painting of one key face on any Canvas 2D context.
 *
 * This module is shared by the daemon and the web page. The daemon paints with Skia (`@napi-rs/canvas`,
 * through `../surfaces/render/key-renderer.ts`) for the Stream Deck's keys; the page paints the same
 * faces with the browser's own canvas, so the web surface and its mirrors look like the hardware
 * without the daemon loading Skia at all for them. It therefore imports nothing from Node and nothing from the DOM: the
 * context is the small part of the Canvas 2D API both implement (`KeyPaintContext`).
 *
 * Both sides draw with DejaVu Sans Bold from the `dejavu-fonts-ttf` npm package under the private family
 * name `KEY_FONT_FAMILY` (the daemon registers it with Skia; the page loads the same file as a
 * `FontFace` from the server), so the result never depends on the fonts installed on the machine. What
 * DejaVu lacks comes from the fallback chain `FALLBACK_FONTS` (an emoji font, then Noto Sans CJK), each
 * loaded on both sides only once a text needs one of its code points (`fallbackFontsFor`).
 *
 * Layout, in painting order:
 * 1. the background `color` (default black), or a pre-rendered image scaled to the key when one is
 *    given (the daemon only; an image replaces colour and text). A `stale` key (the application is
 *    gone) never shows its colour: the background is a dark grey of a third of its lightness (an image
 *    is darkened instead), crossed by diagonal hatching, and its texts are light grey;
 * 2. the label `text`: explicit `\n` breaks, then word wrap; the largest font size (from 30 % of the key
 *    height down to 7 px) at which every line fits inside the padding is used; a word wider than the key is
 *    broken between characters; if nothing fits at the smallest size, the last visible line ends with `…`.
 *    Lines are centred horizontally and the block vertically. `textColor` defaults to white on dark
 *    backgrounds and black on light ones;
 * 3. the `detail`, one small line (15 % of the key height, shrunk to fit, else cut with `…`) centred at
 *    the bottom, in the text colour; the label then fits in the space above it. Beside a `failed`,
 *    `stale` or `unknown` badge the detail is the reason, and must be read from a desk away: a sixth of
 *    the key height (12 px on a 72-px key), never smaller, on up to two lines, the second cut with `…`;
 * 4. the `value` level bar along the bottom edge (6 % of the key height): filled from the left to the
 *    value in the text colour, the rest a track mixed 30 % from the text colour into the background.
 *    The detail sits above the bar. Value and detail also draw over an image;
 * 5. the state badge in the top-right corner, 25 % of the key's shorter side, told apart by shape as well
 *    as by colour (for colour-blind operators), each with a dark edge so it shows on any background:
 *    `pending` an amber (#ffb000) right triangle; `failed` a red (#e02020) square with a white `!`, and a
 *    3-px-high (scaled) red bar along the bottom edge (the level bar then sits on top of it); `stale` a
 *    grey (#8c8c8c) right triangle on the hatched key; `unknown` (a state not seen yet) a blue (#4da3ff)
 *    disc with a dark `?` on the key's own colours.
 */
import type { Color, Feedback, FeedbackBadge } from './feedback.js'
import { FALLBACK_RANGES } from './font-ranges.js'

/** The font family name the shipped font is registered (daemon) or loaded (page) under. */
export const KEY_FONT_FAMILY = 'PanelbridgeSans'

/**
 * A fallback font for what DejaVu lacks (emoji, CJK): its family name on both sides, the path the page
 * fetches it from (the daemon serves the file, `../surfaces/render/fonts.ts` says where it is), and the
 * code points it is the first font of the chain to have (`./font-ranges.ts`, generated from the font files).
 */
export interface FallbackFont {
  id: keyof typeof FALLBACK_RANGES
  family: string
  route: string
  ranges: readonly (readonly [number, number])[]
}

/**
 * The fallback chain after DejaVu, in the order a glyph is looked for: emoji before CJK, so that an
 * emoji the CJK font also has (⚽, 〽) draws as an emoji. Neither is loaded before a label needs it.
 */
export const FALLBACK_FONTS: readonly FallbackFont[] = [
  { id: 'emoji', family: 'PanelbridgeEmoji', route: '/key-font-emoji.ttf', ranges: FALLBACK_RANGES.emoji },
  { id: 'cjk', family: 'PanelbridgeCJK', route: '/key-font-cjk.ttc', ranges: FALLBACK_RANGES.cjk },
]

/** How a key's text is set. */
export const KEY_TEXT = {
  /** The font families every key text is set in: DejaVu, then the fallbacks (a missing one is skipped). */
  fontStack: [KEY_FONT_FAMILY, ...FALLBACK_FONTS.map((f) => f.family)].join(', '),
  /** The smallest label size: below it a label is cut with `…` rather than shrunk further. */
  minFontPx: 7,
  /** A line's height, in font sizes. */
  lineHeight: 1.15,
  /**
   * From the middle of a line to its alphabetic baseline, in ems: half of the shipped font's ascent less
   * its descent (DejaVu Sans Bold: 1901 and 483 of 2048 units). Lines are placed on their baseline rather
   * than with `textBaseline = 'middle'`, whose meaning differs: Skia takes the middle of ascent and
   * descent, Chromium the middle of the em box, which put the page's labels 3 px higher than the
   * hardware's. Pinned against Skia's metrics of the shipped font by the renderer's tests.
   */
  fontAscent: 1901 / 2048,
  fontDescent: 483 / 2048,
} as const

/** Below this code point DejaVu has every printable character: a text there needs no fallback. */
export const FAST_PATH_END = 0x250

function inRanges(ranges: FallbackFont['ranges'], c: number): boolean {
  let lo = 0
  let hi = ranges.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const [a, b] = ranges[mid]!
    if (c < a) hi = mid - 1
    else if (c > b) lo = mid + 1
    else return true
  }
  return false
}

/** The fallback font that draws `codePoint`, if one does (DejaVu's own code points have none). */
export function fallbackFontOf(codePoint: number): FallbackFont | undefined {
  if (codePoint < FAST_PATH_END) return undefined
  return FALLBACK_FONTS.find((f) => inRanges(f.ranges, codePoint))
}

/** The fallback fonts `text` needs, in chain order; none for a text DejaVu draws alone. */
export function fallbackFontsFor(text: string): FallbackFont[] {
  const needed = new Set<FallbackFont>()
  for (let i = 0; i < text.length; i++) {
    const c = text.codePointAt(i)!
    if (c < FAST_PATH_END) continue
    if (c > 0xffff) i++
    const font = fallbackFontOf(c)
    if (font) needed.add(font)
  }
  return FALLBACK_FONTS.filter((f) => needed.has(f))
}

/** A fallback's code points as a CSS `unicode-range` (for the page's `FontFace`). */
export function cssUnicodeRange(font: FallbackFont): string {
  const hex = (n: number): string => n.toString(16).toUpperCase()
  return font.ranges.map(([a, b]) => (a === b ? `U+${hex(a)}` : `U+${hex(a)}-${hex(b)}`)).join(', ')
}

/** Badge colours (documented above; the web surface's legend uses the same values). */
export const BADGE_COLORS: Readonly<Record<FeedbackBadge, Color>> = {
  pending: '#ffb000',
  failed: '#e02020',
  stale: '#8c8c8c',
  unknown: '#4da3ff',
  diverged: '#d040ff',
}

/**
 * The parts of a feedback a key face shows, as plain data (JSON-safe: it travels to the page). A
 * pre-rendered image is not part of it: `keyFaceOf` leaves it out, and only the daemon draws one.
 */
export interface KeyFace {
  color?: Color
  text?: string
  textColor?: Color
  detail?: string
  /** 0..1; a value outside is clamped when painted. */
  value?: number
  badge?: FeedbackBadge
}

/**
 * The part of a Canvas 2D context the painter uses: Skia's `SKRSContext2D` and the browser's
 * `CanvasRenderingContext2D` both have it. Styles are written, never read, so they are `unknown` here
 * (the two libraries type them differently).
 */
export interface KeyPaintContext {
  fillStyle: unknown
  strokeStyle: unknown
  lineWidth: number
  font: string
  textAlign: string
  textBaseline: string
  fillRect(x: number, y: number, w: number, h: number): void
  fillText(text: string, x: number, y: number, maxWidth?: number): void
  measureText(text: string): { width: number }
  beginPath(): void
  moveTo(x: number, y: number): void
  lineTo(x: number, y: number): void
  closePath(): void
  rect(x: number, y: number, w: number, h: number): void
  arc(x: number, y: number, radius: number, startAngle: number, endAngle: number): void
  fill(): void
  stroke(): void
}

const DEFAULT_BACKGROUND: Rgb = [0, 0, 0]
const MAX_FONT_FRACTION = 0.3
const PADDING_FRACTION = 0.06
const BADGE_FRACTION = 0.25
const FAILED_BAR_FRACTION = 0.04
const DETAIL_FONT_FRACTION = 0.15
/** A reason (the detail beside a failed, stale or unknown badge): a sixth of the key, 12 px on 72 px. */
const REASON_FONT_FRACTION = 1 / 6
const REASON_LINES = 2
/** A stale key's background: this much of its colour's lightness, over a dark floor, as grey. */
const STALE_LIGHTNESS = 0.3
const STALE_FLOOR = 24
/** How much lighter than a stale key's background its hatching is, and the hatching's pitch. */
const STALE_HATCH_LIFT = 34
const STALE_HATCH_FRACTION = 1 / 8
const STALE_TEXT: Rgb = [200, 200, 200]
/** What a stale key's image is darkened by. */
const STALE_IMAGE_SHADE = 'rgba(0,0,0,0.6)'
const VALUE_BAR_FRACTION = 0.06
const MIN_VALUE_BAR_PX = 3
/** How much of the fill colour the empty part of the level bar takes, so an empty bar still shows. */
const VALUE_TRACK_MIX = 0.3
const MIDDLE_TO_BASELINE = (KEY_TEXT.fontAscent - KEY_TEXT.fontDescent) / 2

type Rgb = [number, number, number]

/** Parses `#rgb` or `#rrggbb`; returns undefined for anything else. */
export function parseColor(color: Color | undefined): Rgb | undefined {
  if (color === undefined) return undefined
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim())
  if (!m) return undefined
  let hex = m[1]!
  if (hex.length === 3) hex = [...hex].map((c) => c + c).join('')
  const n = parseInt(hex, 16)
  return [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]
}

function css([r, g, b]: Rgb): string {
  return `rgb(${r},${g},${b})`
}

/** Relative luminance (sRGB weights, no gamma), 0..255. */
function luma([r, g, b]: Rgb): number {
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/** The detail as drawn: one line, whitespace runs as one space; empty when there is nothing to draw. */
export function detailLine(detail: string | undefined): string {
  return detail === undefined ? '' : detail.replace(/\s+/g, ' ').trim()
}

/** Filled width of the level bar in pixels, or undefined when there is no (finite) value. */
export function valueWidth(value: number | undefined, width: number): number | undefined {
  if (value === undefined || !Number.isFinite(value)) return undefined
  return Math.round(Math.min(1, Math.max(0, value)) * width)
}

/**
 * A feedback's face: only the fields that change the picture, and only when they would (a blank label
 * or detail and a non-finite value draw nothing, so they are left out). Never the image.
 */
export function keyFaceOf(feedback: Feedback): KeyFace {
  const face: KeyFace = {}
  if (feedback.color !== undefined) face.color = feedback.color
  if (feedback.text !== undefined && feedback.text.trim() !== '') face.text = feedback.text
  if (feedback.textColor !== undefined) face.textColor = feedback.textColor
  if (detailLine(feedback.detail) !== '') face.detail = feedback.detail
  if (feedback.value !== undefined && Number.isFinite(feedback.value)) face.value = feedback.value
  if (feedback.badge !== undefined) face.badge = feedback.badge
  return face
}

/**
 * Paints one key face on `ctx`, `width` × `height` pixels from the origin. `image`, when given, draws a
 * pre-rendered image over the background and returns true (the label is then left out), or a picture
 * and returns `'under'` (the label draws over it).
 */
export function paintKey(
  ctx: KeyPaintContext,
  face: KeyFace,
  width: number,
  height: number,
  image?: () => boolean | 'under',
): void {
  const stale = face.badge === 'stale'
  const given = parseColor(face.color) ?? DEFAULT_BACKGROUND
  const background = stale ? staleBackground(given) : given
  ctx.fillStyle = css(background)
  ctx.fillRect(0, 0, width, height)
  const drawn = image?.()
  const showImage = drawn === true || drawn === 'under'
  if (stale) drawStaleCover(ctx, background, width, height, showImage)

  const textColor = stale
    ? STALE_TEXT
    : (parseColor(face.textColor) ?? (luma(background) > 140 ? [0, 0, 0] : [255, 255, 255]))
  const pad = Math.max(1, Math.round(Math.min(width, height) * PADDING_FRACTION))
  const gap = Math.max(1, Math.round(pad / 2))
  // Laid out bottom-up: the failed bar, the level bar on it, the detail above, the label in what is left.
  let floor = face.badge === 'failed' ? height - failedBarHeight(height) : height
  const value = valueWidth(face.value, width)
  if (value !== undefined) {
    const bar = Math.max(MIN_VALUE_BAR_PX, Math.round(height * VALUE_BAR_FRACTION))
    drawValueBar(ctx, value, floor - bar, bar, width, background, textColor)
    floor -= bar + gap
  }
  let textBottom = Math.min(height - pad, floor)
  const detail = detailLine(face.detail)
  if (detail !== '') {
    const box = { color: textColor, width, height, pad, bottom: textBottom }
    textBottom = (isReason(face.badge) ? drawReason(ctx, detail, box) : drawDetail(ctx, detail, box)) - gap
  }
  if (drawn !== true && face.text !== undefined && face.text.trim() !== '') {
    drawText(ctx, face.text, textColor, width, height, pad, textBottom)
  }
  if (face.badge) drawBadge(ctx, face.badge, width, height)
}

/** Whether a detail beside this badge says why (and so is drawn large enough to read). */
function isReason(badge: FeedbackBadge | undefined): boolean {
  return badge === 'failed' || badge === 'stale' || badge === 'unknown' || badge === 'diverged'
}

/** A stale key's background: grey, a third as light as its colour, so no colour survives. */
export function staleBackground(color: Rgb): Rgb {
  const v = Math.round(STALE_FLOOR + luma(color) * STALE_LIGHTNESS)
  return [v, v, v]
}

/** Darkens a stale key's image, then crosses the key with diagonal hatching. */
function drawStaleCover(ctx: KeyPaintContext, background: Rgb, width: number, height: number, image: boolean): void {
  if (image) {
    ctx.fillStyle = STALE_IMAGE_SHADE
    ctx.fillRect(0, 0, width, height)
  }
  const pitch = Math.max(5, Math.round(Math.min(width, height) * STALE_HATCH_FRACTION))
  const lift = Math.min(255, background[0] + STALE_HATCH_LIFT)
  ctx.strokeStyle = css([lift, lift, lift])
  ctx.lineWidth = Math.max(1, Math.round(pitch / 4))
  ctx.beginPath()
  // Lines from bottom-left to top-right, every `pitch` pixels along the top edge; the canvas clips them.
  for (let x = -height; x < width + pitch; x += pitch) {
    ctx.moveTo(x, height)
    ctx.lineTo(x + height, 0)
  }
  ctx.stroke()
}

/**
 * Text widths measured once at a reference size and scaled linearly: fitting tries many font sizes, and
 * measuring every candidate line at every size made long labels the slowest keys. Glyph advances of an
 * outline font scale linearly; hinting and kerning differ by a fraction of a pixel, covered by
 * `FIT_MARGIN`. One process (or page) measures with one font, so the cache is keyed by text alone.
 * `REF_PX` is the reference size (one font unit of the shipped font is 1/32 px there).
 */
const REF_PX = 64
const FIT_MARGIN = 0.96
const MAX_WIDTH_CACHE = 20_000
const widthCache = new Map<string, number>()

function measureRef(ctx: KeyPaintContext, s: string): number {
  ctx.font = `${REF_PX}px ${KEY_TEXT.fontStack}`
  return ctx.measureText(s).width
}

function refWidth(ctx: KeyPaintContext, s: string): number {
  let w = widthCache.get(s)
  if (w === undefined) {
    w = measureRef(ctx, s)
    if (widthCache.size >= MAX_WIDTH_CACHE) widthCache.clear()
    widthCache.set(s, w)
  }
  return w
}

/**
 * Forgets every measured width. The page calls it once its font has loaded, in case anything was
 * measured with a fallback font before.
 */
export function forgetTextWidths(): void {
  widthCache.clear()
}

/** A paragraph's words (split at white space) and their widths at the reference size. */
interface Words {
  words: string[]
  widths: number[]
}

function wordsOf(ctx: KeyPaintContext, paragraph: string): Words {
  const words = paragraph.split(/\s+/).filter((w) => w !== '')
  return { words, widths: words.map((w) => refWidth(ctx, w)) }
}

/**
 * Wraps one paragraph to lines no wider than `max` (in reference-size units); long words break between
 * characters, and `broken.count` says how many did.
 */
function wrap(ctx: KeyPaintContext, paragraph: string, max: number, broken: { count: number }): string[] {
  return wrapWords(ctx, wordsOf(ctx, paragraph), max, broken)
}

/** `wrap` of a paragraph already split into words and measured. */
function wrapWords(ctx: KeyPaintContext, { words, widths }: Words, max: number, broken: { count: number }): string[] {
  const space = refWidth(ctx, ' ')
  const lines: string[] = []
  let line = ''
  let width = 0
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    const ww = widths[i]!
    if (line !== '' && width + space + ww <= max) {
      line += ' ' + word
      width += space + ww
      continue
    }
    if (line !== '') lines.push(line)
    line = ''
    width = 0
    if (ww <= max) {
      line = word
      width = ww
      continue
    }
    broken.count++
    for (const ch of word) {
      const cw = refWidth(ctx, ch)
      if (line !== '' && width + cw > max) {
        lines.push(line)
        line = ''
        width = 0
      }
      line += ch
      width += cw
    }
  }
  if (line !== '') lines.push(line)
  return lines
}

/** A line's widest allowed width at `px`, in reference-size units (what `refWidth` measures). */
export function maxRefWidth(maxW: number, px: number): number {
  return (maxW * FIT_MARGIN * REF_PX) / px
}

/** A label's paragraphs (split at `\n`), each split into words and measured; undefined for a blank one. */
type Label = (Words | undefined)[]

function labelOf(ctx: KeyPaintContext, text: string): Label {
  return text.split('\n').map((p) => (p.trim() === '' ? undefined : wordsOf(ctx, p)))
}

function wrapLabel(ctx: KeyPaintContext, label: Label, maxW: number, px: number, broken = { count: 0 }): string[] {
  const max = maxRefWidth(maxW, px)
  const lines: string[] = []
  for (const paragraph of label) {
    if (paragraph) lines.push(...wrapWords(ctx, paragraph, max, broken))
    else lines.push('')
  }
  return lines
}

/** Wraps a label (paragraphs split at `\n`) to lines no wider than `maxW` pixels at `px`. */
export function wrapAll(ctx: KeyPaintContext, text: string, maxW: number, px: number, broken = { count: 0 }): string[] {
  return wrapLabel(ctx, labelOf(ctx, text), maxW, px, broken)
}

function fitsHeight(lines: string[], px: number, maxH: number): boolean {
  return lines.length * px * KEY_TEXT.lineHeight <= maxH
}

/**
 * The label's size and lines: the largest size from `largest` down to KEY_TEXT.minFontPx whose wrapped lines fit
 * `maxH` without breaking a word ("Replay" shrinks rather than becoming "Repl" / "ay"); only when none
 * does, the largest that fits with words broken (or KEY_TEXT.minFontPx, whose lines the caller cuts).
 *
 * The first search halves its range rather than trying every size: "fits unbroken" holds at every size
 * below one where it holds. A smaller size allows a wider line in reference units (`maxRefWidth`
 * decreases with the size, in floating point too), so no word that fitted breaks, and greedy wrapping
 * into wider lines makes no more lines (each line starts no earlier than before; its width, summed from
 * there, is no larger, as rounding is monotone); fewer lines of a smaller size are no taller. Same
 * result as the size-by-size scan (tested against it), in about 5 wraps instead of up to 22 for an XL key.
 */
export function fitLabel(
  ctx: KeyPaintContext,
  text: string,
  maxW: number,
  maxH: number,
  largest: number,
): { px: number; lines: string[] } {
  // Split and measured once: each size tried only wraps.
  const label = labelOf(ctx, text)
  let found: { px: number; lines: string[] } | undefined
  // Invariant: every size up to `low` fits unbroken (or low is below the range), none from `high` up does.
  let low = KEY_TEXT.minFontPx - 1
  let high = largest + 1
  while (high - low > 1) {
    const px = (low + high) >> 1
    const broken = { count: 0 }
    const lines = wrapLabel(ctx, label, maxW, px, broken)
    if (broken.count === 0 && fitsHeight(lines, px, maxH)) {
      low = px
      found = { px, lines }
    } else high = px
  }
  if (found) return found
  let px = largest
  let lines = wrapLabel(ctx, label, maxW, px)
  while (!fitsHeight(lines, px, maxH) && px > KEY_TEXT.minFontPx) lines = wrapLabel(ctx, label, maxW, --px)
  return { px, lines }
}

/** Draws the label in the band from `pad` down to `bottom`, at the largest size that fits. */
function drawText(
  ctx: KeyPaintContext,
  text: string,
  color: Rgb,
  width: number,
  height: number,
  pad: number,
  bottom: number,
): void {
  const maxW = width - 2 * pad
  const maxH = bottom - pad
  const largest = Math.max(KEY_TEXT.minFontPx, Math.floor(height * MAX_FONT_FRACTION))
  const fitted = fitLabel(ctx, text.replace(/\r\n?/g, '\n'), maxW, maxH, largest)
  const { px } = fitted
  let { lines } = fitted
  if (!fitsHeight(lines, px, maxH)) {
    // Nothing fits even at the smallest size: keep the lines that fit and mark the cut with an ellipsis.
    const room = Math.max(1, Math.floor(maxH / (px * KEY_TEXT.lineHeight)))
    lines = lines.slice(0, room)
    const max = maxRefWidth(maxW, px)
    let last = lines[lines.length - 1] ?? ''
    while (last !== '' && refWidth(ctx, last + '…') > max) last = last.slice(0, -1)
    lines[lines.length - 1] = last + '…'
  }
  ctx.font = `${px}px ${KEY_TEXT.fontStack}`
  const lineHeight = px * KEY_TEXT.lineHeight
  const blockHeight = lines.length * lineHeight
  ctx.fillStyle = css(color)
  ctx.textAlign = 'center'
  ctx.textBaseline = 'alphabetic'
  const top = pad + (maxH - blockHeight) / 2 + px * MIDDLE_TO_BASELINE
  // maxWidth guards the rare line whose hinted width exceeds the scaled estimate: it is squeezed, not cut.
  lines.forEach((line, i) => ctx.fillText(line, width / 2, top + lineHeight * (i + 0.5), maxW))
}

/** Where a detail goes: its colour, the key's size and padding, and the bottom of its box. */
interface DetailBox {
  color: Rgb
  width: number
  height: number
  pad: number
  bottom: number
}

/**
 * Draws the detail as one line whose box ends at `bottom`: the largest size from 15 % of the key
 * height down to KEY_TEXT.minFontPx at which it fits the width, else cut with `…`. Returns the box's top.
 */
function drawDetail(ctx: KeyPaintContext, detail: string, box: DetailBox): number {
  const maxW = box.width - 2 * box.pad
  let px = Math.max(KEY_TEXT.minFontPx, Math.floor(box.height * DETAIL_FONT_FRACTION))
  while (px > KEY_TEXT.minFontPx && refWidth(ctx, detail) > maxRefWidth(maxW, px)) px--
  return drawLines(ctx, [cutToFit(ctx, detail, maxRefWidth(maxW, px))], px, box)
}

/**
 * Draws a reason (why a key failed, is stale or unknown) at a sixth of the key height, never smaller, on
 * up to REASON_LINES lines above `bottom`, the last cut with `…` when more would follow. Returns the top.
 */
function drawReason(ctx: KeyPaintContext, detail: string, box: DetailBox): number {
  const maxW = box.width - 2 * box.pad
  const px = Math.max(KEY_TEXT.minFontPx, Math.round(box.height * REASON_FONT_FRACTION))
  const max = maxRefWidth(maxW, px)
  let lines = wrap(ctx, detail, max, { count: 0 })
  if (lines.length > REASON_LINES) {
    lines = lines.slice(0, REASON_LINES)
    lines[REASON_LINES - 1] = cutToFit(ctx, `${lines[REASON_LINES - 1]!}…`, max)
  }
  return drawLines(ctx, lines, px, box)
}

/** `line` if it fits `max` (reference units), else as much of it as fits followed by `…`. */
function cutToFit(ctx: KeyPaintContext, line: string, max: number): string {
  if (refWidth(ctx, line) <= max) return line
  let cut = line.endsWith('…') ? line.slice(0, -1) : line
  while (cut !== '' && refWidth(ctx, cut + '…') > max) cut = [...cut].slice(0, -1).join('')
  return cut.trimEnd() + '…'
}

/** Draws lines centred, the last one's box ending at `box.bottom`; returns the top of the first. */
function drawLines(ctx: KeyPaintContext, lines: string[], px: number, box: DetailBox): number {
  const lineHeight = px * KEY_TEXT.lineHeight
  const top = box.bottom - lines.length * lineHeight
  ctx.font = `${px}px ${KEY_TEXT.fontStack}`
  ctx.fillStyle = css(box.color)
  ctx.textAlign = 'center'
  ctx.textBaseline = 'alphabetic'
  const maxW = box.width - 2 * box.pad
  lines.forEach((line, i) => {
    ctx.fillText(line, box.width / 2, top + lineHeight * (i + 0.5) + px * MIDDLE_TO_BASELINE, maxW)
  })
  return top
}

/** The level bar: `filled` pixels from the left in the text colour, the rest a track. */
function drawValueBar(
  ctx: KeyPaintContext,
  filled: number,
  top: number,
  barHeight: number,
  width: number,
  background: Rgb,
  fill: Rgb,
): void {
  const track = background.map((b, i) => Math.round(b + (fill[i]! - b) * VALUE_TRACK_MIX)) as Rgb
  ctx.fillStyle = css(track)
  ctx.fillRect(filled, top, width - filled, barHeight)
  ctx.fillStyle = css(fill)
  ctx.fillRect(0, top, filled, barHeight)
}

function failedBarHeight(height: number): number {
  return Math.max(2, Math.round(height * FAILED_BAR_FRACTION))
}

function drawBadge(ctx: KeyPaintContext, badge: FeedbackBadge, width: number, height: number): void {
  const color = css(parseColor(BADGE_COLORS[badge])!)
  const leg = Math.max(6, Math.round(Math.min(width, height) * BADGE_FRACTION))
  const edge = Math.max(1, leg / 12)
  ctx.fillStyle = color
  ctx.strokeStyle = 'rgb(0,0,0)'
  ctx.lineWidth = edge
  ctx.beginPath()
  if (badge === 'diverged') {
    // A diamond: a shape of its own, told apart from the corner triangles and the circle without colour.
    const r = leg / 2
    const cx = width - r - edge
    const cy = r + edge
    ctx.moveTo(cx, cy - r)
    ctx.lineTo(cx + r, cy)
    ctx.lineTo(cx, cy + r)
    ctx.lineTo(cx - r, cy)
    ctx.closePath()
    ctx.fill()
    ctx.stroke()
    return
  }
  if (badge === 'unknown') {
    const r = leg / 2
    ctx.arc(width - r - edge, r + edge, r, 0, 2 * Math.PI)
    ctx.fill()
    ctx.stroke()
    drawMark(ctx, '?', 'rgb(0,0,0)', width - r - edge, r + edge, leg)
    return
  }
  if (badge === 'failed') {
    ctx.rect(width - leg, 0, leg, leg)
    ctx.fill()
    ctx.beginPath()
    ctx.moveTo(width - leg, 0)
    ctx.lineTo(width - leg, leg)
    ctx.lineTo(width, leg)
    ctx.stroke()
    drawMark(ctx, '!', 'rgb(255,255,255)', width - leg / 2, leg / 2, leg)
    const bar = failedBarHeight(height)
    ctx.fillStyle = color
    ctx.fillRect(0, height - bar, width, bar)
    return
  }
  ctx.moveTo(width - leg, 0)
  ctx.lineTo(width, 0)
  ctx.lineTo(width, leg)
  ctx.closePath()
  ctx.fill()
  ctx.beginPath()
  ctx.moveTo(width - leg, 0)
  ctx.lineTo(width, leg)
  ctx.stroke()
}

/** A one-character mark centred on (x, y) inside a badge of `leg` pixels. */
function drawMark(ctx: KeyPaintContext, mark: string, color: string, x: number, y: number, leg: number): void {
  const px = Math.max(KEY_TEXT.minFontPx, Math.round(leg * 0.8))
  ctx.font = `${px}px ${KEY_TEXT.fontStack}`
  ctx.fillStyle = color
  ctx.textAlign = 'center'
  ctx.textBaseline = 'alphabetic'
  ctx.fillText(mark, x, y + px * MIDDLE_TO_BASELINE)
}
