import { describe, expect, it } from 'vitest'
import { KEY_TEXT, keyFaceOf } from '../../src/face/key-paint.js'
import {
  BADGE_COLORS,
  KEY_FONT_FAMILY,
  KeyRenderer,
  encodePng,
  keyFontPath,
  parseColor,
  type RenderedKey,
} from '../../src/surfaces/render/key-renderer.js'
import type { Feedback } from '../../src/face/feedback.js'

function pixel(key: RenderedKey, x: number, y: number): [number, number, number, number] {
  const i = (y * key.width + x) * 4
  return [key.rgba[i]!, key.rgba[i + 1]!, key.rgba[i + 2]!, key.rgba[i + 3]!]
}

/** Bounding box of pixels that differ from the background colour by more than a small margin. */
function inkBox(
  key: RenderedKey,
  bg: [number, number, number],
): { x0: number; y0: number; x1: number; y1: number } | null {
  let box: { x0: number; y0: number; x1: number; y1: number } | null = null
  for (let y = 0; y < key.height; y++)
    for (let x = 0; x < key.width; x++) {
      const [r, g, b] = pixel(key, x, y)
      if (Math.abs(r - bg[0]) + Math.abs(g - bg[1]) + Math.abs(b - bg[2]) > 30) {
        box = box
          ? { x0: Math.min(box.x0, x), y0: Math.min(box.y0, y), x1: Math.max(box.x1, x), y1: Math.max(box.y1, y) }
          : { x0: x, y0: y, x1: x, y1: y }
      }
    }
  return box
}

