/**
 * Key faces on the page: each key is a canvas painted with the daemon's own key layout
 * (`../../render/key-paint.ts`) in the daemon's own font, loaded from the server as a `FontFace`, so a
 * web key and its mirror look like the Stream Deck's. Nothing is painted before the font has loaded (or
 * failed to): a face waits, the newest per key, and widths measured meanwhile are forgotten once it has.
 * A key whose feedback carries a pre-rendered image shows the PNG the daemon drew instead.
 *
 * The canvas holds `devicePixelRatio` pixels per CSS pixel, so labels stay sharp on a HiDPI screen; the
 * layout is the same at every ratio.
 */
import { forgetTextWidths, KEY_FONT_FAMILY, paintKey, type KeyFace } from '../../render/key-paint.js'
import { KEY_FONT_ROUTE } from '../protocol.js'
import { el } from './dom.js'

/** One key on the page: its element, the canvas a face is painted on, the image a PNG is shown in. */
export interface KeyNode {
  element: HTMLElement
  canvas: HTMLCanvasElement
  img: HTMLImageElement
  width: number
  height: number
  /** Appended to the label in the tooltip (a mirror says it is read-only). */
  titleSuffix: string
}

/** What a key is to show: its face, its label (tooltip, assistive tech), a pre-rendered image or none. */
export interface KeyShown {
  face: KeyFace
  label: string
  image?: string
}

/** Builds a key's canvas and (hidden) image inside `element`. */
export function keyNode(element: HTMLElement, width: number, height: number, titleSuffix: string): KeyNode {
  const canvas = el('canvas')
  canvas.style.width = `${width}px`
  canvas.style.height = `${height}px`
  const img = el('img')
  img.alt = ''
  img.width = width
  img.height = height
  img.draggable = false
  img.hidden = true
  element.appendChild(canvas)
  element.appendChild(img)
  return { element, canvas, img, width, height, titleSuffix }
}

export class KeyPainter {
  private fontSettled = false
  /** Faces that came before the font, the newest per key. */
  private readonly waiting = new Map<KeyNode, KeyShown>()

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
    delete key.element.dataset.painted
    if (!this.fontSettled) {
      this.waiting.set(key, shown)
      return
    }
    this.draw(key, shown)
  }

  /** Forgets a key that has left the page (its surface was removed or replaced). */
  forget(key: KeyNode): void {
    this.waiting.delete(key)
  }

  private settle(): void {
    this.fontSettled = true
    forgetTextWidths()
    for (const [key, shown] of this.waiting) this.draw(key, shown)
    this.waiting.clear()
  }

  private draw(key: KeyNode, shown: KeyShown): void {
    const { canvas, img } = key
    if (shown.image !== undefined) {
      img.src = shown.image
      img.hidden = false
      canvas.hidden = true
    } else {
      const ratio = window.devicePixelRatio > 0 ? window.devicePixelRatio : 1
      const w = Math.round(key.width * ratio)
      const h = Math.round(key.height * ratio)
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
    key.element.title = shown.label + key.titleSuffix
    key.element.dataset.painted = ''
  }
}
