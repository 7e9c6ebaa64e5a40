/**
 * The one way the long-running commands (`run`, `sim`, `surfaces`, `learn`) wait to be stopped and
 * stop: the first SIGINT or SIGTERM starts one graceful stop, bounded by STOP_BOUND_MS; a repeat while
 * it runs changes nothing (the bound ends it anyway, and a second Ctrl+C must not cut a stop that is
 * blanking the surfaces). Once stopping, every SIGHUP, SIGINT and SIGTERM is logged and ignored until
 * the process has exited (`systemctl reload` racing a stop must not end it by a signal). A command's
 * SIGHUP before the stop (`run`: reload) is `onHangup`, so that one place decides what a signal does.
 * Tests hand in an AbortSignal of their own instead of the process's signals.
 */
import { STOP_BOUND_MS } from '../defaults.js'
import type { Logger } from '../log.js'
import { EXIT } from './subcommand.js'

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM']
/** What a stopping process takes and ignores: the stop signals, and SIGHUP (a reload, or a closed terminal). */
const LATE_SIGNALS: readonly NodeJS.Signals[] = ['SIGHUP', 'SIGINT', 'SIGTERM']

/** Where `ignoreLateSignal` says what it ignored: the logger of the command that stops. */
let lateLog: Logger | undefined

/**
 * Takes a SIGHUP, SIGINT or SIGTERM that comes once stopping, and on the process's way out: without a
 * listener, Node's default would kill it before it exits with its own code (systemd would record a
 * failure). It is added as the stop begins and never removed: removing a signal's last listener gives
 * the signal back to its default at once, and a signal in that moment would end the process. A signal
 * listener does not keep the process alive.
 */
export function ignoreLateSignal(signal?: NodeJS.Signals): void {
  lateLog?.info('signal ignored while stopping', signal !== undefined ? { signal } : undefined)
}

/** Adds `ignoreLateSignal` to each of `signals` that lacks it (before any other listener goes). */
function ignoreLateSignals(signals: readonly NodeJS.Signals[] = LATE_SIGNALS): void {
  for (const s of signals) if (!process.listeners(s).includes(ignoreLateSignal)) process.on(s, ignoreLateSignal)
}

/** What `holdSignalsWhileStarting` gives: hand the held signals on, or let them go. */
export interface HeldSignals {
  /** Removes the holding listeners and sends each signal that came meanwhile to the process again, once. */
  release(): void
  /** Removes the holding listeners; what came is dropped (the start failed: the process is leaving). */
  drop(): void
}

/**
 * Takes SIGHUP, SIGINT and SIGTERM while a command starts, before `untilStopped` listens. The daemon says
 * READY=1 to systemd from inside its start, so a `systemctl reload` or stop may come at once; without a
 * listener, Node's default would end the process by that signal. Call `release` right after
 * `untilStopped` (whose listeners are added before it first waits): the signals that came are raised
 * again, in the order SIGHUP, SIGINT, SIGTERM, and meet the one place that decides what a signal does.
 */
export function holdSignalsWhileStarting(log?: Logger): HeldSignals {
  const came = new Set<NodeJS.Signals>()
  const take = (signal: NodeJS.Signals): void => void came.add(signal)
  for (const s of LATE_SIGNALS) process.on(s, take)
  const drop = (): void => {
    for (const s of LATE_SIGNALS) process.off(s, take)
  }
  return {
    release() {
      drop()
      for (const s of LATE_SIGNALS) {
        if (!came.has(s)) continue
        log?.info('signal taken while starting: acted on now', { signal: s })
        process.kill(process.pid, s)
      }
    },
    drop,
  }
}

/** What `whileListening` does with the process's signals besides the stop. */
export interface ListenHooks {
  /** Says what a late signal was ignored (default: nothing said). */
  log?: Logger
  /** A SIGHUP before the stop (`run`: reload the config). Without it, SIGHUP keeps its default until the stop. */
  onHangup?: () => void
}

