/**
 * Configured hardware that is not plugged in: a surface of the mapping file (not a web one) whose device
 * is not open. The daemon keeps the show workable without it:
 *
 * - the page shows it as a greyed mirror "waiting for Stream Deck XL", with the feedback the engine gives
 *   it (controls known from the entry's model or profile, as `check` knows them; where those are not
 *   known before the device is open, a MIDI controller with the generic profile, the controls its
 *   bindings name);
 * - with `rehearse: true` on the entry (or `run --rehearse`), its controls can be pressed through the
 *   page and the remote API, so a show can be rehearsed before the hardware arrives; without it a press
 *   is refused, and the reply says the surface is waiting (`projection.ts`);
 * - `run` logs each waiting surface once (not again at every hot-plug scan or reload), and again only
 *   after its device was open in between.
 *
 * A surface whose device is there but cannot be opened (failed, permission denied) is not waiting: its
 * own status says why.
 */
import type { Logger } from '../log.js'
import type { Config, SurfaceConfig } from '../mappings/schema.js'
import { awayDescription, type AwayDescription } from '../mappings/surfaces.js'
import type { SurfaceManager, SurfaceStatus } from '../surfaces/manager.js'
import type { ClientMessage } from '../face/protocol.js'
import type { WebSurfaceServer } from '../surfaces/web/server.js'
import type { SurfaceEvent } from '../surfaces/types.js'
import { parseControlAddress } from '../face/control-id.js'
import type { InputDoor } from './input.js'
import type { ControlDescriptor } from '../face/surface.js'

/** A waiting surface as the remote API sees it. */
export interface WaitingSurface {
  /** What it waits for (`Stream Deck XL`). */
  deviceName: string
  /** Whether its controls take presses (`rehearse: true`, or `run --rehearse`). */
  rehearse: boolean
  /** Its controls, when the entry says which model (else any well-formed control id is taken). */
  controls: readonly ControlDescriptor[] | undefined
}

export interface WaitingOptions {
  manager: Pick<SurfaceManager, 'events' | 'isOpen' | 'statuses'>
  web: Pick<WebSurfaceServer, 'showWaiting' | 'removeWaiting'>
  /** Where rehearsal presses from the page enter, as a device's would. */
  door: Pick<InputDoor, 'enter'>
  /** `run --rehearse`: every waiting surface takes presses. */
  rehearseAll: boolean
  log: Logger
}

/** States in which a configured surface's device is there but cannot be used: not waiting. */
const PRESENT_STATES: ReadonlySet<string> = new Set(['open', 'failed', 'permission-denied'])

interface Configured {
  entry: SurfaceConfig
  away: AwayDescription
  /**
   * What the page draws: the away description, or for an entry whose controls are not known before its
   * device is open (a MIDI controller with the generic profile) the controls the bindings name on it, so
   * that they can be rehearsed from the page rather than showing an empty box.
   */
  page: AwayDescription['description']
}

/**
 * The controls the bindings name on `surface`, in the order first named (each once); a binding whose
 * address does not parse is left out (`check` reports it).
 */
export function boundControls(surface: string, config: Config): ControlDescriptor[] {
  const out = new Map<string, ControlDescriptor>()
  for (const b of config.bindings) {
    if (!b.on.startsWith(`${surface}/`)) continue
    let address: ReturnType<typeof parseControlAddress>
    try {
      address = parseControlAddress(b.on)
    } catch {
      continue
    }
    if (!out.has(address.control))
      out.set(address.control, { id: address.control, kind: address.parsed.kind, capabilities: {} })
  }
  return [...out.values()]
}

/** The description the page draws for a waiting surface (see `Configured.page`). */
function pageDescription(name: string, away: AwayDescription, config: Config): AwayDescription['description'] {
  if (away.description.controls.length > 0) return away.description
  return { ...away.description, controls: boundControls(name, config) }
}

