/**
 * Key rendering: turns a `Feedback` into the pixels of one key (Stream Deck key, LCD segment, web key).
 *
 * Every surface that shows images uses this one renderer, so a key looks the same on the hardware, in the
 * web surface and in its mirror. The font is DejaVu Sans Bold from the `dejavu-fonts-ttf` npm package,
 * registered by file path under a private family name, so the result never depends on the fonts installed
 * on the machine.
 *
 * Layout, in painting order:
 * 1. the background `color` (default black), or `image` scaled to the key when one is given
 *    (an image replaces colour and text);
 * 2. the label `text`: explicit `\n` breaks, then word wrap; the largest font size (from 30 % of the key
 *    height down to 7 px) at which every line fits inside the padding is used; a word wider than the key is
 *    broken between characters; if nothing fits at the smallest size, the last visible line ends with `…`.
 *    Lines are centred horizontally and the block vertically. `textColor` defaults to white on dark
 *    backgrounds and black on light ones;
 * 3. the `detail`, one small line (15 % of the key height, shrunk to fit, else cut with `…`) centred at
 *    the bottom, in the text colour; the label then fits in the space above it;
 * 4. the `value` level bar along the bottom edge (6 % of the key height): filled from the left to the
 *    value in the text colour, the rest a track mixed 30 % from the text colour into the background.
 *    The detail sits above the bar. Value and detail also draw over an `image`;
 * 5. the state badge, a right triangle in the top-right corner whose legs are 25 % of the key's shorter
 *    side: `pending` amber (#ffb000), `failed` red (#e02020), `stale` grey (#8c8c8c), each with a dark
 *    hypotenuse edge so it shows on any background. `failed` also draws a 3-px-high (scaled) red bar along
 *    the bottom edge, so "failed" is told from "pending" without relying on colour alone; the level bar
 *    then sits on top of it.
 *
 * Rendered keys are cached by content (feedback and size) in an LRU; a cache hit returns the very same
 * `RenderedKey` object, so callers must treat its pixels as read-only.
 */
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import type { Canvas, SKRSContext2D } from '@napi-rs/canvas'
import type { Color, Feedback, FeedbackBadge } from '../types.js'
import { LruMap } from './lru.js'

/** A rendered key: RGBA pixels, row-major, 4 bytes per pixel, no padding. Treat as read-only. */
export interface RenderedKey {
  width: number
  height: number
  rgba: Uint8Array
  /** SHA-1 (hex) of the size and pixels: equal hashes mean equal images. */
  hash: string
}

export interface KeyRendererOptions {
  /** How many rendered keys to keep (LRU). Default 512. */
  cacheSize?: number
  /** How many bytes of pixels the cache keeps at most, whichever bound comes first. Default KEY_CACHE_BYTES. */
  cacheBytes?: number
}

/**
 * The bytes of pixels the renderer's cache keeps by default: 4 MiB, about 110 keys of 96×96 or 200 of
 * 72×72. A jog label that changes every turn would otherwise fill 512 entries of 36 KB (18 MiB) of
 * keys never shown again; the keys a surface shows now are far fewer.
 */
export const KEY_CACHE_BYTES = 4 * 1024 * 1024

/** The font family name the renderer registers the shipped font under. */
export const KEY_FONT_FAMILY = 'PanelbridgeSans'

/** Badge colours (documented above; the web surface's legend uses the same values). */
export const BADGE_COLORS: Readonly<Record<FeedbackBadge, Color>> = {
  pending: '#ffb000',
  failed: '#e02020',
  stale: '#8c8c8c',
}

const DEFAULT_BACKGROUND: Rgb = [0, 0, 0]
const MIN_FONT_PX = 7
const MAX_FONT_FRACTION = 0.3
const LINE_HEIGHT = 1.15
const PADDING_FRACTION = 0.06
const BADGE_FRACTION = 0.25
const FAILED_BAR_FRACTION = 0.04
const DETAIL_FONT_FRACTION = 0.15
const VALUE_BAR_FRACTION = 0.06
const MIN_VALUE_BAR_PX = 3
/** How much of the fill colour the empty part of the level bar takes, so an empty bar still shows. */
const VALUE_TRACK_MIX = 0.3

type Rgb = [number, number, number]