/**
 * Runs `work` with a stop signal: `stop` when given (no process signal is listened to), else one that
 * fires on the first SIGINT or SIGTERM (its reason: the signal's name). The process's listeners stay
 * until `work` ends, so a repeated signal meanwhile is logged and swallowed rather than killing the
 * process; from the stop on, `ignoreLateSignal` takes SIGHUP, SIGINT and SIGTERM, and stays after.
 */
export async function whileListening<T>(
  stop: AbortSignal | undefined,
  work: (stop: AbortSignal) => Promise<T>,
  hooks: ListenHooks = {},
): Promise<T> {
  if (stop !== undefined) return work(stop)
  const controller = new AbortController()
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) ignoreLateSignal(signal)
    else controller.abort(signal)
  }
  const onHangup = (): void => {
    if (controller.signal.aborted) ignoreLateSignal('SIGHUP')
    else hooks.onHangup?.()
  }
  lateLog = hooks.log
  // From the stop on, a SIGHUP must not end the process: the stop signals' own listeners take theirs
  // while the work runs (and `onHangup` SIGHUP, when given); a SIGHUP without one is taken now.
  const atStop = (): void => ignoreLateSignals(hooks.onHangup ? [] : ['SIGHUP'])
  controller.signal.addEventListener('abort', atStop, { once: true })
  for (const s of STOP_SIGNALS) process.on(s, onSignal)
  if (hooks.onHangup) process.on('SIGHUP', onHangup)
  try {
    return await work(controller.signal)
  } finally {
    // The late listener first: a signal that loses its last listener is back to its default at once.
    if (controller.signal.aborted) ignoreLateSignals()
    for (const s of STOP_SIGNALS) process.off(s, onSignal)
    process.off('SIGHUP', onHangup)
  }
}

/** Resolves when the signal fires (at once when it has). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
}

export interface UntilStoppedOptions {
  /** The command's logger: `stopping`, and a stop that failed or ran past its bound. */
  log: Logger
  /** What stops the command (default: the first SIGINT or SIGTERM). */
  stop?: AbortSignal
  /** The bound of `close`, ms (default STOP_BOUND_MS). */
  boundMs?: number
  /** What a SIGHUP before the stop does (`run`: reload); once stopping, a SIGHUP is logged and ignored. */
  onHangup?: () => void
}

/**
 * Waits for the stop, then runs `close` within the bound. Resolves with EXIT.ok once closed, or
 * EXIT.failure when `close` failed or ran past the bound (the caller then exits with it still running).
 */
export function untilStopped(close: () => Promise<void>, opts: UntilStoppedOptions): Promise<number> {
  const hooks: ListenHooks = { log: opts.log, ...(opts.onHangup ? { onHangup: opts.onHangup } : {}) }
  return whileListening(
    opts.stop,
    async (stop) => {
      // Why a timer: with nothing else open (learn with live hot-plug and no device) nothing holds the
      // event loop (neither a waiting promise nor a signal listener does), so the process would end at
      // once instead of waiting for Ctrl+C.
      const keepAlive = setInterval(() => undefined, 60_000)
      // The moment from which only the stop ends the command (a process test waits for this line).
      opts.log.debug('waiting for the stop')
      try {
        await untilAborted(stop)
      } finally {
        clearInterval(keepAlive)
      }
      opts.log.info('stopping', typeof stop.reason === 'string' ? { signal: stop.reason } : undefined)
      return closeWithin(close, opts.boundMs ?? STOP_BOUND_MS, opts.log)
    },
    hooks,
  )
}

async function closeWithin(close: () => Promise<void>, boundMs: number, log: Logger): Promise<number> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), boundMs)
    // Not a reason to stay: a stop that leaves nothing open ends the process whatever the bound.
    timer.unref()
  })
  try {
    if ((await Promise.race([close().then(() => 'closed' as const), late])) === 'closed') return EXIT.ok
    log.error(`stop took longer than ${boundMs} ms; exiting anyway`)
    return EXIT.failure
  } catch (err) {
    log.error('stop failed', { error: err })
    return EXIT.failure
  } finally {
    clearTimeout(timer)
  }
}
