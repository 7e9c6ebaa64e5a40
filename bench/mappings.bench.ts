/**
 * `npm run bench mappings`: the binding engine (issue 12), each case against a baseline in the same run.
 *
 * 1. Jog storm: JOG_RATE_PER_S deltas of +1 frame per second for JOG_SECONDS, the simulator delaying
 *    every `replay_set_scrub_position` reply by SCRUB_DELAY_MS, the replay in replay mode with a buffer
 *    long enough that clamping hides no lost delta. Through the real engine (latest-wins jog scrub)
 *    against a naive baseline that sends one request per delta without awaiting (what Companion does),
 *    through the same client (a bounded keep-alive pool) to the same simulator. Reported: requests sent,
 *    the simulator's in-flight high-water, lag from the last delta to the simulator holding the final
 *    position, whether that position is right, heap growth after `global.gc()`. The baseline's wait is
 *    capped at BASELINE_WAIT_CAP_MS, then its queue is aborted. Target: engine lag < 50 ms, flat heap.
 * 2. Key press -> request on the wire: `engine.handle(down)` to the simulator's request handler seeing
 *    the request (same process, `performance.now()` at both ends), against the same request sent
 *    directly with `client.callByName`. Samples alternate between the two. Target: p99 < 1 ms.
 * 3. Notification -> feedback: a title's play state changed in the simulator, over the real WebSocket,
 *    link, AppState and engine, to the surface's `setFeedback`, against the AppState `title` event for
 *    the same notification (no engine). Target: p99 < 16.7 ms (one frame at 60 Hz).
 *
 * The simulator runs in-process: its hooks (reply delay, in-flight count) and a wrapper around its
 * request handling give arrival times at sub-millisecond resolution. Each figure is the median over
 * RUNS runs. `BENCH_QUICK=1` shortens everything (a smoke test); `BENCH_JOG_SECONDS=N` sets the storm.
 */
import { setMaxListeners } from 'node:events'
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { AppState } from '../src/api/app-state.js'
import { CommandClient } from '../src/api/client.js'
import { NotificationLink } from '../src/api/notifications.js'
import { setLogLevel } from '../src/log.js'
import { Engine, type FeedbackSink } from '../src/mappings/engine.js'
import { formatProblem, loadConfigText } from '../src/mappings/load.js'
import type { CommandPort } from '../src/mappings/sender.js'
import type { ControlId } from '../src/face/control-id.js'
import type { Feedback } from '../src/face/feedback.js'
import type { SurfaceEvent } from '../src/surfaces/types.js'
import { median, percentile } from './stats.js'
import type { CommandTransport } from '../src/app-kit/simulator/hooks.js'
import type { SimulatorHandle } from '../src/app-kit/simulator/index.js'
import { startSimulator } from '../src/app-kit/simulator/index.js'

const QUICK = process.env.BENCH_QUICK === '1'
/** Runs per bench invocation; every figure printed is the median over them. */
const RUNS = Number(process.env.BENCH_RUNS) || (QUICK ? 1 : 3)

/** The jog storm: deltas per second, and for how long. */
export const JOG_RATE_PER_S = 2000
export const JOG_SECONDS = Number(process.env.BENCH_JOG_SECONDS) || (QUICK ? 2 : 10)
/** The simulator's delay of every scrub reply. */
const SCRUB_DELAY_MS = 20
/** Replay buffer and seed: 20,000 frames at 29.97 fps are 667 s, so the end stop never clamps. */
const BUFFER_SECONDS = 3600
const SEED_SECONDS = 100
/** How long the baseline may take to reach its final position before it is reported as "> cap". */
const BASELINE_WAIT_CAP_MS = QUICK ? 10_000 : 60_000
/** The engine's own wait for its final position (a miss is a failure, reported as such). */
const ENGINE_WAIT_CAP_MS = 10_000
/** After the final position, how long nothing else may arrive before the phase is over. */
const SETTLE_MS = 100

/** Key presses (engine and baseline alternating, each this many) and the pause after each reply. */
const PRESSES = QUICK ? 300 : 2000
const PRESS_GAP_MS = 2
/** Play-state notifications and their spacing. */
const NOTIFICATIONS = QUICK ? 300 : 1000
const NOTIFY_GAP_MS = 4

const SCRUB = 'replay_set_scrub_position'
const PRESS_COMMAND = 'getVideoFormat'
const TITLE = 'Lower Third'

