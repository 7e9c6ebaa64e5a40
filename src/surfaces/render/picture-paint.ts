/**
 * How a picture (a binding's `image:` or a title's thumbnail, `./picture.ts`) sits on a key: under the
 * label, fitted inside a border of the key's own colour, so a title's play-state colour (or a binding's
 * `color`) still shows round it; the label, detail, level bar and badge draw over it as on any key.
 * A label over a picture gets a translucent dark veil behind it, so that white text reads on a light
 * picture. Skia only: the page shows such a key as the daemon's rendered PNG.
 */
import type { Canvas, SKRSContext2D } from '@napi-rs/canvas'
import type { Feedback } from '../../face/feedback.js'
import { fitInside } from './picture.js'

/**
 * The border round a picture, as a share of the key's shorter side (6 px on a 72-px key, at least 2).
 * ASSUMED: wide enough to read a play-state colour from a desk away, narrow enough to leave the picture.
 */
const PICTURE_BORDER_FRACTION = 1 / 12
/** The veil over a picture behind its label. ASSUMED: 45 % black keeps white text legible on white. */
export const PICTURE_VEIL = 'rgba(0,0,0,0.45)'

/** Where a picture goes on a key: the rectangle inside the border, the picture fitted and centred in it. */
export function pictureRect(
  picture: { width: number; height: number },
  width: number,
  height: number,
): { x: number; y: number; width: number; height: number } {
  const border = Math.max(2, Math.round(Math.min(width, height) * PICTURE_BORDER_FRACTION))
  const inner = { width: Math.max(1, width - 2 * border), height: Math.max(1, height - 2 * border) }
  const size = fitInside(picture, inner, true)
  return {
    x: Math.round((width - size.width) / 2),
    y: Math.round((height - size.height) / 2),
    width: size.width,
    height: size.height,
  }
}

/**
 * Draws `picture` on a key whose background (its colour) is already painted; with `veiled`, the veil
 * for the label on top. `createCanvas` is the renderer's (the canvas library is its to load).
 */
export function drawPicture(
  ctx: SKRSContext2D,
  picture: NonNullable<Feedback['picture']>,
  width: number,
  height: number,
  veiled: boolean,
  createCanvas: (width: number, height: number) => Canvas,
): void {
  const source = createCanvas(picture.width, picture.height)
  const sctx = source.getContext('2d')
  const pixels = sctx.createImageData(picture.width, picture.height)
  pixels.data.set(picture.rgba.subarray(0, picture.width * picture.height * 4))
  sctx.putImageData(pixels, 0, 0)
  const at = pictureRect(picture, width, height)
  ctx.imageSmoothingEnabled = true
  ctx.imageSmoothingQuality = 'high'
  ctx.drawImage(source, 0, 0, picture.width, picture.height, at.x, at.y, at.width, at.height)
  if (veiled) {
    ctx.fillStyle = PICTURE_VEIL
    ctx.fillRect(at.x, at.y, at.width, at.height)
  }
}

/** Whether a feedback's picture can be drawn (its pixels are all there). */
export function drawablePicture(picture: Feedback['picture']): picture is NonNullable<Feedback['picture']> {
  return (
    picture !== undefined &&
    picture.width > 0 &&
    picture.height > 0 &&
    picture.rgba.length >= picture.width * picture.height * 4
  )
}
