/**
 * Pictures on keys (issue 26, item 3): a binding's `image:` file (PNG, JPEG or SVG) and a title's own
 * thumbnail from the application, decoded to RGBA no larger than the key that shows them.
 *
 * Everything is bounded before Skia sees a byte: the size of the bytes (MAX_PICTURE_BYTES), the
 * pixels their header declares (MAX_PICTURE_SIDE each way, read here from the PNG header, the JPEG
 * frame or the SVG root), an SVG's cost to draw (`svgCostProblem` below: no entity, nothing outside the file,
 * its elements counted with every `<use>` expanded), and the pixels decoded (fitted inside the box asked for, never above
 * PICTURE_STORE_SIDE). Skia aborts the whole process on an allocation it cannot make (an SVG declaring
 * 100000×100000 pixels did), so an SVG's root gets the raster size written over its own.
 *
 * The drawing itself runs in a process of its own (the drawing process, below), bounded in time and
 * killed at its bound: the rasteriser cannot be interrupted once it starts. A daemon with no picture
 * configured never starts it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { INSTALLED } from '../../installed.js'

/**
 * Largest picture file or thumbnail read, bytes. ASSUMED (issue 26 item 3: "bounded in bytes"): 2 MiB,
 * ten times a detailed 256-px PNG icon; a photo straight off a camera is refused, not shrunk.
 */
export const MAX_PICTURE_BYTES = 2 * 1024 * 1024
/**
 * Largest width or height a picture may declare, pixels. ASSUMED: 2048 (16 MiB of RGBA while decoding),
 * eight times the largest side a picture is kept at. A raster picture is decoded whole before it is
 * scaled down, so its cost goes with its declared pixels: at 4096 a side, 64 distinct pictures (within
 * every other bound) took a reload past its time limit on a two-core box (`npm run bench pictures`).
 */
const MAX_PICTURE_SIDE = 2048
/**
 * Largest side a picture is kept at, pixels: the largest key the file can give (a web surface's
 * `key_size` goes to 256). Decoded once to at most this, the renderer scales it to each key.
 */
export const PICTURE_STORE_SIDE = 256

export type PictureKind = 'png' | 'jpeg' | 'svg'

/** Why bytes are not a picture panelbridge can show (the message says it in a key's or a file's words). */
export class PictureError extends Error {
  override readonly name = 'PictureError'
}

/**
 * A decoded picture: RGBA pixels, row-major, no padding, and the SHA-1 of size and pixels. In JSON (a
 * feedback's hash in the engine, the remote API) it is its size and hash, never its pixels.
 */
export class KeyPicture {
  constructor(
    readonly width: number,
    readonly height: number,
    readonly rgba: Uint8Array,
    readonly hash: string,
  ) {}

  /** A picture from its pixels (the hash computed here). */
  static of(width: number, height: number, rgba: Uint8Array): KeyPicture {
    const hash = createHash('sha1').update(`${width}x${height}:`).update(rgba).digest('hex')
    return new KeyPicture(width, height, rgba, hash)
  }

  /** A picture that crossed a thread as plain data (the structured clone keeps fields, not the class). */
  static revive(data: { width: number; height: number; rgba: Uint8Array; hash: string }): KeyPicture {
    return data instanceof KeyPicture ? data : new KeyPicture(data.width, data.height, data.rgba, data.hash)
  }

  toJSON(): { width: number; height: number; hash: string } {
    return { width: this.width, height: this.height, hash: this.hash }
  }
}

export interface Box {
  width: number
  height: number
}

/** What the header says: the kind and the declared size (an SVG's, from its root element). */
export interface Sniffed {
  kind: PictureKind
  width: number
  height: number
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

function pngSize(b: Uint8Array): Box | undefined {
  if (b.length < 24 || !PNG_SIGNATURE.every((v, i) => b[i] === v)) return undefined
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
  return { width: view.getUint32(16), height: view.getUint32(20) }
}

/** A JPEG's size from its first frame header (SOF0..SOF15 but DHT, JPG and DAC), walking the markers. */
function jpegSize(b: Uint8Array): Box | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined
  let i = 2
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined
    const marker = b[i + 1]!
    if (marker === 0xff) {
      i++
      continue
    }
    const length = (b[i + 2]! << 8) | b[i + 3]!
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: (b[i + 5]! << 8) | b[i + 6]!, width: (b[i + 7]! << 8) | b[i + 8]! }
    }
    if (length < 2) return undefined
    i += 2 + length
  }
  return undefined
}

