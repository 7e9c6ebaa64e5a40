/**
 * Issue 22, item 9, on the pixels of the real Skia renderer: a stale key is dimmed and hatched, never in
 * its last on-air colour; "unknown" looks different from "stale"; every badge differs from every other by
 * shape, not colour alone; the reason beside a failed badge is at least 12 px on a 72-px key.
 */
import { describe, expect, it } from 'vitest'
import { AppState } from '../../../src/api/app-state.js'
import { FEEDBACK_COLORS } from '../../../src/mappings/constants.js'
import { computeFeedback } from '../../../src/mappings/feedback.js'
import { binding as bindingSchema } from '../../../src/mappings/schema.js'
import { parseTemplate } from '../../../src/mappings/template.js'
import { BADGE_COLORS, KeyRenderer, parseColor, type RenderedKey } from '../../../src/surfaces/render/key-renderer.js'
import type { Feedback, FeedbackBadge } from '../../../src/face/feedback.js'

type Rgb = [number, number, number]
const SIZE = { width: 72, height: 72 }
const renderer = new KeyRenderer()

function pixel(key: RenderedKey, x: number, y: number): Rgb {
  const i = (y * key.width + x) * 4
  return [key.rgba[i]!, key.rgba[i + 1]!, key.rgba[i + 2]!]
}
function near(a: Rgb, b: Rgb, tolerance: number): boolean {
  return a.every((v, i) => Math.abs(v - b[i]!) <= tolerance)
}
/** How many pixels of the key are within `tolerance` of `color` in every channel. */
function count(key: RenderedKey, color: Rgb, tolerance = 40): number {
  let n = 0
  for (let y = 0; y < key.height; y++)
    for (let x = 0; x < key.width; x++) if (near(pixel(key, x, y), color, tolerance)) n++
  return n
}

const TITLE = '{3f2b8c1e-7a4d-4e52-9b1a-5c6d7e8f9a01}'
/** The key of a binding following Lower Third, as the engine computes it, drawn by the renderer. */
function titleKey(state: AppState): { feedback: Feedback; key: RenderedKey } {
  const binding = bindingSchema.parse({
    on: 'desk/key:0',
    label: '{{name}}\n{{play}}',
    feedback: { title: 'Lower Third' },
  })
  const feedback = computeFeedback({
    binding,
    label: parseTemplate(binding.label!).template,
    look: { pending: false, failed: false, context: {} },
    state,
  })
  return { feedback, key: renderer.render(feedback, SIZE) }
}

describe('a stale key', () => {
  it('never shows its last on-air colour: dimmed to grey and hatched', () => {
    const state = new AppState()
    state.resetTitles([{ id: TITLE, name: 'Lower Third', play: 'Running' }])
    state.setLink({ status: 'connected', since: 1 })
    const onAir = parseColor(FEEDBACK_COLORS.play.Running)!
    const live = titleKey(state)
    expect(live.feedback.badge).toBeUndefined()
    expect(count(live.key, onAir)).toBeGreaterThan(72 * 72 * 0.5)

    state.setLink({ status: 'stale', phase: 'waiting-to-retry', since: 2, error: 'socket closed (1006)' })
    const stale = titleKey(state)
    expect(stale.feedback.badge).toBe('stale')
    // The feedback still says what was last known; the key must not show it.
    expect(stale.feedback.color).toBe(FEEDBACK_COLORS.play.Running)
    expect(count(stale.key, onAir)).toBe(0)
    // No pixel has colour left in it but the grey badge: every pixel is grey.
    for (let y = 0; y < 72; y++) for (let x = 0; x < 72; x++) expect(saturation(pixel(stale.key, x, y))).toBeLessThan(8)
    // Dimmed: darker than the on-air key; hatched: along a row, background and lighter stripes alternate.
    const row = Array.from({ length: 72 }, (_, x) => pixel(stale.key, x, 3)[0])
    expect(Math.max(...row.slice(0, 40))).toBeLessThan(luma(onAir) + 40)
    expect(stripes(row.slice(0, 40))).toBeGreaterThanOrEqual(3)
  })

  it('an image on a stale key is darkened and hatched too', () => {
    const rgba = new Uint8Array(2 * 2 * 4).fill(255)
    const bright = renderer.render({ image: { width: 2, height: 2, rgba } }, SIZE)
    const stale = renderer.render({ image: { width: 2, height: 2, rgba }, badge: 'stale' }, SIZE)
    expect(pixel(bright, 10, 36)).toEqual([255, 255, 255])
    expect(pixel(stale, 10, 36)[0]).toBeLessThan(160)
    expect(stripes(Array.from({ length: 40 }, (_, x) => pixel(stale, x, 36)[0]))).toBeGreaterThanOrEqual(3)
  })
})

