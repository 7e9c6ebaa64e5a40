/**
 * What the mapping file's `surfaces:` entries mean to the rest, asked of each entry's driver family
 * (`drivers/index.ts`): the controls each configured surface has (known before any device is opened, so
 * `check` can refuse `desk/key:40` on a 15-key deck), the claim each one makes on the surface manager,
 * what the drivers that read the file take from it, and the entry that would claim a detected device.
 */
import type { SurfaceClaim } from '../families/claims.js'
import { modelEntryFor, type MappingFamily, type SurfaceControls } from './drivers/common.js'
import { MAPPING_FAMILIES, mappingFamily } from './drivers/index.js'
import type { SurfaceConfig } from './schema.js'
import type { SurfaceDescription, DetectedDevice } from '../face/surface.js'

export type { SurfaceControls } from './drivers/common.js'
export { webSurfaceOptions } from './drivers/web.js'

/** Knows each driver's controls from the config alone. The daemon and `check` use the default one. */
export interface SurfaceCatalogue {
  controlsOf(name: string, surface: SurfaceConfig): Promise<SurfaceControls>
}

/** The family of a parsed entry: the schema's union admits only the drivers the table has. */
function familyOf(surface: SurfaceConfig): MappingFamily {
  const family = mappingFamily(surface.driver)
  if (!family) throw new Error(`no driver family named ${surface.driver}`)
  return family
}

export const defaultSurfaceCatalogue: SurfaceCatalogue = {
  async controlsOf(name, surface) {
    return familyOf(surface).controlsOf(name, surface)
  },
}

/** The claim a hardware surface makes on the manager; undefined for surfaces the daemon makes itself (web). */
export function claimOf(name: string, surface: SurfaceConfig): SurfaceClaim | undefined {
  return familyOf(surface).claimOf(name, surface)
}

/** The claims of a config's `surfaces:` (the daemon's, the loader's and `learn`'s), in the config's order. */
export function claimsOfConfig(surfaces: Readonly<Record<string, SurfaceConfig>>): SurfaceClaim[] {
  return Object.entries(surfaces).flatMap(([name, s]) => claimOf(name, s) ?? [])
}

/** The brightness a hardware entry asks for (its family's `brightnessOf`); undefined: none. */
export function brightnessOf(surface: SurfaceConfig): number | undefined {
  return familyOf(surface).brightnessOf?.(surface)
}

/** Whether the entry's driver takes options from it (a changed entry then reopens its surface). */
export function takesDriverOptions(surface: SurfaceConfig): boolean {
  return familyOf(surface).driverOptions !== undefined
}

/**
 * Each driver's options from the mapping file, by driver name: the input of the driver table's
 * `configureDrivers` (`src/surfaces/drivers.ts`), which ties each list to its family's own type.
 */
export type DriverEntries = Readonly<Record<string, readonly unknown[]>>

/**
 * What the drivers that read the mapping file take from a config's `surfaces:` (see `configureDrivers`),
 * by driver name, in the config's order (the first MIDI entry that names a port gives its options, as
 * the first claim takes it). Every such driver gets its list, empty when the config names none.
 */
export function driverConfigsOf(surfaces: Readonly<Record<string, SurfaceConfig>>): DriverEntries {
  const out: Record<string, unknown[]> = {}
  for (const family of MAPPING_FAMILIES) if (family.driverOptions) out[family.schema.shape.driver.value] = []
  for (const s of Object.values(surfaces)) {
    const options = familyOf(s).driverOptions?.(s)
    if (options !== undefined) out[s.driver]?.push(options)
  }
  // Each family's `driverOptions` is typed as its driver's `configure()` input (the two sides of one
  // family import the same type), and the lists are keyed by the same driver names.
  return out
}

/**
 * The `surfaces:` entry that would claim a detected device, as its family suggests it (a MIDI port by
 * its name, an X-keys panel with its unit id); by model, serial or `any` for any other driver.
 */
export function suggestedEntry(device: DetectedDevice): Record<string, unknown> {
  const family = mappingFamily(device.driver)
  return family?.entryFor ? family.entryFor(device) : modelEntryFor(device)
}

/** A configured hardware surface as shown while its device is away: its description from the entry alone. */
export interface AwayDescription {
  /** What it waits for (`Stream Deck XL`). */
  deviceName: string
  /** Under the configured name, the model as `deviceName`; controls known only when the entry names a model or profile. */
  description: SurfaceDescription
}

/**
 * The description of a configured hardware surface without its device (the page's greyed mirror): its
 * controls as `check` knows them (none when the entry does not say which model). Undefined for a
 * surface the daemon makes itself (web).
 */
export async function awayDescription(name: string, surface: SurfaceConfig): Promise<AwayDescription | undefined> {
  const family = familyOf(surface)
  if (!family.deviceName) return undefined
  const deviceName = await family.deviceName(surface)
  const known = await family.controlsOf(name, surface)
  const controls = 'controls' in known && known.controls ? [...known.controls] : []
  return { deviceName, description: { id: name, driver: surface.driver, model: deviceName, controls } }
}