const require = createRequire(import.meta.url)
let skia: typeof import('@napi-rs/canvas') | undefined
/**
 * The canvas library, loaded on the first key drawn rather than at import: Skia's native code and
 * font cache are a fifth of the daemon's resident memory, and a daemon whose only keys are on a web page
 * nobody has open, or that has no keyed surface at all, never draws one. Synchronous (`require`), so
 * that rendering stays synchronous.
 */
function canvasLibrary(): typeof import('@napi-rs/canvas') {
  skia ??= require('@napi-rs/canvas') as typeof import('@napi-rs/canvas')
  return skia
}

function createCanvas(width: number, height: number): Canvas {
  return canvasLibrary().createCanvas(width, height)
}

let fontRegistered = false
/** Registers the shipped font once per process. Resolved through the package, never the working directory. */
function ensureFont(): void {
  if (fontRegistered) return
  const path = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')
  if (!canvasLibrary().GlobalFonts.registerFromPath(path, KEY_FONT_FAMILY)) {
    throw new Error(`key renderer: cannot register the shipped font at ${path}`)
  }
  fontRegistered = true
}

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
function detailLine(detail: string | undefined): string {
  return detail === undefined ? '' : detail.replace(/\s+/g, ' ').trim()
}

/** Filled width of the level bar in pixels, or undefined when there is no (finite) value. */
function valueWidth(value: number | undefined, width: number): number | undefined {
  if (value === undefined || !Number.isFinite(value)) return undefined
  return Math.round(Math.min(1, Math.max(0, value)) * width)
}

/**
 * Canonical text of the parts of a feedback that change the picture (the image by its digest, the
 * value by its filled pixels, so a fader moving within one pixel renders once).
 */
function contentKey(feedback: Feedback, width: number, height: number): string {
  const image = feedback.image
  const imageKey = image ? `${image.width}x${image.height}:${createHash('sha1').update(image.rgba).digest('hex')}` : ''
  const detail = detailLine(feedback.detail)
  const value = valueWidth(feedback.value, width)
  // The text colour paints the detail and the bar, so it matters with an image when either shows.
  const inked = !image || detail !== '' || value !== undefined
  return JSON.stringify([
    width,
    height,
    image && !inked ? '' : (feedback.color ?? ''),
    image ? '' : (feedback.text ?? ''),
    inked ? (feedback.textColor ?? '') : '',
    imageKey,
    feedback.badge ?? '',
    detail,
    value ?? '',
  ])
}

export class KeyRenderer {
  private readonly cache: LruMap<string, RenderedKey>
  /** Cache statistics, for the bench and tests. */
  readonly stats = { hits: 0, misses: 0 }

  constructor(opts: KeyRendererOptions = {}) {
    this.cache = new LruMap(Math.max(1, opts.cacheSize ?? 512), {
      maxWeight: opts.cacheBytes ?? KEY_CACHE_BYTES,
      weigh: (key) => key.rgba.byteLength,
    })
  }

  /** Renders one key. Equal content and size give the same (cached) object. */
  render(feedback: Feedback, size: { width: number; height: number }): RenderedKey {
    const width = Math.round(size.width)
    const height = Math.round(size.height)
    if (!(width > 0 && height > 0)) throw new RangeError(`key renderer: bad size ${size.width}x${size.height}`)
    const key = contentKey(feedback, width, height)
    const hit = this.cache.get(key)
    if (hit) {
      this.stats.hits++
      return hit
    }
    this.stats.misses++
    // The font (and with it the canvas library) on the first key drawn: see canvasLibrary().
    ensureFont()
    const rendered = draw(feedback, width, height)
    this.cache.set(key, rendered)
    return rendered
  }

  get cached(): number {
    return this.cache.size
  }
}

