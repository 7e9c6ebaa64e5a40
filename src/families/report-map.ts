/**
 * The report-map family (`driver: hid`), as data: the report map's schema (which bytes and bits of an
 * input report are which control; the decoder is `src/surfaces/report-map/report-map.ts`) and the
 * controls a map names, known without a device. It has no models, lights or udev entries of its own: a
 * report-map device is any HID device the mapping file names by its ids.
 */
import { z } from 'zod'
import { isControlId, parseControlId } from '../face/control-id.js'
import type { FamilyFacts } from './family.js'
import type { ControlDescriptor } from '../face/surface.js'

/** Longest input report read, bytes (a full-speed USB HID report is at most 64; high speed 1024). */
export const MAX_REPORT_BYTES = 1024
/** Most fields in one map. */
const MAX_REPORT_FIELDS = 256

const field = z
  .strictObject({
    control: z.string().refine(isControlId, 'not a control id (key:N, button:N, fader:N, jog, …)'),
    byte: z
      .int()
      .min(0)
      .max(MAX_REPORT_BYTES - 1)
      .describe('The byte the field starts at (after the report id, when the map has one).'),
    bit: z.int().min(0).max(7).default(0).describe('The lowest bit of a field of up to 8 bits.'),
    bits: z.int().min(1).max(32).default(1),
    signed: z.boolean().default(false).describe('Two’s complement.'),
    endian: z.enum(['little', 'big']).default('little'),
    mode: z
      .enum(['button', 'absolute', 'relative', 'wrap'])
      .optional()
      .describe('Default: button for 1 bit, else absolute.'),
    min: z.number().optional().describe('The raw value that is 0 (absolute).'),
    max: z.number().optional().describe('The raw value that is 1 (absolute).'),
  })
  .superRefine((f, ctx) => {
    if (f.bits <= 8 && f.bit + f.bits > 8) {
      ctx.addIssue({ code: 'custom', path: ['bits'], message: 'a field of up to 8 bits must fit in its byte' })
    }
    if (f.bits > 8 && (f.bit !== 0 || f.bits % 8 !== 0)) {
      ctx.addIssue({ code: 'custom', path: ['bits'], message: 'a wider field is 16, 24 or 32 bits from bit 0' })
    }
    if (f.byte + Math.ceil(f.bits / 8) > MAX_REPORT_BYTES) {
      ctx.addIssue({ code: 'custom', path: ['byte'], message: `the field runs past ${MAX_REPORT_BYTES} bytes` })
    }
    if (f.min !== undefined && f.max !== undefined && f.min === f.max) {
      ctx.addIssue({ code: 'custom', path: ['max'], message: 'min and max must differ' })
    }
  })

export const reportMapSchema = z
  .strictObject({
    report_id: z
      .int()
      .min(1)
      .max(255)
      .optional()
      .describe('Only reports with this id (their first byte) are read; byte 0 is then the byte after it.'),
    fields: z.array(field).min(1).max(MAX_REPORT_FIELDS),
  })
  .describe('Which bytes and bits of an input report are which control.')

export type ReportMap = z.output<typeof reportMapSchema>

/** One configured generic HID device. */
export interface ReportMapDeviceConfig {
  vendorId: number
  productId: number
  usagePage?: number
  /** Display name; default the product string. */
  name?: string
  map: ReportMap
}

/** The controls a report map names, once each. */
export function reportMapControls(map: ReportMap): ControlDescriptor[] {
  const seen = new Map<string, ControlDescriptor>()
  for (const f of map.fields) {
    if (!seen.has(f.control))
      seen.set(f.control, { id: f.control, kind: parseControlId(f.control).kind, capabilities: {} })
  }
  return [...seen.values()]
}

export const reportMapFacts: FamilyFacts = {}
