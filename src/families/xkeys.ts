/**
 * The X-keys family, as data: its models and its udev entry (how their backlights look: `xkeys-lights.ts`).
 *
 * The models, known without a device: the library's own product table (`@xkeys-lib/core`
 * `PRODUCTS`) mapped to control ids, so `check` refuses `key:30` on an XK-24 and `jog` on a model
 * without one.
 *
 * Control ids (see `types.ts`):
 * - `key:N`: a key of the matrix, N row-major from the top left (row × columns + column, from 0), as on
 *   every surface; the library's own key index (the panel's numbering, down the columns from 1) is kept
 *   inside the driver and is the control's `label` (`key 7`), which `learn` shows;
 * - `button:0`: the program switch (where the model has one); `button:1`.. the extra buttons;
 * - `jog`, `shuttle`, `tbar`: the first of each the model has;
 * - `joystick:x`, `joystick:y`, `joystick:z`: the axes of the model's (first) joystick.
 */
import { BackLightType, PRODUCTS, XKEYS_VENDOR_ID, type Product } from '@xkeys-lib/core'
import type { FamilyFacts, ModelTable } from './family.js'
import { JOYSTICK_AXES } from '../face/control-id.js'
import { controlId } from '../face/control-id.js'
import { formatControlId } from '../face/control-id.js'
import type { ControlCapabilities } from '../face/surface.js'
import type { ControlDescriptor } from '../face/surface.js'

/** One X-keys model as the config and the driver see it. */
export interface XkeysModel {
  /** The library's product key, as a config names it: `XK24`, `XK12JOG`, ... */
  id: string
  /** Display name, e.g. `XK-24`. */
  name: string
  vendorId: number
  /** Every product id (and its interface) the model answers to. */
  hidDevices: readonly (readonly [productId: number, iface: number])[]
  product: Product
  /** The key controls with the library's key index of each. */
  keys: readonly { id: string; index: number; row: number; column: number }[]
  /** Library button index → control id, for keys and buttons alike. */
  byIndex: ReadonlyMap<number, string>
  controls: readonly ControlDescriptor[]
}

/** Where the library places a key index: 1-based row and column (its `_findBtnLocation`). */
function location(p: Product, index: number): { row: number; col: number } {
  const fixed = p.btnLocation?.[index]
  if (fixed) return { row: fixed[0], col: fixed[1] }
  return { row: index - p.bBits * (Math.ceil(index / p.bBits) - 1), col: Math.ceil(index / p.bBits) }
}

function backlight(p: Product): ControlCapabilities {
  switch (p.backLightType) {
    case BackLightType.NONE:
      return {}
    case BackLightType.REMAP_24:
    case BackLightType.RGBx2:
      return { rgb: true }
    case BackLightType.LEGACY:
    case BackLightType.LINEAR:
    case BackLightType.STICK_BUTTONS:
      return { led: true }
  }
}

function toModel(id: string, p: Product): XkeysModel {
  const keys: { id: string; index: number; row: number; column: number }[] = []
  const byIndex = new Map<number, string>()
  const controls: ControlDescriptor[] = []
  const disabled = new Set(p.disableButtons ?? [])
  const taken = new Set<number>()
  const caps = backlight(p)
  for (let index = 1; index <= p.bBytes * p.bBits; index++) {
    if (disabled.has(index)) continue
    const { row, col } = location(p, index)
    // Why: some products list more bits than keys; a bit outside the grid is no key a person can press.
    if (row < 1 || col < 1 || row > p.rowCount || col > p.colCount) continue
    const n = (row - 1) * p.colCount + (col - 1)
    if (taken.has(n)) continue
    taken.add(n)
    keys.push({ id: controlId('key', n), index, row: row - 1, column: col - 1 })
  }
  keys.sort((a, b) => a.row - b.row || a.column - b.column)
  for (const k of keys) {
    byIndex.set(k.index, k.id)
    controls.push({ id: k.id, kind: 'key', row: k.row, column: k.column, label: `key ${k.index}`, capabilities: caps })
  }
  if (p.hasPS) {
    byIndex.set(0, 'button:0')
    controls.push({ id: 'button:0', kind: 'button', label: 'program switch', capabilities: {} })
  }
  const extraStart = p.bBytes * p.bBits + 1
  p.hasExtraButtons?.forEach((_b, i) => {
    const cid = controlId('button', i + 1)
    byIndex.set(extraStart + i, cid)
    controls.push({ id: cid, kind: 'button', capabilities: {} })
  })
  if (p.hasJog?.length) controls.push({ id: 'jog', kind: 'jog', capabilities: {} })
  if (p.hasShuttle?.length) controls.push({ id: 'shuttle', kind: 'shuttle', capabilities: {} })
  if (p.hasTbar?.length) controls.push({ id: 'tbar', kind: 'tbar', capabilities: {} })
  if (p.hasJoystick?.length) {
    for (const axis of JOYSTICK_AXES)
      controls.push({ id: formatControlId({ kind: 'joystick', axis }), kind: 'joystick', capabilities: {} })
  }
  return { id, name: p.name, vendorId: XKEYS_VENDOR_ID, hidDevices: p.hidDevices, product: p, keys, byIndex, controls }
}

/** Every model the library knows, in its own order. */
export const XKEYS_MODELS: readonly XkeysModel[] = Object.entries(PRODUCTS).map(([id, p]) => toModel(id, p))

/** The model ids a config may name. */
const XKEYS_MODEL_IDS: readonly string[] = XKEYS_MODELS.map((m) => m.id)

export function xkeysModelById(id: string): XkeysModel | undefined {
  return XKEYS_MODELS.find((m) => m.id === id)
}

/** The model of a product id; `iface` narrows where the OS reports one (-1 or undefined matches any). */
export function findXkeysModel(vendorId: number, productId: number, iface?: number): XkeysModel | undefined {
  if (vendorId !== XKEYS_VENDOR_ID) return undefined
  return XKEYS_MODELS.find((m) =>
    m.hidDevices.some(([pid, i]) => pid === productId && (iface === undefined || iface < 0 || i === iface)),
  )
}

/** The controls of a model by its id; undefined for an id the library lacks. */
export function xkeysModelControls(id: string): readonly ControlDescriptor[] | undefined {
  return xkeysModelById(id)?.controls
}

/** The X-keys model table (its family's `models`). */
export const xkeysModels: ModelTable = {
  label: 'X-keys',
  ids: XKEYS_MODEL_IDS,
  controlsOf: (id) => Promise.resolve(xkeysModelControls(id)),
  nameOf: (id) => Promise.resolve(xkeysModelById(id)?.name),
}

export const xkeysFacts: FamilyFacts = {
  models: xkeysModels,
  // By vendor: the library knows more product ids than any list here would.
  udev: () => [{ name: 'P.I. Engineering X-keys', vendorId: XKEYS_VENDOR_ID }],
}