const CONFIG = `version: 1
surfaces:
  console: { driver: web, rows: 2, columns: 4, jog: true }
bindings:
  - on: console/jog
    jog: { scrub: { step_frames: 1 } }
  - on: console/key:0
    confirm_ms: 0
    press: { command: ${PRESS_COMMAND} }
  - on: console/key:1
    label: "{{play}}"
    feedback: { title: "${TITLE}" }
`

const out = (line: string): void => void process.stdout.write(line + '\n')

// A collection before each heap reading, so that before and after compare live memory, not garbage.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as (() => void) | undefined

function heapMb(): number {
  gc?.()
  gc?.()
  return process.memoryUsage().heapUsed / 1024 / 1024
}

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs
  while (!cond()) {
    if (performance.now() > until) return false
    await sleep(1)
  }
  return true
}

/** Arrival and answer times of requests at the simulator, from a wrapper around its request handling. */
interface Probe {
  /** Requests of each command that reached the simulator's handler. */
  arrived: Map<string, number>
  onArrive: ((name: string, at: number) => void) | undefined
  onAnswered: ((name: string, at: number) => void) | undefined
}

/**
 * Wraps the simulator's `around` (every HTTP command passes through it) to time arrivals with
 * `performance.now()`: the hook's own log keeps ISO times, whole milliseconds, too coarse here.
 */
function instrument(sim: SimulatorHandle): Probe {
  const probe: Probe = { arrived: new Map(), onArrive: undefined, onAnswered: undefined }
  const hooks = sim.http
  const original = hooks.around.bind(hooks)
  hooks.around = <T>(
    name: string,
    parameters: Record<string, unknown>,
    transport: CommandTransport,
    answer: () => T,
  ): Promise<T> => {
    const at = performance.now()
    probe.arrived.set(name, (probe.arrived.get(name) ?? 0) + 1)
    probe.onArrive?.(name, at)
    return original(name, parameters, transport, () => {
      const result = answer()
      probe.onAnswered?.(name, performance.now())
      return result
    })
  }
  return probe
}

/** A surface sink that keeps only the newest feedback per control (bounded) and lets a bench watch it. */
class WatchedSurfaces implements FeedbackSink {
  readonly now = new Map<string, Feedback>()
  onFeedback: ((key: string, feedback: Feedback, at: number) => void) | undefined
  setFeedback(surface: string, control: ControlId, feedback: Feedback): void {
    const at = performance.now()
    const key = `${surface}/${control}`
    this.now.set(key, feedback)
    this.onFeedback?.(key, feedback, at)
  }
}

interface World {
  sim: SimulatorHandle
  probe: Probe
  client: CommandClient
  state: AppState
  link: NotificationLink
  engine: Engine
  surfaces: WatchedSurfaces
  /** Scrub calls the engine made (it reaches the client only through this port). */
  engineScrubCalls: number
  fps: number
  close(): Promise<void>
}

async function world(): Promise<World> {
  const sim = await startSimulator()
  const probe = instrument(sim)
  const client = new CommandClient({ baseUrl: sim.httpUrl, timeoutMs: 4000 })
  const state = new AppState()
  const link = new NotificationLink({ url: sim.wsUrl, state })
  const surfaces = new WatchedSurfaces()
  const w = { engineScrubCalls: 0 } as World
  const port: CommandPort = {
    callByName: (name, params, options) => {
      if (name === SCRUB) w.engineScrubCalls++
      return client.callByName(name, params, options)
    },
  }
  const engine = new Engine({ client: port, state, surfaces })
  const loaded = await loadConfigText(CONFIG, 'bench.yaml')
  if (!loaded.config) throw new Error(loaded.problems.map(formatProblem).join('\n'))
  engine.apply(loaded.config)
  link.start()
  if (!(await waitFor(() => state.link.status === 'connected', 5000))) throw new Error('bench: link not connected')
  await client.call('replay_arm_inputs', { inputs: ['Camera 1'] })
  await client.call('replay_enable')
  await client.call('replay_set_settings', { settings: { bufferLength: BUFFER_SECONDS } })
  await client.call('replay_enable_scrubbing', { enable: true })
  const fps = (await client.call('replay_get_play_info')).frameRate
  Object.assign(w, {
    sim,
    probe,
    client,
    state,
    link,
    engine,
    surfaces,
    fps,
    async close() {
      engine.stop()
      link.stop()
      await client.close()
      await sim.close()
    },
  })
  return w
}

