/**
 * Key faces on the page: each key is a canvas painted with the daemon's own key layout
 * (`../face/key-paint.ts`) in the daemon's own font, loaded from the server as a `FontFace`, so a
 * web key and its mirror look like the Stream Deck's. Nothing is painted before the font has loaded (or
 * failed to): a face waits, the newest per key, and widths measured meanwhile are forgotten once it has.
 * A key whose feedback carries a pre-rendered image shows the PNG the daemon drew instead.
 *
 * What DejaVu lacks (emoji, CJK) comes from the fallback fonts the daemon serves (`FALLBACK_FONTS`),
 * each loaded as a `FontFace` with its `unicode-range` only once a label needs one of its characters
 * (the CJK collection is 20 MB: a page of Latin labels never fetches it). A face that needs a fallback
 * waits for it as faces wait for the key font; one that failed to load leaves those characters to the
 * browser's own fonts.
 *
 * A key is drawn at the size the page gives it (keys shrink to fit the screen; see the stylesheet), with
 * `devicePixelRatio` canvas pixels per CSS pixel, so labels stay sharp on a HiDPI screen and on a key
 * drawn smaller than its image size. The layout is the hardware's at the image size, scaled: the same
 * line breaks at every size and ratio. A key that changes size is painted again.
 */
import {
  cssUnicodeRange,
  fallbackFontsFor,
  forgetTextWidths,
  KEY_FONT_FAMILY,
  paintKey,
  type FallbackFont,
  type KeyFace,
} from '../face/key-paint.js'
import type { FeedbackBadge } from '../face/feedback.js'
import { KEY_FONT_ROUTE } from '../face/protocol.js'
import { el } from './dom.js'

/** One key on the page: its element, the canvas a face is painted on, the image a PNG is shown in. */
export interface KeyNode {
  element: HTMLElement
  canvas: HTMLCanvasElement
  img: HTMLImageElement
  /** The key's image size: the layout is painted at this size, then scaled to the key's size on the page. */
  width: number
  height: number
  /** Appended to the label in the tooltip: `baseSuffix`, then the hotkey's name when it has one. */
  titleSuffix: string
  /** A mirror's or viewer's key says it is read-only. */
  readonly baseSuffix: string
  /** The control's id: its accessible name while it shows no label. */
  readonly control: string
  /** After the label in its accessible name: ` (read-only)` on a mirror or viewer, else empty. */
  readonly ariaSuffix: string
  /** What the key shows now, painted again when its size changes. */
  shown?: KeyShown
}

/** What a key is to show: its face, its label (tooltip, assistive tech), a pre-rendered image or none. */
export interface KeyShown {
  face: KeyFace
  label: string
  image?: string
}

/** What each badge means, for a control's tooltip (the legend says the same). */
const BADGE_TIPS: Readonly<Record<FeedbackBadge, string>> = {
  pending: 'amber corner: a command is on its way',
  failed: 'red !: the last command failed',
  stale: 'greyed: the application is not reachable; this may be out of date',
  unknown: 'blue ?: not known yet',
  diverged: 'purple diamond: a mirrored application differs',
}

/** A badge's meaning on a line of its own, for a tooltip; empty without a badge. */
export function badgeTip(badge: FeedbackBadge | undefined): string {
  return badge === undefined ? '' : `\n${BADGE_TIPS[badge]}`
}

/** A key's accessible name: its label on one line (its control id while it has none), then `suffix`. */
export function ariaLabelOf(label: string | undefined, control: string, suffix = ''): string {
  const words = (label ?? '').replace(/\s+/g, ' ').trim()
  return (words === '' ? control : words) + suffix
}

/** Builds a key's canvas and (hidden) image inside `element`; its accessible name is its control id until a label comes. */
export function keyNode(
  element: HTMLElement,
  size: { width: number; height: number },
  control: string,
  suffixes: { title: string; aria: string },
): KeyNode {
  const { width, height } = size
  const titleSuffix = suffixes.title
  const canvas = el('canvas')
  const img = el('img')
  img.alt = ''
  img.width = width
  img.height = height
  img.draggable = false
  img.hidden = true
  element.appendChild(canvas)
  element.appendChild(img)
  element.setAttribute('aria-label', ariaLabelOf(undefined, control, suffixes.aria))
  return {
    element,
    canvas,
    img,
    width,
    height,
    titleSuffix,
    baseSuffix: titleSuffix,
    control,
    ariaSuffix: suffixes.aria,
  }
}

/** The tooltip: the key's label, then its suffix. */
export function setTitleSuffix(key: KeyNode, suffix: string): void {
  key.titleSuffix = suffix
  key.element.title = (key.shown?.label ?? key.control) + suffix + badgeTip(key.shown?.face.badge)
}

