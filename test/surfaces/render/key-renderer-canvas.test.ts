/**
 * Issue 29: the key renderer draws every face on one reused canvas per size (reset between faces) and
 * reads the canvas's own premultiplied pixels rather than `getImageData`'s. Held here to what a fresh
 * canvas read with `getImageData` gives, byte for byte, over every kind of face (text, wrapped text,
 * detail, reasons, level bars, every badge, stale, images and pictures with alpha below 255), drawn one
 * after another at several sizes so that each face follows another on the same canvas; and the pixels
 * handed out are a copy (the next face does not change them).
 */
import { createRequire } from 'node:module'
import { createHash } from 'node:crypto'
import type { SKRSContext2D } from '@napi-rs/canvas'
import { describe, expect, it } from 'vitest'
import { KeyRenderer, paintFace } from '../../../src/surfaces/render/key-renderer.js'
import { keyFaceOf } from '../../../src/face/key-paint.js'
import type { Feedback } from '../../../src/face/feedback.js'

const require = createRequire(import.meta.url)
const { createCanvas } = require('@napi-rs/canvas') as typeof import('@napi-rs/canvas')

/** A gradient whose alpha runs from 0 to 255 across it. */
function translucent(width: number, height: number): { width: number; height: number; rgba: Uint8Array } {
  const rgba = new Uint8Array(width * height * 4)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      rgba.set([(x * 9) % 256, (y * 5) % 256, 200, Math.round((255 * x) / (width - 1))], (y * width + x) * 4)
    }
  }
  return { width, height, rgba }
}

const faces: Feedback[] = [
  { color: '#c00000', text: 'Lower third', badge: 'pending' },
  { color: '#ffffff', text: 'Title with a rather long name that wraps over lines', detail: 'next' },
  { color: '#0050ff', text: 'Cam 2', detail: 'no signal', badge: 'failed' },
  { color: '#00a000', text: 'Fader', value: 0.4, textColor: '#ffff00' },
  { color: '#ffb000', text: 'Old', badge: 'stale', detail: 'app gone' },
  { color: '#202020', text: '?', badge: 'unknown' },
  { color: '#808080', text: 'Split', badge: 'diverged', value: 0.9 },
  { color: '#0050ff', image: translucent(40, 40), detail: 'image' },
  { color: '#c00000', image: translucent(96, 96), badge: 'stale' },
  { color: '#00a000', text: 'Thumb', picture: { ...translucent(64, 36), hash: 'translucent-64x36' } },
  { color: '#202020', picture: { ...translucent(30, 30), hash: 'translucent-30x30' }, badge: 'pending' },
  { text: 'no colour at all' },
  { color: '#123', text: 'Ünïcödé ✓ → 漢字' },
]
const sizes = [
  { width: 72, height: 72 },
  { width: 96, height: 96 },
  { width: 200, height: 100 },
]

/** The face on a new canvas, read back with getImageData (straight alpha): the path before reuse. */
function fresh(fb: Feedback, size: { width: number; height: number }, dirty?: (ctx: SKRSContext2D) => void): Buffer {
  const canvas = createCanvas(size.width, size.height)
  const ctx = canvas.getContext('2d')
  if (dirty) {
    dirty(ctx)
    ctx.reset()
  }
  paintFace(ctx, keyFaceOf(fb), fb.image, size.width, size.height, fb.picture)
  const data = ctx.getImageData(0, 0, size.width, size.height).data
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength)
}

const bytes = (rgba: Uint8Array): Buffer => Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength)

describe('key renderer on reused canvases', () => {
  it("gives a fresh canvas's getImageData bytes for every kind of face, one face after another", () => {
    const renderer = new KeyRenderer()
    // Twice round, in two orders: every face follows a different one on the same canvas.
    const order = [...faces, ...[...faces].reverse()]
    for (const size of sizes) {
      for (const [i, fb] of order.entries()) {
        const key = new KeyRenderer().render(fb, size)
        expect(bytes(key.rgba).equals(fresh(fb, size)), `${size.width}x${size.height} face ${i}`).toBe(true)
        expect(renderer.render(fb, size).hash).toBe(key.hash)
      }
    }
  })

  it('hands out a copy: the next face on the same canvas leaves the pixels of the last one as they were', () => {
    const renderer = new KeyRenderer()
    const size = { width: 96, height: 96 }
    const first = renderer.render(faces[0]!, size)
    const kept = Buffer.from(first.rgba)
    renderer.render(faces[1]!, size)
    renderer.render(faces[7]!, size)
    expect(bytes(first.rgba).equals(kept)).toBe(true)
    expect(kept.equals(fresh(faces[0]!, size))).toBe(true)
    const again = createHash('sha1').update('96x96:').update(first.rgba).digest('hex')
    expect(again).toBe(first.hash)
  })

  it('reset leaves nothing of a canvas state behind: transform, clip, alpha, compositing, font, path', () => {
    const size = { width: 96, height: 96 }
    const dirty = (ctx: SKRSContext2D): void => {
      ctx.fillStyle = 'rgba(0,255,0,0.5)'
      ctx.fillRect(0, 0, 96, 96)
      ctx.save()
      ctx.translate(13, 7)
      ctx.rotate(0.3)
      ctx.scale(1.5, 0.5)
      ctx.beginPath()
      ctx.rect(10, 10, 20, 20)
      ctx.clip()
      ctx.globalAlpha = 0.3
      ctx.globalCompositeOperation = 'xor'
      ctx.font = '3px serif'
      ctx.textAlign = 'right'
      ctx.textBaseline = 'top'
      ctx.lineWidth = 9
      ctx.imageSmoothingEnabled = false
      ctx.shadowColor = 'red'
      ctx.shadowBlur = 4
      ctx.moveTo(0, 0)
      ctx.lineTo(90, 90)
    }
    for (const fb of faces) expect(fresh(fb, size, dirty).equals(fresh(fb, size))).toBe(true)
  })
})
