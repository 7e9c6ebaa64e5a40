/**
 * The daemon's Prometheus metrics (`GET /metrics`), through prom-client.
 *
 * Each `PrometheusMetrics` has a registry of its own, never prom-client's global one, so two daemons
 * in one process (tests, a reload that rebuilds the daemon) do not collide. Names follow Prometheus
 * conventions: durations in seconds, counters ending in `_total`.
 *
 * Label values are bounded. Command names come from the config and the catalogue, error codes from
 * the application's replies (which a broken or hostile application chooses): past METRIC_LABELS.maxCommands
 * distinct commands, or METRIC_LABELS.maxErrorCodes distinct codes, the rest count under `other`. A
 * command's outcome is only `ok` or `error`; which error is counted once, by code, in
 * `panelbridge_command_errors_total`, so commands × codes never multiply into series.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { cachedKeyImageBytes } from '../surfaces/drivers.js'
import type { DaemonMetrics } from './api.js'
import { AppMetrics } from './app-metrics.js'

/** Caps on label values. */
export const METRIC_LABELS = {
  /** Distinct `command` label values kept; later commands count as `other`. */
  maxCommands: 200,
  /** Distinct `code` label values kept; later codes count as `other`. */
  maxErrorCodes: 50,
  /** The label value that stands for everything past a cap. */
  other: 'other',
} as const

/** Prefix of every metric the daemon exports (the default process metrics included). */
const METRIC_PREFIX = 'panelbridge_'

/**
 * Every state a surface can be in (the manager's `SurfaceState`): `panelbridge_surfaces{state}` exports
 * each, so an alert on `state="permission-denied"` needs no absent-series rule.
 */
export const SURFACE_STATES = ['open', 'closed', 'failed', 'permission-denied', 'waiting'] as const

/** Every state of the recording (`panelbridge_recording{state}` exports each). */
const RECORDING_STATES = ['off', 'recording', 'failed'] as const

/** Buckets, seconds, for the in-process latencies (event → request, notification → feedback). */
const LOCAL_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1]
/** Buckets, seconds, for the stages of a press (`panelbridge_press_stage_seconds`). */
const STAGE_BUCKETS = [0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2]
/**
 * A press's way to its light, as the rooms that own each step report it (`DaemonMetrics.pressStep`): the
 * command sent (from the input reaching the engine), then the application heard on the notification link
 * (from the command sent), its news applied to the state (a notification read, or a re-read of the
 * titles), the new look handed to the surfaces (the face drawn), the face written to a browser's socket.
 * `reply` (command sent → its reply) runs beside them; `light` is the whole, input → written.
 */
const PRESS_CHAIN = ['sent', 'notified', 'applied', 'drawn', 'written'] as const
export type PressStep = Exclude<(typeof PRESS_CHAIN)[number], 'sent'>
/**
 * A step later than this after its press is not the press's (its news changed nothing on a key, and
 * something later drew): the trace ends unrecorded. ASSUMED: twice the engine's oldest input acted on.
 */
const PRESS_TRACE_MAX_MS = 2000

/** Buckets, seconds, for a command's round trip to the application. */
const ROUND_TRIP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** Keeps at most `max` distinct values; later ones map to METRIC_LABELS.other. */
class LabelCap {
  private readonly seen = new Set<string>()
  constructor(private readonly max: number) {}

  label(value: string): string {
    if (this.seen.has(value)) return value
    if (this.seen.size >= this.max) return METRIC_LABELS.other
    this.seen.add(value)
    return value
  }
}

export interface PrometheusMetricsOptions {
  /** Also export prom-client's default process metrics (memory, CPU, event loop lag). Default true. */
  processMetrics?: boolean
  /** Overrides of the label caps (tests lower them). */
  maxCommandLabels?: number
  maxErrorCodeLabels?: number
}

/** `DaemonMetrics` recorded into a Prometheus registry of its own. */
export class PrometheusMetrics implements DaemonMetrics {
  readonly registry = new Registry()
  private readonly commands: LabelCap
  private readonly codes: LabelCap
  private readonly eventToRequestSeconds: Histogram
  private readonly commandSeconds: Histogram<'command'>
  private readonly notificationToFeedbackSeconds: Histogram
  private readonly pressStageSeconds: Histogram<'stage'>
  /**
   * The press traced: the latest input that sent a command. When it reached the engine, its last step
   * (index in PRESS_CHAIN, -1: none traced), when it reached each step, and whether its reply was counted.
   */
  private readonly press = { at: 0, step: -1, times: [] as number[], replied: true }
  private readonly commandsTotal: Counter<'command' | 'outcome'>
  private readonly errorsTotal: Counter<'code'>
  private readonly reconnectsTotal: Counter
  private readonly sentFailuresTotal: Counter<'by'>
  private readonly surfaceOpensTotal: Counter
  private readonly surfaceFailuresTotal: Counter
  private readonly configEditsTotal: Counter<'kind'>
  private readonly surfacesOpen: Gauge
  private readonly surfacesByState: Gauge<'state'>
  private readonly linkUp: Gauge
  private readonly configLoaded: Gauge<'state'>
  private readonly configLastGoodLoad: Gauge
  private readonly recording: Gauge<'state'>
  /** Issue 27: series of their own with an `app` label (the unlabelled ones above keep their meaning). */
  private readonly byApp: AppMetrics