function draw(feedback: Feedback, width: number, height: number): RenderedKey {
  const canvas = createCanvas(width, height)
  const ctx = canvas.getContext('2d')
  const background = parseColor(feedback.color) ?? DEFAULT_BACKGROUND
  ctx.fillStyle = css(background)
  ctx.fillRect(0, 0, width, height)

  const image = feedback.image
  const showImage =
    image !== undefined && image.width > 0 && image.height > 0 && image.rgba.length >= image.width * image.height * 4
  if (showImage) drawImage(ctx, image, width, height)

  const textColor = parseColor(feedback.textColor) ?? (luma(background) > 140 ? [0, 0, 0] : [255, 255, 255])
  const pad = Math.max(1, Math.round(Math.min(width, height) * PADDING_FRACTION))
  const gap = Math.max(1, Math.round(pad / 2))
  // Laid out bottom-up: the failed bar, the level bar on it, the detail above, the label in what is left.
  let floor = feedback.badge === 'failed' ? height - failedBarHeight(height) : height
  const value = valueWidth(feedback.value, width)
  if (value !== undefined) {
    const bar = Math.max(MIN_VALUE_BAR_PX, Math.round(height * VALUE_BAR_FRACTION))
    drawValueBar(ctx, value, floor - bar, bar, width, background, textColor)
    floor -= bar + gap
  }
  let textBottom = Math.min(height - pad, floor)
  const detail = detailLine(feedback.detail)
  if (detail !== '') textBottom = drawDetail(ctx, detail, textColor, width, height, pad, textBottom) - gap
  if (!showImage && feedback.text !== undefined && feedback.text.trim() !== '') {
    drawText(ctx, feedback.text, textColor, width, height, pad, textBottom)
  }
  if (feedback.badge) drawBadge(ctx, feedback.badge, width, height)

  const data = ctx.getImageData(0, 0, width, height).data
  const rgba = new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
  const hash = createHash('sha1').update(`${width}x${height}:`).update(rgba).digest('hex')
  return { width, height, rgba, hash }
}

function drawImage(ctx: SKRSContext2D, image: NonNullable<Feedback['image']>, width: number, height: number): void {
  const source = createCanvas(image.width, image.height)
  const sctx = source.getContext('2d')
  const pixels = sctx.createImageData(image.width, image.height)
  pixels.data.set(image.rgba.subarray(0, image.width * image.height * 4))
  sctx.putImageData(pixels, 0, 0)
  if (image.width === width && image.height === height) {
    ctx.drawImage(source, 0, 0)
  } else {
    ctx.imageSmoothingEnabled = true
    ctx.imageSmoothingQuality = 'high'
    ctx.drawImage(source, 0, 0, image.width, image.height, 0, 0, width, height)
  }
}

/**
 * Text widths measured once at a reference size and scaled linearly: fitting tries many font sizes, and
 * measuring every candidate line at every size made long labels cost 15-25 ms. Glyph advances of an
 * outline font scale linearly; hinting and kerning differ by a fraction of a pixel, covered by
 * `FIT_MARGIN`.
 */
const REF_PX = 64
const FIT_MARGIN = 0.96
const MAX_WIDTH_CACHE = 20_000
const widthCache = new Map<string, number>()
function refWidth(ctx: SKRSContext2D, s: string): number {
  let w = widthCache.get(s)
  if (w === undefined) {
    if (widthCache.size >= MAX_WIDTH_CACHE) widthCache.clear()
    ctx.font = `${REF_PX}px ${KEY_FONT_FAMILY}`
    w = ctx.measureText(s).width
    widthCache.set(s, w)
  }
  return w
}

/**
 * Wraps one paragraph to lines no wider than `max` (in reference-size units); long words break between
 * characters, and `broken.count` says how many did.
 */