/** The root `<svg ...>` tag of a text, after any XML declaration, comments and doctype. */
const SVG_ROOT = /^(?:\uFEFF)?\s*(?:<\?xml[^>]*\?>\s*)?(?:(?:<!--[\s\S]*?-->|<!DOCTYPE[^>[]*>)\s*)*(<svg\b[^>]*>)/i
/** How far into a file its root tag must begin. */
const SVG_HEAD_CHARS = 64 * 1024

function attribute(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'i').exec(tag)
  return m ? (m[1] ?? m[2]) : undefined
}

/** A length in pixels (`24`, `24px`); undefined for any other unit or none. */
function pixels(value: string | undefined): number | undefined {
  const m = value === undefined ? null : /^\s*([0-9]*\.?[0-9]+)\s*(px)?\s*$/.exec(value)
  return m ? Number(m[1]) : undefined
}

/** The size an SVG declares: width and height in pixels, else its viewBox's, else a square (ASSUMED). */
function svgSize(tag: string): Box {
  const box = attribute(tag, 'viewBox')
    ?.trim()
    .split(/[\s,]+/)
    .map(Number)
  const vb = box && box.length === 4 && box.every(Number.isFinite) && box[2]! > 0 && box[3]! > 0 ? box : undefined
  const w = pixels(attribute(tag, 'width'))
  const h = pixels(attribute(tag, 'height'))
  if (w !== undefined && h !== undefined) return { width: w, height: h }
  if (vb) return { width: vb[2]!, height: vb[3]! }
  return { width: PICTURE_STORE_SIDE, height: PICTURE_STORE_SIDE }
}

function svgRoot(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, SVG_HEAD_CHARS)).toString('utf8')
  return SVG_ROOT.exec(head)?.[1]
}

/**
 * The kind and declared size of a picture's bytes, refused (PictureError) when they are none of PNG,
 * JPEG and SVG, too many bytes, or declare more than MAX_PICTURE_SIDE pixels either way.
 */
