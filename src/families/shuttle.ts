/**
 * The Contour Shuttle family, as data: its models, their faces and its udev entries.
 *
 * The models, known without a device: the library's own product table
 * (`@shuttle-lib/core` `PRODUCTS`) mapped to control ids, so `check` refuses `button:20` on a
 * ShuttleXpress and the udev rules list every product id the library can open.
 *
 * Controls of every model: `button:N` (N = the library's button index, 0 = the first bit it lists),
 * `jog` (the endless inner wheel) and `shuttle` (the spring-loaded outer ring, -1..1, raw -7..7).
 *
 * Where each control sits on the face of a Contour Shuttle, which the page draws as the device looks
 * rather than as a grid (`FamilyFacts.face`, `../face/device-face.ts`): its jog wheel sits in the middle of the
 * shuttle ring with the buttons around them. The library (`@shuttle-lib/core`) gives each model's buttons
 * as bits, not where they are; `button:N` is its Nth button bit.
 *
 * ShuttlePro v2 (15 buttons), as the device is laid out: four buttons across the top (`button:0`..`3`,
 * left to right), five under them (`button:4`..`8`), the ring with the jog inside, one button either side
 * of the ring (`button:13` left, `button:14` right) and four at the bottom: `button:9` and `button:10` the
 * outer pair (left, right), `button:11` and `button:12` the inner pair, set higher. The ShuttlePro v1 (13
 * buttons) is the same without the two beside the ring. ASSUMED (not checked on hardware here): which bit
 * is which button follows other open-source drivers' tables for these models, and the ShuttleXpress's
 * five buttons are an arc over the ring, `button:0` leftmost.
 *
 * Positions and sizes are in the face's own units (`width` × `height`), each control's box given by its
 * centre and size here and sent to the page as its top-left corner and size.
 */
import { PRODUCTS, type Product, type ProductModelId } from '@shuttle-lib/core'
import { controlId, type ControlId } from '../face/control-id.js'
import type { Centred, DeviceFace, FaceSpot } from '../face/device-face.js'
import type { FamilyFacts, ModelTable } from './family.js'
import type { ControlDescriptor, SurfaceDescription } from '../face/surface.js'

/** One Contour model as the config and the driver see it. */
export interface ShuttleModel {
  /** The library's model id, as a config names it: `shuttlexpress`, `shuttlepro_v1`, `shuttlepro_v2`. */
  id: ProductModelId
  /** Display name, e.g. `ShuttlePro v2`. */
  name: string
  vendorId: number
  productId: number
  /** The USB interface the library opens. */
  interface: number
  buttons: number
}

function toModel(p: Product): ShuttleModel {
  return {
    id: p.productModelId,
    name: p.name,
    vendorId: p.vendorId,
    productId: p.productId,
    interface: p.interface,
    buttons: p.buttonBits.length,
  }
}

/** Every model the library knows, in its own order. */
export const SHUTTLE_MODELS: readonly ShuttleModel[] = Object.values(PRODUCTS).map(toModel)

/** The model ids a config may name. */
export const SHUTTLE_MODEL_IDS: readonly string[] = SHUTTLE_MODELS.map((m) => m.id)

/** The model with this id (`shuttlepro_v2`), or undefined. */
export function shuttleModelById(id: string): ShuttleModel | undefined {
  return SHUTTLE_MODELS.find((m) => (m.id as string) === id)
}

/**
 * The model of a vendor/product pair; `iface` narrows by USB interface where the OS reports one
 * (node-hid gives -1 on some platforms, which matches any).
 */
export function findShuttleModel(vendorId: number, productId: number, iface?: number): ShuttleModel | undefined {
  return SHUTTLE_MODELS.find(
    (m) =>
      m.vendorId === vendorId &&
      m.productId === productId &&
      (iface === undefined || iface < 0 || m.interface === iface),
  )
}

/** The controls of a model: its buttons (each with its place on the face), then the jog wheel and the shuttle ring. */
export function shuttleControls(model: ShuttleModel): ControlDescriptor[] {
  const controls: ControlDescriptor[] = []
  for (let i = 0; i < model.buttons; i++) {
    const place = shuttleButtonPlace(model.name, i)
    controls.push({ id: controlId('button', i), kind: 'button', ...(place ? { label: place } : {}), capabilities: {} })
  }
  controls.push({ id: 'jog', kind: 'jog', capabilities: {} })
  controls.push({ id: 'shuttle', kind: 'shuttle', capabilities: {} })
  return controls
}

/** The controls of a model by its id; undefined for an id the library lacks. */
export function shuttleModelControls(id: string): readonly ControlDescriptor[] | undefined {
  const model = shuttleModelById(id)
  return model && shuttleControls(model)
}

