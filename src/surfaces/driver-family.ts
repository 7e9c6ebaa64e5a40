/**
 * What a driver family is, on the surface side of the seam: one record per family (Stream Deck, Contour
 * Shuttle, X-keys, MIDI, report-map HID), listed once in `drivers.ts` under its driver name. The record
 * owns everything the rest of the program asks of a family: its driver (detection and opening), the
 * controls of its models, the mapping file's entries its driver takes, its own hot-plug source, how its
 * lights look on the web mirror and the udev rules its devices need. Nothing outside the family's folder
 * switches on its name or its classes.
 *
 * The mapping side of the same family (its YAML entry, claim and suggested entry) is one file under
 * `src/mappings/drivers/`.
 */
import type { DeviceFace } from '../face/device-face.js'
import type { HotplugSource } from './hotplug.js'
import type { LightChooser } from './lights.js'
import type { KeyRenderer } from './render/key-renderer.js'
import type { ControlDescriptor, DetectedDevice, SurfaceDescription, SurfaceDriver } from './types.js'
import type { ControlId, ControlKind } from '../face/control-id.js'
import type { UdevEntry } from './udev.js'
import type { PageDevicePort } from './web/page-devices.js'

/** What the program hands every family's driver alike. */
export interface SharedDriverOptions {
  /** Shared key renderer (and its cache). */
  renderer?: KeyRenderer
  /**
   * The daemon's drivers: a driver that learns its devices from the mapping file (MIDI) lists none, and
   * so never loads its system library, while the file names none. `devices` and `learn` list every one.
   */
  passive?: boolean
}

/** A driver and what it knows about a detected device without opening it. */
export interface HardwareDriver {
  driver: SurfaceDriver
  /**
   * The controls of a detected device, known from its model without opening it; undefined when only
   * an opened device can tell.
   */
  controlsOf(device: DetectedDevice): Promise<readonly ControlDescriptor[] | undefined>
}

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

/**
 * One driver family. `Options` are the seams of its driver (tests pass in-memory transports); `Entry` is
 * what its driver takes from each of the family's `surfaces:` entries of the mapping file, for the
 * families whose driver reads more of the file than its claims.
 */
export interface DriverFamily<Options = unknown, Entry = never> {
  /** Builds the family's driver; nothing is opened or loaded until it is used. */
  create(options: Options | undefined, shared: SharedDriverOptions): HardwareDriver
  /** The family's model table, where it has one. */
  readonly models?: ModelTable
  /** Its other control tables known without a device (`devices --model`, docs/controls.md). */
  readonly profiles?: ProfileTable
  /**
   * Hands a driver of this family the family's entries of the mapping file (at start and on every
   * reload). A driver of another class under the same name (a test's fake) is left alone.
   */
  configure?(driver: SurfaceDriver, entries: readonly Entry[]): void
  /** A hot-plug source of the driver's own (MIDI's port rescans), joined to USB's. */
  hotplug?(driver: SurfaceDriver): HotplugSource | undefined
  /**
   * How the lit controls of one of the family's surfaces look on the web mirror, where they differ from
   * the common rule (an RGB light shows its colour, an LED lights by `led` or a bright colour).
   */
  lights?(description: Pick<SurfaceDescription, 'model'>): LightChooser | undefined
  /**
   * Where one of the family's surfaces has each control on its face, for a page that draws it as the
   * device looks; undefined (a grid) where the family does not say.
   */
  face?(description: Pick<SurfaceDescription, 'model' | 'controls'>): DeviceFace | undefined
  /** The USB devices the udev rules must open for this family. */
  udev?(): readonly UdevEntry[]
  /** Bytes of encoded key images the family keeps cached for the whole process (`/metrics`). */
  cachedImageBytes?(): number
  /** Where the web page's own devices register (a deck the browser opened through WebHID), for its driver. */
  pageDevices?(driver: SurfaceDriver): PageDevicePort | undefined
  /** Devices the family holds inside the daemon that no claim may take yet (a page's deck), for `learn`. */
  unclaimedDevices?(driver: SurfaceDriver): UnclaimedDeviceSource | undefined
}

/** A control event of a device no surface has open, checked against its model (issue 26 item 2). */
export interface UnclaimedInput {
  control: ControlId
  kind: ControlKind
  type: 'down' | 'up' | 'rotate'
  delta?: number
}

/** Devices a family holds inside the daemon (registered by a page), listed and followed for `learn`. */
export interface UnclaimedDeviceSource {
  /** Every device it holds now, as detection lists them. */
  list(): DetectedDevice[]
  /** Calls `onChange` when one comes or goes; returns how to stop. */
  watch(onChange: () => void): () => void
  /** The input of a device no surface has open; returns how to stop. */
  watchInput(listener: (device: string, input: UnclaimedInput) => void): () => void
}

/** `controlsOf` for a family with a model table: a detected device's controls are its model's. */
export function modelControlsOf(models: ModelTable): HardwareDriver['controlsOf'] {
  return (device) => (device.modelId !== undefined ? models.controlsOf(device.modelId) : Promise.resolve(undefined))
}