export function sniffPicture(bytes: Uint8Array): Sniffed {
  if (bytes.byteLength > MAX_PICTURE_BYTES) throw new PictureError(`larger than ${MAX_PICTURE_BYTES} bytes`)
  const png = pngSize(bytes)
  const jpeg = png ? undefined : jpegSize(bytes)
  const root = png || jpeg ? undefined : svgRoot(bytes)
  const found: Sniffed | undefined = png
    ? { kind: 'png', ...png }
    : jpeg
      ? { kind: 'jpeg', ...jpeg }
      : root !== undefined
        ? { kind: 'svg', ...svgSize(root) }
        : undefined
  if (!found) throw new PictureError('not a PNG, JPEG or SVG image')
  if (found.kind === 'svg') {
    // Its cost to draw is bounded before the rasteriser sees it (entities, references, `<use>` expansion).
    const problem = svgCostProblem(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'))
    if (problem !== undefined) throw new PictureError(problem)
  }
  if (!(found.width >= 1 && found.height >= 1)) throw new PictureError(`an image of no size (${found.kind})`)
  if (found.width > MAX_PICTURE_SIDE || found.height > MAX_PICTURE_SIDE) {
    throw new PictureError(
      `${Math.round(found.width)}x${Math.round(found.height)} pixels is larger than ${MAX_PICTURE_SIDE}x${MAX_PICTURE_SIDE}`,
    )
  }
  return found
}

/** `size` scaled to fit inside `box`, its aspect kept; never scaled up unless `grow` (an SVG draws at any size). */
export function fitInside(size: Box, box: Box, grow = false): Box {
  let scale = Math.min(box.width / size.width, box.height / size.height)
  if (!grow) scale = Math.min(1, scale)
  return { width: Math.max(1, Math.round(size.width * scale)), height: Math.max(1, Math.round(size.height * scale)) }
}

/** An SVG with `size` written on its root (and a viewBox of its own size when it had none), so Skia draws it so. */
function svgAtSize(bytes: Uint8Array, declared: Box, size: Box): Buffer {
  const text = Buffer.from(bytes).toString('utf8')
  const root = SVG_ROOT.exec(text.slice(0, SVG_HEAD_CHARS))?.[1]
  if (root === undefined) throw new PictureError('not a PNG, JPEG or SVG image')
  let tag = root.replace(/\s(?:width|height)\s*=\s*(?:"[^"]*"|'[^']*')/gi, '')
  if (attribute(tag, 'viewBox') === undefined)
    tag = tag.replace(/^<svg/i, `<svg viewBox="0 0 ${declared.width} ${declared.height}"`)
  tag = tag.replace(/^<svg/i, `<svg width="${size.width}" height="${size.height}"`)
  const at = text.indexOf(root)
  return Buffer.from(text.slice(0, at) + tag + text.slice(at + root.length), 'utf8')
}

/** How a picture is decoded: who draws it (default: the process's drawing process), and what stops it. */
export interface DecodeOptions {
  draw?: DrawPixels
  /** Stops the drawing (a reload that ended, a daemon that stops): refused with a PictureError. */
  signal?: AbortSignal
  /** A bound of its own on the drawing, ms, when shorter than the drawing process's. */
  drawMs?: number
}

/**
 * Decodes a picture's bytes to RGBA fitted inside `box` (and PICTURE_STORE_SIDE), its aspect kept. The
 * drawing runs in the drawing process (below), bounded in time. Refused (PictureError)
 * when the bytes are not a picture (see `sniffPicture`), do not decode, or take too long to draw.
 */
export async function decodePicture(bytes: Uint8Array, box: Box, options: DecodeOptions = {}): Promise<KeyPicture> {
  const sniffed = sniffPicture(bytes)
  const bound = {
    width: Math.max(1, Math.min(box.width, PICTURE_STORE_SIDE)),
    height: Math.max(1, Math.min(box.height, PICTURE_STORE_SIDE)),
  }
  const size = fitInside(sniffed, bound, sniffed.kind === 'svg')
  const source = sniffed.kind === 'svg' ? svgAtSize(bytes, sniffed, size) : bytes
  const kind = sniffed.kind.toUpperCase()
  let rgba: Uint8Array
  try {
    rgba = await (options.draw ?? sharedPictureProcess().draw)(source, size, options.signal, options.drawMs)
  } catch (err) {
    throw new PictureError(
      `the ${kind} ${err instanceof DrawError ? err.message : `was not drawn (${errorText(err)})`}`,
    )
  }
  if (rgba.byteLength !== size.width * size.height * 4) throw new PictureError(`the ${kind} does not decode`)
  return KeyPicture.of(size.width, size.height, rgba)
}

/**
 * The bytes of an image the application sent as a data URL (`data:image/png;base64,...`, protocol notes
 * 4.2: NewBlue's module strips that prefix) or as bare base64; bounded by MAX_PICTURE_BYTES.
 */
export function dataUrlBytes(url: string): Uint8Array {
  const comma = url.startsWith('data:') ? url.indexOf(',') : -1
  if (url.startsWith('data:') && (comma < 0 || !url.slice(0, comma).endsWith(';base64'))) {
    throw new PictureError('not a base64 data URL')
  }
  const text = comma >= 0 ? url.slice(comma + 1) : url
  if (text.length > Math.ceil((MAX_PICTURE_BYTES * 4) / 3) + 4)
    throw new PictureError(`larger than ${MAX_PICTURE_BYTES} bytes`)
  if (!/^[A-Za-z0-9+/=\s]*$/.test(text)) throw new PictureError('not base64 data')
  return Buffer.from(text, 'base64')
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/*
 * An SVG's cost. What an SVG would cost to draw, worked out from its text before the rasteriser sees it (issue 46,
 * item 1). Skia expands every `<use>` as it draws and cannot be stopped once it starts: seven levels of
 * ten nested `<use>` (2 KB) are ten million elements, a core held for minutes in native code that no
 * time-out can interrupt. So the text is scanned here, once, in linear time and bounded memory:
 *
 * - no DOCTYPE and no entity declaration (an entity can expand without bound, a "billion laughs");
 * - no reference out of the file: every `href` points at an element of the file (`#id`), and no
 *   `url(...)` names anything but `#id`, no `@import` (the rasteriser must never open a file or a URL);
 * - at most `maxElements` elements, nested at most `maxDepth` deep;
 * - at most `maxDrawnElements` once every reference is expanded: an element counts itself and its
 *   children, and each local reference it makes (`<use href="#a">`, `fill="url(#p)"`) counts the whole
 *   of what it refers to, again each time it is referred to. Counted with memoisation (each element's
 *   drawn count once) and saturated at the limit, so a bomb is refused after a few thousand steps; a
 *   reference that leads back to itself is refused too. An element drawn in a layer of its own (a
 *   `mask`, an `opacity`) counts `layerCost`: the rasteriser draws it apart, then over the rest;
 * - no filter: its cost is set by its own parameters (a blur over the whole picture, a turbulence's
 *   octaves), which no count of elements bounds (a few hundred blurred squares held it for many seconds).
 *
 * The scan reads tags, not the full XML grammar: an SVG that hides a tag from it (inside a CDATA section
 * or a comment) hides it from the count, never from the rule, since those are skipped whole by the
 * rasteriser's parser as well.
 */

/** The bounds of an SVG's cost (see the header). */
export const SVG_LIMITS = {
  /**
   * Elements written in the file. ASSUMED: 4,000; a detailed icon exported by a drawing program has a
   * few hundred. The scan runs where the picture arrives (a thumbnail: the daemon's loop), so this
   * bounds the scan's own time too.
   */
  maxElements: 4_000,
  /**
   * Elements drawn once references are expanded, a layer counting `layerCost`. ASSUMED: 10,000, a few
   * times the largest real icon; at a key's size the rasteriser draws that many within a fraction of
   * a second.
   */
  maxDrawnElements: 10_000,
  /**
   * What an element drawn in a layer of its own costs (a `mask`, an `opacity`: the rasteriser draws it
   * apart, then over the rest), in drawn elements. ASSUMED: 160, so about sixty layers at most; a
   * few thousand masked squares held the rasteriser for seconds.
   */
  layerCost: 160,
  /** Nesting of elements, and of references followed one from another. ASSUMED: 128. */
  maxDepth: 128,
} as const

/** Why an SVG is not drawn; undefined when it may be. */
export function svgCostProblem(text: string, limits: typeof SVG_LIMITS = SVG_LIMITS): string | undefined {
  if (/<!DOCTYPE/i.test(text)) return 'an SVG with a DOCTYPE is not read'
  if (/<!ENTITY/i.test(text)) return 'an SVG with entity declarations is not read'
  const tree = scanTags(text, limits)
  if (typeof tree === 'string') return tree
  return drawnProblem(tree, limits)
}

interface Tree {
  /** Each element's children, by index (element 0 is the first in the file). */
  children: number[][]
  /** The ids each element refers to (`href="#id"`, `url(#id)`). */
  refs: string[][]
  /** Whether each element is drawn in a layer of its own (`mask`, `opacity`). */
  layered: boolean[]
  /** Elements by their `id`. */
  ids: Map<string, number>
  /** The top-level elements. */
  roots: number[]
}

/** One start tag, end tag or self-closed tag: its name, its attributes' text and whether it closes. */
const TAG = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*(\/?)>/y
const ATTRIBUTE = /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g
/** `url(...)` anywhere in an attribute or a style sheet, with what it names. */
const URL_REF = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*))\s*\)/gi