export class KeyPainter {
  private fontSettled = false
  /** The fallback fonts asked for, by id: false while loading, true once loaded or failed. */
  private readonly fallbacks = new Map<FallbackFont['id'], boolean>()
  /** Faces that came before the font, the newest per key. */
  private readonly waiting = new Map<KeyNode, KeyShown>()
  /** The keys on the page, by element, so that a resized key is painted again. */
  private readonly byElement = new Map<Element, KeyNode>()
  private readonly resized = new ResizeObserver((entries) => {
    for (const entry of entries) {
      const key = this.byElement.get(entry.target)
      if (
        key?.shown &&
        this.fontSettled &&
        !this.waiting.has(key) &&
        this.backingSize(key).join() !== `${key.canvas.width},${key.canvas.height}`
      )
        this.draw(key, key.shown)
    }
  })

  constructor(fontUrl = KEY_FONT_ROUTE.slice(1)) {
    const font = new FontFace(KEY_FONT_FAMILY, `url(${JSON.stringify(new URL(fontUrl, document.baseURI).href)})`)
    document.fonts.add(font)
    font.load().then(
      () => this.settle(),
      (err: unknown) => {
        // The keys still show, in the browser's own sans-serif: a label in another font beats none.
        console.warn('panelbridge: the key font did not load; keys use a fallback font', err)
        this.settle()
      },
    )
  }

  /** Shows `shown` on `key` now, or once the font has settled. */
  show(key: KeyNode, shown: KeyShown): void {
    if (!this.byElement.has(key.element)) {
      this.byElement.set(key.element, key)
      this.resized.observe(key.element)
    }
    key.shown = shown
    // Its name follows its label at once, whether or not the face can be painted yet.
    key.element.setAttribute('aria-label', ariaLabelOf(shown.label, key.control, key.ariaSuffix))
    delete key.element.dataset.painted
    const fallbacksReady = this.fallbacksReady(shown)
    if (!this.fontSettled || !fallbacksReady) {
      this.waiting.set(key, shown)
      return
    }
    this.waiting.delete(key)
    this.draw(key, shown)
  }

  /** Forgets a key that has left the page (its surface was removed or replaced). */
  forget(key: KeyNode): void {
    this.waiting.delete(key)
    this.byElement.delete(key.element)
    this.resized.unobserve(key.element)
  }

  private settle(): void {
    this.fontSettled = true
    this.drawWaiting()
  }

  /** Draws the faces that waited and now may be drawn; widths measured in the old fonts are forgotten. */
  private drawWaiting(): void {
    forgetTextWidths()
    if (!this.fontSettled) return
    for (const [key, shown] of this.waiting) {
      if (!this.fallbacksReady(shown)) continue
      this.waiting.delete(key)
      this.draw(key, shown)
    }
  }

  /**
   * Whether every fallback font the face's texts need has settled; starts loading those not asked for
   * yet. A pre-rendered image needs none.
   */
  private fallbacksReady(shown: KeyShown): boolean {
    if (shown.image !== undefined) return true
    let ready = true
    for (const font of fallbackFontsFor(`${shown.face.text ?? ''}${shown.face.detail ?? ''}`)) {
      const state = this.fallbacks.get(font.id)
      if (state === true) continue
      ready = false
      if (state === undefined) this.loadFallback(font)
    }
    return ready
  }

  private loadFallback(font: FallbackFont): void {
    this.fallbacks.set(font.id, false)
    const url = new URL(font.route.slice(1), document.baseURI).href
    const face = new FontFace(font.family, `url(${JSON.stringify(url)})`, { unicodeRange: cssUnicodeRange(font) })
    document.fonts.add(face)
    const settled = (): void => {
      this.fallbacks.set(font.id, true)
      this.drawWaiting()
    }
    face.load().then(settled, (err: unknown) => {
      console.warn(`panelbridge: the ${font.id} key font did not load; those characters use the browser's fonts`, err)
      settled()
    })
  }

  private draw(key: KeyNode, shown: KeyShown): void {
    const { canvas, img } = key
    if (shown.image !== undefined) {
      img.src = shown.image
      img.hidden = false
      canvas.hidden = true
    } else {
      const [w, h] = this.backingSize(key)
      // Setting the size clears the canvas and its transform, so every face starts from a blank key.
      canvas.width = w
      canvas.height = h
      const ctx = canvas.getContext('2d')
      if (ctx) {
        ctx.setTransform(w / key.width, 0, 0, h / key.height, 0, 0)
        paintKey(ctx, shown.face, key.width, key.height)
      }
      canvas.hidden = false
      img.hidden = true
      img.removeAttribute('src')
    }
    key.element.title = shown.label + key.titleSuffix + badgeTip(shown.face.badge)
    key.element.dataset.painted = ''
  }

  /** Canvas pixels for the key as the page shows it (its image size while it is not laid out). */
  private backingSize(key: KeyNode): [number, number] {
    const ratio = window.devicePixelRatio > 0 ? window.devicePixelRatio : 1
    const shownWidth = key.element.clientWidth
    const shownHeight = key.element.clientHeight
    const [w, h] = shownWidth > 0 && shownHeight > 0 ? [shownWidth, shownHeight] : [key.width, key.height]
    return [Math.max(1, Math.round(w * ratio)), Math.max(1, Math.round(h * ratio))]
  }
}