  constructor(options: PrometheusMetricsOptions = {}) {
    this.commands = new LabelCap(options.maxCommandLabels ?? METRIC_LABELS.maxCommands)
    this.codes = new LabelCap(options.maxErrorCodeLabels ?? METRIC_LABELS.maxErrorCodes)
    const registers = [this.registry]
    const p = METRIC_PREFIX
    this.eventToRequestSeconds = new Histogram({
      name: `${p}event_to_request_seconds`,
      help: 'From a surface event reaching the engine to its command request being handed to the client.',
      buckets: LOCAL_BUCKETS,
      registers,
    })
    this.commandSeconds = new Histogram({
      name: `${p}command_duration_seconds`,
      help: 'From a command request being sent to its reply (or failure).',
      labelNames: ['command'],
      buckets: ROUND_TRIP_BUCKETS,
      registers,
    })
    this.notificationToFeedbackSeconds = new Histogram({
      name: `${p}notification_to_feedback_seconds`,
      help: 'From an application notification reaching the state store to its feedback applied on the surfaces.',
      buckets: LOCAL_BUCKETS,
      registers,
    })
    this.pressStageSeconds = new Histogram({
      name: `${p}press_stage_seconds`,
      help:
        'Where a press’s time goes, by stage: sent (input → command sent), reply (sent → its reply), notified ' +
        '(sent → the application heard on the notification link), applied (heard → the state updated), drawn ' +
        '(applied → the new look handed to the surfaces), written (drawn → written to a browser), light ' +
        '(input → written). One press at a time, the latest input that sent a command.',
      labelNames: ['stage'],
      buckets: STAGE_BUCKETS,
      registers,
    })
    this.commandsTotal = new Counter({
      name: `${p}commands_total`,
      help: 'Commands sent to the application, by command name and outcome (ok or error).',
      labelNames: ['command', 'outcome'],
      registers,
    })
    this.errorsTotal = new Counter({
      name: `${p}command_errors_total`,
      help: 'Failed commands, by error code.',
      labelNames: ['code'],
      registers,
    })
    // Always both series (at 0 until one fails): the failure alert reads `by="operator"` with no
    // absent-series rule.
    this.sentFailuresTotal = new Counter({
      name: `${p}sent_command_failures_total`,
      help:
        'Failed commands of the bindings, by whose: `operator` (a press, a turn, a fader) or `engine` (its own ' +
        'steps: the jog entering replay mode, polls, reads before a clip verb). The failure alert counts the operator’s.',
      labelNames: ['by'],
      registers,
    })
    for (const by of ['operator', 'engine']) this.sentFailuresTotal.inc({ by }, 0)
    this.reconnectsTotal = new Counter({
      name: `${p}app_reconnects_total`,
      help: 'Times the notification link to the application was re-established.',
      registers,
    })
    this.surfaceOpensTotal = new Counter({
      name: `${p}surface_opens_total`,
      help: 'Surfaces opened (hot-plugs included).',
      registers,
    })
    this.surfaceFailuresTotal = new Counter({
      name: `${p}surface_failures_total`,
      help: 'Surfaces that failed to open or failed while open.',
      registers,
    })
    this.configEditsTotal = new Counter({
      name: `${p}config_edits_total`,
      help: 'Saves of the mapping file through the editor (page or remote API), by kind (put, delete, undo).',
      labelNames: ['kind'],
      registers,
    })
    this.surfacesOpen = new Gauge({ name: `${p}surfaces_open`, help: 'Surfaces open now.', registers })
    this.surfacesByState = new Gauge({
      name: `${p}surfaces`,
      help: 'Surfaces the daemon knows, by state (open, closed, failed, permission-denied, waiting).',
      labelNames: ['state'],
      registers,
    })
    this.setSurfaceStates([])
    this.linkUp = new Gauge({
      name: `${p}app_link_up`,
      help: '1 while the notification link to the application is up, else 0.',
      registers,
    })
    this.linkUp.set(0)
    this.byApp = new AppMetrics(p, registers)
    // Both states always present, one at 1: an alert on `state="refused"` needs no absent-series rule.
    this.configLoaded = new Gauge({
      name: `${p}config_loaded`,
      help: 'Whether the config file on disk runs: 1 on state="ok", or 1 on state="refused" (an older mapping runs).',
      labelNames: ['state'],
      registers,
    })
    this.configLastGoodLoad = new Gauge({
      name: `${p}config_last_good_load_timestamp_seconds`,
      help: 'When the mapping that runs was loaded (at start or its last good reload), Unix time in seconds.',
      registers,
    })
    // Every state always present, one at 1: an alert on `state="failed"` needs no absent-series rule.
    this.recording = new Gauge({
      name: `${p}recording`,
      help:
        'The recording of the control input: 1 on state="recording", on state="failed" (the record file ' +
        'could not be opened or written; the daemon runs on without it), or on state="off" (none asked for).',
      labelNames: ['state'],
      registers,
    })
    this.setRecording('off')
    new Gauge({
      name: `${p}key_image_cache_bytes`,
      help: 'Bytes of encoded key images cached (a page seen before is written from them).',
      registers,
      collect() {
        this.set(cachedKeyImageBytes())
      },
    })
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: p })
  }

  eventToRequest(ms: number): void {
    this.eventToRequestSeconds.observe(seconds(ms))
    // A new press to trace: whatever the one before did not reach is left unrecorded.
    const now = performance.now()
    Object.assign(this.press, { at: now - ms, step: 0, times: [now], replied: false })
    this.pressStageSeconds.observe({ stage: 'sent' }, seconds(ms))
  }

  /**
   * The traced press reached `step`, counted when it is the next one in PRESS_CHAIN. A stage is observed
   * when the next one is reached (from the one before it), so `applied` is timed to the last write of
   * the state before the draw (a re-read may write twice: the title list, then the layer state).
   */
  pressStep(step: PressStep): void {
    const p = this.press
    const i = PRESS_CHAIN.indexOf(step)
    if (p.step < 0) return
    const now = performance.now()
    if (i === p.step && step === 'applied') p.times[i] = now
    if (i !== p.step + 1) return
    if (now - p.at > PRESS_TRACE_MAX_MS) {
      p.step = -1
      return
    }
    const stage = (k: number): void =>
      this.pressStageSeconds.observe({ stage: PRESS_CHAIN[k]! }, seconds(p.times[k]! - p.times[k - 1]!))
    if (p.step > 0) stage(p.step)
    p.times[i] = now
    p.step = i
    if (i < PRESS_CHAIN.length - 1) return
    stage(i)
    this.pressStageSeconds.observe({ stage: 'light' }, seconds(now - p.at))
    p.step = -1
  }

  commandDone(command: string, outcome: string, ms: number): void {
    if (!this.press.replied) {
      this.press.replied = true
      this.pressStageSeconds.observe({ stage: 'reply' }, seconds(ms))
    }
    const name = this.commands.label(command)
    this.commandSeconds.observe({ command: name }, seconds(ms))
    const ok = outcome === 'ok'
    this.commandsTotal.inc({ command: name, outcome: ok ? 'ok' : 'error' })
    if (!ok) this.errorsTotal.inc({ code: this.codes.label(outcome) })
  }

  sentCommandFailed(own: boolean): void {
    this.sentFailuresTotal.inc({ by: own ? 'engine' : 'operator' })
  }

  notificationToFeedback(ms: number): void {
    this.notificationToFeedbackSeconds.observe(seconds(ms))
  }

  reconnect(): void {
    this.reconnectsTotal.inc()
  }

  surfaceOpened(): void {
    this.surfaceOpensTotal.inc()
  }

  surfaceFailed(): void {
    this.surfaceFailuresTotal.inc()
  }

  setOpenSurfaces(count: number): void {
    this.surfacesOpen.set(count)
  }

  /** The state of every surface now (one entry per surface); a state outside SURFACE_STATES is not counted. */
  setSurfaceStates(states: Iterable<string>): void {
    const counts = new Map<string, number>(SURFACE_STATES.map((s) => [s, 0]))
    for (const s of states) {
      const n = counts.get(s)
      if (n !== undefined) counts.set(s, n + 1)
    }
    for (const [state, n] of counts) this.surfacesByState.set({ state }, n)
  }

  setLinkUp(up: boolean): void {
    this.linkUp.set(up ? 1 : 0)
  }

  setConfigState(state: 'ok' | 'refused', lastGoodLoadMs: number): void {
    this.configLoaded.set({ state: 'ok' }, state === 'ok' ? 1 : 0)
    this.configLoaded.set({ state: 'refused' }, state === 'refused' ? 1 : 0)
    this.configLastGoodLoad.set(lastGoodLoadMs / 1000)
  }

  configEdited(kind: 'put' | 'delete' | 'undo'): void {
    this.configEditsTotal.inc({ kind })
  }

  setRecording(state: 'off' | 'recording' | 'failed'): void {
    for (const s of RECORDING_STATES) this.recording.set({ state: s }, s === state ? 1 : 0)
  }

  setAppLinkUp(app: string, up: boolean): void {
    this.byApp.linkUp(app, up)
  }

  appCommand(app: string, outcome: string): void {
    this.byApp.command(app, outcome)
  }

  mirrorDiverged(mirror: string, reason: 'command' | 'state'): void {
    this.byApp.diverged(mirror, reason)
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics()
  }

  /** The `Content-Type` of `text()`. */
  get contentType(): string {
    return this.registry.contentType
  }
}

/** ms → s; a negative or non-finite duration (a clock step) counts as 0 rather than poisoning sums. */
function seconds(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? ms / 1000 : 0
}