export class WaitingSurfaces {
  /** The configured hardware surfaces, by name, with their description while away. */
  private configured = new Map<string, Configured>()
  /** What each waiting mirror on the page was last shown with, so that a repeated status redraws nothing. */
  private readonly shown = new Map<string, { c: Configured; rehearse: boolean }>()
  private readonly onStatus = (s: SurfaceStatus): void => this.refresh(s.name)

  constructor(private readonly o: WaitingOptions) {
    o.manager.events.on('status', this.onStatus)
  }

  /**
   * Takes a config's hardware surfaces (at start, before the manager scans, and on every reload): a
   * surface the config no longer has leaves the page; the rest are shown or left as their state says.
   */
  async apply(config: Config): Promise<void> {
    const next = new Map<string, Configured>()
    for (const [name, entry] of Object.entries(config.surfaces)) {
      const kept = this.configured.get(name)
      if (kept && JSON.stringify(kept.entry) === JSON.stringify(entry)) {
        const page = pageDescription(name, kept.away, config)
        const same = JSON.stringify(page.controls) === JSON.stringify(kept.page.controls)
        next.set(name, same ? kept : { ...kept, page })
        continue
      }
      const away = await awayDescription(name, entry)
      if (away) next.set(name, { entry, away, page: pageDescription(name, away, config) })
    }
    const gone = [...this.configured.keys()].filter((name) => !next.has(name))
    this.configured = next
    for (const name of gone) {
      this.shown.delete(name)
      this.o.web.removeWaiting(name)
      this.o.log.clear(logKey(name))
    }
    for (const name of next.keys()) this.refresh(name)
  }

  /** The surface when it is configured hardware waiting for its device; undefined otherwise. */
  stateOf(name: string): WaitingSurface | undefined {
    const c = this.configured.get(name)
    if (!c || !this.isWaiting(name)) return undefined
    return {
      deviceName: c.away.deviceName,
      rehearse: this.rehearses(c),
      controls: c.away.description.controls.length > 0 ? c.away.description.controls : undefined,
    }
  }

  /** Stops following the manager. */
  close(): void {
    this.o.manager.events.off('status', this.onStatus)
  }

  private isWaiting(name: string): boolean {
    if (this.o.manager.isOpen(name)) return false
    const status = this.o.manager.statuses().find((s) => s.name === name)
    return status === undefined || !PRESENT_STATES.has(status.state)
  }

  private rehearses(c: Configured): boolean {
    return this.o.rehearseAll || ('rehearse' in c.entry && c.entry.rehearse === true)
  }

  /** Shows or hides the surface's waiting mirror as its state is now; logs a new wait once. */
  private refresh(name: string): void {
    const c = this.configured.get(name)
    if (!c) return
    if (!this.isWaiting(name)) {
      this.shown.delete(name)
      this.o.web.removeWaiting(name)
      if (this.o.manager.isOpen(name)) this.o.log.clear(logKey(name))
      return
    }
    const rehearse = this.rehearses(c)
    const last = this.shown.get(name)
    if (last?.c === c && last.rehearse === rehearse) return
    this.shown.set(name, { c, rehearse })
    this.o.web.showWaiting({
      description: c.page,
      waitingFor: c.away.deviceName,
      ...(rehearse ? { rehearse: (m: ClientMessage) => this.rehearsal(name, m) } : {}),
    })
    this.o.log.once(logKey(name), 'warn', `surface ${name} is waiting for ${c.away.deviceName} (not plugged in)`, {
      surface: name,
      driver: c.entry.driver,
      rehearse,
    })
  }

  /** A press on the page's waiting mirror (checked by the page's server): into the door as a device's. */
  private rehearsal(name: string, m: ClientMessage): boolean {
    const base = { surface: name, control: m.control, at: performance.now() }
    let event: SurfaceEvent
    if (m.type === 'rotate') event = { ...base, type: 'rotate', delta: m.delta }
    else if (m.type === 'value') event = { ...base, type: 'value', value: m.value }
    else event = { ...base, type: m.type }
    this.o.door.enter(event, 'surface')
    return true
  }
}

function logKey(name: string): string {
  return `waiting:${name}`
}