// ---- 1. jog storm ------------------------------------------------------------------------------------

type JogMode = 'engine' | 'baseline'

interface JogResult {
  /** Scrub requests the sender issued (engine: through the engine's port; baseline: one per delta). */
  issued: number
  /** Scrub requests that reached the simulator. */
  arrived: number
  /** Of those, how many arrived after the last delta. */
  afterLast: number
  highWater: number
  /** Last delta to the simulator holding the final position, ms; undefined when the cap ran out. */
  lagMs: number | undefined
  correct: boolean
  heapGrowthMb: number
  deltas: number
  /** Baseline: how long a command sent after the queue was aborted waited for its reply, ms. */
  drainMs: number | undefined
  /** The longest gap between two scrub requests reaching the simulator before the last delta, ms. */
  maxGapMs: number
}

async function jogStorm(w: World, mode: JogMode): Promise<JogResult> {
  const { sim, probe, client, fps } = w
  // From a rest (the engine re-seeds after ENGINE_TUNABLES.jogReseedAfterMs), at the seed position.
  await client.call(SCRUB, { position: SEED_SECONDS })
  await sleep(1200)
  const seedFrame = Math.round(SEED_SECONDS * fps)
  const total = Math.round(JOG_RATE_PER_S * JOG_SECONDS)
  const expected = (seedFrame + total) / fps
  const isFinal = () => Math.abs(sim.state.replay.scrubPosition - expected) < 1e-6

  sim.http.reset()
  sim.http.setDelay(SCRUB, SCRUB_DELAY_MS)
  const arrivedBefore = probe.arrived.get(SCRUB) ?? 0
  const engineCallsBefore = w.engineScrubCalls
  let lastDeltaAt = Number.POSITIVE_INFINITY
  let afterLast = 0
  let reachedAt: number | undefined
  const arrivals: number[] = []
  probe.onArrive = (name, at) => {
    if (name === SCRUB && at <= lastDeltaAt) arrivals.push(at)
    if (name === SCRUB && at > lastDeltaAt) afterLast++
  }
  probe.onAnswered = (name, at) => {
    // The last time the position became final (it is reached only by the last delta's position).
    if (name === SCRUB && isFinal()) reachedAt ??= at
    else if (name === SCRUB) reachedAt = undefined
  }
  const heapBefore = heapMb()

  const abort = new AbortController()
  // Every queued baseline call listens on it: that is the point of the baseline, not a leak to warn of.
  setMaxListeners(total + 100, abort.signal)
  let baselineFrame = seedFrame
  let baselineIssued = 0
  let baselineSettled = 0
  const delta =
    mode === 'engine'
      ? () => {
          const ev: SurfaceEvent = {
            type: 'rotate',
            surface: 'console',
            control: 'jog',
            delta: 1,
            at: performance.now(),
          }
          w.engine.handle(ev)
        }
      : () => {
          baselineIssued++
          baselineFrame++
          // One request per delta, not awaited: Companion's action list per jog tick.
          client
            .callByName(
              SCRUB,
              { position: baselineFrame / fps },
              { signal: abort.signal, timeoutMs: BASELINE_WAIT_CAP_MS + 30_000 },
            )
            .then(
              () => void baselineSettled++,
              () => void baselineSettled++,
            )
        }

  let sent = 0
  const start = performance.now()
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const due = Math.min(Math.floor(((performance.now() - start) * JOG_RATE_PER_S) / 1000), total)
      while (sent < due) {
        delta()
        sent++
      }
      if (sent >= total) {
        lastDeltaAt = performance.now()
        clearInterval(timer)
        resolve()
      }
    }, 1)
  })

  const cap = mode === 'engine' ? ENGINE_WAIT_CAP_MS : BASELINE_WAIT_CAP_MS
  const done = () => reachedAt !== undefined && sim.http.inFlight(SCRUB) === 0
  let reached = await waitFor(done, cap)
  if (reached) {
    // Nothing may move it afterwards (a late request of a queue would).
    await sleep(SETTLE_MS)
    reached = done()
  }
  const lagMs = reached && reachedAt !== undefined ? reachedAt - lastDeltaAt : undefined
  // The longest pause between two scrub requests during the storm: an event-loop stall shows here.
  let maxGapMs = 0
  for (let k = 1; k < arrivals.length; k++) maxGapMs = Math.max(maxGapMs, arrivals[k]! - arrivals[k - 1]!)
  const highWater = sim.http.highWater(SCRUB)
  const heapAfterReading = (): number => {
    sim.http.reset() // the simulator's own command log is not what is measured
    return heapMb()
  }
  // Read while a capped baseline still holds its queue: that queue is its memory cost.
  const heapAfter = heapAfterReading()
  const correct = isFinal()
  abort.abort()
  let drainMs: number | undefined
  if (mode === 'baseline') {
    await waitFor(() => baselineSettled === baselineIssued, 30_000)
    // Aborted calls settle at once, but the pool skips each queued one only when its turn comes:
    // a command sent now waits behind that queue. How long, is the baseline's cost to every other key.
    const t = performance.now()
    await client.call('replay_get_play_info', undefined, { timeoutMs: 300_000 })
    drainMs = performance.now() - t
  }
  await waitFor(() => sim.http.inFlight(SCRUB) === 0, 5000)
  const result: JogResult = {
    issued: mode === 'engine' ? w.engineScrubCalls - engineCallsBefore : baselineIssued,
    arrived: (probe.arrived.get(SCRUB) ?? 0) - arrivedBefore,
    afterLast,
    highWater,
    lagMs,
    correct,
    heapGrowthMb: heapAfter - heapBefore,
    deltas: total,
    drainMs,
    maxGapMs,
  }
  probe.onArrive = undefined
  probe.onAnswered = undefined
  sim.http.setDelay(SCRUB, 0)
  return result
}