describe('KeyRenderer', () => {
  const renderer = new KeyRenderer({ cacheSize: 8 })

  it('fills the background colour and returns RGBA of the requested size', () => {
    const key = renderer.render({ color: '#ff0000' }, { width: 72, height: 72 })
    expect(key.width).toBe(72)
    expect(key.height).toBe(72)
    expect(key.rgba.length).toBe(72 * 72 * 4)
    expect(pixel(key, 0, 0)).toEqual([255, 0, 0, 255])
    expect(pixel(key, 71, 71)).toEqual([255, 0, 0, 255])
    expect(pixel(key, 36, 36)).toEqual([255, 0, 0, 255])
  })

  it('blank feedback is black', () => {
    const key = renderer.render({}, { width: 96, height: 96 })
    expect(pixel(key, 48, 48)).toEqual([0, 0, 0, 255])
  })

  it('draws the label in the text colour, centred, inside the key', () => {
    const key = renderer.render({ color: '#000000', text: 'GO', textColor: '#00ff00' }, { width: 72, height: 72 })
    const box = inkBox(key, [0, 0, 0])!
    expect(box).not.toBeNull()
    // centred: the ink's centre is within 3 px of the key's centre
    expect(Math.abs((box.x0 + box.x1) / 2 - 35.5)).toBeLessThan(3)
    expect(Math.abs((box.y0 + box.y1) / 2 - 35.5)).toBeLessThan(4)
    // some pixel is pure text colour
    let green = 0
    for (let i = 0; i < key.rgba.length; i += 4)
      if (key.rgba[i] === 0 && key.rgba[i + 1] === 255 && key.rgba[i + 2] === 0) green++
    expect(green).toBeGreaterThan(20)
  })

  it('wraps and shrinks long text so it stays inside the key', () => {
    const text = 'Lower third animate in with a very long name'
    const key = renderer.render({ color: '#202020', text }, { width: 72, height: 72 })
    const box = inkBox(key, [32, 32, 32])!
    expect(box.x0).toBeGreaterThanOrEqual(1)
    expect(box.x1).toBeLessThanOrEqual(70)
    expect(box.y0).toBeGreaterThanOrEqual(1)
    expect(box.y1).toBeLessThanOrEqual(70)
    // it wrapped onto several lines: the ink is taller than one line of the smallest font
    expect(box.y1 - box.y0).toBeGreaterThan(20)
  })

  it('draws a short label large (the font grows to fit the key)', () => {
    const short = inkBox(renderer.render({ text: 'A' }, { width: 96, height: 96 }), [0, 0, 0])!
    // the largest size is 30 % of the key height: a capital A is about 20 px tall at 96 px
    expect(short.y1 - short.y0).toBeGreaterThan(17)
    const small = inkBox(renderer.render({ text: 'A' }, { width: 72, height: 72 }), [0, 0, 0])!
    expect(small.y1 - small.y0).toBeLessThan(short.y1 - short.y0)
  })

  it('breaks lines at \\n', () => {
    const one = inkBox(renderer.render({ text: 'A B' }, { width: 72, height: 72 }), [0, 0, 0])!
    const two = inkBox(renderer.render({ text: 'A\nB' }, { width: 72, height: 72 }), [0, 0, 0])!
    expect(two.y1 - two.y0).toBeGreaterThan(1.8 * (one.y1 - one.y0))
    expect(two.x1 - two.x0).toBeLessThan(one.x1 - one.x0)
  })

  it('shrinks a word that does not fit rather than breaking it; breaks a word only when nothing else fits', () => {
    // Rows with ink, grouped into bands separated by blank rows: one band per text line.
    const bands = (key: RenderedKey): number => {
      let count = 0
      let inInk = false
      for (let y = 0; y < key.height; y++) {
        let ink = false
        for (let x = 0; x < key.width && !ink; x++) ink = pixel(key, x, y)[0] > 100
        if (ink && !inInk) count++
        inInk = ink
      }
      return count
    }
    expect(bands(renderer.render({ text: 'Replay', textColor: '#ffffff' }, { width: 96, height: 96 }))).toBe(1)
    expect(bands(renderer.render({ text: 'Stop\nstream', textColor: '#ffffff' }, { width: 96, height: 96 }))).toBe(2)
    // A word too long for the key even at the smallest size is still broken between characters.
    const long = 'W'.repeat(40)
    expect(bands(renderer.render({ text: long, textColor: '#ffffff' }, { width: 72, height: 72 }))).toBeGreaterThan(1)
  })

  it('cuts text that cannot fit even at the smallest size and stays inside the padding', () => {
    const text = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ')
    const key = renderer.render({ text }, { width: 24, height: 24 })
    const box = inkBox(key, [0, 0, 0])!
    // The padding of a 24-pixel key is 1 pixel: ink stays within columns and rows 1..22.
    expect(box.x0).toBeGreaterThanOrEqual(1)
    expect(box.x1).toBeLessThanOrEqual(22)
    expect(box.y0).toBeGreaterThanOrEqual(1)
    expect(box.y1).toBeLessThanOrEqual(22)
  })

  it('ends the last line that fits with an ellipsis when even the smallest size is too big', () => {
    // At the smallest size (7 px) a 24-pixel key has room for two lines, a 72-pixel key for seven: the
    // cut text must look exactly like those lines written out with the ellipsis.
    const many = { text: 'A\n'.repeat(20) }
    const small = renderer.render(many, { width: 24, height: 24 })
    expect(small.hash).toBe(renderer.render({ text: 'A\nA…' }, { width: 24, height: 24 }).hash)
    expect(small.hash).not.toBe(renderer.render({ text: 'A\nA' }, { width: 24, height: 24 }).hash)
    const large = renderer.render(many, { width: 72, height: 72 })
    expect(large.hash).toBe(renderer.render({ text: `${'A\n'.repeat(6)}A…` }, { width: 72, height: 72 }).hash)
  })

  it('defaults the text colour to black on light backgrounds and white on dark ones', () => {
    const light = renderer.render({ color: '#ffffff', text: 'X' }, { width: 72, height: 72 })
    const dark = renderer.render({ color: '#000000', text: 'X' }, { width: 72, height: 72 })
    const darkest = (k: RenderedKey): number => {
      let m = 255
      for (let i = 0; i < k.rgba.length; i += 4) m = Math.min(m, k.rgba[i]!)
      return m
    }
    const lightest = (k: RenderedKey): number => {
      let m = 0
      for (let i = 0; i < k.rgba.length; i += 4) m = Math.max(m, k.rgba[i]!)
      return m
    }
    expect(darkest(light)).toBe(0)
    expect(lightest(dark)).toBe(255)
  })

  it('breaks a word that is wider than the key and still keeps it inside', () => {
    const key = renderer.render({ text: 'WWWWWWWWWWWWWWWWWWWWWWWWWWWWWW' }, { width: 72, height: 72 })
    const box = inkBox(key, [0, 0, 0])!
    expect(box.x0).toBeGreaterThanOrEqual(1)
    expect(box.x1).toBeLessThanOrEqual(70)
  })

  it.each(['pending', 'failed', 'stale'] as const)('draws the %s badge in the top-right corner', (badge) => {
    const key = renderer.render({ color: '#0000ff', badge }, { width: 72, height: 72 })
    const [r, g, b] = parseColor(BADGE_COLORS[badge])!
    // inside the triangle, near the corner
    expect(pixel(key, 70, 2)).toEqual([r, g, b, 255])
    // opposite corner is untouched background, but on a stale key, which never shows its colour: grey
    if (badge === 'stale') expect(pixel(key, 2, 2)).toSatisfy(([r, g, b]: number[]) => r === g && g === b)
    else expect(pixel(key, 2, 2)).toEqual([0, 0, 255, 255])
    // the bar along the bottom marks "failed" only
    if (badge !== 'stale') expect(pixel(key, 36, 71)).toEqual(badge === 'failed' ? [r, g, b, 255] : [0, 0, 255, 255])
    else expect(pixel(key, 36, 71)).not.toEqual([r, g, b, 255])
  })

  it('passes an image through, scaled to the key', () => {
    const rgba = new Uint8Array(2 * 2 * 4)
    // 2x2: left column red, right column green
    rgba.set([255, 0, 0, 255, 0, 255, 0, 255, 255, 0, 0, 255, 0, 255, 0, 255])
    const key = renderer.render(
      { color: '#0000ff', text: 'ignored', image: { width: 2, height: 2, rgba } },
      { width: 72, height: 72 },
    )
    expect(pixel(key, 5, 36)).toEqual([255, 0, 0, 255])
    expect(pixel(key, 66, 36)).toEqual([0, 255, 0, 255])
  })

  it('returns the identical object on a cache hit and evicts least recently used', () => {
    const r = new KeyRenderer({ cacheSize: 2 })
    const a = r.render({ color: '#112233', text: 'a' }, { width: 72, height: 72 })
    expect(r.render({ color: '#112233', text: 'a' }, { width: 72, height: 72 })).toBe(a)
    expect(r.stats).toEqual({ hits: 1, misses: 1 })
    const b = r.render({ color: '#112233', text: 'b' }, { width: 72, height: 72 })
    r.render({ color: '#112233', text: 'a' }, { width: 72, height: 72 }) // a is now most recent
    r.render({ color: '#112233', text: 'c' }, { width: 72, height: 72 }) // evicts b
    expect(r.cached).toBe(2)
    expect(r.render({ color: '#112233', text: 'a' }, { width: 72, height: 72 })).toBe(a)
    const b2 = r.render({ color: '#112233', text: 'b' }, { width: 72, height: 72 })
    expect(b2).not.toBe(b)
    expect(b2.hash).toBe(b.hash)
  })

  it('gives a different hash for a different size or content', () => {
    const a = renderer.render({ color: '#123456' }, { width: 72, height: 72 })
    expect(renderer.render({ color: '#123456' }, { width: 96, height: 96 }).hash).not.toBe(a.hash)
    expect(renderer.render({ color: '#123457' }, { width: 72, height: 72 }).hash).not.toBe(a.hash)
  })

  it('refuses a bad size', () => {
    expect(() => renderer.render({}, { width: 0, height: 72 })).toThrow(/bad size 0x72/)
  })

  it('encodes PNG', () => {
    const png = encodePng(renderer.render({ color: '#ff0000' }, { width: 72, height: 72 }))
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  })

  it('parses colours', () => {
    expect(parseColor('#abc')).toEqual([0xaa, 0xbb, 0xcc])
    expect(parseColor('#A0B1C2')).toEqual([0xa0, 0xb1, 0xc2])
    expect(parseColor('red')).toBeUndefined()
    expect(parseColor(undefined)).toBeUndefined()
  })
})

