/**
 * The running daemon as the remote API sees it (`DaemonApi`): the status, a control's state, `inject`
 * (through the one input door), the recent errors, and the events `GET /api/events` streams. It reads
 * the daemon's parts and changes none of them; what it keeps of its own is what it reports (the
 * command counts, the recent errors, the followers of the events).
 */
import type { AppState } from '../api/app-state.js'
import { EventHub } from '../events.js'
import type { Engine } from '../mappings/engine.js'
import { replayStatus } from '../mappings/playhead.js'
import type { Config } from '../mappings/schema.js'
import { controlSends, ControlIdError, parseControlId, type ControlId } from '../face/control-id.js'
import type { SurfaceManager } from '../surfaces/manager.js'
import type { SurfaceEvent } from '../surfaces/types.js'
import type { FamilyServiceStatus } from '../surfaces/driver-family.js'
import type {
  AppStatus,
  CommandEvent,
  ConfigStateStatus,
  ControlState,
  DaemonApi,
  DaemonEvent,
  DaemonStatus,
  InjectKind,
  InjectRefusal,
  InjectRehearsal,
  RecentError,
  RecordingStatus,
  SurfaceStateEvent,
  UnclaimedDeviceEvent,
} from './api.js'
import type { InputDoor, InputSource } from './input.js'
import type { WaitingSurfaces } from './waiting.js'
import { PANELBRIDGE_VERSION } from '../version.js'

/** How many recent errors the status strip keeps. */
const RECENT_ERRORS = 20

/** panelbridge's version, read once and bounded by src/version.ts (the link announces the same). */
const VERSION = PANELBRIDGE_VERSION

export interface ProjectionOptions {
  /** The config file, as the status names it. */
  configFile: string
  manager: Pick<SurfaceManager, 'statuses' | 'list' | 'feedbackOf'>
  engine: Pick<Engine, 'pageOf' | 'controlView'>
  state: AppState
  door: InputDoor
  /** Configured hardware waiting for its device: whether a press on it is taken for rehearsal. */
  waiting?: Pick<WaitingSurfaces, 'stateOf'>
  /** The config running now, and whether the built-in simulator stands in for the application. */
  running(): { config: Config; simulated: boolean }
  /** Whether the file on disk runs, and when the running mapping was loaded (`ConfigReloader.status`). */
  configState?(): ConfigStateStatus
  /** The recording's state (`/api/status`'s `recording`). */
  recording?(): RecordingStatus
  /** The families' listeners (the Satellite server), each under its section's name (`/api/status`'s `satellite`). */
  services?(): Record<string, FamilyServiceStatus>
  /** Every application with its link (issue 27, `apps.ts`). */
  apps?(): AppStatus[]
  /** The devices no entry claims, for a new reader of the events (`unclaimed.ts`; issue 26 item 2). */
  unclaimed?(): UnclaimedDeviceEvent[]
}

export class DaemonProjection implements DaemonApi {
  /** Newest first; an entry with a key is the latest of its fault (`recordError`). */
  private readonly errors: (RecentError & { key?: string })[] = []
  private readonly counts = { sent: 0, failed: 0, own: { sent: 0, failed: 0 } }
  /** What `GET /api/events` streams (`watchEvents`). */
  private readonly watchers = new EventHub<{ event: [DaemonEvent] }>()

  constructor(private readonly o: ProjectionOptions) {
    o.door.observe((e, source) => this.publishInput(e, source))
  }

  // ---- what the daemon reports -------------------------------------------------------------------

  /** A command was sent; `outcome` is `ok` or its failure; `own`: the engine's own, counted apart. */
  countSend(outcome: string, own = false): void {
    const counts = own ? this.counts.own : this.counts
    counts.sent++
    if (outcome !== 'ok') counts.failed++
  }

  /**
   * A line for the status strip (newest first, RECENT_ERRORS kept). A fault that can clear gives a
   * `key` (`link`, `config`, `surface:NAME`): its new line replaces its older one (a flapping link
   * keeps one line, not twenty; the same fault still on keeps its first), and `clearError(key)` marks
   * it cleared.
   */
  recordError(message: string, key?: string): void {
    if (key !== undefined) {
      const i = this.errors.findIndex((e) => e.key === key)
      // The same fault still on (a link retrying) keeps its first line and time.
      if (i >= 0 && this.errors[i]!.cleared === undefined && this.errors[i]!.message === message) return
      if (i >= 0) this.errors.splice(i, 1)
    }
    this.errors.unshift({ time: new Date().toISOString(), message, ...(key !== undefined ? { key } : {}) })
    if (this.errors.length > RECENT_ERRORS) this.errors.length = RECENT_ERRORS
  }

