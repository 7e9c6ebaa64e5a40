/**
 * A text's width as Skia's `measureText` gives it, worked out from the widths of its characters and of
 * its pairs of neighbours, without asking Skia again: the daemon's label fitting measures every new
 * word, and one `measureText` costs ~65 µs under a lock the canvas library shares between all threads
 * (its font collection), so two key workers measuring at once wait for each other. A cold Stream Deck
 * XL page of new labels measured one new word a key: 2 ms of its ~15 ms went to it.
 *
 * ASSUMED, from measuring the shipped font (DejaVu Sans Bold, 2048 units an em) at the reference size of
 * `refWidth` (64 px, so one font unit is 1/32 px) through `@napi-rs/canvas` 1.0:
 * - Skia shapes a text with HarfBuzz: each glyph's advance in font units, plus a kerning between
 *   neighbours, summed exactly; the width it answers is that sum rounded to 1/100 px in 32-bit floats
 *   (SkParagraph's `littleRound`). So a width read back times 32 and rounded gives the sum in units
 *   exactly (the rounding moves it by at most 0.16 units), and a pair's kerning is what the pair's
 *   units add to its two characters' units;
 * - kerning only reaches neighbours, so a text's units are its characters' units plus each neighbouring
 *   pair's kerning. The one exception found is the font's `ff` ligature (after it, `ff,` `fff` `ffi`
 *   differ): a text with `ff` is measured by Skia.
 * Held against Skia for every three characters of printable ASCII (with the space and `…`), 300,000
 * random texts of 4 to 8 of them, and generated labels (`test/surfaces/render/skia-widths.test.ts`). Each
 * thread checks it again on first use (`PROBE`, `CHECKS`: answering Skia's own width meanwhile) and
 * measures everything with Skia if anything differs, so a different font or Skia is not modelled wrongly.
 *
 * Only texts of characters in `MODELLED` are worked out; anything else (accents, other scripts, the
 * fallback fonts) is measured as before. The characters and pairs come from the same cache as the words
 * (key-paint.ts's `refWidth`), measured once each when first met: a text with more unknown pieces than
 * `LEARN_AT_MOST` is measured whole and learns one of them for the next, so a new word costs at most
 * two measurements more than before, and the pieces of a deck's labels are soon all known.
 */
import { REF_PX, type TextWidthModel } from '../../face/key-paint.js'

/** Printable ASCII, the space and the ellipsis the label fitting appends. */
const MODELLED = new Set<string>([
  ...Array.from({ length: 0x7e - 0x20 + 1 }, (_, i) => String.fromCharCode(0x20 + i)),
  '…',
])
/** The shipped font's units an em (DejaVu Sans Bold's `unitsPerEm`). */
const UNITS_PER_EM = 2048
/** Font units per pixel at the reference size: 32 at 64 px. */
const UNITS_PER_PX = UNITS_PER_EM / REF_PX
/** Farthest a width read back (rounded to 1/100 px) may sit from a whole number of units: 0.16 and float noise. */
const UNIT_SLACK = 0.2
/** Most unknown characters and pairs measured for one text; past it, the text is measured whole and learns one. */
const LEARN_AT_MOST = 2
/**
 * The self-check: a text the font kerns at every pair, then this many of the first texts worked out, each
 * also measured by Skia (and Skia's width answered); one difference and the model is off for the thread.
 */
const PROBE = 'AVATAR'
const CHECKS = 8

const f32 = Math.fround
/** Skia's answer for a sum of `units`: units to pixels, rounded to 1/100 px, in 32-bit floats. */
function skiaWidth(units: number): number {
  return f32(f32(Math.round(f32(f32(units / UNITS_PER_PX) * 100))) / 100)
}

/** A width read back as whole font units, or undefined when it is not one (not the modelled font or size). */
function unitsOf(width: number): number | undefined {
  const units = width * UNITS_PER_PX
  const whole = Math.round(units)
  return Math.abs(units - whole) <= UNIT_SLACK ? whole : undefined
}

let state: 'on' | 'off' = 'on'
let checksLeft = CHECKS
let probed = false
let worked = 0

/** Whether the model is in use in this thread (off once a self-check differed), and how many widths it gave. For tests. */
export function skiaWidthsState(): { state: typeof state; checksLeft: number; worked: number } {
  return { state, checksLeft, worked }
}

/** Starts the self-check again, model on (tests). */
export function resetSkiaWidths(): void {
  state = 'on'
  checksLeft = CHECKS
  probed = false
  worked = 0
}

/** The model's width of `chars` from the widths of its pieces, or undefined where it cannot say. */
function modelled(chars: string[], width: (s: string) => number): number | undefined {
  let units = 0
  const single: number[] = []
  for (const c of chars) {
    const u = unitsOf(width(c))
    if (u === undefined) return undefined
    single.push(u)
    units += u
  }
  for (let i = 1; i < chars.length; i++) {
    const pair = unitsOf(width(chars[i - 1]! + chars[i]!))
    if (pair === undefined) return undefined
    units += pair - single[i - 1]! - single[i]!
  }
  return skiaWidth(units)
}

/**
 * Skia's width of `text` at the reference size, worked out (see above), or undefined: measure it.
 * `width` measures (and caches) a piece of one or two characters, `known` says whether it is cached, and
 * `measure` asks Skia for a whole text (uncached).
 */
export const skiaTextWidths: TextWidthModel = (text, width, known, measure) => {
  if (state === 'off' || text.length < 3) return undefined
  const chars = [...text]
  if (chars.length < 3 || text.includes('ff')) return undefined
  for (const c of chars) if (!MODELLED.has(c)) return undefined
  const unknown = new Set<string>()
  for (let i = 0; i < chars.length; i++) {
    if (!known(chars[i]!)) unknown.add(chars[i]!)
    if (i > 0 && !known(chars[i - 1]! + chars[i]!)) unknown.add(chars[i - 1]! + chars[i]!)
  }
  if (unknown.size > LEARN_AT_MOST) {
    // Measured whole; one of its pieces learnt for the next text that has it.
    width(unknown.values().next().value!)
    return undefined
  }
  const answer = modelled(chars, width)
  if (checksLeft > 0) {
    if (!probed) {
      probed = true
      if (modelled([...PROBE], width) !== measure(PROBE)) state = 'off'
    }
    const real = measure(text)
    checksLeft--
    if (answer !== real) state = 'off'
    return real
  }
  if (answer !== undefined) worked++
  return answer
}