describe('unknown and stale look different', () => {
  it('unknown keeps the key’s colours and shows a blue disc with ?; stale turns grey and hatched', () => {
    const face = { color: '#00a000', text: 'Replay' }
    const unknown = renderer.render({ ...face, badge: 'unknown' }, SIZE)
    const stale = renderer.render({ ...face, badge: 'stale' }, SIZE)
    const green = parseColor('#00a000')!
    const blue = parseColor(BADGE_COLORS.unknown)!
    expect(pixel(unknown, 2, 2)).toEqual(green)
    expect(pixel(unknown, 2, 69)).toEqual(green)
    expect(count(unknown, blue, 10)).toBeGreaterThan(60)
    expect(count(stale, green)).toBe(0)
    expect(count(stale, blue, 10)).toBe(0)
  })
})

describe('badges are told apart by shape, not by colour alone', () => {
  /** Where a badge put ink on a black key, as a set of pixel indexes: its shape, whatever its colour. */
  function shape(badge: FeedbackBadge): Set<number> {
    const plain = renderer.render({ color: '#000000' }, SIZE)
    const key = renderer.render({ color: '#000000', badge }, SIZE)
    const ink = new Set<number>()
    for (let i = 0; i < 72 * 72; i++) {
      const [x, y] = [i % 72, Math.floor(i / 72)]
      if (!near(pixel(key, x, y), pixel(plain, x, y), 24)) ink.add(i)
    }
    return ink
  }
  const badges: FeedbackBadge[] = ['pending', 'failed', 'stale', 'unknown']
  const shapes = new Map(badges.map((b) => [b, shape(b)]))

  it.each(badges.flatMap((a, i) => badges.slice(i + 1).map((b) => [a, b] as const)))('%s and %s', (a, b) => {
    const sa = shapes.get(a)!
    const sb = shapes.get(b)!
    const onlyOne = [...sa].filter((i) => !sb.has(i)).length + [...sb].filter((i) => !sa.has(i)).length
    expect(onlyOne).toBeGreaterThan(40)
  })
})

describe('the reason beside a failed badge', () => {
  /** Runs of rows with white ink below row `from`. */
  function lines(key: RenderedKey, from: number): [number, number][] {
    const out: [number, number][] = []
    for (let y = from; y < key.height; y++) {
      let ink = false
      for (let x = 0; x < key.width; x++) if (pixel(key, x, y)[1] > 160 && pixel(key, x, y)[2] > 160) ink = true
      const last = out.at(-1)
      if (ink && last && last[1] === y - 1) last[1] = y
      else if (ink) out.push([y, y])
    }
    return out
  }

  it('is set at 12 px or more on a 72-px key, on two lines when one will not hold it', () => {
    // Capitals without descenders: a line's ink is its cap height, 0.73 em in DejaVu Sans Bold.
    const failed = renderer.render({ color: '#000000', badge: 'failed', detail: 'NOT REACHABLE' }, SIZE)
    const reason = lines(failed, 36)
    expect(reason).toHaveLength(2)
    for (const [top, bottom] of reason) expect(bottom - top + 1).toBeGreaterThanOrEqual(Math.floor(12 * 0.73))
    // The same words as a plain detail (a countdown) stay one line, shrunk to fit.
    const plain = renderer.render({ color: '#000000', detail: 'NOT REACHABLE' }, SIZE)
    const one = lines(plain, 36)
    expect(one).toHaveLength(1)
    expect(one[0]![1] - one[0]![0] + 1).toBeLessThan(Math.floor(12 * 0.73))
  })
})

function saturation([r, g, b]: Rgb): number {
  return Math.max(r, g, b) - Math.min(r, g, b)
}
function luma([r, g, b]: Rgb): number {
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}
/** How many times a row of grey levels goes from dark to light (each hatch line crossed). */
function stripes(row: number[]): number {
  const lo = Math.min(...row)
  const hi = Math.max(...row)
  if (hi - lo < 15) return 0
  const mid = (lo + hi) / 2
  let n = 0
  for (let i = 1; i < row.length; i++) if (row[i - 1]! < mid && row[i]! >= mid) n++
  return n
}