  /** The fault recorded under `key` has cleared: its line says when (the page's strip then drops it). */
  clearError(key: string): void {
    const e = this.errors.find((x) => x.key === key)
    if (e && e.cleared === undefined) e.cleared = new Date().toISOString()
  }

  /** A command the bindings sent, and its outcome: to whoever follows `watchEvents`. */
  publishCommand(command: CommandEvent): void {
    if (this.watchers.listenerCount('event') === 0) return
    this.watchers.emit('event', { type: 'command', command })
  }

  /** A surface's state changed: to whoever follows `watchEvents`. */
  publishSurface(surface: SurfaceStateEvent): void {
    this.watchers.emit('event', { type: 'surface', surface })
  }

  /** Any other event (an unclaimed device and its presses): to whoever follows `watchEvents`. */
  publishEvent(event: DaemonEvent): void {
    if (this.watchers.listenerCount('event') === 0) return
    this.watchers.emit('event', event)
  }

  // ---- DaemonApi ---------------------------------------------------------------------------------

  status(): DaemonStatus {
    const { config, simulated } = this.o.running()
    const link = this.o.state.link
    return {
      version: VERSION,
      config: this.o.configFile,
      simulated,
      app: {
        state: link.status === 'connected' ? 'connected' : 'stale',
        since: new Date(link.since).toISOString(),
        ...(link.status === 'stale' && link.error !== undefined ? { error: link.error } : {}),
      },
      surfaces: this.surfaceStatuses(config),
      commands: { ...this.counts, own: { ...this.counts.own } },
      replay: replayStatus(this.o.state),
      ...(this.o.configState ? { configState: this.o.configState() } : {}),
      ...(this.o.apps ? { apps: this.o.apps() } : {}),
      ...(this.o.recording ? { recording: this.o.recording() } : {}),
      ...this.o.services?.(),
    }
  }

  controlState(surface: string, control: ControlId): ControlState | InjectRefusal {
    const found = this.findControl(surface, control)
    if ('status' in found) return found
    const view = this.o.engine.controlView(surface, control)
    const fb = view?.feedback ?? this.o.manager.feedbackOf(surface).get(control) ?? {}
    const out: ControlState = { surface, control, page: this.o.engine.pageOf(surface) ?? null }
    if (fb.text !== undefined) out.label = fb.text
    if (fb.color !== undefined) out.color = fb.color
    if (fb.textColor !== undefined) out.textColor = fb.textColor
    if (fb.badge !== undefined) out.badge = fb.badge
    if (fb.detail !== undefined) out.detail = fb.detail
    if (fb.value !== undefined) out.value = fb.value
    if (fb.led !== undefined) out.led = fb.led
    return out
  }

  /**
   * A press on a surface waiting for its device (configured hardware not plugged in) is taken only for
   * rehearsal (`rehearse: true`, `run --rehearse`), and the reply says so; else it is refused (409
   * `SURFACE_NOT_OPEN`, as for any surface that is not open) with a message that says it is waiting.
   */
  inject(
    surface: string,
    control: ControlId,
    kind: InjectKind,
    arg?: number,
  ): InjectRefusal | InjectRehearsal | undefined {
    const found = this.findControl(surface, control)
    if ('status' in found) return found
    const waiting = found.open ? undefined : this.o.waiting?.stateOf(surface)
    if (!found.open && !waiting?.rehearse) return notOpen(surface, waiting?.deviceName)
    if (!controlSends(found.kind, kind === 'press' ? 'down' : kind)) {
      return { status: 409, code: 'EVENT_NOT_TAKEN', message: `${surface}/${control} does not take ${kind}` }
    }
    this.o.door.inject(surface, control, kind, arg)
    return waiting ? { rehearsal: true, waitingFor: waiting.deviceName } : undefined
  }

  recentErrors(): RecentError[] {
    return this.errors.map(({ key: _key, ...e }) => e)
  }

  watchEvents(listener: (event: DaemonEvent) => void): () => void {
    for (const s of this.o.manager.statuses()) {
      if (s.state !== 'closed') listener({ type: 'surface', surface: s })
    }
    for (const unclaimed of this.o.unclaimed?.() ?? []) listener({ type: 'unclaimed', unclaimed })
    this.watchers.on('event', listener)
    return () => void this.watchers.off('event', listener)
  }

