/**
 * The Contour Shuttle models, known without a device: the library's own product table
 * (`@shuttle-lib/core` `PRODUCTS`) mapped to control ids, so `check` refuses `button:20` on a
 * ShuttleXpress and the udev rules list every product id the library can open.
 *
 * Controls of every model: `button:N` (N = the library's button index, 0 = the first bit it lists),
 * `jog` (the endless inner wheel) and `shuttle` (the spring-loaded outer ring, -1..1, raw -7..7).
 */
import { PRODUCTS, type Product, type ProductModelId } from '@shuttle-lib/core'
import { controlId } from '../../face/control-id.js'
import { shuttleButtonPlace } from './face.js'
import type { ModelTable } from '../driver-family.js'
import type { ControlDescriptor } from '../types.js'

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
