/**
 * Key rendering in the daemon: turns a `Feedback` into the pixels of one key (a Stream Deck key or LCD
 * segment, a pre-rendered image for the web page, a screenshot).
 *
 * The layout and painting are `../../face/key-paint.ts`, shared with the web page, which paints the same faces
 * with the browser's canvas: a key looks the same on the hardware, in the web surface and in its mirror.
 * Here they run on Skia (`@napi-rs/canvas`) with the shipped font (DejaVu Sans Bold from the
 * `dejavu-fonts-ttf` npm package) registered by file path under `KEY_FONT_FAMILY`, so the result never
 * depends on the fonts installed on the machine. Only this side draws a feedback's pre-rendered `image`
 * (scaled to the key, replacing colour and text; detail, value and badge still draw over it), and a
 * feedback's `picture` (a file or a title's thumbnail) under the label, inside a border of the key's
 * colour (`./picture-paint.ts`).
 *
 * Rendered keys are cached by content (feedback and size) in an LRU; a cache hit returns the very same
 * `RenderedKey` object, so callers must treat its pixels as read-only.
 */
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import type { Canvas, SKRSContext2D } from '@napi-rs/canvas'
import type { Feedback } from '../../face/feedback.js'
import { fallbackFontFile, keyFontPath } from './fonts.js'
import {
  detailLine,
  fallbackFontsFor,
  KEY_FONT_FAMILY,
  keyFaceOf,
  paintKey,
  valueWidth,
  type FallbackFont,
  type KeyFace,
} from '../../face/key-paint.js'
import { LruMap } from '../../lru.js'
import { lateRequire } from '../../installed.js'
import { drawablePicture, drawPicture } from './picture-paint.js'

export { keyFontPath } from './fonts.js'
export { BADGE_COLORS, KEY_FONT_FAMILY, parseColor } from '../../face/key-paint.js'

