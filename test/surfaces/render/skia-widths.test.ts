/**
 * Issue 29: label widths worked out from characters and pairs (`src/surfaces/render/skia-widths.ts`) are
 * Skia's own, to the last bit: over every three characters of a kerned set, generated words and lines,
 * and whole faces (the renderer, whose canvases use the model, against a fresh canvas that measures every
 * word with Skia). What the model declines (`ff`, characters outside printable ASCII, texts with many
 * unknown pieces) is measured, and a context whose widths the model does not fit turns it off.
 */
import { createRequire } from 'node:module'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { KeyRenderer, paintFace } from '../../../src/surfaces/render/key-renderer.js'
import {
  forgetTextWidths,
  KEY_FONT_FAMILY,
  KEY_FONT_STACK,
  keyFaceOf,
  REF_PX,
  type TextWidthModel,
} from '../../../src/face/key-paint.js'
import { keyFontPath } from '../../../src/surfaces/render/fonts.js'
import { resetSkiaWidths, skiaTextWidths, skiaWidthsState } from '../../../src/surfaces/render/skia-widths.js'
import type { Feedback } from '../../../src/face/feedback.js'

const require = createRequire(import.meta.url)
const { createCanvas, GlobalFonts } = require('@napi-rs/canvas') as typeof import('@napi-rs/canvas')

/** Skia at the reference size, and the model over its own cache of pieces, counting what Skia measures. */
function skiaAtReference(model: TextWidthModel = skiaTextWidths) {
  GlobalFonts.registerFromPath(keyFontPath(), KEY_FONT_FAMILY)
  const ctx = createCanvas(8, 8).getContext('2d')
  ctx.font = `${REF_PX}px ${KEY_FONT_STACK}`
  const measured: string[] = []
  const skia = (s: string): number => ctx.measureText(s).width
  const measure = (s: string): number => {
    measured.push(s)
    return skia(s)
  }
  const pieces = new Map<string, number>()
  const width = (piece: string): number => {
    let w = pieces.get(piece)
    if (w === undefined) {
      w = measure(piece)
      pieces.set(piece, w)
    }
    return w
  }
  const known = (piece: string): boolean => pieces.has(piece)
  /** The width refWidth would take: the model's, else measured. */
  const modelled = (s: string): { width: number; worked: boolean } => {
    const w = model(s, width, known, measure)
    return w === undefined ? { width: measure(s), worked: false } : { width: w, worked: true }
  }
  return { skia, modelled, measured, width, pieces }
}

/** Deterministic pseudo-random numbers (a test that fails names its seed and case). */
function lcg(seed: number): () => number {
  let s = seed
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
}

beforeEach(() => {
  resetSkiaWidths()
  forgetTextWidths()
})
afterEach(() => {
  resetSkiaWidths()
  forgetTextWidths()
})