// ---- 2. key press -> request on the wire -------------------------------------------------------------

interface Latencies {
  engine: number[]
  baseline: number[]
  /** Samples whose request never arrived (a press ignored, a lost call). */
  missed: { engine: number; baseline: number }
  /** Key presses: how long `engine.handle` (down and up) ran before returning, ms (synchronous work). */
  handle?: number[]
}

async function pressLatency(w: World): Promise<Latencies> {
  const { probe, client, engine } = w
  const r: Latencies = { engine: [], baseline: [], missed: { engine: 0, baseline: 0 }, handle: [] }
  let arrival: ((at: number) => void) | undefined
  probe.onArrive = (name, at) => {
    if (name === PRESS_COMMAND) arrival?.(at)
  }
  const sample = async (mode: 'engine' | 'baseline'): Promise<void> => {
    const arrived = new Promise<number | undefined>((resolve) => {
      arrival = resolve
      setTimeout(resolve, 200, undefined)
    })
    const t0 = performance.now()
    let replied: Promise<unknown>
    if (mode === 'engine') {
      engine.handle({ type: 'down', surface: 'console', control: 'key:0', at: t0 })
      engine.handle({ type: 'up', surface: 'console', control: 'key:0', at: t0 })
      r.handle?.push(performance.now() - t0)
      // A press while the binding's sequence runs is ignored: the next waits for the key to leave `pending`.
      replied = waitFor(() => w.surfaces.now.get('console/key:0')?.badge !== 'pending', 1000)
    } else {
      replied = client.callByName(PRESS_COMMAND, {}).catch(() => undefined)
    }
    const at = await arrived
    arrival = undefined
    if (at === undefined) r.missed[mode]++
    else r[mode].push(at - t0)
    await replied
    await sleep(PRESS_GAP_MS)
  }
  for (let i = 0; i < 100; i++) await sample(i % 2 ? 'engine' : 'baseline') // warm-up
  r.engine.length = r.baseline.length = r.handle!.length = 0
  r.missed = { engine: 0, baseline: 0 }
  for (let i = 0; i < PRESSES; i++) {
    // Alternating, so that both meet the same noise on a shared machine.
    const [a, b] = i % 2 ? (['engine', 'baseline'] as const) : (['baseline', 'engine'] as const)
    await sample(a)
    await sample(b)
  }
  probe.onArrive = undefined
  return r
}

// ---- 3. notification -> feedback ---------------------------------------------------------------------

