/**
 * The MIDI driver: every input port is a device (identity: the port's name); opening one finds its
 * output port (by the configured name, which may differ from the input's) and its profile.
 *
 * Hot-plug: MIDI ports come and go without USB events (virtual ports, network MIDI, a driver reload),
 * so the driver rescans the port lists every `MIDI_RESCAN_MS` while a surface is open or its hot-plug
 * source is started. An open surface whose port vanished fails (the manager closes it and retries); a
 * change in the lists is a hot-plug change, so the manager rescans and reopens a port that came back.
 */
import { createLogger, type Logger } from '../../log.js'
import type { HotplugChange, HotplugSource } from '../hotplug.js'
import type { SurfaceDriver } from '../types.js'
import { JulusianMidiBackend } from './julusian.js'
import { findPort, type MidiBackend, type MidiPortList } from './port.js'
import { DEFAULT_PROFILE, loadMidiProfile, type MidiProfile } from './profile.js'
import type { MidiSurfaceConfig } from '../../families/midi.js'
import { MidiSurface } from './surface.js'
import type { ControlDescriptor, DetectedDevice } from '../../face/surface.js'

/** How often the MIDI port lists are read, ms. */
export const MIDI_RESCAN_MS = 2000

export type { MidiSurfaceConfig } from '../../families/midi.js'

export interface MidiDriverOptions {
  /** Defaults to `@julusian/midi`. Tests pass an in-memory backend. */
  backend?: MidiBackend
  /** The configured MIDI surfaces; a port none of them names opens with the generic profile. */
  surfaces?: readonly MidiSurfaceConfig[]
  /** Where shipped profiles are looked up (default `config/midi-profiles`). */
  profileDir?: string
  rescanMs?: number
  /**
   * List no port (and so never load the MIDI system) while no MIDI surface is configured: the daemon
   * with a config without MIDI leaves ALSA alone. `devices` and `learn` list every port.
   */
  passive?: boolean
  logger?: Logger
}

export class MidiDriver implements SurfaceDriver {
  readonly name = 'midi'
  private readonly backend: MidiBackend
  private readonly log: Logger
  private readonly rescanMs: number
  private readonly profiles = new Map<string, Promise<MidiProfile>>()
  private readonly opened = new Set<{ surface: MidiSurface; input: string; output: string | undefined }>()
  private timer: NodeJS.Timeout | undefined
  private listener: ((change: HotplugChange) => void) | undefined
  private last: MidiPortList | undefined
  private ticking = false
  private surfaces: readonly MidiSurfaceConfig[]

  constructor(private readonly opts: MidiDriverOptions = {}) {
    this.log = opts.logger ?? createLogger('midi')
    this.backend = opts.backend ?? new JulusianMidiBackend({ logger: this.log })
    this.rescanMs = opts.rescanMs ?? MIDI_RESCAN_MS
    this.surfaces = opts.surfaces ?? []
  }

  /**
   * Replaces the configured MIDI surfaces (a reload). Surfaces open now keep their options until they
   * reopen (the manager closes those whose claim changed, the daemon those whose entry changed).
   * Profiles are read afresh at the next open.
   */
  configure(surfaces: readonly MidiSurfaceConfig[]): void {
    this.surfaces = surfaces
    this.profiles.clear()
  }

  /**
   * A hot-plug source for the manager: a change in the MIDI port lists. Combine it with the USB one
   * (`combineHotplugSources`). It answers "live", so the manager need not poll on MIDI's account.
   */
  readonly hotplug: HotplugSource = {
    start: async (listener) => {
      this.listener = listener
      this.last = this.idle ? undefined : await this.backend.list()
      this.watch()
      return true
    },
    stop: () => {
      this.listener = undefined
      this.watch()
    },
  }

  /** Passive with nothing configured: the port lists are not read. */
  private get idle(): boolean {
    return this.opts.passive === true && this.surfaces.length === 0
  }

  async detect(): Promise<DetectedDevice[]> {
    if (this.idle) return []
    const ports = await this.backend.list()
    return ports.inputs.map((input) => ({ driver: this.name, id: input, model: input, port: input }))
  }

