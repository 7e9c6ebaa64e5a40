/** The key renderer's level bar (`value`) and second text line (`detail`), checked on the pixels. */
import { describe, expect, it } from 'vitest'
import { BADGE_COLORS, KeyRenderer, parseColor, type RenderedKey } from '../../src/surfaces/render/key-renderer.js'

type Rgb = [number, number, number]

function pixel(key: RenderedKey, x: number, y: number): Rgb {
  const i = (y * key.width + x) * 4
  return [key.rgba[i]!, key.rgba[i + 1]!, key.rgba[i + 2]!]
}

function same(a: Rgb, b: Rgb, tolerance = 0): boolean {
  return a.every((v, i) => Math.abs(v - b[i]!) <= tolerance)
}

/** Rows (top to bottom) that have a pixel differing from `bg` between columns x0..x1. */
function inkRows(key: RenderedKey, bg: Rgb, x0 = 0, x1 = key.width - 1, y0 = 0, y1 = key.height - 1): number[] {
  const rows: number[] = []
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      if (!same(pixel(key, x, y), bg, 30)) {
        rows.push(y)
        break
      }
    }
  }
  return rows
}

/** Columns with ink between rows y0..y1. */
function inkColumns(key: RenderedKey, bg: Rgb, y0: number, y1: number): number[] {
  const cols: number[] = []
  for (let x = 0; x < key.width; x++) {
    for (let y = y0; y <= y1; y++) {
      if (!same(pixel(key, x, y), bg, 30)) {
        cols.push(x)
        break
      }
    }
  }
  return cols
}

/** Runs of consecutive numbers: [[first, last], ...]. */
function runs(values: number[]): [number, number][] {
  const out: [number, number][] = []
  for (const v of values) {
    const last = out.at(-1)
    if (last && v === last[1] + 1) last[1] = v
    else out.push([v, v])
  }
  return out
}

const BLACK: Rgb = [0, 0, 0]
const WHITE: Rgb = [255, 255, 255]
const SIZE = { width: 96, height: 96 }

describe('KeyRenderer: value', () => {
  const renderer = new KeyRenderer({ cacheSize: 64 })

  it('draws a level bar along the bottom edge, filled from the left to the value', () => {
    const key = renderer.render({ color: '#000000', value: 0.5 }, SIZE)
    const bottom = 95
    // The fill is the text colour (white on black), the rest of the bar a visible track.
    expect(pixel(key, 2, bottom)).toEqual(WHITE)
    expect(pixel(key, 46, bottom)).toEqual(WHITE)
    const track = pixel(key, 50, bottom)
    expect(same(track, BLACK, 20) || same(track, WHITE, 20)).toBe(false)
    expect(pixel(key, 93, bottom)).toEqual(track)
    // The fill ends at half the width.
    let filled = 0
    while (filled < 96 && same(pixel(key, filled, bottom), WHITE)) filled++
    expect(filled).toBe(48)
    // The bar is a few pixels high, at the very bottom; the rest of the key is the background.
    const rows = inkRows(key, BLACK)
    expect(runs(rows)).toHaveLength(1)
    expect(rows.at(-1)).toBe(95)
    expect(rows.length).toBeGreaterThanOrEqual(3)
    expect(rows.length).toBeLessThanOrEqual(10)
  })

  it('shows 0 as an empty track and 1 as a full bar, and clamps values outside 0..1', () => {
    const empty = renderer.render({ color: '#000000', value: 0 }, SIZE)
    const track = pixel(empty, 2, 95)
    expect(same(track, BLACK, 20)).toBe(false)
    expect(pixel(empty, 93, 95)).toEqual(track)
    const full = renderer.render({ color: '#000000', value: 1 }, SIZE)
    expect(pixel(full, 2, 95)).toEqual(WHITE)
    expect(pixel(full, 95, 95)).toEqual(WHITE)
    expect(renderer.render({ color: '#000000', value: 7 }, SIZE).hash).toBe(full.hash)
    expect(renderer.render({ color: '#000000', value: -3 }, SIZE).hash).toBe(empty.hash)
  })

  it('ignores a value that is not a finite number', () => {
    const plain = renderer.render({ color: '#000000' }, SIZE)
    for (const value of [NaN, Infinity, -Infinity]) {
      expect(renderer.render({ color: '#000000', value }, SIZE).hash).toBe(plain.hash)
    }
  })

  it('uses the text colour for the fill, and caches values that give the same pixels as one', () => {
    const light = renderer.render({ color: '#ffffff', value: 1 }, SIZE)
    expect(pixel(light, 48, 95)).toEqual(BLACK)
    const green = renderer.render({ color: '#000000', textColor: '#00ff00', value: 1 }, SIZE)
    expect(pixel(green, 48, 95)).toEqual([0, 255, 0])
    const a = renderer.render({ color: '#000000', value: 0.5 }, SIZE)
    expect(renderer.render({ color: '#000000', value: 0.5001 }, SIZE)).toBe(a)
    expect(renderer.render({ color: '#000000', value: 0.6 }, SIZE).hash).not.toBe(a.hash)
  })

  it('draws over an image too, and sits above the failed bar', () => {
    const rgba = new Uint8Array(96 * 96 * 4)
    for (let i = 0; i < rgba.length; i += 4) rgba.set([0, 0, 255, 255], i)
    const image = renderer.render({ image: { width: 96, height: 96, rgba }, value: 1 }, SIZE)
    expect(pixel(image, 48, 40)).toEqual([0, 0, 255])
    expect(pixel(image, 48, 95)).toEqual(WHITE)

    const failed = renderer.render({ color: '#000000', value: 1, badge: 'failed' }, SIZE)
    const red = parseColor(BADGE_COLORS.failed)!
    expect(pixel(failed, 48, 95)).toEqual(red)
    // Above the red bar, the level bar shows whole.
    let y = 95
    while (same(pixel(failed, 48, y), red)) y--
    const fillRows = runs(inkRows(failed, BLACK, 0, 60).filter((r) => r <= y)).at(-1)!
    expect(fillRows[1]).toBe(y)
    expect(pixel(failed, 48, y)).toEqual(WHITE)
    expect(fillRows[1] - fillRows[0] + 1).toBeGreaterThanOrEqual(3)
  })
})

