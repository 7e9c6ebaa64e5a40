/**
 * Which characters a font file has glyphs for, read from its `cmap` table: enough to tell whether a
 * label needs a fallback font, and whether any key font draws a character at all (`check`).
 *
 * Reads TrueType and OpenType files and the first font of a collection (`.ttc`), through positional
 * reads of the few tables it needs (never the whole file: the CJK collection is 20 MB). Reads only
 * Unicode subtables of format 4 (the Basic Multilingual Plane) and 12 (all planes). Everything read is
 * bounded: a file that is not a font, or a table that points outside the file, gives an error, never a
 * crash or an endless loop.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'

/** The largest cmap table read (the CJK collection's is about 0.6 MB). */
const MAX_CMAP_BYTES = 8 * 1024 * 1024
/** Tables in one font, and fonts in one collection, at most (real fonts have a few dozen tables). */
const MAX_TABLES = 512
/** Segments or groups in one subtable at most (a format 12 subtable of a pan-CJK font has ~ 20 000). */
const MAX_GROUPS = 200_000

/** The code points a font covers, as sorted, disjoint, inclusive ranges. */
export class GlyphCoverage {
  /** Pairs: start, end, start, end, … (sorted, disjoint, not adjacent). */
  private readonly ranges: Uint32Array

  constructor(ranges: readonly (readonly [number, number])[]) {
    const sorted = [...ranges].filter(([a, b]) => a <= b).sort((x, y) => x[0] - y[0])
    const merged: number[] = []
    for (const [a, b] of sorted) {
      const last = merged.length - 1
      if (last > 0 && a <= merged[last]! + 1) merged[last] = Math.max(merged[last]!, b)
      else merged.push(a, b)
    }
    this.ranges = Uint32Array.from(merged)
  }

  /** Whether the font has a glyph for `codePoint`. */
  has(codePoint: number): boolean {
    let lo = 0
    let hi = this.ranges.length / 2 - 1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (codePoint < this.ranges[mid * 2]!) hi = mid - 1
      else if (codePoint > this.ranges[mid * 2 + 1]!) lo = mid + 1
      else return true
    }
    return false
  }

  /** How many code points it covers. */
  get size(): number {
    let n = 0
    for (let i = 0; i < this.ranges.length; i += 2) n += this.ranges[i + 1]! - this.ranges[i]! + 1
    return n
  }
}

/** Positional reads of one open file, each checked against its size. */
class FontFile {
  readonly size: number
  constructor(private readonly fd: number) {
    this.size = fstatSync(fd).size
  }
  read(offset: number, length: number): Buffer {
    if (!(offset >= 0 && length >= 0 && offset + length <= this.size)) {
      throw new Error(`font file: ${length} bytes at ${offset} lie outside its ${this.size} bytes`)
    }
    const buf = Buffer.alloc(length)
    let done = 0
    while (done < length) {
      const n = readSync(this.fd, buf, done, length - done, offset + done)
      if (n === 0) throw new Error('font file: ended early')
      done += n
    }
    return buf
  }
}

/** Reads the coverage of a font file (the first font of a collection). Throws on a file that is not one. */
export function readGlyphCoverage(path: string): GlyphCoverage {
  const fd = openSync(path, 'r')
  try {
    return coverageOf(new FontFile(fd))
  } finally {
    closeSync(fd)
  }
}

function coverageOf(file: FontFile): GlyphCoverage {
  let fontOffset = 0
  if (file.read(0, 4).toString('latin1') === 'ttcf') {
    const head = file.read(0, 16)
    if (head.readUInt32BE(8) < 1) throw new Error('font collection: no fonts')
    fontOffset = head.readUInt32BE(12)
  }
  const cmap = findTable(file, fontOffset, 'cmap')
  if (!cmap) throw new Error('font file: no cmap table')
  if (cmap.length > MAX_CMAP_BYTES) throw new Error(`font file: cmap of ${cmap.length} bytes is too large`)
  return parseCmap(file.read(cmap.offset, cmap.length))
}

