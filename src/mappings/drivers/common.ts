/**
 * What a driver family is, on the mapping side of the seam: one file per family under this folder
 * (`streamdeck.ts`, `midi.ts`, ...), listed once in `index.ts`. A family's record owns its `surfaces:`
 * entry in the mapping file (the zod schema fragment), the controls a configured surface has (known
 * before any device is opened, so `check` can refuse `desk/key:40` on a 15-key deck), the claim it makes
 * on the surface manager, what its driver takes from the entry, and the entry `devices` and `learn`
 * suggest for a detected device. The surface side of the same family is its record in
 * `src/surfaces/<family>/family.ts`.
 *
 * Also the pieces several families share: the claim keys of a hardware entry, model-table controls and
 * claims, and the suggested entry of a device found by its model.
 */
import { z } from 'zod'
import type { ClaimMatch, SurfaceClaim } from '../../families/claims.js'
import type { ModelTable } from '../../families/family.js'
import type { ControlDescriptor, DetectedDevice } from '../../face/surface.js'

/** The controls of a configured surface, or a problem with its options. */
export type SurfaceControls =
  | { controls: readonly ControlDescriptor[] }
  /** Known only once a device is open (a hardware surface whose config names no model). */
  | { controls: undefined }
  | { problem: string; path: readonly string[] }

/** A `surfaces:` entry's schema: a strict object whose `driver` is the family's name. */
export type SurfaceEntrySchema = z.ZodObject<{ driver: z.ZodLiteral<string> } & z.ZodRawShape, z.core.$strict>

/** An entry of the mapping file's `surfaces:` as a family's schema reads it. */
export type SurfaceEntry<S extends SurfaceEntrySchema> = z.output<S>

/**
 * One family's mapping side. `Options` is what its driver's `configure()` takes per entry (the surface
 * side's `DriverFamily` Entry), for the families whose driver reads more of the file than its claim.
 */
export interface MappingFamily<S extends SurfaceEntrySchema = SurfaceEntrySchema, Options = unknown> {
  /** The family's `surfaces:` entry; its `driver` literal is the family's name. */
  readonly schema: S
  /** The controls of a configured surface from its entry alone. */
  controlsOf(name: string, entry: SurfaceEntry<S>): Promise<SurfaceControls>
  /** The claim the entry makes on the surface manager; undefined for surfaces the daemon makes itself (web). */
  claimOf(name: string, entry: SurfaceEntry<S>): SurfaceClaim | undefined
  /** What the family's driver takes from the entry (see `configureDrivers`). */
  driverOptions?(entry: SurfaceEntry<S>): Options
  /** The entry `devices` and `learn` suggest for a detected device (default `modelEntryFor`). */
  entryFor?(device: DetectedDevice): Record<string, unknown>
  /**
   * What the entry's device is called while the surface waits for it (`Stream Deck XL`, `MIDI port
   * "APC mini"`): the page's "waiting for ..." and the remote API's reply. Hardware families only.
   */
  deviceName?(entry: SurfaceEntry<S>): Promise<string>
  /**
   * The brightness the entry asks for, 0..100 (undefined: none, the device keeps its own). The daemon
   * sends it when the surface opens and at once when a reload changes it (`daemon/brightness.ts`).
   */
  brightnessOf?(entry: SurfaceEntry<S>): number | undefined
}

/**
 * `rehearse:` of a hardware entry: while its device is not plugged in, its controls may still be pressed
 * through the remote API and the page (the daemon's `run --rehearse` does so for every surface).
 */
export const rehearseField = {
  rehearse: z
    .boolean()
    .optional()
    .describe(
      'true: while the device is not plugged in, its controls can still be pressed through the web page and the ' +
        'remote API, to rehearse a show (`run --rehearse` does so for every surface). Default false: such a press ' +
        'is refused, and the reply says the surface is waiting.',
    ),
}

/** `brightness:` of an entry whose surface sets its own (0 to 100); `description` says when it is sent. */
export function brightnessField(description: string): { brightness: z.ZodOptional<z.ZodInt> } {
  return { brightness: z.int().min(0).max(100).optional().describe(description) }
}

/** The claim keys of a hardware entry that is claimed by its model, serial or ids. */
export const claimFields = {
  serial: z.string().min(1).optional().describe('Claims the device with this serial number.'),
  vendor_id: z.int().min(0).max(0xffff).optional(),
  product_id: z.int().min(0).max(0xffff).optional(),
  any: z.boolean().optional().describe('Claims the first device of this driver that no other surface claims.'),
}

/** A hardware entry of a family with a model table, as its claim and controls read it. */
interface ModelEntry {
  driver: string
  model?: string | undefined
  serial?: string | undefined
  vendor_id?: number | undefined
  product_id?: number | undefined
  any?: boolean | undefined
}

/** The controls of a model the entry names (unknown without one); a problem for a model the table lacks. */
export async function modelControls(models: ModelTable, model: string | undefined): Promise<SurfaceControls> {
  if (model === undefined) return { controls: undefined }
  const controls = await models.controlsOf(model)
  if (!controls) {
    return { problem: `unknown ${models.label} model "${model}": one of ${models.ids.join(', ')}`, path: ['model'] }
  }
  return { controls }
}

/** A model's display name (`Stream Deck XL`); the family's label alone for an entry that names no model. */
export async function modelName(models: ModelTable, model: string | undefined): Promise<string> {
  if (model === undefined) return models.label
  return (await models.nameOf(model)) ?? `${models.label} ${model}`
}

/**
 * The claim of a hardware entry: every criterion it gives (`extra`: the family's own, such as a unit
 * id), else `any`: an entry that names nothing but its driver takes the first device of that driver.
 */
export function modelClaim(name: string, entry: ModelEntry, extra: ClaimMatch = {}): SurfaceClaim {
  const match: ClaimMatch = {}
  if (entry.serial !== undefined) match.serial = entry.serial
  if (entry.model !== undefined) match.model = entry.model
  if (entry.vendor_id !== undefined) match.vendorId = entry.vendor_id
  if (entry.product_id !== undefined) match.productId = entry.product_id
  Object.assign(match, extra)
  if (entry.any === true || Object.keys(match).length === 0) match.any = true
  return { name, driver: entry.driver, match }
}

/**
 * The entry that would claim a detected device: its model, its serial when it has one, else `any` when
 * nothing else tells it apart (`extra`: the family's own keys, such as an X-keys panel's unit id).
 */
export function modelEntryFor(device: DetectedDevice, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const entry: Record<string, unknown> = { driver: device.driver }
  if (device.modelId !== undefined) entry.model = device.modelId
  if (device.serial !== undefined && device.serial.trim() !== '') entry.serial = device.serial.trim()
  else if (device.modelId === undefined && Object.keys(extra).length === 0) entry.any = true
  return { ...entry, ...extra }
}