describe('KeyRenderer: detail', () => {
  const renderer = new KeyRenderer({ cacheSize: 64 })

  it('draws the detail as one small line near the bottom, below the label', () => {
    const plain = renderer.render({ color: '#000000', text: 'GO' }, SIZE)
    const key = renderer.render({ color: '#000000', text: 'GO', detail: '3 s' }, SIZE)
    const blocks = runs(inkRows(key, BLACK))
    expect(blocks).toHaveLength(2)
    const [label, detail] = blocks as [[number, number], [number, number]]
    // The detail is in the bottom third and smaller than the label.
    expect(detail[0]).toBeGreaterThan(64)
    expect(detail[1]).toBeLessThanOrEqual(94)
    expect(detail[1] - detail[0]).toBeLessThan(label[1] - label[0])
    // The label moved up to make room.
    const plainLabel = runs(inkRows(plain, BLACK))[0]!
    expect(label[0]).toBeLessThan(plainLabel[0])
    // Centred horizontally, in the text colour.
    const cols = inkColumns(key, BLACK, detail[0], detail[1])
    expect(Math.abs((cols[0]! + cols.at(-1)!) / 2 - 47.5)).toBeLessThan(3)
    let white = 0
    for (let y = detail[0]; y <= detail[1]; y++) for (const x of cols) if (same(pixel(key, x, y), WHITE)) white++
    expect(white).toBeGreaterThan(5)
  })

  it('shows a detail without a label, and keeps a long one on one line inside the key', () => {
    const alone = renderer.render({ color: '#000000', detail: 'timeout' }, SIZE)
    const rows = inkRows(alone, BLACK)
    expect(runs(rows)).toHaveLength(1)
    expect(rows[0]).toBeGreaterThan(64)

    const long = renderer.render(
      { color: '#000000', detail: 'the application refused the command: title not found\nsecond line' },
      SIZE,
    )
    const longRows = inkRows(long, BLACK)
    expect(runs(longRows)).toHaveLength(1)
    expect(longRows.length).toBeLessThan(20)
    const cols = inkColumns(long, BLACK, longRows[0]!, longRows.at(-1)!)
    expect(cols[0]).toBeGreaterThanOrEqual(1)
    expect(cols.at(-1)).toBeLessThanOrEqual(94)
  })

  it('sits above the level bar when both show, and the label above both', () => {
    const key = renderer.render({ color: '#000000', text: 'GO', detail: '2 s', value: 0.25 }, SIZE)
    const blocks = runs(inkRows(key, BLACK))
    expect(blocks).toHaveLength(3)
    expect(blocks[2]![1]).toBe(95) // the bar
    expect(pixel(key, 2, 95)).toEqual(WHITE)
    expect(blocks[1]![1]).toBeLessThan(blocks[2]![0]) // the detail, above it
  })

  it('draws nothing for an empty or blank detail, and caches by detail', () => {
    const plain = renderer.render({ color: '#000000', text: 'GO' }, SIZE)
    expect(renderer.render({ color: '#000000', text: 'GO', detail: '' }, SIZE).hash).toBe(plain.hash)
    expect(renderer.render({ color: '#000000', text: 'GO', detail: '  \n ' }, SIZE).hash).toBe(plain.hash)
    const a = renderer.render({ color: '#000000', text: 'GO', detail: '3 s' }, SIZE)
    expect(renderer.render({ color: '#000000', text: 'GO', detail: '3 s' }, SIZE)).toBe(a)
    expect(renderer.render({ color: '#000000', text: 'GO', detail: '2 s' }, SIZE).hash).not.toBe(a.hash)
  })
})