function findTable(file: FontFile, fontOffset: number, tag: string): { offset: number; length: number } | undefined {
  const numTables = file.read(fontOffset + 4, 2).readUInt16BE(0)
  if (numTables > MAX_TABLES) throw new Error(`font file: ${numTables} tables`)
  const dir = file.read(fontOffset + 12, numTables * 16)
  for (let i = 0; i < numTables; i++) {
    const rec = i * 16
    if (dir.toString('latin1', rec, rec + 4) === tag) {
      return { offset: dir.readUInt32BE(rec + 8), length: dir.readUInt32BE(rec + 12) }
    }
  }
  return undefined
}

/**
 * The best Unicode subtable's coverage: a format 12 one (every plane) before a format 4 one (the BMP).
 * Platform 0 is Unicode; platform 3 encodings 1 and 10 are Windows' Unicode BMP and full repertoire.
 */
function parseCmap(table: Buffer): GlyphCoverage {
  const count = u16(table, 2)
  if (count > MAX_TABLES) throw new Error(`cmap: ${count} subtables`)
  let best: { format: number; offset: number } | undefined
  for (let i = 0; i < count; i++) {
    const platform = u16(table, 4 + i * 8)
    const encoding = u16(table, 6 + i * 8)
    const offset = u32(table, 8 + i * 8)
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10))
    if (!unicode) continue
    const format = u16(table, offset)
    if (format === 12 && best?.format !== 12) best = { format, offset }
    else if (format === 4 && best === undefined) best = { format, offset }
  }
  if (!best) throw new Error('cmap: no Unicode subtable of format 4 or 12')
  return new GlyphCoverage(best.format === 12 ? format12(table, best.offset) : format4(table, best.offset))
}

function format12(t: Buffer, at: number): [number, number][] {
  const groups = u32(t, at + 12)
  if (groups > MAX_GROUPS) throw new Error(`cmap: ${groups} groups`)
  const out: [number, number][] = []
  for (let i = 0; i < groups; i++) {
    const g = at + 16 + i * 12
    // A group starting at glyph 0 maps its first code point to .notdef: no glyph for that one.
    const first = u32(t, g) + (u32(t, g + 8) === 0 ? 1 : 0)
    out.push([first, Math.min(u32(t, g + 4), 0x10ffff)])
  }
  return out
}

/**
 * Format 4: segments of BMP code points. A segment whose glyphs come from the glyph index array can
 * map single code points to 0 (no glyph); those are read one by one.
 */
function format4(t: Buffer, at: number): [number, number][] {
  const segX2 = u16(t, at + 6)
  const segs = segX2 / 2
  if (segs > MAX_GROUPS) throw new Error(`cmap: ${segs} segments`)
  const ends = at + 14
  const starts = ends + segX2 + 2
  const deltas = starts + segX2
  const rangeOffsets = deltas + segX2
  const out: [number, number][] = []
  // Valid segments are sorted and disjoint, so a font reads each BMP code point at most once; a file
  // whose segments overlap would otherwise read 32 767 × 65 536 of them.
  let budget = 0x10000
  for (let i = 0; i < segs; i++) {
    const end = u16(t, ends + i * 2)
    const start = u16(t, starts + i * 2)
    if (start > end || start === 0xffff) continue
    const delta = u16(t, deltas + i * 2)
    const ro = u16(t, rangeOffsets + i * 2)
    if (ro === 0) {
      // Glyph = (c + delta) mod 65536: the one code point of the segment it maps to glyph 0 has none.
      const zeroAt = (0x10000 - delta) & 0xffff
      if (zeroAt < start || zeroAt > end) out.push([start, end])
      else {
        if (zeroAt > start) out.push([start, zeroAt - 1])
        if (zeroAt < end) out.push([zeroAt + 1, end])
      }
      continue
    }
    budget -= end - start + 1
    if (budget < 0) throw new Error('cmap: format 4 segments overlap')
    for (let c = start; c <= end; c++) {
      const glyphAt = rangeOffsets + i * 2 + ro + (c - start) * 2
      if (glyphAt + 2 > t.length) break
      if (u16(t, glyphAt) !== 0) out.push([c, c])
    }
  }
  return out
}

function u16(t: Buffer, at: number): number {
  if (at < 0 || at + 2 > t.length) throw new Error('cmap: a field lies outside the table')
  return t.readUInt16BE(at)
}
function u32(t: Buffer, at: number): number {
  if (at < 0 || at + 4 > t.length) throw new Error('cmap: a field lies outside the table')
  return t.readUInt32BE(at)
}
