/**
 * The driver families panelbridge has, in one table keyed by driver name (the `driver:` of the mapping
 * file). `panelbridge devices`, `learn`, `surfaces` and the daemon take their drivers from here: a family
 * added here (one line; its record in its own folder, see `driver-family.ts`) appears in all of them
 * with no other change. What each family is (models, lights, faces, udev entries) is data in
 * `src/families/`, which needs none of this table.
 *
 * Some drivers read the mapping file beyond its claims (MIDI: port names, profile, relative modes; the
 * report-map driver: ids and report maps): whoever builds the list hands them the config with
 * `configureDrivers`, and builds the manager's hot-plug source with `hardwareHotplug` (USB events and
 * each driver's own, such as MIDI's port rescans).
 */
import { browserDeckFamily } from './browser-deck/family.js'
import type {
  DriverFamily,
  FamilyService,
  HardwareDriver,
  SharedDriverOptions,
  UnclaimedDeviceSource,
} from './driver-family.js'
import { combineHotplugSources, usbHotplugSource, type HotplugSource } from './hotplug.js'
import { midiFamily } from './midi/family.js'
import { replayEditorFamily } from './replay-editor/family.js'
import { reportMapFamily } from './report-map/family.js'
import { satelliteFamily } from './satellite/family.js'
import { shuttleFamily } from './shuttle/family.js'
import { streamdeckFamily } from './streamdeck/family.js'
import { streamdeckNetFamily } from './streamdeck-net/family.js'
import type { SurfaceDriver } from './types.js'
import type { PageDevicePort } from './web/page-devices.js'
import { xkeysFamily } from './xkeys/family.js'
import type { ControlDescriptor } from '../face/surface.js'

export type { HardwareDriver } from './driver-family.js'

/** Every family, in the order `devices` lists them and the udev rules name them. */
const FAMILIES = {
  streamdeck: streamdeckFamily,
  'streamdeck-net': streamdeckNetFamily,
  'browser-deck': browserDeckFamily,
  shuttle: shuttleFamily,
  xkeys: xkeysFamily,
  'replay-editor': replayEditorFamily,
  midi: midiFamily,
  hid: reportMapFamily,
  satellite: satelliteFamily,
}

type Families = typeof FAMILIES
/** A driver name the table knows. */
export type DriverName = keyof Families
type OptionsOf<K extends DriverName> = Families[K] extends DriverFamily<infer O, infer _E> ? O : never
type EntryOf<K extends DriverName> = Families[K] extends DriverFamily<infer _O, infer E> ? E : never

/**
 * The table, typed so that a family's options and entries go with its name (the correlated-union
 * pattern: indexing with a generic key gives that key's own record).
 */
export const DRIVER_FAMILIES: { readonly [K in DriverName]: DriverFamily<OptionsOf<K>, EntryOf<K>> } = FAMILIES

/** The seams of each family's driver, by driver name. */
type FamilyOptions = { [K in DriverName]?: OptionsOf<K> }

/** The seams of each family's driver, by driver name, and what they share. */
export type HardwareDriverOptions = SharedDriverOptions & FamilyOptions

/** What the drivers that read the mapping file take from its `surfaces:` entries, by driver name. */
export type DriverSurfaceConfigs = { readonly [K in DriverName]?: readonly EntryOf<K>[] }

/** Makes the driver list (each call builds fresh drivers; nothing is opened or loaded until used). */
export type HardwareDriverFactory = (options?: HardwareDriverOptions) => HardwareDriver[]

/** Bytes of encoded key images every family keeps cached (`/metrics`'s key image cache gauge). */
export function cachedKeyImageBytes(): number {
  let bytes = 0
  for (const family of Object.values(DRIVER_FAMILIES) as DriverFamily<unknown, unknown>[])
    bytes += family.cachedImageBytes?.() ?? 0
  return bytes
}

/** Whether the table has a family of this name. */
export function isDriverName(name: string): name is DriverName {
  return Object.hasOwn(FAMILIES, name)
}

const DRIVER_NAMES = Object.keys(FAMILIES).filter(isDriverName)

/** Every hardware driver panelbridge has, one per family. */
export const hardwareDrivers: HardwareDriverFactory = (options = {}) => {
  const shared: SharedDriverOptions = { renderer: options.renderer, passive: options.passive }
  return DRIVER_NAMES.map((name) => create(name, options, shared))
}