/** The Contour model table (its family's `models`). */
export const shuttleModels: ModelTable = {
  label: 'Contour Shuttle',
  ids: SHUTTLE_MODEL_IDS,
  controlsOf: (id) => Promise.resolve(shuttleModelControls(id)),
  nameOf: (id) => Promise.resolve(shuttleModelById(id)?.name),
}

/** A box by its centre and size, as its top left corner and size. */
function spot([cx, cy, w, h]: Centred): FaceSpot {
  return { x: cx - w / 2, y: cy - h / 2, w, h }
}

interface FaceTable {
  width: number
  height: number
  /** `button:N` by N. */
  buttons: readonly Centred[]
  /** Where `button:N` is, in words, by N (`learn`, `devices --model` and docs/controls.md show it). */
  places: readonly string[]
  jog: Centred
  shuttle: Centred
}

const BUTTON: readonly [number, number] = [13, 9]
const BOTTOM: readonly [number, number] = [16, 10]
const SIDE: readonly [number, number] = [10, 15]

/** The ShuttlePro's 13 buttons above and below the ring (v1 and v2 alike). */
const PRO_BUTTONS: readonly Centred[] = [
  // Top row, left to right, on a slight arc.
  [27, 15, ...BUTTON],
  [42.5, 13, ...BUTTON],
  [57.5, 13, ...BUTTON],
  [73, 15, ...BUTTON],
  // Second row.
  [15, 33, ...BUTTON],
  [32, 30, ...BUTTON],
  [50, 29, ...BUTTON],
  [68, 30, ...BUTTON],
  [85, 33, ...BUTTON],
  // Bottom: the outer pair (button:9 left, button:10 right), then the inner pair, higher.
  [22, 125, ...BOTTOM],
  [78, 125, ...BOTTOM],
  [40, 115, ...BOTTOM],
  [60, 115, ...BOTTOM],
]

const PRO_PLACES: readonly string[] = [
  ...[1, 2, 3, 4].map((n) => `top row, ${ordinal(n)} from left`),
  ...[1, 2, 3, 4, 5].map((n) => `second row, ${ordinal(n)} from left`),
  'bottom, outer left',
  'bottom, outer right',
  'bottom, inner left',
  'bottom, inner right',
]

function ordinal(n: number): string {
  return `${n}${n === 1 ? 'st' : n === 2 ? 'nd' : n === 3 ? 'rd' : 'th'}`
}

const PRO_RING = { jog: [50, 72, 28, 28], shuttle: [50, 72, 58, 58] } as const

const FACES: Readonly<Record<string, FaceTable>> = {
  'ShuttlePro v2': {
    width: 100,
    height: 140,
    // button:13 and button:14: either side of the ring.
    buttons: [...PRO_BUTTONS, [9, 84, ...SIDE], [91, 84, ...SIDE]],
    places: [...PRO_PLACES, 'left of the ring', 'right of the ring'],
    ...PRO_RING,
  },
  'ShuttlePro v1': { width: 100, height: 140, buttons: PRO_BUTTONS, places: PRO_PLACES, ...PRO_RING },
  ShuttleXpress: {
    width: 100,
    height: 108,
    buttons: [
      [12, 42, 14, 10],
      [27, 20, 14, 10],
      [50, 12, 14, 10],
      [73, 20, 14, 10],
      [88, 42, 14, 10],
    ],
    places: [1, 2, 3, 4, 5].map((n) => `${ordinal(n)} from left`),
    jog: [50, 70, 30, 30],
    shuttle: [50, 70, 62, 62],
  },
}

/**
 * The face of a Contour Shuttle (by its model's name: an open device's or a waiting one's), when every
 * control of the description has a place on it; undefined otherwise, and the page lays it out as a grid.
 */
export function shuttleFace(description: Pick<SurfaceDescription, 'model' | 'controls'>): DeviceFace | undefined {
  const table = FACES[description.model]
  if (!table) return undefined
  const spots = new Map<ControlId, FaceSpot>()
  table.buttons.forEach((b, i) => spots.set(`button:${i}`, spot(b)))
  spots.set('jog', spot(table.jog))
  spots.set('shuttle', spot(table.shuttle))
  if (description.controls.length === 0 || description.controls.some((c) => !spots.has(c.id))) return undefined
  return { width: table.width, height: table.height, spots }
}

/** Where a model's `button:N` sits on its face, in words (`top row, 2nd from left`); undefined where unknown. */
export function shuttleButtonPlace(modelName: string, n: number): string | undefined {
  return FACES[modelName]?.places[n]
}

export const shuttleFacts: FamilyFacts = {
  models: shuttleModels,
  face: shuttleFace,
  udev: () =>
    SHUTTLE_MODELS.map((m) => ({ name: `Contour ${m.name}`, vendorId: m.vendorId, productIds: [m.productId] })),
}
