/**
 * The hardware drivers panelbridge has, in one place: `panelbridge devices`, `learn` and the daemon take
 * their driver list from here, so a new driver (MIDI, X-keys, Contour Shuttle) added to
 * `hardwareDrivers` appears in all of them with no other change.
 *
 * Two drivers read the mapping file beyond its claims (MIDI: port names, profile, relative modes; generic
 * HID: ids and report map): whoever builds the list hands them the config with `configureDrivers`, and
 * builds the manager's hot-plug source with `hardwareHotplug` (USB events and MIDI's port rescans).
 */
import { ReportMapDriver, type ReportMapDeviceConfig, type ReportMapDriverOptions } from './report-map/driver.js'
import { usbHotplugSource, type HotplugSource } from './hotplug.js'
import { MidiDriver, combineHotplugSources, type MidiDriverOptions, type MidiSurfaceConfig } from './midi/driver.js'
import { KeyRenderer } from './render/key-renderer.js'
import { ShuttleDriver, type ShuttleDriverOptions } from './shuttle/driver.js'
import { shuttleModelControls } from './shuttle/models.js'
import { StreamDeckDriver, type StreamDeckDriverOptions } from './streamdeck/driver.js'
import { streamDeckModelControls } from './streamdeck/models.js'
import { XkeysDriver, type XkeysDriverOptions } from './xkeys/driver.js'
import { xkeysModelControls } from './xkeys/models.js'
import type { ControlDescriptor, DetectedDevice, SurfaceDriver } from './types.js'

/** A driver and what it knows about a detected device without opening it. */
export interface HardwareDriver {
  driver: SurfaceDriver
  /**
   * The controls of a detected device, known from its model without opening it; undefined when only
   * an opened device can tell.
   */
  controlsOf(device: DetectedDevice): Promise<readonly ControlDescriptor[] | undefined>
}

export interface HardwareDriverOptions {
  /** Shared key renderer (and its cache). */
  renderer?: KeyRenderer
  /** Stream Deck seams (tests pass an in-memory transport). */
  streamdeck?: StreamDeckDriverOptions
  /** Contour Shuttle seams. */
  shuttle?: ShuttleDriverOptions
  /** X-keys seams. */
  xkeys?: XkeysDriverOptions
  /** MIDI seams (tests pass an in-memory backend) and options (`passive` in the daemon). */
  midi?: MidiDriverOptions
  /** Generic HID seams (tests pass an in-memory node-hid-shaped transport). */
  hid?: ReportMapDriverOptions
}

/** What the drivers that read the mapping file take from its `surfaces:` entries. */
export interface DriverSurfaceConfigs {
  midi: readonly MidiSurfaceConfig[]
  hid: readonly ReportMapDeviceConfig[]
}

/** Makes the driver list (each call builds fresh drivers; nothing is opened or loaded until used). */
export type HardwareDriverFactory = (options?: HardwareDriverOptions) => HardwareDriver[]

/** Every hardware driver panelbridge has. */
export const hardwareDrivers: HardwareDriverFactory = (options = {}) => {
  const renderer = options.renderer ?? options.streamdeck?.renderer ?? new KeyRenderer()
  return [
    {
      driver: new StreamDeckDriver({ ...options.streamdeck, renderer }),
      async controlsOf(device) {
        return device.modelId !== undefined ? await streamDeckModelControls(device.modelId) : undefined
      },
    },
    {
      driver: new ShuttleDriver(options.shuttle),
      controlsOf: (d) => Promise.resolve(d.modelId !== undefined ? shuttleModelControls(d.modelId) : undefined),
    },
    {
      driver: new XkeysDriver(options.xkeys),
      controlsOf: (d) => Promise.resolve(d.modelId !== undefined ? xkeysModelControls(d.modelId) : undefined),
    },
    midiEntry(new MidiDriver(options.midi)),
    hidEntry(new ReportMapDriver(options.hid)),
  ]
}

function midiEntry(driver: MidiDriver): HardwareDriver {
  return { driver, controlsOf: (d) => driver.controlsOf(d) }
}

function hidEntry(driver: ReportMapDriver): HardwareDriver {
  return { driver, controlsOf: (d) => driver.controlsOf(d) }
}

/**
 * Hands each driver that reads the mapping file its entries (at start and on every reload). Surfaces
 * open now keep their old options until they reopen.
 */
export function configureDrivers(drivers: readonly SurfaceDriver[], configs: DriverSurfaceConfigs): void {
  for (const driver of drivers) {
    if (driver instanceof MidiDriver) driver.configure(configs.midi)
    else if (driver instanceof ReportMapDriver) driver.configure(configs.hid)
  }
}

/**
 * The manager's hot-plug source for these drivers: USB hot-plug (default libusb's) and, for each MIDI
 * driver, its port rescans (MIDI ports come and go without USB events).
 */
export function hardwareHotplug(
  drivers: readonly SurfaceDriver[],
  usb: HotplugSource = usbHotplugSource(),
): HotplugSource {
  const midi = drivers.flatMap((d) => (d instanceof MidiDriver ? [d.hotplug] : []))
  return midi.length === 0 ? usb : combineHotplugSources(usb, ...midi)
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