/** A rendered key: RGBA pixels, row-major, 4 bytes per pixel, no padding. Treat as read-only. */
export interface RenderedKey {
  width: number
  height: number
  rgba: Uint8Array
  /** SHA-1 (hex) of the size and pixels (`pixelHash`): equal hashes mean equal images. */
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

const require = createRequire(import.meta.url)
let skia: typeof import('@napi-rs/canvas') | undefined
/**
 * The canvas library, loaded on the first key drawn rather than at import: Skia's native code and
 * font cache are a fifth of the daemon's resident memory, and a daemon whose keys are all on web pages
 * (the page paints them itself), or that has no keyed surface at all, never draws one. Synchronous
 * (`require`), so that rendering stays synchronous.
 */
function canvasLibrary(): typeof import('@napi-rs/canvas') {
  skia ??= lateRequire('@napi-rs/canvas', () => require('@napi-rs/canvas') as typeof import('@napi-rs/canvas'))
  return skia
}

function createCanvas(width: number, height: number): Canvas {
  return canvasLibrary().createCanvas(width, height)
}

let fontRegistered = false
/** Registers the shipped font once per process. */
function ensureFont(): void {
  if (fontRegistered) return
  const path = keyFontPath()
  if (!canvasLibrary().GlobalFonts.registerFromPath(path, KEY_FONT_FAMILY)) {
    throw new Error(`key renderer: cannot register the shipped font at ${path}`)
  }
  fontRegistered = true
}

/** The fallback fonts tried so far: registered, or absent (not installed, or refused by Skia). */
const fallbacksTried = new Map<FallbackFont['id'], boolean>()
/**
 * Registers the fallback fonts a face's text needs, each once per process, on the first face that
 * needs it: a daemon whose labels DejaVu draws alone never maps them. One that is not installed is
 * tried once; its characters draw as boxes (`check` names the package).
 */
function ensureFallbacks(face: KeyFace): void {
  for (const font of fallbackFontsFor(`${face.text ?? ''}${face.detail ?? ''}`)) {
    if (fallbacksTried.has(font.id)) continue
    const path = fallbackFontFile(font.id)
    fallbacksTried.set(
      font.id,
      path !== undefined && canvasLibrary().GlobalFonts.registerFromPath(path, font.family) !== null,
    )
  }
}

/** Which fallback fonts this process has registered (for tests and the memory notes). */
export function registeredFallbacks(): FallbackFont['id'][] {
  return [...fallbacksTried].filter(([, ok]) => ok).map(([id]) => id)
}

/**
 * Canonical text of what a key shows: its face as painted (the value by its filled pixels, so a fader
 * moving within one pixel renders once) and the image by its digest.
 */
function contentKey(
  face: KeyFace,
  image: Feedback['image'],
  width: number,
  height: number,
  picture?: Feedback['picture'],
): string {
  const imageKey = image ? `${image.width}x${image.height}:${createHash('sha1').update(image.rgba).digest('hex')}` : ''
  const detail = detailLine(face.detail)
  const value = valueWidth(face.value, width)
  // The text colour paints the detail and the bar, so it matters with an image when either shows.
  const inked = !image || detail !== '' || value !== undefined
  return JSON.stringify([
    width,
    height,
    image && !inked ? '' : (face.color ?? ''),
    image ? '' : (face.text ?? ''),
    inked ? (face.textColor ?? '') : '',
    imageKey,
    face.badge ?? '',
    detail,
    value ?? '',
    // A picture (under the label, `./picture-paint.ts`) by its hash: a new picture is a new face.
    ...(picture && !image ? [`picture:${picture.width}x${picture.height}:${picture.hash}`] : []),
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

  /**
   * The identity of the face `render` draws for this feedback and size (the key of its cache): equal
   * identities draw equal pixels. Cheap next to drawing, so a cache of device bytes can be looked up by it
   * without the pixels.
   */
  identity(feedback: Feedback, size: { width: number; height: number }): string {
    const { width, height } = wholeSize(size)
    return contentKey(keyFaceOf(feedback), feedback.image, width, height, feedback.picture)
  }

  /** Renders one key. Equal content and size give the same (cached) object. */
  render(feedback: Feedback, size: { width: number; height: number }): RenderedKey {
    const { width, height } = wholeSize(size)
    const face = keyFaceOf(feedback)
    const key = contentKey(face, feedback.image, width, height, feedback.picture)
    const hit = this.cache.get(key)
    if (hit) {
      this.stats.hits++
      return hit
    }
    this.stats.misses++
    // The font (and with it the canvas library) on the first key drawn: see canvasLibrary().
    ensureFont()
    ensureFallbacks(face)
    const rendered = draw(face, feedback.image, width, height, feedback.picture)
    this.cache.set(key, rendered)
    return rendered
  }

  get cached(): number {
    return this.cache.size
  }
}

function wholeSize(size: { width: number; height: number }): { width: number; height: number } {
  const width = Math.round(size.width)
  const height = Math.round(size.height)
  if (!(width > 0 && height > 0)) throw new RangeError(`key renderer: bad size ${size.width}x${size.height}`)
  return { width, height }
}

/**
 * ASSUMED: canvases kept for reuse, one per key size (a process draws a handful of sizes: 72, 80, 96,
 * 120, the + strip's 200×100); past this the set starts again. Making a canvas is a good part of a key's
 * drawing; resetting one costs little.
 */
const MAX_CANVASES = 8
const canvases = new Map<string, { canvas: Canvas; ctx: SKRSContext2D }>()

/**
 * The canvas of this size, reset: `reset()` clears its pixels to transparent black and every state
 * (transform, clip, globalAlpha, compositing, font, alignment, styles, smoothing, the path and the
 * save stack) to a new canvas's, so nothing of the previous face leaks (tested against fresh canvases).
 */
function canvasFor(width: number, height: number): { canvas: Canvas; ctx: SKRSContext2D } {
  const size = `${width}x${height}`
  const kept = canvases.get(size)
  if (kept) {
    kept.ctx.reset()
    return kept
  }
  if (canvases.size >= MAX_CANVASES) canvases.clear()
  const canvas = createCanvas(width, height)
  const made = { canvas, ctx: canvas.getContext('2d') }
  canvases.set(size, made)
  return made
}

/**
 * Paints a face on a canvas in its initial state (new or reset): `paintKey`, with the feedback's image or
 * picture. Exported for the tests that hold the renderer to a fresh canvas's pixels.
 */
export function paintFace(
  ctx: SKRSContext2D,
  face: KeyFace,
  image: Feedback['image'],
  width: number,
  height: number,
  picture?: Feedback['picture'],
): void {
  paintKey(ctx, face, width, height, () => {
    const shown =
      image !== undefined && image.width > 0 && image.height > 0 && image.rgba.length >= image.width * image.height * 4
    if (shown) drawImage(ctx, image, width, height)
    else if (drawablePicture(picture)) {
      drawPicture(ctx, picture, width, height, face.text !== undefined, createCanvas)
      return 'under'
    }
    return shown
  })
}

function draw(
  face: KeyFace,
  image: Feedback['image'],
  width: number,
  height: number,
  picture: Feedback['picture'],
): RenderedKey {
  const { canvas, ctx } = canvasFor(width, height)
  paintFace(ctx, face, image, width, height, picture)
  const rgba = opaquePixels(canvas, width, height) ?? straightPixels(ctx, width, height)
  return { width, height, rgba, hash: pixelHash(width, height, rgba) }
}

/** A key's `hash`: SHA-1 (hex) of its size and pixels. */
export function pixelHash(width: number, height: number, rgba: Uint8Array): string {
  return createHash('sha1').update(`${width}x${height}:`).update(rgba).digest('hex')
}

/**
 * The canvas's own pixels (`data()`, a copy: the canvas is drawn again for the next face), a third of
 * `getImageData`'s cost. They are premultiplied, so they equal `getImageData`'s straight alpha only where
 * every pixel is opaque, which every face `paintKey` paints is: its first paint fills the whole canvas
 * with an opaque colour in the reset state (alpha 1, source-over, no clip, no transform), and every later
 * paint (text, bars, badges, the stale cover, an image or picture of any alpha) is source-over, which
 * keeps an opaque pixel opaque (tested on every kind of face against `getImageData`). Undefined when the
 * copy is not the plain RGBA rows it should be.
 */
function opaquePixels(canvas: Canvas, width: number, height: number): Uint8Array | undefined {
  const data = canvas.data()
  if (data.byteLength !== width * height * 4) return undefined
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
}

function straightPixels(ctx: SKRSContext2D, width: number, height: number): Uint8Array {
  const data = ctx.getImageData(0, 0, width, height).data
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
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

/** Encodes a rendered key as PNG (web surface, screenshots, fixtures). */
export function encodePng(key: RenderedKey): Buffer {
  return encodeKey(key, 'png')
}

/** Encodes a rendered key as PNG or WebP (at full quality: a Satellite client that asked for WebP). */
export function encodeKey(key: RenderedKey, format: 'png' | 'webp'): Buffer {
  const canvas = createCanvas(key.width, key.height)
  const ctx = canvas.getContext('2d')
  const pixels = ctx.createImageData(key.width, key.height)
  pixels.data.set(key.rgba)
  ctx.putImageData(pixels, 0, 0)
  return format === 'png' ? canvas.encodeSync('png') : canvas.encodeSync('webp', 100)
}
