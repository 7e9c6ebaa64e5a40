/**
 * The control ids of every model panelbridge knows without a device: each driver family's model table
 * (`DRIVER_FAMILIES[...].models`: Stream Deck, its network dock and the page's WebHID deck, Contour
 * Shuttle, X-keys) and its other tables (`profiles`: MIDI's shipped device profiles). Read from there,
 * never copied: `panelbridge devices --model NAME` prints one model's table, and
 * `scripts/generate-controls-doc.ts` writes them all to docs/controls.md.
 */
import { DRIVER_FAMILIES } from '../surfaces/drivers.js'
import { nearest } from '../mappings/suggest.js'
import type { ControlDescriptor } from '../face/surface.js'

/** One model and its controls, as its family gives them. */
export interface ModelControls {
  /** The id a `surfaces:` entry names it by (`xl`, `shuttlepro_v2`, `XK24`; a MIDI profile's id). */
  id: string
  /** Its display name (`Stream Deck XL`). */
  name: string
  /** The family's own name for its tables (`Stream Deck`, `X-keys`, `MIDI profiles`), for headings. */
  family: string
  /** The drivers (`driver:` of a surface) that take it. */
  drivers: string[]
  /** The key of the entry that names it: `model`, or a family's own (`profile`). */
  key: string
  controls: readonly ControlDescriptor[]
}

/**
 * Every model of every family's table, then every family's other tables (MIDI's profiles). A model
 * that several families share with the same controls (a Stream Deck over USB, on a network dock, in a
 * browser) is listed once, with all its drivers, under the first family's name.
 */
export async function allModelControls(): Promise<ModelControls[]> {
  const out: ModelControls[] = []
  const add = (m: Omit<ModelControls, 'drivers'>, driver: string): void => {
    const same = out.find((x) => x.id === m.id && x.key === m.key && sameControls(x.controls, m.controls))
    if (same) same.drivers.push(driver)
    else out.push({ ...m, drivers: [driver] })
  }
  for (const [driver, family] of Object.entries(DRIVER_FAMILIES)) {
    const table = family.models
    if (table === undefined) continue
    for (const id of table.ids) {
      const controls = await table.controlsOf(id)
      const name = (await table.nameOf(id)) ?? id
      if (controls !== undefined) add({ id, name, family: table.label, key: 'model', controls }, driver)
    }
  }
  for (const [driver, family] of Object.entries(DRIVER_FAMILIES)) {
    const profiles = family.profiles
    if (profiles === undefined) continue
    for (const p of await profiles.list())
      add({ ...p, family: `${profiles.label} profiles`, key: profiles.key }, driver)
  }
  return out
}

const sameControls = (a: readonly ControlDescriptor[], b: readonly ControlDescriptor[]): boolean =>
  JSON.stringify(a) === JSON.stringify(b)

/** A name as compared: lower case, without spaces, dashes, dots or underscores (`Stream Deck XL` = `streamdeckxl`). */
const folded = (name: string): string => name.toLowerCase().replace(/[\s\-_.+()]/g, '')

/** The models named `name` (by id or display name, in any case), or the nearest name when none is. */
export function findModels(
  models: readonly ModelControls[],
  name: string,
): { found: ModelControls[] } | { found: []; nearest: string | undefined } {
  const want = folded(name)
  const found = models.filter((m) => m.id.toLowerCase() === name.toLowerCase() || folded(m.name) === want)
  if (found.length === 0) found.push(...models.filter((m) => folded(m.id) === want))
  if (found.length > 0) return { found }
  return {
    found: [],
    nearest: nearest(
      name,
      models.flatMap((m) => [m.id, m.name]),
    ),
  }
}