describe('widths worked out from characters and pairs', () => {
  it("equal Skia's for every three characters of a kerned set, once its pieces are known", () => {
    const { skia, modelled, width } = skiaAtReference()
    // Capitals and punctuation the font kerns, digits, the space and the ellipsis, f i l (ligature candidates).
    const set = [...'AVTWYLPFKorvyaefil017.,:;-/ "…']
    for (const a of set) {
      width(a)
      for (const b of set) width(a + b)
    }
    const differ: string[] = []
    let worked = 0
    for (const a of set)
      for (const b of set)
        for (const c of set) {
          const text = a + b + c
          const got = modelled(text)
          if (got.worked) worked++
          if (got.width !== skia(text)) differ.push(`${JSON.stringify(text)}: ${got.width} vs ${skia(text)}`)
        }
    expect(differ).toEqual([])
    // Everything but the texts with `ff` was worked out, so the comparison above is the model's.
    expect(worked).toBe(set.length ** 3 - 2 * set.length + 1)
    expect(skiaWidthsState().state).toBe('on')
  })

  it("equal Skia's for generated words and lines of printable ASCII", () => {
    const { skia, modelled, width } = skiaAtReference()
    const rnd = lcg(29)
    const ascii = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)), '…']
    // Every piece known first (a deck's labels get there one new word at a time), so every text is worked out.
    for (const a of ascii) {
      width(a)
      for (const b of ascii) width(a + b)
    }
    let worked = 0
    let withFf = 0
    for (let n = 0; n < 6000; n++) {
      const len = 3 + Math.floor(rnd() * 14)
      let text = ''
      for (let i = 0; i < len; i++) text += ascii[Math.floor(rnd() * ascii.length)]
      if (text.includes('ff')) withFf++
      const got = modelled(text)
      if (got.worked) worked++
      expect(got.width, `case ${n}: ${JSON.stringify(text)}`).toBe(skia(text))
    }
    expect(worked).toBe(6000 - withFf)
  })

  it('measures what it does not model: the ff ligature, other scripts, one or two characters', () => {
    const { modelled } = skiaAtReference()
    for (const text of ['Offside', 'staff', 'Café', 'Ünïcödé', '漢字です', 'ok', 'A']) {
      expect(modelled(text).worked, text).toBe(false)
    }
    expect(modelled('Offside').width).toBeGreaterThan(0)
  })

  it('a new word with many unknown pieces is measured whole and learns one piece; a known one costs nothing', () => {
    const { skia, modelled, measured } = skiaAtReference()
    const first = modelled('Replay')
    expect(first.worked).toBe(false)
    // The word itself and one piece (R, e, p, l, a, y and five pairs were unknown).
    expect(measured).toHaveLength(2)
    expect(measured).toContain('Replay')
    // Pieces learnt one by one (a word at a time), until the word is worked out with at most 2 to learn.
    let calls = 2
    while (!modelled('Replay').worked && calls < 20) calls++
    // 11 pieces, one learnt a call: the tenth call has two left, learns them and works the word out.
    expect(calls).toBe(10)
    // Past the self-check (8 texts measured by Skia as well), a known word measures nothing at all.
    for (let i = 0; i < 10; i++) modelled('Replay')
    measured.length = 0
    expect(modelled('Replay')).toEqual({ width: skia('Replay'), worked: true })
    expect(measured).toEqual([])
  })

  it("turns itself off in a thread where Skia's widths are not what it models, answering Skia's meanwhile", () => {
    // A context 3 % wider than the font's units: every width is off the unit grid, or off the sum.
    const ctx = createCanvas(8, 8).getContext('2d')
    ctx.font = `${REF_PX * 1.03}px ${KEY_FONT_STACK}`
    const real = (s: string): number => ctx.measureText(s).width
    const pieces = new Map<string, number>()
    const width = (p: string): number => pieces.get(p) ?? (pieces.set(p, real(p)), real(p))
    for (const c of 'GOAVTR') width(c)
    for (const p of ['GO', 'AV', 'VA', 'AT', 'TA', 'AR']) width(p)
    const answer = skiaTextWidths('GOGO', width, (p) => pieces.has(p), real)
    expect(answer).toBe(real('GOGO'))
    expect(skiaWidthsState().state).toBe('off')
    // Off: nothing more is worked out.
    expect(skiaTextWidths('GOGO', width, (p) => pieces.has(p), real)).toBeUndefined()
  })
})

describe('faces drawn with worked-out widths', () => {
  it('are the pixels of the same faces on a canvas that measures every word with Skia', () => {
    const rnd = lcg(7)
    const words = ['Lower', 'third', 'Replay', 'Cam', 'GO', 'AVATAR', 'Toyota', 'Wolf.fly', 'T.V.', 'W/Y', '1-7']
    const faces: Feedback[] = []
    for (let n = 0; n < 120; n++) {
      const count = 1 + Math.floor(rnd() * 5)
      const text = Array.from({ length: count }, () =>
        rnd() < 0.3 ? String(Math.floor(rnd() * 1e6)) : words[Math.floor(rnd() * words.length)]!,
      ).join(rnd() < 0.2 ? '\n' : ' ')
      faces.push({ color: n % 2 ? '#c00000' : '#ffffff', text, ...(n % 5 === 0 ? { detail: `${text} · ${n}` } : {}) })
    }
    const sizes = [
      { width: 72, height: 72 },
      { width: 96, height: 96 },
    ]
    const renderer = new KeyRenderer({ cacheSize: 1 })
    // First a face whose words are the characters and pairs of the faces' words (and every digit pair):
    // measured by Skia as words, they are the pieces the model works the faces' words out from.
    const pieces = new Set<string>()
    for (const word of [...words, ...'0123456789'.split('').flatMap((a) => [...'0123456789'].map((b) => a + b))]) {
      for (let i = 0; i < word.length; i++) pieces.add(word[i]!).add(word.slice(i, i + 2))
    }
    renderer.render({ text: [...pieces].join(' ') }, sizes[0]!)
    const drawn = faces.flatMap((fb) => sizes.map((size) => renderer.render(fb, size).rgba.slice()))
    const { state, checksLeft, worked } = skiaWidthsState()
    expect({ state, checksLeft }).toEqual({ state: 'on', checksLeft: 0 })
    // The faces' words past the self-check (8) were worked out, not measured.
    expect(worked).toBeGreaterThan(100)
    // The same faces with every width measured by Skia: no model on a fresh canvas, and nothing cached.
    forgetTextWidths()
    let i = 0
    for (const fb of faces) {
      for (const size of sizes) {
        const canvas = createCanvas(size.width, size.height)
        paintFace(canvas.getContext('2d'), keyFaceOf(fb), undefined, size.width, size.height)
        expect(Buffer.compare(Buffer.from(canvas.data()), Buffer.from(drawn[i]!)), `${fb.text} at ${size.width}`).toBe(
          0,
        )
        i++
      }
    }
    expect(skiaWidthsState().worked).toBe(worked)
  })
})
