/**
 * What a hardware family *is*, as data: its models and their controls, where its controls sit on its
 * face, the USB devices its udev rules open (how its lights look, where that differs from the common
 * rules: `FAMILY_LIGHTS` in `index.ts`). One record per family, in
 * `src/families/<family>.ts`, listed once in `index.ts`. Nothing here opens a device or reads a file,
 * and nothing imports the drivers (`src/surfaces/<family>/`) or the mapping file's records
 * (`src/mappings/drivers/<family>.ts`): both import these, so the config loader knows each family's
 * controls without loading any driver.
 */
import type { DeviceFace } from '../face/device-face.js'
import type { ControlDescriptor, SurfaceDescription } from '../face/surface.js'

/** A family's models, known without a device: what a config may name and the controls of each. */
export interface ModelTable {
  /** How messages name the family's models: `unknown X-keys model "XK99"`. */
  readonly label: string
  /** The model ids a config may name (the device library's own ids). */
  readonly ids: readonly string[]
  /** The controls of a model by its id; undefined for an id the table lacks. */
  controlsOf(id: string): Promise<readonly ControlDescriptor[] | undefined>
  /** A model's display name by its id (`Stream Deck XL`), as the page names a surface still waiting for it. */
  nameOf(id: string): Promise<string | undefined>
}

/** Control tables a family knows without a device besides its models: MIDI's shipped device profiles. */
export interface ProfileTable {
  /** How headings name them: `MIDI` (`MIDI profiles`). */
  readonly label: string
  /** The key of a `surfaces:` entry that names one (`profile`). */
  readonly key: string
  /** Every one that lists controls: its id (as the entry names it), display name and controls. */
  list(): Promise<readonly { id: string; name: string; controls: readonly ControlDescriptor[] }[]>
}

/** One hardware family's facts (see the file's head); every member is optional. */
export interface FamilyFacts {
  /** The family's model table, where it has one. */
  readonly models?: ModelTable
  /**
   * Where one of the family's surfaces has each control on its face, for a page that draws it as the
   * device looks; undefined (a grid) where the family does not say.
   */
  face?(description: Pick<SurfaceDescription, 'model' | 'controls'>): DeviceFace | undefined
  /** The USB devices the udev rules must open for this family. */
  udev?(): readonly UdevEntry[]
}

/** One line of the udev rules: a vendor's devices, or some of its products. */
export interface UdevEntry {
  name: string
  vendorId: number
  /** Omitted: every product of the vendor. */
  productIds?: number[]
}
