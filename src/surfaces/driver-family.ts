/**
 * What a driver family is, on the surface side of the seam: one record per family (Stream Deck, Contour
 * Shuttle, X-keys, MIDI, report-map HID), listed once in `drivers.ts` under its driver name. The record
 * owns what the program asks of a family's driver: creating it (detection and opening), the mapping
 * file's entries it takes, its own hot-plug source, its caches. What the family *is* (its models, light
 * rules, face, udev devices) is data in `src/families/<family>.ts`. Nothing outside the family's places
 * switches on its name or its classes.
 *
 * The mapping side of the same family (its YAML entry, claim and suggested entry) is one file under
 * `src/mappings/drivers/`.
 */
import type { ModelTable, ProfileTable } from '../families/family.js'
import type { HotplugSource } from './hotplug.js'
import type { KeyRenderer } from './render/key-renderer.js'
import type { SurfaceDriver } from './types.js'
import type { ControlId, ControlKind } from '../face/control-id.js'
import type { PageDevicePort } from './web/page-devices.js'
import type { ControlDescriptor, DetectedDevice } from '../face/surface.js'

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

/**
 * One driver family. `Options` are the seams of its driver (tests pass in-memory transports); `Entry` is
 * what its driver takes from each of the family's `surfaces:` entries of the mapping file, for the
 * families whose driver reads more of the file than its claims.
 */
export type { ModelTable, ProfileTable } from '../families/family.js'

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
  /** Bytes of encoded key images the family keeps cached for the whole process (`/metrics`). */
  cachedImageBytes?(): number
  /** Where the web page's own devices register (a deck the browser opened through WebHID), for its driver. */
  pageDevices?(driver: SurfaceDriver): PageDevicePort | undefined
  /** Devices the family holds inside the daemon that no claim may take yet (a page's deck), for `learn`. */
  unclaimedDevices?(driver: SurfaceDriver): UnclaimedDeviceSource | undefined
  /**
   * A listener of the family's own that the daemon runs, configured by a top-level section of the mapping
   * file (the Companion Satellite server, `satellite:`). A daemon whose driver list lacks such a family's
   * driver gets one (`withServiceDrivers`).
   */
  service?(driver: SurfaceDriver): FamilyService | undefined
}

/** A family's listener, as the daemon starts, moves and stops it (see `DriverFamily.service`). */
export interface FamilyService {
  /** The top-level section of the mapping file that configures it, and its name in `/api/status`. */
  readonly section: string
  /** Starts, moves or stops it as the section says (undefined: absent, stopped); rejects when it cannot bind. */
  apply(section: unknown): Promise<void>
  /** What `/api/status` shows under the section's name; undefined while it is stopped. */
  status(): FamilyServiceStatus | undefined
  /** Stops it. Idempotent. */
  close(): Promise<void>
}

/** A family listener's state for `/api/status`: its ports, clients and the devices they brought. */
export interface FamilyServiceStatus {
  port: number
  ws_port?: number
  clients: number
  devices: number
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