describe('key faces (the layout shared with the page)', () => {
  const renderer = new KeyRenderer()
  it("the font metrics the layout places lines with are the shipped font's own, as Skia reads them", async () => {
    const { createCanvas, GlobalFonts } = await import('@napi-rs/canvas')
    renderer.render({ text: 'x' }, { width: 72, height: 72 }) // registers the shipped font
    expect(GlobalFonts.has(KEY_FONT_FAMILY)).toBe(true)
    const ctx = createCanvas(10, 10).getContext('2d')
    ctx.font = `2048px ${KEY_FONT_FAMILY}`
    const m = ctx.measureText('H')
    expect(m.fontBoundingBoxAscent).toBeCloseTo(KEY_TEXT.fontAscent * 2048, 3)
    expect(m.fontBoundingBoxDescent).toBeCloseTo(KEY_TEXT.fontDescent * 2048, 3)
  })

  it('centres a label as Skia centres a line on its middle baseline', async () => {
    const { createCanvas, GlobalFonts } = await import('@napi-rs/canvas')
    GlobalFonts.registerFromPath(keyFontPath(), KEY_FONT_FAMILY)
    const draw = (baseline: 'middle' | 'alphabetic', dy: number): Uint8ClampedArray => {
      const ctx = createCanvas(96, 96).getContext('2d')
      ctx.fillStyle = '#000'
      ctx.fillRect(0, 0, 96, 96)
      ctx.fillStyle = '#fff'
      ctx.font = `28px ${KEY_FONT_FAMILY}`
      ctx.textAlign = 'center'
      ctx.textBaseline = baseline
      ctx.fillText('LIVE', 48, 48 + dy)
      return ctx.getImageData(0, 0, 96, 96).data
    }
    // What the layout does (alphabetic, moved down by half of ascent less descent) is Skia's 'middle'.
    const ours = draw('alphabetic', (28 * (KEY_TEXT.fontAscent - KEY_TEXT.fontDescent)) / 2)
    const skia = draw('middle', 0)
    let off = 0
    for (let i = 0; i < ours.length; i++) off = Math.max(off, Math.abs(ours[i]! - skia[i]!))
    expect(off).toBeLessThan(64)
  })

  it('keyFaceOf keeps what changes the picture and leaves out the image, blank text and non-finite values', () => {
    const image = { width: 1, height: 1, rgba: new Uint8Array(4) }
    expect(
      keyFaceOf({
        color: '#123',
        text: 'A',
        textColor: '#fff',
        detail: 'd',
        value: 0.5,
        badge: 'failed',
        image,
        led: 'on',
      }),
    ).toEqual({ color: '#123', text: 'A', textColor: '#fff', detail: 'd', value: 0.5, badge: 'failed' })
    expect(keyFaceOf({ text: '  \n ', detail: ' \t', value: Number.NaN })).toEqual({})
    expect(keyFaceOf({ value: Number.POSITIVE_INFINITY, text: 'x' })).toEqual({ text: 'x' })
    expect(keyFaceOf({ value: 0 })).toEqual({ value: 0 })
  })

  it('paints a face the same whether given the feedback or its face through JSON (as the page gets it)', () => {
    const feedback = { color: '#203040', text: 'Replay\nLIVE', detail: 'x2', value: 0.3, badge: 'pending' as const }
    const fromFace = new KeyRenderer().render(JSON.parse(JSON.stringify(keyFaceOf(feedback))) as Feedback, {
      width: 96,
      height: 96,
    })
    expect(fromFace.hash).toBe(renderer.render(feedback, { width: 96, height: 96 }).hash)
  })
})
