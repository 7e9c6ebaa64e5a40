/**
 * Pictures on keys (issue 26, item 3), on the pixels: a file's picture drawn under the label inside a
 * border of the key's colour, a title's thumbnail (the simulator's own icon bytes) with the play-state
 * colour round it, the face identity of a picture key, and the bounds of what is decoded.
 */
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { FEEDBACK_COLORS } from '../../../src/mappings/constants.js'
import { iconDataUrl } from '../../../src/app-kit/simulator/png.js'
import { KeyRenderer, parseColor, type RenderedKey } from '../../../src/surfaces/render/key-renderer.js'
import {
  dataUrlBytes,
  decodePicture,
  KeyPicture,
  MAX_PICTURE_BYTES,
  PictureError,
  sniffPicture,
} from '../../../src/surfaces/render/picture.js'
import { pictureRect } from '../../../src/surfaces/render/picture-paint.js'

const require = createRequire(import.meta.url)
const { createCanvas } = require('@napi-rs/canvas') as typeof import('@napi-rs/canvas')

type Rgb = [number, number, number]
const SIZE = { width: 72, height: 72 }

function pixel(key: RenderedKey, x: number, y: number): Rgb {
  const i = (y * key.width + x) * 4
  return [key.rgba[i]!, key.rgba[i + 1]!, key.rgba[i + 2]!]
}

function near(actual: Rgb, expected: Rgb, tolerance = 6): void {
  expect(
    actual.every((v, i) => Math.abs(v - expected[i]!) <= tolerance),
    `${actual.join(',')} ≈ ${expected.join(',')}`,
  ).toBe(true)
}

/** A 64×64 image, red on the left half and green on the right, encoded as `format`. */
function halves(format: 'png' | 'jpeg'): Buffer {
  const canvas = createCanvas(64, 64)
  const ctx = canvas.getContext('2d')
  ctx.fillStyle = '#ff0000'
  ctx.fillRect(0, 0, 32, 64)
  ctx.fillStyle = '#00ff00'
  ctx.fillRect(32, 0, 32, 64)
  return format === 'png' ? canvas.encodeSync('png') : canvas.encodeSync('jpeg', 95)
}

/** A PNG header (signature and IHDR) declaring `width`×`height`, with no pixels after it. */
function pngHeader(width: number, height: number): Buffer {
  const b = Buffer.alloc(33)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0)
  b.writeUInt32BE(13, 8)
  b.write('IHDR', 12, 'ascii')
  b.writeUInt32BE(width, 16)
  b.writeUInt32BE(height, 20)
  return b
}

describe('a file picture on a key', () => {
  const renderer = new KeyRenderer({ cacheSize: 16 })

  it('draws a PNG under the key inside a border of the key colour', async () => {
    const picture = await decodePicture(halves('png'), { width: 256, height: 256 })
    const key = renderer.render({ color: '#202080', picture }, SIZE)
    const at = pictureRect(picture, SIZE.width, SIZE.height)
    near(pixel(key, at.x + 8, 36), [255, 0, 0])
    near(pixel(key, at.x + at.width - 8, 36), [0, 255, 0])
    // The border (the key's own colour) round the picture.
    expect(at.x).toBeGreaterThanOrEqual(2)
    near(pixel(key, 0, 36), parseColor('#202080')!, 0)
    near(pixel(key, 36, 0), parseColor('#202080')!, 0)
  })

  it('draws a JPEG and an SVG the same way', async () => {
    const jpeg = await decodePicture(halves('jpeg'), SIZE)
    const svg = await decodePicture(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="#0000ff"/></svg>',
      ),
      SIZE,
    )
    const jk = renderer.render({ color: '#000000', picture: jpeg }, SIZE)
    near(pixel(jk, 14, 36), [255, 0, 0], 12)
    near(pixel(jk, 58, 36), [0, 255, 0], 12)
    const sk = renderer.render({ color: '#000000', picture: svg }, SIZE)
    near(pixel(sk, 36, 36), [0, 0, 255])
    // An SVG is drawn at the size asked for (a vector has no pixels of its own to keep).
    expect([svg.width, svg.height]).toEqual([72, 72])
  })

  it('draws the label over the picture, veiled so that it reads', async () => {
    const picture = await decodePicture(halves('png'), SIZE)
    const bare = renderer.render({ color: '#000000', picture }, SIZE)
    const labelled = renderer.render({ color: '#000000', picture, text: 'CAM 1', textColor: '#ffffff' }, SIZE)
    // Veiled: the red side is darker, and white text is there.
    expect(pixel(labelled, 12, 10)[0]).toBeLessThan(pixel(bare, 12, 10)[0] - 60)
    let white = 0
    for (let i = 0; i < labelled.rgba.length; i += 4)
      if (labelled.rgba[i]! > 230 && labelled.rgba[i + 1]! > 230) white++
    expect(white).toBeGreaterThan(20)
  })

  it('gives a picture key an identity of its own, by the picture hash', async () => {
    const a = await decodePicture(halves('png'), SIZE)
    const b = KeyPicture.of(a.width, a.height, new Uint8Array(a.rgba.length).fill(200))
    const plain = renderer.identity({ color: '#000000', text: 'X' }, SIZE)
    const withA = renderer.identity({ color: '#000000', text: 'X', picture: a }, SIZE)
    const withB = renderer.identity({ color: '#000000', text: 'X', picture: b }, SIZE)
    expect(new Set([plain, withA, withB]).size).toBe(3)
    expect(renderer.identity({ color: '#000000', text: 'X', picture: KeyPicture.revive({ ...a }) }, SIZE)).toBe(withA)
    // In JSON (the engine's feedback hash, the remote API) a picture is its size and hash, not its pixels.
    expect(JSON.stringify({ picture: a })).toBe(
      JSON.stringify({ picture: { width: a.width, height: a.height, hash: a.hash } }),
    )
  })
})