function create<K extends DriverName>(name: K, options: FamilyOptions, shared: SharedDriverOptions): HardwareDriver {
  const family: DriverFamily<OptionsOf<K>, EntryOf<K>> = DRIVER_FAMILIES[name]
  return family.create(options[name], shared)
}

/**
 * Hands each driver that reads the mapping file its family's entries (at start and on every reload).
 * Surfaces open now keep their old options until they reopen.
 */
export function configureDrivers(drivers: readonly SurfaceDriver[], configs: DriverSurfaceConfigs): void {
  for (const driver of drivers) if (isDriverName(driver.name)) configure(driver.name, driver, configs)
}

function configure<K extends DriverName>(name: K, driver: SurfaceDriver, configs: DriverSurfaceConfigs): void {
  const family: DriverFamily<OptionsOf<K>, EntryOf<K>> = DRIVER_FAMILIES[name]
  const entries: readonly EntryOf<K>[] = configs[name] ?? []
  family.configure?.(driver, entries)
}

/**
 * The manager's hot-plug source for these drivers: USB hot-plug (default libusb's) joined with each
 * driver's own (MIDI's port rescans: MIDI ports come and go without USB events).
 */
export function hardwareHotplug(
  drivers: readonly SurfaceDriver[],
  usb: HotplugSource = usbHotplugSource(),
): HotplugSource {
  const own = drivers.flatMap((d) => (isDriverName(d.name) ? (DRIVER_FAMILIES[d.name].hotplug?.(d) ?? []) : []))
  return own.length === 0 ? usb : combineHotplugSources(usb, ...own)
}

/**
 * Where the web page's own devices register (a deck the browser opened through WebHID): the port of the
 * first driver whose family has one; undefined when no driver takes such devices (they are refused).
 */
export function pageDevicePort(drivers: readonly SurfaceDriver[]): PageDevicePort | undefined {
  for (const d of drivers) {
    const port = isDriverName(d.name) ? DRIVER_FAMILIES[d.name].pageDevices?.(d) : undefined
    if (port) return port
  }
  return undefined
}

/**
 * The driver list with a driver of every family that runs a service (`DriverFamily.service`) and has
 * none in it: a test's list of in-memory drivers still gets the Satellite server its config asks for.
 */
export function withServiceDrivers(
  drivers: readonly SurfaceDriver[],
  shared: SharedDriverOptions = {},
): SurfaceDriver[] {
  const out = [...drivers]
  for (const name of DRIVER_NAMES) {
    const family = DRIVER_FAMILIES[name] as DriverFamily<unknown, unknown>
    if (!family.service || out.some((d) => d.name === name)) continue
    out.push(family.create(undefined, shared).driver)
  }
  return out
}

/** The services of the drivers' families (the Satellite server), each once. */
export function familyServices(drivers: readonly SurfaceDriver[]): FamilyService[] {
  return drivers.flatMap((d) => {
    const service = isDriverName(d.name) ? DRIVER_FAMILIES[d.name].service?.(d) : undefined
    return service ? [service] : []
  })
}

/** The sources of devices the families hold inside the daemon that no claim takes yet (`learn`; issue 26 item 2). */
export function unclaimedDeviceSources(
  drivers: readonly SurfaceDriver[],
): { driver: string; source: UnclaimedDeviceSource }[] {
  return drivers.flatMap((d) => {
    const source = isDriverName(d.name) ? DRIVER_FAMILIES[d.name].unclaimedDevices?.(d) : undefined
    return source ? [{ driver: d.name, source }] : []
  })
}

/** `32 keys, 4 encoders, 4 lcd`: a control list counted by kind, in the order kinds first appear. */
export function countControls(controls: readonly ControlDescriptor[]): string {
  const counts = new Map<string, number>()
  for (const c of controls) counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1)
  const plural: Record<string, string> = {
    key: 'keys',
    encoder: 'encoders',
    button: 'buttons',
    fader: 'faders',
    joystick: 'joystick axes',
    note: 'notes',
    cc: 'ccs',
    program: 'programs',
  }
  return [...counts].map(([kind, n]) => `${n} ${n === 1 ? kind : (plural[kind] ?? kind)}`).join(', ')
}