async function feedbackLatency(w: World): Promise<Latencies> {
  const { sim, state, surfaces } = w
  const title = sim.state.titleByNameOrId(TITLE)
  if (!title) throw new Error(`bench: no title ${TITLE}`)
  const id = title.id
  const r: Latencies = { engine: [], baseline: [], missed: { engine: 0, baseline: 0 } }
  let onTitle: ((at: number) => void) | undefined
  let onKey: ((text: string | undefined, at: number) => void) | undefined
  const listener = (e: { id: string; changes: { play?: string } }): void => {
    if (e.id === id && e.changes.play !== undefined) onTitle?.(performance.now())
  }
  state.on('title', listener)
  surfaces.onFeedback = (key, feedback, at) => {
    if (key === 'console/key:1') onKey?.(feedback.text, at)
  }
  const states = ['Running', 'Paused', 'Off'] as const
  let next = states.indexOf(title.playState) + 1
  const sample = async (): Promise<void> => {
    const play = states[next++ % states.length]!
    const timeout = (resolve: (v: undefined) => void) => setTimeout(resolve, 500, undefined)
    const seenTitle = new Promise<number | undefined>((resolve) => {
      onTitle = resolve
      timeout(resolve)
    })
    const seenKey = new Promise<number | undefined>((resolve) => {
      onKey = (text, at) => {
        if (text === play) resolve(at)
      }
      timeout(resolve)
    })
    const t0 = performance.now()
    sim.state.setPlayState(title, play)
    const [a, b] = await Promise.all([seenKey, seenTitle])
    onTitle = onKey = undefined
    if (a === undefined) r.missed.engine++
    else r.engine.push(a - t0)
    if (b === undefined) r.missed.baseline++
    else r.baseline.push(b - t0)
    await sleep(NOTIFY_GAP_MS)
  }
  for (let i = 0; i < 50; i++) await sample() // warm-up
  r.engine.length = r.baseline.length = 0
  r.missed = { engine: 0, baseline: 0 }
  for (let i = 0; i < NOTIFICATIONS; i++) await sample()
  state.off('title', listener)
  surfaces.onFeedback = undefined
  return r
}

// ---- report ------------------------------------------------------------------------------------------

interface Run {
  jog: Record<JogMode, JogResult>
  press: Latencies
  feedback: Latencies
}

const f = (n: number | undefined, digits = 2): string => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits))
const pass = (ok: boolean): string => (ok ? 'pass' : 'FAIL')
/** Median of lags where a missing one (the cap ran out) counts as longer than any measured. */
function medianLag(lags: (number | undefined)[]): number | undefined {
  const m = median(lags.map((l) => l ?? Number.POSITIVE_INFINITY))
  return Number.isFinite(m) ? m : undefined
}
const lagText = (l: number | undefined, cap: number): string =>
  l === undefined ? `> ${cap / 1000} s` : `${f(l, 1)} ms`
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')