describe("a title's thumbnail on a key", () => {
  const renderer = new KeyRenderer({ cacheSize: 16 })

  it("draws the application's icon with the play-state colour as its border", async () => {
    // The simulator's own icon bytes for Lower Third (#1d4e89, a darker band along its bottom third).
    const icon = await decodePicture(dataUrlBytes(iconDataUrl(72, 72, '#1d4e89')), SIZE)
    for (const play of ['Running', 'Off'] as const) {
      const key = renderer.render({ color: FEEDBACK_COLORS.play[play], picture: icon }, SIZE)
      near(pixel(key, 1, 36), parseColor(FEEDBACK_COLORS.play[play])!, 0)
      near(pixel(key, 70, 36), parseColor(FEEDBACK_COLORS.play[play])!, 0)
      near(pixel(key, 36, 20), parseColor('#1d4e89')!)
    }
  })
})

describe('what a picture may be', () => {
  it('refuses bytes that are no image, too many bytes and too many pixels, before decoding', async () => {
    expect(() => sniffPicture(Buffer.from('just some text'))).toThrow('not a PNG, JPEG or SVG image')
    const big = Buffer.concat([pngHeader(10, 10), Buffer.alloc(MAX_PICTURE_BYTES)])
    expect(() => sniffPicture(big)).toThrow(`larger than ${MAX_PICTURE_BYTES} bytes`)
    expect(() => sniffPicture(pngHeader(5000, 10))).toThrow('5000x10 pixels is larger than 2048x2048')
    expect(() =>
      sniffPicture(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"></svg>')),
    ).toThrow('100000x100000 pixels is larger than 2048x2048')
    expect(() =>
      sniffPicture(
        Buffer.from(
          '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg"/>',
        ),
      ),
    ).toThrow(PictureError)
    await expect(decodePicture(pngHeader(16, 16), SIZE)).rejects.toThrow('does not decode')
  })

  it('keeps a picture no larger than the box, its aspect kept', async () => {
    const canvas = createCanvas(400, 200)
    const picture = await decodePicture(canvas.encodeSync('png'), { width: 256, height: 256 })
    expect([picture.width, picture.height]).toEqual([256, 128])
    expect(picture.rgba.byteLength).toBe(256 * 128 * 4)
  })

  it('reads a data URL or bare base64, and nothing else', () => {
    const url = iconDataUrl(8, 8, '#ff0000')
    expect(sniffPicture(dataUrlBytes(url))).toEqual({ kind: 'png', width: 8, height: 8 })
    expect(sniffPicture(dataUrlBytes(url.slice('data:image/png;base64,'.length)))).toEqual({
      kind: 'png',
      width: 8,
      height: 8,
    })
    expect(() => dataUrlBytes('data:image/png,rawbytes')).toThrow('not a base64 data URL')
  })
})
