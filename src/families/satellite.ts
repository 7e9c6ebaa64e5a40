/**
 * The Companion Satellite family, as data (issue 44): surfaces that a Companion Satellite program
 * (bitfocus/companion-satellite, on a Pi or another box) forwards to panelbridge over Satellite's line
 * protocol, panelbridge answering as the server. A device is known only once its client adds it: its
 * layout (controls in rows and columns, each with the bitmap size, colours and text it takes) comes in
 * the client's `ADD-DEVICE`, so the family has no model table; this file turns such a layout into our
 * controls (`satelliteControls`) and holds what the server takes from the mapping file's `satellite:`.
 *
 * Control ids, pinned: the controls that take a bitmap or colours are `key:N`, numbered from 0 row by
 * row, left to right, as the layout places them; the others (they take no bitmap: a rotary encoder) are
 * `encoder:N` in the same order.
 */
import type { FamilyFacts } from './family.js'
import type { ControlDescriptor } from '../face/surface.js'

/** The ports Satellite connects to unless told otherwise (Companion's own). */
export const satellitePorts = { tcp: 16622, ws: 16623 } as const

/** The mapping file's `satellite:` as the server takes it (off when absent). */
export interface SatelliteServerConfig {
  /** TCP port of the line protocol; 0 picks a free one. */
  port: number
  /** The WebSocket variant's port; none when absent. */
  ws_port?: number | undefined
  /** The address both bind to (loopback unless given). */
  host?: string | undefined
  /** Peer addresses or CIDR networks that may attach; absent: any peer that reaches the bound address. */
  allow?: readonly string[] | undefined
  /** Announce `_companion-satellite._tcp` over mDNS. */
  announce?: boolean | undefined
}

/** What one control of a client's layout takes, as its style says. */
export interface SatelliteControlStyle {
  /** Bitmap size in pixels, where the control takes a bitmap. */
  bitmap?: { w: number; h: number } | undefined
  /** Colours (background and text), as `#rrggbb` (`hex`) or `rgb(r,g,b)` (`rgb`). */
  colors?: 'hex' | 'rgb' | undefined
  /** The label text. */
  text?: boolean | undefined
  /** The font size beside the text. */
  textStyle?: boolean | undefined
}

/** One control of a client's layout: its own id (`0/3`, `enc1`), its place and its style. */
export interface SatelliteLayoutControl {
  /** The client's id: `CONTROLID` of a layout-manifest client, the key number of a grid client. */
  clientId: string
  row: number
  column: number
  style: SatelliteControlStyle
  /** A key whatever its style takes: every position of an older client's key grid. */
  key?: boolean
}

/** A control of a layout as a surface has it: our id, kind and capabilities beside the client's. */
export interface SatelliteControl extends SatelliteLayoutControl {
  id: string
  kind: 'key' | 'encoder'
}

/** Whether a control of this style is a key (it takes a bitmap or colours) rather than an encoder. */
export function isKeyStyle(style: SatelliteControlStyle): boolean {
  return style.bitmap !== undefined || style.colors !== undefined
}

/**
 * A layout's controls with our ids: keys and encoders each numbered from 0 in row order (row by row,
 * then left to right; two controls at one place keep the layout's order).
 */
export function satelliteControls(layout: readonly SatelliteLayoutControl[]): SatelliteControl[] {
  const ordered = layout
    .map((c, i) => ({ c, i }))
    .sort((a, b) => a.c.row - b.c.row || a.c.column - b.c.column || a.i - b.i)
  let keys = 0
  let encoders = 0
  return ordered.map(({ c }) =>
    (c.key ?? isKeyStyle(c.style))
      ? { ...c, id: `key:${keys++}`, kind: 'key' }
      : { ...c, id: `encoder:${encoders++}`, kind: 'encoder' },
  )
}

/** The descriptors of a layout's controls: image keys at their bitmap size, colour keys as RGB backlights. */
export function satelliteDescriptors(controls: readonly SatelliteControl[]): ControlDescriptor[] {
  return controls.map((c) => ({
    id: c.id,
    kind: c.kind,
    row: c.row,
    column: c.column,
    ...(c.clientId !== c.id ? { label: c.clientId } : {}),
    capabilities:
      c.kind === 'key' && c.style.bitmap
        ? { image: { width: c.style.bitmap.w, height: c.style.bitmap.h } }
        : c.kind === 'key' && c.style.colors
          ? { rgb: true }
          : {},
  }))
}

/** The grid that holds a layout (rows and columns up to its furthest control). */
export function satelliteGrid(controls: readonly SatelliteLayoutControl[]): { rows: number; columns: number } {
  let rows = 0
  let columns = 0
  for (const c of controls) {
    rows = Math.max(rows, c.row + 1)
    columns = Math.max(columns, c.column + 1)
  }
  return { rows, columns }
}

/** The family has no models (a device's layout is its client's word) and no USB devices of its own. */
export const satelliteFacts: FamilyFacts = {}