export default async function (): Promise<void> {
  setLogLevel('error')
  const started = performance.now()
  const loadStart = load()
  const runs: Run[] = []
  for (let i = 0; i < RUNS; i++) {
    const w = await world()
    try {
      // The order alternates across runs, so that neither mode always meets a warmer process.
      const order: JogMode[] = i % 2 ? ['baseline', 'engine'] : ['engine', 'baseline']
      const jog = {} as Record<JogMode, JogResult>
      for (const mode of order) jog[mode] = await jogStorm(w, mode)
      const press = await pressLatency(w)
      const feedback = await feedbackLatency(w)
      runs.push({ jog, press, feedback })
    } finally {
      await w.close()
    }
  }

  const med = (g: (r: Run) => number): number => median(runs.map(g))
  const jogRow = (mode: JogMode, label: string, cap: number, target: string): string => {
    const rs = runs.map((r) => r.jog[mode])
    const lag = medianLag(rs.map((r) => r.lagMs))
    const correct = rs.filter((r) => r.correct).length
    return (
      `| ${label.padEnd(31)} | ${f(median(rs.map((r) => r.issued)), 0).padStart(6)} | ${f(median(rs.map((r) => r.arrived)), 0).padStart(7)} ` +
      `| ${f(median(rs.map((r) => r.afterLast)), 0).padStart(10)} | ${f(median(rs.map((r) => r.highWater)), 0).padStart(9)} ` +
      `| ${lagText(lag, cap).padStart(10)} | ${`${correct}/${rs.length}`.padStart(8)} | ${f(median(rs.map((r) => r.heapGrowthMb)), 2).padStart(10)} | ${target} |`
    )
  }
  const engineLag = medianLag(runs.map((r) => r.jog.engine.lagMs))
  const engineHeap = median(runs.map((r) => r.jog.engine.heapGrowthMb))
  const engineCorrect = runs.every((r) => r.jog.engine.correct)
  const total = Math.round(JOG_RATE_PER_S * JOG_SECONDS)

  out(
    `jog storm: ${total} deltas of +1 frame (${JOG_RATE_PER_S}/s for ${JOG_SECONDS} s), scrub replies delayed ${SCRUB_DELAY_MS} ms,`,
  )
  out(
    `buffer ${BUFFER_SECONDS} s, seeded at ${SEED_SECONDS} s; client pool of 4 keep-alive connections; median of ${RUNS} runs`,
  )
  out(
    '| mode                            | issued | arrived | after last | high-water | lag        | correct  | heap Δ MB  | target |',
  )
  out(
    '| ------------------------------- | -----: | ------: | ---------: | --------: | ---------: | -------: | ---------: | ------ |',
  )
  out(jogRow('baseline', 'baseline: one request per delta', BASELINE_WAIT_CAP_MS, ''))
  out(
    jogRow(
      'engine',
      'engine: latest-wins jog scrub',
      ENGINE_WAIT_CAP_MS,
      `lag < 50 ms: ${pass(engineLag !== undefined && engineLag < 50 && engineCorrect)}; heap Δ < 1 MB: ${pass(engineHeap < 1)}`,
    ),
  )
  out('')
  out('per run (lag ms / heap Δ MB / requests arrived; engine: longest gap between scrub requests during the storm):')
  runs.forEach((r, i) =>
    out(
      `  run ${i + 1}: engine ${lagText(r.jog.engine.lagMs, ENGINE_WAIT_CAP_MS)} / ${f(r.jog.engine.heapGrowthMb)} / ${r.jog.engine.arrived} (gap ${f(r.jog.engine.maxGapMs, 0)} ms)` +
        `; baseline ${lagText(r.jog.baseline.lagMs, BASELINE_WAIT_CAP_MS)} / ${f(r.jog.baseline.heapGrowthMb)} / ${r.jog.baseline.arrived}` +
        ` (after aborting its queue, the next command waited ${f(r.jog.baseline.drainMs, 0)} ms)`,
    ),
  )

  const latencyTable = (
    title: string,
    pick: (r: Run) => Latencies,
    baseLabel: string,
    engineLabel: string,
    target: number,
  ): void => {
    const p = (mode: 'engine' | 'baseline', q: number) => med((r) => percentile(pick(r)[mode], q))
    const n = (mode: 'engine' | 'baseline') => med((r) => pick(r)[mode].length)
    const missed = (mode: 'engine' | 'baseline') => med((r) => pick(r).missed[mode])
    out('')
    out(title)
    out('| measure                                          | samples | missed | p50 ms | p99 ms | target         |')
    out('| ------------------------------------------------ | ------: | -----: | -----: | -----: | -------------- |')
    out(
      `| ${baseLabel.padEnd(48)} | ${f(n('baseline'), 0).padStart(7)} | ${f(missed('baseline'), 0).padStart(6)} | ${f(p('baseline', 50), 3).padStart(6)} | ${f(p('baseline', 99), 3).padStart(6)} |                |`,
    )
    out(
      `| ${engineLabel.padEnd(48)} | ${f(n('engine'), 0).padStart(7)} | ${f(missed('engine'), 0).padStart(6)} | ${f(p('engine', 50), 3).padStart(6)} | ${f(p('engine', 99), 3).padStart(6)} | p99 < ${String(target).padEnd(4)} ms ${pass(p('engine', 99) < target)} |`,
    )
  }
  latencyTable(
    `key press -> request at the simulator (${PRESS_COMMAND}, ${PRESSES} presses per mode, alternating), median of ${RUNS} runs`,
    (r) => r.press,
    `baseline: client.callByName directly`,
    `engine.handle(down) -> request`,
    1,
  )
  const handleP = (q: number) =>
    f(
      med((r) => percentile(r.press.handle ?? [], q)),
      3,
    ).padStart(6)
  out(
    `| ${'  of which engine.handle() itself (synchronous)'.padEnd(48)} | ${f(
      med((r) => r.press.handle?.length ?? 0),
      0,
    ).padStart(7)} |        | ${handleP(50)} | ${handleP(99)} |                |`,
  )
  latencyTable(
    `title play-state notification -> applied (${NOTIFICATIONS} notifications ${NOTIFY_GAP_MS} ms apart), median of ${RUNS} runs`,
    (r) => r.feedback,
    `baseline: notification -> AppState 'title' event`,
    `engine: notification -> surface setFeedback`,
    16.7,
  )
  out('')
  out(
    `total bench time: ${f((performance.now() - started) / 1000, 1)} s; load average at start ${loadStart}, at end ${load()}`,
  )
}
