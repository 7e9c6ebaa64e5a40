/**
 * Generic HID through a report map: which bytes and bits of an input report are which control (a
 * foot pedal, a game controller, a home-built button box). The map is data, checked with zod; the
 * decoder turns each report into surface events and never throws: a report too short for a field
 * leaves that field alone.
 *
 * The map's schema and the controls it names are the family's data (`src/families/report-map.ts`).
 *
 * A field is one control:
 * - `button` (default for 1 bit): down when the bits become non-zero, up when they become zero;
 * - `absolute`: a value, normalised from [min, max] (default the field's range) to 0..1;
 * - `relative`: the field is a signed step count per report (a mouse-style wheel);
 * - `wrap`: the field is a counter that wraps (an endless wheel's position); steps are the shortest
 *   way from the previous report's value.
 * Fields up to 8 bits sit inside one byte (`bit` is the lowest bit); wider ones are 16, 24 or 32 bits
 * from a byte boundary, little or big endian.
 */
import { type ControlId } from '../../face/control-id.js'
import type { SurfaceEvent } from '../types.js'
import { MAX_REPORT_BYTES, type ReportMap } from '../../families/report-map.js'

export { MAX_REPORT_BYTES, reportMapSchema, type ReportMap } from '../../families/report-map.js'

type Field = ReportMap['fields'][number]

/** What a report changes, before the surface adds its name and time. */
export type DecodedEvent =
  | { type: 'down'; control: ControlId }
  | { type: 'up'; control: ControlId }
  | { type: 'value'; control: ControlId; value: number; raw: number }
  | { type: 'rotate'; control: ControlId; delta: number }

/** Reads a field's raw value; undefined when the report is too short for it. */
export function readField(bytes: Uint8Array, offset: number, f: Field): number | undefined {
  const start = offset + f.byte
  const width = Math.ceil(f.bits / 8)
  if (start + width > bytes.length) return undefined
  let raw: number
  if (f.bits <= 8) {
    raw = (bytes[start]! >> f.bit) & ((1 << f.bits) - 1)
  } else {
    raw = 0
    for (let i = 0; i < width; i++) {
      const b = bytes[f.endian === 'little' ? start + width - 1 - i : start + i]!
      // Why multiply, not shift: a 32-bit shift would turn the value negative.
      raw = raw * 256 + b
    }
  }
  if (f.signed && raw >= 2 ** (f.bits - 1)) raw -= 2 ** f.bits
  return raw
}

function modeOf(f: Field): NonNullable<Field['mode']> {
  return f.mode ?? (f.bits === 1 ? 'button' : 'absolute')
}

/** Control kinds whose values are centred, -1..1 (the table in `../types.ts`). */
const CENTRED_KINDS = new Set(['shuttle', 'pitchbend'])

/**
 * A raw value to 0..1, or to -1..1 for a centred control: then the centre is 0 for a signed field
 * without its own range (two's complement is one step longer below zero), else the middle of [min, max].
 */
function normalise(control: ControlId, raw: number, lo: number, hi: number, f: Field): number {
  const clamp = (v: number, min: number): number => Math.min(1, Math.max(min, v))
  if (!CENTRED_KINDS.has(control.split(':')[0]!)) return clamp((raw - lo) / (hi - lo), 0)
  const mid = f.signed && f.min === undefined && f.max === undefined ? 0 : (lo + hi) / 2
  if (raw === mid) return 0
  return raw > mid ? clamp((raw - mid) / (hi - mid), -1) : clamp(-(raw - mid) / (lo - mid), -1)
}

/** Decodes reports statefully: buttons and values report changes; a wrapping wheel its steps. */
export class ReportDecoder {
  private readonly previous = new Map<number, number>()

  constructor(private readonly map: ReportMap) {}

  decode(report: Uint8Array): DecodedEvent[] {
    if (report.length > MAX_REPORT_BYTES) return []
    let offset = 0
    if (this.map.report_id !== undefined) {
      if (report[0] !== this.map.report_id) return []
      offset = 1
    }
    const out: DecodedEvent[] = []
    for (const [i, f] of this.map.fields.entries()) {
      const raw = readField(report, offset, f)
      if (raw === undefined) continue
      const before = this.previous.get(i)
      this.previous.set(i, raw)
      const control = f.control
      switch (modeOf(f)) {
        case 'button':
          if ((before ?? 0) === 0 && raw !== 0) out.push({ type: 'down', control })
          else if (before !== undefined && before !== 0 && raw === 0) out.push({ type: 'up', control })
          break
        case 'absolute': {
          if (raw === before) break
          const lo = f.min ?? (f.signed ? -(2 ** (f.bits - 1)) : 0)
          const hi = f.max ?? (f.signed ? 2 ** (f.bits - 1) - 1 : 2 ** f.bits - 1)
          out.push({ type: 'value', control, value: normalise(control, raw, lo, hi, f), raw })
          break
        }
        case 'relative':
          if (raw !== 0) out.push({ type: 'rotate', control, delta: raw })
          break
        case 'wrap': {
          // The first report only tells where the counter stands.
          if (before === undefined) break
          const range = 2 ** f.bits
          let delta = (raw - before) % range
          if (delta > range / 2) delta -= range
          else if (delta < -range / 2) delta += range
          if (delta !== 0) out.push({ type: 'rotate', control, delta })
          break
        }
      }
    }
    return out
  }
}

/** Adds the surface's name and the time to decoded events. */
export function toSurfaceEvents(surface: string, events: DecodedEvent[], at: number): SurfaceEvent[] {
  return events.map((e) => ({ ...e, surface, at }))
}
