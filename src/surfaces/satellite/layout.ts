/**
 * A device's layout from its `ADD-DEVICE`: the surface manifest of a client from API 1.9 on
 * (`LAYOUT_MANIFEST`, base64 JSON: style presets and controls by id, each at a row and column), or the
 * key grid of an older one (`KEYS_TOTAL`, `KEYS_PER_ROW`, `BITMAPS`, `COLORS`, `TEXT`, `TEXT_STYLE`),
 * as Companion reads them. Bounded by SATELLITE_LIMITS; a layout it refuses gets the reason the client
 * is told.
 */
import { z } from 'zod'
import type { SatelliteControlStyle, SatelliteLayoutControl } from '../../families/satellite.js'
import { isFalsey, isTruthy, type SatelliteLimits, type SatelliteParams } from './protocol.js'

/** A grid client's defaults (Companion's LEGACY_MAX_BUTTONS and LEGACY_BUTTONS_PER_ROW): a Stream Deck XL's. */
const LEGACY_KEYS = 32
const LEGACY_PER_ROW = 8
/** The bitmap size a grid client that says only `BITMAPS=1` gets (Companion's). */
const LEGACY_BITMAP = 72

const size = z
  .strictObject({ w: z.number().int().min(0), h: z.number().int().min(0) })
  .partial()
  .required()
const style = z.looseObject({
  bitmap: size.optional(),
  text: z.boolean().optional(),
  textStyle: z.boolean().optional(),
  colors: z.enum(['hex', 'rgb']).optional(),
})
const manifestSchema = z.looseObject({
  stylePresets: z.looseObject({ default: style }).catchall(style),
  controls: z.record(
    z
      .string()
      .regex(/^[a-zA-Z0-9\-/]+$/)
      .max(64),
    z.looseObject({
      row: z.number().int().min(0).max(999),
      column: z.number().int().min(0).max(999),
      stylePreset: z.string().min(1).max(64).optional(),
    }),
  ),
})

export type ParsedLayout =
  { ok: true; fromManifest: boolean; controls: SatelliteLayoutControl[] } | { ok: false; message: string }

function styleOf(s: z.output<typeof style> | undefined): SatelliteControlStyle {
  if (!s) return {}
  return {
    ...(s.bitmap && s.bitmap.w > 0 && s.bitmap.h > 0 ? { bitmap: { w: s.bitmap.w, h: s.bitmap.h } } : {}),
    ...(s.colors ? { colors: s.colors } : {}),
    ...(s.text ? { text: true } : {}),
    ...(s.textStyle ? { textStyle: true } : {}),
  }
}

/** The layout an `ADD-DEVICE`'s parameters describe, within the limits. */
export function parseLayout(params: SatelliteParams, limits: SatelliteLimits): ParsedLayout {
  const controls =
    params.LAYOUT_MANIFEST !== undefined ? manifestLayout(params.LAYOUT_MANIFEST) : gridLayout(params, limits)
  if (!controls.ok) return controls
  if (controls.controls.length === 0) return { ok: false, message: 'The layout has no controls' }
  if (controls.controls.length > limits.controlsPerDevice)
    return { ok: false, message: `A device has at most ${limits.controlsPerDevice} controls` }
  for (const c of controls.controls) {
    const b = c.style.bitmap
    if (b && (b.w > limits.bitmapSide || b.h > limits.bitmapSide))
      return { ok: false, message: `A bitmap is at most ${limits.bitmapSide} pixels on a side` }
  }
  return controls
}

function manifestLayout(value: string | true): ParsedLayout {
  const invalid: ParsedLayout = { ok: false, message: 'Invalid LAYOUT_MANIFEST' }
  if (value === true) return invalid
  let json: unknown
  try {
    json = JSON.parse(Buffer.from(value, 'base64').toString('utf8'))
  } catch {
    return invalid
  }
  const parsed = manifestSchema.safeParse(json)
  if (!parsed.success) return invalid
  const { stylePresets, controls } = parsed.data
  const out: SatelliteLayoutControl[] = []
  for (const [clientId, c] of Object.entries(controls)) {
    const preset = c.stylePreset !== undefined && Object.hasOwn(stylePresets, c.stylePreset) ? c.stylePreset : 'default'
    out.push({ clientId, row: c.row, column: c.column, style: styleOf(stylePresets[preset]) })
  }
  return { ok: true, fromManifest: true, controls: out }
}

function gridLayout(params: SatelliteParams, limits: SatelliteLimits): ParsedLayout {
  const total = params.KEYS_TOTAL !== undefined ? Number(params.KEYS_TOTAL) : LEGACY_KEYS
  if (!Number.isInteger(total) || total <= 0) return { ok: false, message: 'Invalid KEYS_TOTAL' }
  const perRow = params.KEYS_PER_ROW !== undefined ? Number(params.KEYS_PER_ROW) : LEGACY_PER_ROW
  if (!Number.isInteger(perRow) || perRow <= 0 || perRow > 1000) return { ok: false, message: 'Invalid KEYS_PER_ROW' }
  // Bounded before any control is made: a grid of a million keys is refused, not built.
  if (total > limits.controlsPerDevice)
    return { ok: false, message: `A device has at most ${limits.controlsPerDevice} controls` }
  const keyStyle: SatelliteControlStyle = {}
  if (params.BITMAPS !== undefined && !isFalsey(params.BITMAPS)) {
    const n = Number(params.BITMAPS)
    const side = Number.isFinite(n) && n >= 5 ? Math.round(n) : LEGACY_BITMAP
    keyStyle.bitmap = { w: side, h: side }
  }
  const colors = params.COLORS
  if (colors === 'hex' || colors === 'rgb') keyStyle.colors = colors
  else if (isTruthy(colors)) keyStyle.colors = 'hex'
  if (isTruthy(params.TEXT)) keyStyle.text = true
  if (isTruthy(params.TEXT_STYLE)) keyStyle.textStyle = true
  // Every position of a grid is a key, whatever it takes (a grid says nothing of encoders).
  const controls: SatelliteLayoutControl[] = []
  for (let i = 0; i < total; i++)
    controls.push({ clientId: String(i), row: Math.floor(i / perRow), column: i % perRow, style: keyStyle, key: true })
  return { ok: true, fromManifest: false, controls }
}