/** Why a reference is refused: the rasteriser must never open a file or a URL, nor decode a picture inside one. */
const OUTSIDE = 'an SVG whose href, url() or @import names anything but an element of the file (#id) is not read'

/** Why a filter is refused: a filter's own parameters (a blur's radius, a turbulence's octaves) set its cost. */
const FILTERS = 'an SVG with filters is not read'

/** The elements of `text` as a tree with their references, or why it is refused. */
function scanTags(text: string, limits: typeof SVG_LIMITS): Tree | string {
  const tree: Tree = { children: [], refs: [], layered: [], ids: new Map(), roots: [] }
  const open: number[] = []
  let at = 0
  for (;;) {
    const lt = text.indexOf('<', at)
    if (lt < 0) break
    // Text between tags: a style sheet's or an attribute-free reference (`<style>` holds url(...)).
    const outside = refsIn(text.slice(at, lt))
    if (typeof outside === 'string') return outside
    if (open.length > 0) tree.refs[open[open.length - 1]!]!.push(...outside)
    if (text.startsWith('<!--', lt)) {
      const end = text.indexOf('-->', lt + 4)
      at = end < 0 ? text.length : end + 3
      continue
    }
    if (text.startsWith('<![CDATA[', lt)) {
      const end = text.indexOf(']]>', lt + 9)
      const body = text.slice(lt + 9, end < 0 ? text.length : end)
      const inner = refsIn(body)
      if (typeof inner === 'string') return inner
      if (open.length > 0) tree.refs[open[open.length - 1]!]!.push(...inner)
      at = end < 0 ? text.length : end + 3
      continue
    }
    if (text.startsWith('<?', lt) || text.startsWith('<!', lt)) {
      const end = text.indexOf('>', lt + 2)
      at = end < 0 ? text.length : end + 1
      continue
    }
    TAG.lastIndex = lt
    const m = TAG.exec(text)
    if (!m) return 'the SVG is not well-formed'
    at = TAG.lastIndex
    const [, closing, , attributes, selfClosed] = m
    if (closing === '/') {
      if (open.length === 0) return 'the SVG is not well-formed'
      open.pop()
      continue
    }
    const index = tree.children.length
    if (index >= limits.maxElements) return `an SVG of more than ${limits.maxElements} elements is not read`
    if (/^(?:[\w.-]+:)?filter$/i.test(m[2]!)) return FILTERS
    tree.children.push([])
    const layered = { is: false }
    const refs = attributeRefs(attributes ?? '', tree.ids, index, layered)
    if (typeof refs === 'string') return refs
    tree.refs.push(refs)
    tree.layered.push(layered.is)
    if (open.length > 0) tree.children[open[open.length - 1]!]!.push(index)
    else tree.roots.push(index)
    if (selfClosed !== '/') {
      open.push(index)
      if (open.length > limits.maxDepth) return `an SVG nested more than ${limits.maxDepth} deep is not read`
    }
  }
  return tree
}

