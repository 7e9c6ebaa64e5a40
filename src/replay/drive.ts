/**
 * `panelbridge replay`: the real engine, driven from a trace's inputs with their original spacing (or
 * faster), against the built-in simulator (a fresh one on free ports) or an application's URL. Every
 * command the engine sends is collected and handed to `onCommand` as it comes back. Each surface starts
 * on the page the recording began on (the trace's `pages`, through `Engine.setPageOf`).
 *
 * Speeds: `1` and `2` wait the recorded gaps (halved at 2: a hold shorter than twice its time becomes a
 * press). `max` keeps only the time that changes what the engine does:
 * - while a press is held, the gap as recorded (holds and hold-to-confirm measure it);
 * - a rest of ENGINE_TUNABLES.jogReseedAfterMs or more, as that much and a margin (the jog reads the position again
 *   after a rest: the same reads as the recorded run);
 * - before every input but a turn that continues a run of turns on its control, and before any input
 *   that came REPLAY_SETTLE_GAP_MS or more after the one before it, the jog's last position is let go
 *   (until it is sent and its reply is back) and the commands in flight are let finish
 *   (in the recorded run they had), so commands come back in the recorded order and a run's last
 *   position lands within its run.
 * Turns closer than that (a jog storm) go at once, one macrotask apart. ASSUMED: in the recorded run
 * too, a run's last position landed before the next input that is not a turn (a press made within a
 * few ms of the last turn may count its position in the next run there, and show as a difference).
 *
 * ASSUMED: a binding's `wait_ms` steps between commands are not waited for at `max` unless a press is
 * held; a trace whose sequences interleave with later inputs can come back in another order there.
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'
import { AppState } from '../api/app-state.js'
import type { AppLink } from '../daemon/app-link.js'
import { startAppLink, stopAppLink } from '../daemon/app-link.js'
import { PrometheusMetrics } from '../daemon/metrics.js'
import type { Logger } from '../log.js'
import { defaultAppSection } from '../mappings/apps.js'
import { ENGINE_TUNABLES } from '../mappings/constants.js'
import { Engine } from '../mappings/engine.js'
import type { Config } from '../mappings/schema.js'
import type { SentCommand } from '../mappings/sender.js'
import type { SurfaceEvent } from '../surfaces/types.js'
import type { TraceInput } from './trace.js'

/** At `max`, an input this long after the one before it waits for the commands in flight. ASSUMED: 20 ms. */
const REPLAY_SETTLE_GAP_MS = 20
/** How long the replay waits for the application link at the start, ms. */
const REPLAY_CONNECT_MS = 10_000
/** After the last input: done once nothing is in flight and no command came for this long, ms. */
const REPLAY_QUIET_MS = 300
/** ... or after this long at most, ms. */
const REPLAY_DRAIN_MAX_MS = 15_000
/** A single wait for commands in flight is bounded by this, ms (an application that never answers). */
const SETTLE_MAX_MS = 5_000

export type ReplaySpeed = 1 | 2 | 'max'

export interface ReplayOptions {
  config: Config
  inputs: readonly TraceInput[]
  speed: ReplaySpeed
  /** `sim` (the default): a fresh built-in simulator; else the application's URL. */
  against: string
  log: Logger
  onCommand?: (c: SentCommand) => void
  signal?: AbortSignal
  /** The page each surface was on as the recording began (its start line): the replay starts there. */
  pages?: Readonly<Record<string, string>>
}

/** The config's `app` pointed at what the replay acts on. */
export function replayApp(app: Config['app'], against: string): Config['app'] {
  const { notifications: _n, simulate, ...rest } = app
  if (against === 'sim')
    return {
      ...rest,
      url: 'http://127.0.0.1:0',
      simulate: simulate === undefined || simulate === false ? true : simulate,
    }
  return { ...rest, url: against }
}

/** Counts the commands in flight, and lets the replay wait until none is. */
class InFlight {
  private n = 0
  private waiters: (() => void)[] = []
  track<T>(p: Promise<T>): Promise<T> {
    this.n++
    return p.finally(() => {
      if (--this.n === 0) for (const w of this.waiters.splice(0)) w()
    })
  }
  get count(): number {
    return this.n
  }
  /**
   * Resolves once nothing is in flight and nothing was sent in the turn after (a sequence sends its
   * next command when the one before returns), or after `maxMs`.
   */
  async idle(maxMs: number): Promise<void> {
    const end = performance.now() + maxMs
    while (performance.now() < end) {
      if (this.n > 0) {
        const ac = new AbortController()
        await Promise.race([
          new Promise<void>((resolve) => this.waiters.push(resolve)),
          sleep(Math.max(0, end - performance.now()), undefined, { signal: ac.signal }).catch(() => {}),
        ])
        ac.abort()
      }
      await nextTurn()
      if (this.n === 0) return
    }
  }
}

/** A command the replay sent, with the run of turns it came in (`ComparedCommand.run`). */
export type ReplayedCommand = SentCommand & { run: number }