  async open(device: DetectedDevice): Promise<MidiSurface> {
    const input = device.port ?? device.id
    const config = this.configOf(input)
    const profile = await this.profile(config?.profile ?? DEFAULT_PROFILE)
    const ports = await this.backend.list()
    const inputName = ports.inputs.includes(input) ? input : undefined
    if (!inputName) throw new Error(`MIDI input port ${JSON.stringify(input)} is not there`)
    const wantedOutput = config?.output ?? profile.data.output_port ?? config?.input ?? profile.data.port ?? input
    const outputName = findPort(ports.outputs, wantedOutput) ?? findPort(ports.outputs, input)
    if (outputName === undefined) {
      this.log.once(`no-output:${input}`, 'warn', 'MIDI output port not found: the controller gets no feedback', {
        input,
        output: wantedOutput,
      })
    } else this.log.clear(`no-output:${input}`)
    const connection = await this.backend.open({
      input: inputName,
      ...(outputName !== undefined ? { output: outputName } : {}),
      sysex: profile.data.sysex,
    })
    const surface = new MidiSurface(connection, profile, {
      id: input,
      ...(config?.relative ? { relative: config.relative } : {}),
      logger: this.log.child(input),
    })
    const entry = { surface, input: inputName, output: outputName }
    this.opened.add(entry)
    surface.events.once('closed', () => {
      this.opened.delete(entry)
      this.watch()
    })
    this.watch()
    return surface
  }

  /**
   * The controls of a detected port, known without opening it: those of the profile its configured
   * surface names; undefined for a profile that lists none (the generic one) or that does not load.
   */
  async controlsOf(device: DetectedDevice): Promise<ControlDescriptor[] | undefined> {
    const ref = this.configOf(device.port ?? device.id)?.profile ?? DEFAULT_PROFILE
    const profile = await this.profile(ref).catch(() => undefined)
    return profile && profile.controls.size > 0 ? profile.descriptors() : undefined
  }

  /** The configured surface that names this input port (the first, as the manager's claims do). */
  private configOf(input: string): MidiSurfaceConfig | undefined {
    return this.surfaces.find((c) => findPort([input], c.input) !== undefined)
  }

  private profile(ref: string): Promise<MidiProfile> {
    let p = this.profiles.get(ref)
    if (!p) {
      p = loadMidiProfile(ref, this.opts.profileDir)
      // A profile that failed to load is read again on the next open (the user may fix the file).
      p.catch(() => this.profiles.delete(ref))
      this.profiles.set(ref, p)
    }
    return p
  }

  /** Runs the rescan timer while anyone needs it. */
  private watch(): void {
    const needed = this.listener !== undefined || this.opened.size > 0
    if (needed && !this.timer) {
      this.timer = setInterval(() => void this.tick(), this.rescanMs)
      // The rescan must not keep the process alive on its own.
      this.timer.unref()
    } else if (!needed && this.timer) {
      clearInterval(this.timer)
      this.timer = undefined
    }
  }

  private async tick(): Promise<void> {
    if (this.ticking || (this.idle && this.opened.size === 0)) return
    this.ticking = true
    try {
      const ports = await this.backend.list()
      for (const entry of [...this.opened]) {
        const gone = !ports.inputs.includes(entry.input)
          ? entry.input
          : entry.output !== undefined && !ports.outputs.includes(entry.output)
            ? entry.output
            : undefined
        if (gone !== undefined) entry.surface.portGone(gone)
      }
      const before = this.last
      if (this.listener && (before === undefined || key(ports) !== key(before))) {
        this.last = ports
        const fewer = before !== undefined && count(ports) < count(before)
        this.listener(fewer ? 'detach' : 'attach')
      }
    } catch (err) {
      this.log.once('rescan', 'warn', 'MIDI port rescan failed; will try again', { error: err })
    } finally {
      this.ticking = false
    }
  }
}

function count(ports: MidiPortList): number {
  return ports.inputs.length + ports.outputs.length
}

function key(ports: MidiPortList): string {
  return JSON.stringify([[...ports.inputs].sort(), [...ports.outputs].sort()])
}
