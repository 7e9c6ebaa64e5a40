/**
 * The driver families of the mapping file, in one table: each family's record (one file in this folder,
 * see `common.ts`) gives its `surfaces:` entry and what that entry means. The mapping file's surface
 * union (`schema.ts`) and the dispatch in `../surfaces.ts` are built from it; a family added here (one
 * line) is known to the loader, the daemon, `devices` and `learn`. The order is the union's, which the
 * JSON Schema for editors keeps.
 */
import { z } from 'zod'
import { browserDeck } from './browser-deck.js'
import type { MappingFamily } from './common.js'
import { midi } from './midi.js'
import { replayEditor } from './replay-editor.js'
import { reportMap } from './report-map.js'
import { satellite, satelliteSection } from './satellite.js'
import { shuttle } from './shuttle.js'
import { streamdeck } from './streamdeck.js'
import { streamdeckNet } from './streamdeck-net.js'
import { web } from './web.js'
import { xkeys } from './xkeys.js'

export const MAPPING_FAMILIES = [
  streamdeck,
  streamdeckNet,
  browserDeck,
  shuttle,
  xkeys,
  replayEditor,
  web,
  midi,
  reportMap,
  satellite,
] as const

/**
 * The mapping file's top-level sections a family owns (its listener's: the Companion Satellite server),
 * joined to the file's schema (`schema.ts`) under these names.
 */
export const FAMILY_SECTIONS = {
  satellite: satelliteSection,
}

type Schemas<T extends readonly MappingFamily[]> = { -readonly [I in keyof T]: T[I]['schema'] }

/** The schemas of a tuple of families, as a tuple (so the union's type is the union of their entries). */
function schemasOf<const T extends readonly MappingFamily[]>(families: T): Schemas<T> {
  // Why the cast: `map` over a tuple gives an array; the elements are exactly the tuple's schemas.
  return families.map((f) => f.schema) as Schemas<T>
}

/** One `surfaces:` entry: whichever family its `driver` names. */
export const surfaceSchema = z.discriminatedUnion('driver', schemasOf(MAPPING_FAMILIES))

const BY_DRIVER: ReadonlyMap<string, MappingFamily> = new Map(
  MAPPING_FAMILIES.map((f): [string, MappingFamily] => [f.schema.shape.driver.value, f]),
)

/** The family of a driver name; undefined for a name the mapping file does not know (a test's driver). */
export function mappingFamily(driver: string): MappingFamily | undefined {
  return BY_DRIVER.get(driver)
}
