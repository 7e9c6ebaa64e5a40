/**
 * The one way the long-running commands (`run`, `sim`, `surfaces`, `learn`) wait to be stopped and
 * stop: the first SIGINT or SIGTERM starts one graceful stop, bounded by STOP_BOUND_MS; a repeat while
 * it runs changes nothing (the bound ends it anyway, and a second Ctrl+C must not cut a stop that is
 * blanking the surfaces). Tests hand in an AbortSignal of their own instead of the process's signals.
 */
import { STOP_BOUND_MS } from '../defaults.js'
import type { Logger } from '../log.js'
import { EXIT_FAILURE, EXIT_OK } from './subcommand.js'

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM']

/**
 * Takes a SIGINT or SIGTERM that comes once the stop is done, while the process is on its way out:
 * without a listener, Node's default would kill it before it exits with its own code (systemd would
 * record a failure). A signal listener does not keep the process alive.
 */
export function ignoreLateSignal(): void {}

/**
 * Runs `work` with a stop signal: `stop` when given, else one that fires on the first SIGINT or
 * SIGTERM (its reason: the signal's name). The process's listeners stay until `work` ends, so a repeated
 * signal meanwhile is swallowed rather than killing the process; once it stopped, `ignoreLateSignal`
 * takes their place.
 */
export async function whileListening<T>(
  stop: AbortSignal | undefined,
  work: (stop: AbortSignal) => Promise<T>,
): Promise<T> {
  if (stop !== undefined) return work(stop)
  const controller = new AbortController()
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!controller.signal.aborted) controller.abort(signal)
  }
  for (const s of STOP_SIGNALS) process.on(s, onSignal)
  try {
    return await work(controller.signal)
  } finally {
    for (const s of STOP_SIGNALS) {
      process.off(s, onSignal)
      if (controller.signal.aborted && !process.listeners(s).includes(ignoreLateSignal)) process.on(s, ignoreLateSignal)
    }
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
}

/**
 * Waits for the stop, then runs `close` within the bound. Resolves with EXIT_OK once closed, or
 * EXIT_FAILURE when `close` failed or ran past the bound (the caller then exits with it still running).
 */
export function untilStopped(close: () => Promise<void>, opts: UntilStoppedOptions): Promise<number> {
  return whileListening(opts.stop, async (stop) => {
    // Why a timer: with nothing else open (learn with live hot-plug and no device) nothing holds the
    // event loop (neither a waiting promise nor a signal listener does), so the process would end at
    // once instead of waiting for Ctrl+C.
    const keepAlive = setInterval(() => undefined, 60_000)
    try {
      await untilAborted(stop)
    } finally {
      clearInterval(keepAlive)
    }
    opts.log.info('stopping', typeof stop.reason === 'string' ? { signal: stop.reason } : undefined)
    return closeWithin(close, opts.boundMs ?? STOP_BOUND_MS, opts.log)
  })
}

async function closeWithin(close: () => Promise<void>, boundMs: number, log: Logger): Promise<number> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), boundMs)
    // Not a reason to stay: a stop that leaves nothing open ends the process whatever the bound.
    timer.unref()
  })
  try {
    if ((await Promise.race([close().then(() => 'closed' as const), late])) === 'closed') return EXIT_OK
    log.error(`stop took longer than ${boundMs} ms; exiting anyway`)
    return EXIT_FAILURE
  } catch (err) {
    log.error('stop failed', { error: err })
    return EXIT_FAILURE
  } finally {
    clearTimeout(timer)
  }
}