function wrap(ctx: SKRSContext2D, paragraph: string, max: number, broken: { count: number }): string[] {
  const words = paragraph.split(/\s+/).filter((w) => w !== '')
  const space = refWidth(ctx, ' ')
  const lines: string[] = []
  let line = ''
  let width = 0
  for (const word of words) {
    const ww = refWidth(ctx, word)
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
function maxRefWidth(maxW: number, px: number): number {
  return (maxW * FIT_MARGIN * REF_PX) / px
}

function wrapAll(ctx: SKRSContext2D, text: string, maxW: number, px: number, broken = { count: 0 }): string[] {
  const max = maxRefWidth(maxW, px)
  return text.split('\n').flatMap((p) => (p.trim() === '' ? [''] : wrap(ctx, p, max, broken)))
}

/** Draws the label in the band from `pad` down to `bottom`, at the largest size that fits. */
function drawText(
  ctx: SKRSContext2D,
  text: string,
  color: Rgb,
  width: number,
  height: number,
  pad: number,
  bottom: number,
): void {
  const maxW = width - 2 * pad
  const maxH = bottom - pad
  const normalised = text.replace(/\r\n?/g, '\n')
  const fits = (lines: string[], px: number): boolean => lines.length * px * LINE_HEIGHT <= maxH
  // The largest size whose wrapped lines fit without breaking a word ("Replay" shrinks rather than
  // becoming "Repl" / "ay"); only when none does, the largest that fits with words broken.
  const largest = Math.max(MIN_FONT_PX, Math.floor(height * MAX_FONT_FRACTION))
  let px = largest
  let lines: string[] = []
  for (; px >= MIN_FONT_PX; px--) {
    const broken = { count: 0 }
    lines = wrapAll(ctx, normalised, maxW, px, broken)
    if (broken.count === 0 && fits(lines, px)) break
  }
  if (px < MIN_FONT_PX) {
    px = largest
    lines = wrapAll(ctx, normalised, maxW, px)
    while (!fits(lines, px) && px > MIN_FONT_PX) lines = wrapAll(ctx, normalised, maxW, --px)
  }
  if (!fits(lines, px)) {
    // Nothing fits even at the smallest size: keep the lines that fit and mark the cut with an ellipsis.
    const room = Math.max(1, Math.floor(maxH / (px * LINE_HEIGHT)))
    lines = lines.slice(0, room)
    const max = maxRefWidth(maxW, px)
    let last = lines[lines.length - 1] ?? ''
    while (last !== '' && refWidth(ctx, last + '…') > max) last = last.slice(0, -1)
    lines[lines.length - 1] = last + '…'
  }
  ctx.font = `${px}px ${KEY_FONT_FAMILY}`
  const lineHeight = px * LINE_HEIGHT
  const blockHeight = lines.length * lineHeight
  ctx.fillStyle = css(color)
  ctx.textAlign = 'center'
  ctx.textBaseline = 'middle'
  const top = pad + (maxH - blockHeight) / 2
  // maxWidth guards the rare line whose hinted width exceeds the scaled estimate: it is squeezed, not cut.
  lines.forEach((line, i) => ctx.fillText(line, width / 2, top + lineHeight * (i + 0.5), maxW))
}

/**
 * Draws the detail as one line whose box ends at `bottom`: the largest size from 15 % of the key
 * height down to MIN_FONT_PX at which it fits the width, else cut with `…`. Returns the box's top.
 */
function drawDetail(
  ctx: SKRSContext2D,
  detail: string,
  color: Rgb,
  width: number,
  height: number,
  pad: number,
  bottom: number,
): number {
  const maxW = width - 2 * pad
  let px = Math.max(MIN_FONT_PX, Math.floor(height * DETAIL_FONT_FRACTION))
  while (px > MIN_FONT_PX && refWidth(ctx, detail) > maxRefWidth(maxW, px)) px--
  let line = detail
  if (refWidth(ctx, line) > maxRefWidth(maxW, px)) {
    while (line !== '' && refWidth(ctx, line + '…') > maxRefWidth(maxW, px)) line = line.slice(0, -1)
    line = line.trimEnd() + '…'
  }
  const lineHeight = px * LINE_HEIGHT
  ctx.font = `${px}px ${KEY_FONT_FAMILY}`
  ctx.fillStyle = css(color)
  ctx.textAlign = 'center'
  ctx.textBaseline = 'middle'
  ctx.fillText(line, width / 2, bottom - lineHeight / 2, maxW)
  return bottom - lineHeight
}

/** The level bar: `filled` pixels from the left in the text colour, the rest a track. */
function drawValueBar(
  ctx: SKRSContext2D,
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

function drawBadge(ctx: SKRSContext2D, badge: FeedbackBadge, width: number, height: number): void {
  const color = parseColor(BADGE_COLORS[badge])!
  const leg = Math.max(6, Math.round(Math.min(width, height) * BADGE_FRACTION))
  ctx.beginPath()
  ctx.moveTo(width - leg, 0)
  ctx.lineTo(width, 0)
  ctx.lineTo(width, leg)
  ctx.closePath()
  ctx.fillStyle = css(color)
  ctx.fill()
  ctx.beginPath()
  ctx.moveTo(width - leg, 0)
  ctx.lineTo(width, leg)
  ctx.strokeStyle = 'rgb(0,0,0)'
  ctx.lineWidth = Math.max(1, leg / 12)
  ctx.stroke()
  if (badge === 'failed') {
    const bar = failedBarHeight(height)
    ctx.fillRect(0, height - bar, width, bar)
  }
}

/** Encodes a rendered key as PNG (web surface, screenshots, fixtures). */
export function encodePng(key: RenderedKey): Buffer {
  const canvas = createCanvas(key.width, key.height)
  const ctx = canvas.getContext('2d')
  const pixels = ctx.createImageData(key.width, key.height)
  pixels.data.set(key.rgba)
  ctx.putImageData(pixels, 0, 0)
  return canvas.encodeSync('png')
}