/** What a control shows: its key image's size, an LED, an RGB light, a ring. */
export function feedbackText(c: ControlDescriptor): string {
  const caps = c.capabilities
  const parts = [
    caps.image ? `image ${caps.image.width}×${caps.image.height}` : undefined,
    caps.rgb ? 'RGB light' : caps.led ? 'LED' : undefined,
    caps.ring ? 'LED ring' : undefined,
  ]
  return parts.filter((p) => p !== undefined).join(', ')
}

/** A model's heading line: its name, how a config names it and which drivers take it. */
export function modelTitle(m: ModelControls): string {
  return `${m.name} (${m.key}: ${m.id}; driver: ${m.drivers.join(', ')})`
}

/** Whether the model's controls sit in rows and columns the family gives (a key grid to draw). */
function gridOf(m: ModelControls): ControlDescriptor[][] | undefined {
  const placed = m.controls.filter((c) => c.row !== undefined && c.column !== undefined)
  if (placed.length === 0) return undefined
  const grid: ControlDescriptor[][] = []
  for (const c of placed) (grid[c.row!] ??= [])[c.column!] = c
  return grid
}

/** The layout as rows of cells (an empty string where no control sits), or undefined without one. */
export function layoutRows(m: ModelControls): string[][] | undefined {
  const grid = gridOf(m)
  if (!grid) return undefined
  const columns = Math.max(...grid.map((r) => (r ? r.length : 0)))
  return Array.from(grid, (row) => Array.from({ length: columns }, (_, i) => row?.[i]?.id ?? ''))
}

/** One line per control: id, kind, where it sits, the panel's own name for it, what it shows. */
export function controlRows(m: ModelControls): string[][] {
  return m.controls.map((c) => [
    c.id,
    c.kind,
    c.row !== undefined && c.column !== undefined ? `row ${c.row}, column ${c.column}` : '',
    c.label ?? '',
    feedbackText(c),
  ])
}

/** The rows without the columns that are blank in every row but the first (the heading). */
export function withoutBlankColumns(rows: readonly string[][]): string[][] {
  const keep = rows[0]!.map((_, i) => rows.slice(1).some((r) => r[i] !== ''))
  return rows.map((r) => r.filter((_, i) => keep[i]))
}

/** The heading of `controlRows`' columns. */
export const CONTROL_COLUMNS = ['id', 'kind', 'position', 'on the panel', 'shows']

/** What a model's controls show, by kind: `key: image 96×96`, one entry per kind and feedback. */
export function feedbackByKind(m: ModelControls): string[] {
  const seen = new Set<string>()
  for (const c of m.controls) {
    const shows = feedbackText(c)
    if (shows !== '') seen.add(`${c.kind}: ${shows}`)
  }
  return [...seen]
}

/** Said under a model some of whose controls have no position in the family's data. */
export const UNPLACED_HINT =
  'to find where a control without a position sits on the device, press it under panelbridge learn, which prints its id'

/** Columns padded to their widest cell, two spaces apart, trailing blanks cut. */
function columnsText(rows: readonly string[][], indent: string): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...r[i]!].length)))
  return rows.map((r) => `${indent}${r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`.trimEnd())
}

/** Widest line `devices --model` prints a layout in; a wider layout is left to the list. */
const LAYOUT_WIDTH = 100

/** The table `devices --model NAME` prints: the layout where it fits, then every control. */
export function modelControlsText(m: ModelControls): string[] {
  const lines = [`${modelTitle(m)}: ${m.controls.length} controls`]
  const layout = layoutRows(m)
  if (layout) {
    const drawn = columnsText(
      layout.map((r) => r.map((cell) => cell || '·')),
      '  ',
    )
    if (drawn.every((l) => l.length <= LAYOUT_WIDTH)) lines.push('', '  layout (as seen from the front):', ...drawn)
  }
  lines.push('', ...columnsText(withoutBlankColumns([CONTROL_COLUMNS, ...controlRows(m)]), '  '))
  if (m.controls.some((c) => c.row === undefined)) lines.push('', `  (${UNPLACED_HINT})`)
  return lines
}