/** Runs the replay; resolves with every command sent, in the order their outcomes came. */
export async function replayTrace(o: ReplayOptions): Promise<ReplayedCommand[]> {
  const state = new AppState()
  const inFlight = new InFlight()
  const sent: ReplayedCommand[] = []
  const progress = { run: 0 }
  let lastSentAt = performance.now()
  let link: AppLink | undefined
  let engine: Engine | undefined
  try {
    link = await startAppLink(replayApp(defaultAppSection(o.config), o.against), {
      state,
      metrics: new PrometheusMetrics(),
      log: o.log,
    })
    const client = link.client
    engine = new Engine({
      client: { callByName: (name, params, opts) => inFlight.track(client.callByName(name, params, opts)) },
      state,
      surfaces: { setFeedback: () => {} },
      logger: o.log.child('engine'),
      onSend: (_c, _o, c) => {
        sent.push({ ...c, run: progress.run })
        lastSentAt = performance.now()
        o.onCommand?.(c)
      },
    })
    engine.apply(o.config)
    startPages(engine, o.pages ?? {}, o.log)
    link.link.start()
    await connected(state, o.signal)
    await drive(engine, o, inFlight, progress)
    // The last commands: wait until nothing is in flight and nothing came for a while.
    const end = performance.now() + REPLAY_DRAIN_MAX_MS
    while (performance.now() < end && !o.signal?.aborted) {
      await inFlight.idle(SETTLE_MAX_MS)
      if (inFlight.count === 0 && performance.now() - lastSentAt >= REPLAY_QUIET_MS) break
      await sleep(50)
    }
  } finally {
    engine?.stop()
    if (link) await stopAppLink(link)
    state.dispose()
  }
  return sent
}

/** Each surface on the page the recording began on; one the config lacks is said, and the start page kept. */
function startPages(engine: Engine, pages: Readonly<Record<string, string>>, log: Logger): void {
  for (const [surface, page] of Object.entries(pages)) {
    if (engine.setPageOf(surface, page)) continue
    log.warn('the recording began on a page the config does not have; replaying from the start page', {
      surface,
      page,
      ...(engine.pageOf(surface) !== undefined ? { startPage: engine.pageOf(surface) } : {}),
    })
  }
}

async function connected(state: AppState, signal: AbortSignal | undefined): Promise<void> {
  const end = performance.now() + REPLAY_CONNECT_MS
  while (state.link.status !== 'connected') {
    if (signal?.aborted) return
    if (performance.now() > end) throw new Error('the application link did not connect within 10 s')
    await sleep(20)
  }
}

/** Hands the inputs to the engine, each stamped as it goes in, spaced as the header says. */
async function drive(engine: Engine, o: ReplayOptions, inFlight: InFlight, progress: { run: number }): Promise<void> {
  const held = new Set<string>()
  let prevT: number | undefined
  let prevTurn: string | undefined
  let lastTurned: Turned | undefined
  for (const input of o.inputs) {
    if (o.signal?.aborted) return
    const gap = prevT === undefined ? 0 : Math.max(0, input.t - prevT)
    prevT = input.t
    const e = input.event
    // A turn that continues a run of turns on its control does not wait for the run's commands.
    const turn = e.type === 'rotate' ? `${e.surface}\u0000${e.control}` : undefined
    const continues = turn !== undefined && turn === prevTurn
    prevTurn = turn
    await pause(gap, o.speed, held.size > 0, continues, inFlight, () => jogLetGo(engine, lastTurned))
    const key = `${e.surface}\u0000${e.control}\u0000${e.view ?? ''}\u0000${e.source ?? ''}`
    if (e.type === 'down') held.add(key)
    if (e.type === 'up') held.delete(key)
    if (e.type !== 'rotate') progress.run++
    else lastTurned = { surface: e.surface, control: e.control }
    engine.handle({ ...e, at: performance.now() } as SurfaceEvent)
  }
}

async function pause(
  gap: number,
  speed: ReplaySpeed,
  holding: boolean,
  continues: boolean,
  inFlight: InFlight,
  letGo: () => Promise<void>,
): Promise<void> {
  if (speed !== 'max') {
    if (gap > 0) await sleepLong(gap / speed)
    else await nextTurn()
    return
  }
  const started = performance.now()
  if (gap >= REPLAY_SETTLE_GAP_MS || !continues) {
    await letGo()
    await inFlight.idle(SETTLE_MAX_MS)
  }
  // A hold lasts as recorded, the wait for the commands in flight included.
  if (holding) await sleep(Math.max(0, gap - (performance.now() - started)))
  else if (gap >= ENGINE_TUNABLES.jogReseedAfterMs) await sleep(ENGINE_TUNABLES.jogReseedAfterMs + 50)
  else await nextTurn()
}

/** A control that was turned. */
type Turned = Pick<SurfaceEvent, 'surface' | 'control'>

/**
 * Until the control turned last has sent its last position and had its reply (nothing waiting out the
 * jog's interval, nothing in flight). Not a guess at the interval: on a busy machine the jog's timer can
 * fire late, and the next input must not overtake the position. Bounded by SETTLE_MAX_MS (an
 * application that never answers).
 */
async function jogLetGo(engine: Engine, turned: Turned | undefined): Promise<void> {
  if (!turned) return
  const end = performance.now() + SETTLE_MAX_MS
  while (engine.pending(turned.surface, turned.control) && performance.now() < end) await sleep(1)
}

/** The longest single timer Node keeps (a longer one fires at once), ms. */
const MAX_TIMER_MS = 2 ** 31 - 1

/** Sleeps `ms`, however long: a gap of weeks in a show is slept in parts a timer can hold. */
async function sleepLong(ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= MAX_TIMER_MS) await sleep(Math.min(left, MAX_TIMER_MS))
}