  // ---- the parts -----------------------------------------------------------------------------------

  /** Every surface: the manager's statuses (a closed configured one is `waiting`), then open ones it has none of. */
  private surfaceStatuses(config: Config): DaemonStatus['surfaces'] {
    const surfaces: DaemonStatus['surfaces'] = []
    const seen = new Set<string>()
    for (const s of this.o.manager.statuses()) {
      seen.add(s.name)
      if (!Object.hasOwn(config.surfaces, s.name) && config.surfaces !== undefined) {
        if (s.state === 'closed') continue
      }
      const state = s.state === 'closed' ? 'waiting' : s.state
      const page = this.o.engine.pageOf(s.name)
      surfaces.push({
        name: s.name,
        driver: s.driver,
        state,
        ...(s.model !== undefined ? { model: s.model } : {}),
        ...(s.device !== undefined && s.device !== s.name ? { device: s.device } : {}),
        ...(page !== undefined ? { page } : {}),
      })
    }
    for (const d of this.o.manager.list()) {
      if (seen.has(d.id)) continue
      const page = this.o.engine.pageOf(d.id)
      surfaces.push({
        name: d.id,
        driver: d.driver,
        state: 'open',
        model: d.model,
        ...(page !== undefined ? { page } : {}),
      })
    }
    return surfaces
  }

  /** An input event to whoever follows `watchEvents`, with the device and driver behind its surface. */
  private publishInput(e: SurfaceEvent, source: InputSource): void {
    if (this.watchers.listenerCount('event') === 0) return
    const d = this.o.manager.list().find((x) => x.id === e.surface)
    const descriptor = d?.controls.find((c) => c.id === e.control)
    let kind = descriptor?.kind
    try {
      kind ??= parseControlId(e.control).kind
    } catch {
      return // not a canonical id: no driver sends one, and the engine ignores it too
    }
    this.watchers.emit('event', {
      type: 'input',
      input: {
        surface: e.surface,
        driver: d?.driver ?? 'unknown',
        ...(d?.device !== undefined ? { device: d.device } : {}),
        control: e.control,
        kind,
        ...(descriptor?.label !== undefined ? { label: descriptor.label } : {}),
        type: e.type,
        ...(e.type === 'down' && e.velocity !== undefined ? { velocity: e.velocity } : {}),
        ...(e.type === 'rotate' ? { delta: e.delta } : {}),
        ...(e.type === 'value' ? { value: e.value, ...(e.raw !== undefined ? { raw: e.raw } : {}) } : {}),
        ...(source === 'api' ? { injected: true as const } : {}),
      },
    })
  }

  /** The surface's description when it is open; else the configured surface; else 404. */
  private findControl(
    surface: string,
    control: ControlId,
  ): { open: boolean; kind: ReturnType<typeof parseControlId>['kind'] } | InjectRefusal {
    const open = this.o.manager.list().find((d) => d.id === surface)
    const configured = Object.hasOwn(this.o.running().config.surfaces, surface)
    if (!open && !configured) return { status: 404, code: 'UNKNOWN_SURFACE', message: `no surface named ${surface}` }
    if (open) {
      const c = open.controls.find((x) => x.id === control)
      if (!c) return { status: 404, code: 'UNKNOWN_CONTROL', message: `${surface} has no control ${control}` }
      return { open: true, kind: c.kind }
    }
    // A waiting surface whose model the config names has that model's controls, and no others.
    const known = this.o.waiting?.stateOf(surface)?.controls
    if (known) {
      const c = known.find((x) => x.id === control)
      if (!c) return { status: 404, code: 'UNKNOWN_CONTROL', message: `${surface} has no control ${control}` }
      return { open: false, kind: c.kind }
    }
    try {
      return { open: false, kind: parseControlId(control).kind }
    } catch (err) {
      return {
        status: 404,
        code: 'UNKNOWN_CONTROL',
        message: err instanceof ControlIdError ? err.message : String(err),
      }
    }
  }
}

/** The refusal of a press on a surface that is not open; one waiting for its device says so, and how to rehearse. */
function notOpen(surface: string, waitingFor: string | undefined): InjectRefusal {
  const message =
    waitingFor === undefined
      ? `surface ${surface} is not open`
      : `surface ${surface} is waiting for ${waitingFor} (not plugged in); set rehearse: true on it, ` +
        'or run --rehearse, to press its controls for rehearsal'
  return { status: 409, code: 'SURFACE_NOT_OPEN', message }
}