/** The local references of one tag's attributes (its `id` noted), or why one is refused. */
function attributeRefs(
  attributes: string,
  ids: Map<string, number>,
  index: number,
  layered: { is: boolean },
): string[] | string {
  const refs: string[] = []
  for (const a of attributes.matchAll(ATTRIBUTE)) {
    const name = a[1]!.toLowerCase()
    const value = a[2] ?? a[3] ?? a[4] ?? ''
    if (name === 'filter' && value.trim() !== 'none') return FILTERS
    if (name === 'style' && /(?:^|[;\s])filter\s*:\s*(?!none)/i.test(value)) return FILTERS
    if (name === 'mask' || name === 'opacity' || (name === 'style' && /(?:^|[;\s])(?:mask|opacity)\s*:/i.test(value)))
      layered.is = true
    if (name === 'id') {
      if (!ids.has(value)) ids.set(value, index)
    } else if (name === 'href' || name.endsWith(':href')) {
      const ref = localRef(value)
      if (ref === undefined) return OUTSIDE
      refs.push(ref)
    } else {
      const inner = refsIn(value)
      if (typeof inner === 'string') return inner
      refs.push(...inner)
    }
  }
  return refs
}

/** The `url(#id)` references in a text (an attribute's value, a style sheet), or why one is refused. */
function refsIn(text: string): string[] | string {
  if (text.indexOf('(') < 0 && text.indexOf('@') < 0) return []
  if (/@import/i.test(text)) return OUTSIDE
  if (/(?:^|[;{\s])filter\s*:\s*(?!none)/i.test(text)) return FILTERS
  const refs: string[] = []
  for (const u of text.matchAll(URL_REF)) {
    const ref = localRef((u[1] ?? u[2] ?? u[3] ?? '').trim())
    if (ref === undefined) return OUTSIDE
    refs.push(ref)
  }
  return refs
}

/** The id of a reference within the file (`#id`); undefined for anything else. */
function localRef(value: string): string | undefined {
  const v = value.trim()
  return v.startsWith('#') && v.length > 1 ? v.slice(1) : undefined
}

/** Why the drawn count is over the limit (or a reference loops); undefined when within it. */
function drawnProblem(tree: Tree, limits: typeof SVG_LIMITS): string | undefined {
  const max = limits.maxDrawnElements
  const memo = new Map<number, number>()
  const onPath = new Set<number>()
  let problem: string | undefined
  /** The elements drawn for element `i`, saturated at max + 1. */
  const drawn = (i: number, depth: number): number => {
    const known = memo.get(i)
    if (known !== undefined) return known
    if (onPath.has(i)) {
      problem = 'an SVG whose references lead back to themselves is not read'
      return max + 1
    }
    if (depth > limits.maxDepth) {
      problem = `an SVG whose references nest more than ${limits.maxDepth} deep is not read`
      return max + 1
    }
    onPath.add(i)
    let total = tree.layered[i] ? limits.layerCost : 1
    for (const child of tree.children[i]!) {
      total += drawn(child, depth + 1)
      if (total > max) break
    }
    for (const id of tree.refs[i]!) {
      if (total > max) break
      const target = tree.ids.get(id)
      if (target !== undefined) total += drawn(target, depth + 1)
    }
    onPath.delete(i)
    const saturated = Math.min(total, max + 1)
    memo.set(i, saturated)
    return saturated
  }
  let total = 0
  for (const root of tree.roots) {
    total += drawn(root, 0)
    if (problem !== undefined) return problem
    if (total > max) break
  }
  if (total > max)
    return `an SVG that draws more than ${max} elements once its <use> references are expanded is not read`
  return undefined
}

/*
 * The drawing process. Where pictures are drawn (issue 46, item 1): a child process of its own, killed
 * when a picture takes longer than its bound, when its reload ends or when the daemon stops.
 *
 * Why a process, not a worker thread: the rasteriser (Skia, native code) cannot be interrupted. A worker
 * thread inside it ignores `worker.terminate()` until the native call returns, and the process cannot
 * exit meanwhile either (Node joins its worker threads on the way out), so one slow picture (an SVG
 * within every bound of its cost scan, whose dashed strokes take minutes to draw) kept a core busy after
 * its reload had timed out and made SIGTERM hang. A process is ended by SIGKILL at once, whatever it runs.
 *
 * One process at a time, started on the first picture and gone after PICTURE_PROCESS.idleMs without one
 * (it holds the canvas library: tens of megabytes the daemon need not keep). Pictures are drawn one after
 * another; each has `drawMs` from the moment it is handed over. While idle the process and its channel do
 * not keep this one alive, and it exits when its channel closes (this process gone).
 *
 * The child runs only the few lines below and the canvas library: it knows nothing of panelbridge.
 * The library is loaded from disk, so the installed tree is checked first (`installed.ts`).
 */

/** The bounds of the drawing process. */
export const PICTURE_PROCESS = {
  /**
   * The longest one picture may take to draw, ms, from the moment it is handed to the process.
   * ASSUMED: 4 s; a picture within the size bounds draws in well under a second on a small box, and a
   * reload (whose own bound is above this) can still refuse one slow picture and finish.
   */
  drawMs: 4000,
  /** The longest the process may take to start and load the canvas library, ms. ASSUMED: 15 s (a loaded small box). */
  startMs: 15_000,
  /**
   * How long an idle process is kept for the next picture, ms. ASSUMED: 2 s (a reload's pictures come
   * one after another).
   */
  idleMs: 2000,
} as const

/**
 * Draws `source` (PNG, JPEG or SVG bytes) at `width`×`height`; the RGBA pixels, row-major. `ms`: a bound
 * of its own for this picture, when shorter than the process's (what a load has left of its budget).
 */
export type DrawPixels = (
  source: Uint8Array,
  size: { width: number; height: number },
  signal?: AbortSignal,
  ms?: number,
) => Promise<Uint8Array>

/** Why a picture was not drawn, as the rest of a sentence about it (`the PNG took longer than ...`). */
export class DrawError extends Error {
  override readonly name = 'DrawError'
}

/** The child's program (CommonJS, `node -e`): the canvas library at `canvas`, one job a message. */
function childProgram(canvas: string): string {
  return `'use strict'
const { loadImage, createCanvas } = require(${JSON.stringify(canvas)})
process.on('disconnect', () => process.exit(0))
process.on('message', (job) => {
  Promise.resolve()
    .then(async () => {
      const image = await loadImage(Buffer.from(job.source.buffer, job.source.byteOffset, job.source.byteLength))
      if (!(image.width > 0 && image.height > 0)) throw new Error('no size')
      const c = createCanvas(job.width, job.height)
      const ctx = c.getContext('2d')
      ctx.imageSmoothingEnabled = true
      ctx.imageSmoothingQuality = 'high'
      ctx.drawImage(image, 0, 0, job.width, job.height)
      const data = ctx.getImageData(0, 0, job.width, job.height).data
      process.send({ id: job.id, rgba: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) })
    })
    .catch((err) => process.send({ id: job.id, error: String((err && err.message) || err) }))
})
process.send({ ready: true })
`
}

interface Job {
  id: number
  source: Uint8Array
  width: number
  height: number
  signal: AbortSignal | undefined
  ms: number | undefined
  resolve(rgba: Uint8Array): void
  reject(err: Error): void
}

type Answer = { ready: true } | { id: number; rgba: Uint8Array } | { id: number; error: string }

export interface PictureProcessOptions {
  /** See PICTURE_PROCESS. */
  drawMs?: number
  startMs?: number
  idleMs?: number
  /** The child's program (tests: one that never answers, to stand for a draw that never returns). */
  program?: (canvas: string) => string
}

/** The drawing process (see the head of its section). `draw` is its one door. */
export class PictureProcess {
  private child: ChildProcess | undefined
  private ready = false
  private readonly queue: Job[] = []
  private running: Job | undefined
  private timer: NodeJS.Timeout | undefined
  private idle: NodeJS.Timeout | undefined
  private nextId = 0
  /** The pids of the last few processes started, ended or not (tests follow them to their end). */
  readonly started: number[] = []

  constructor(private readonly o: PictureProcessOptions = {}) {}

  /** Whether a picture is being drawn now (handed to the process, not answered yet). */
  get drawing(): boolean {
    return this.running !== undefined
  }

  /**
   * Draws `source` at `size` (see DrawPixels); rejects with DrawError. `signal` stops it: dropped from
   * the queue, or the process killed if it draws it.
   */
  readonly draw: DrawPixels = (source, size, signal, ms) =>
    new Promise<Uint8Array>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new DrawError('was not drawn (stopped)'))
        return
      }
      const job: Job = { id: this.nextId++, source, ...size, signal, ms, resolve, reject }
      const onAbort = (): void => this.abort(job)
      signal?.addEventListener('abort', onAbort, { once: true })
      const done = (): void => signal?.removeEventListener('abort', onAbort)
      job.resolve = (rgba) => (done(), resolve(rgba))
      job.reject = (err) => (done(), reject(err))
      this.queue.push(job)
      this.pump()
    })

  /** Kills the process (a picture drawing is refused) and drops every queued picture. */
  close(): void {
    for (const job of this.queue.splice(0)) job.reject(new DrawError('was not drawn (stopped)'))
    this.kill(new DrawError('was not drawn (stopped)'))
  }

  private pump(): void {
    if (this.running || this.queue.length === 0) return
    clearTimeout(this.idle)
    this.idle = undefined
    if (!this.child) {
      try {
        this.start()
      } catch (err) {
        const why = new DrawError(`was not drawn (${err instanceof Error ? err.message : String(err)})`)
        for (const job of this.queue.splice(0)) job.reject(why)
        return
      }
    }
    const child = this.child!
    child.ref()
    childChannel(child)?.ref()
    if (!this.ready) return
    const job = this.queue.shift()!
    this.running = job
    const ms = Math.max(0, Math.round(Math.min(this.o.drawMs ?? PICTURE_PROCESS.drawMs, job.ms ?? Infinity)))
    this.timer = setTimeout(() => this.kill(new DrawError(`took longer than ${ms} ms to draw`)), ms)
    child.send({ id: job.id, source: job.source, width: job.width, height: job.height })
  }

  private start(): void {
    INSTALLED.check('the canvas library')
    const canvas = createRequire(import.meta.url).resolve('@napi-rs/canvas')
    const program = (this.o.program ?? childProgram)(canvas)
    const child = spawn(process.execPath, ['-e', program], {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced',
    })
    this.child = child
    this.ready = false
    if (child.pid !== undefined) this.started.push(child.pid)
    // A daemon starts one after each idle time for as long as it runs: only the last few are kept.
    if (this.started.length > 8) this.started.shift()
    const startMs = this.o.startMs ?? PICTURE_PROCESS.startMs
    this.timer = setTimeout(
      () => this.kill(new DrawError(`was not drawn (the drawing process did not start within ${startMs} ms)`)),
      startMs,
    )
    child.on('message', (m: Answer) => this.answered(child, m))
    child.once('error', (err) =>
      this.ended(child, new DrawError(`was not drawn (the drawing process failed: ${err.message})`)),
    )
    child.once('exit', (code, signal) =>
      this.ended(child, new DrawError(`was not drawn (the drawing process ended: ${signal ?? code})`)),
    )
  }

  private answered(child: ChildProcess, m: Answer): void {
    if (child !== this.child) return
    if ('ready' in m) {
      clearTimeout(this.timer)
      this.ready = true
      this.pump()
      this.rest()
      return
    }
    const job = this.running
    if (!job || job.id !== m.id) return
    clearTimeout(this.timer)
    this.running = undefined
    if ('rgba' in m) job.resolve(m.rgba)
    else job.reject(new DrawError(`does not decode (${m.error})`))
    this.pump()
    this.rest()
  }

  /** Nothing to draw: the process no longer keeps this one alive, and goes after the idle time. */
  private rest(): void {
    const child = this.child
    if (!child || this.running || this.queue.length > 0) return
    child.unref()
    childChannel(child)?.unref()
    this.idle = setTimeout(() => {
      if (this.child !== child || this.running || this.queue.length > 0) return
      // Let go at once: a picture that comes before it has exited goes to a new process, never down a
      // closed channel (its exit, later, is no longer this one's to handle).
      this.letGo(child)
      child.disconnect()
    }, this.o.idleMs ?? PICTURE_PROCESS.idleMs)
    this.idle.unref()
  }

  private abort(job: Job): void {
    const at = this.queue.indexOf(job)
    if (at >= 0) {
      this.queue.splice(at, 1)
      job.reject(new DrawError('was not drawn (stopped)'))
    } else if (this.running === job) {
      this.kill(new DrawError('was not drawn (stopped)'))
    }
  }

  /** Ends the process at once (SIGKILL: it may be inside native code), refusing the picture it draws. */
  private kill(why: DrawError): void {
    const child = this.child
    if (!child) return
    child.kill('SIGKILL')
    this.ended(child, why)
  }

  /** The process is gone (or killed): its picture refused with `why`, the next one in a new process. */
  private ended(child: ChildProcess, why: DrawError): void {
    if (child !== this.child) return
    const job = this.running
    const started = this.ready
    this.letGo(child)
    this.running = undefined
    if (job) job.reject(why)
    else if (!started) for (const queued of this.queue.splice(0)) queued.reject(why)
    this.pump()
  }

  /** `child` is no longer the drawing process: nothing it says or does later is handled. */
  private letGo(child: ChildProcess): void {
    this.child = undefined
    this.ready = false
    clearTimeout(this.timer)
    clearTimeout(this.idle)
    child.removeAllListeners('message')
    child.on('error', () => undefined)
  }
}

/** The IPC channel's handle, which keeps this process alive unless unref'd (Node types leave it out). */
function childChannel(child: ChildProcess): { ref(): void; unref(): void } | undefined {
  return (child as unknown as { channel?: { ref(): void; unref(): void } }).channel ?? undefined
}

let shared: PictureProcess | undefined

/** The process's one drawing process, made on first use. */
export function sharedPictureProcess(): PictureProcess {
  shared ??= new PictureProcess()
  return shared
}
