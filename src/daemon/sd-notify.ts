/**
 * systemd's notify protocol: `READY=1` once the daemon is up, `STATUS=` lines on state changes,
 * `RELOADING=1` around reloads, `STOPPING=1`, and watchdog keep-alives at half of `WATCHDOG_USEC`.
 * Nothing at all when `NOTIFY_SOCKET` is unset.
 *
 * Why through `systemd-notify` and not a socket of our own: the notify socket is a Unix datagram
 * socket, which Node's core cannot open, and a native addon would have to be rebuilt for every Node
 * major we run on. `systemd-notify --pid=<our pid>` sends the same datagram; the unit sets
 * `NotifyAccess=all` so that systemd accepts it from the helper process.
 */
import { execFile } from 'node:child_process'
import type { Logger } from '../log.js'

/** The helper that sends one notify datagram. */
const SYSTEMD_NOTIFY = 'systemd-notify'
/** The longest a status text may be (systemd shows one line). */
const STATUS_MAX_CHARS = 200

export interface Notifier {
  ready(status?: string): void
  status(text: string): void
  reloading(): void
  stopping(): void
  /** Starts the watchdog keep-alives (when `WATCHDOG_USEC` is set). */
  startWatchdog(): void
  close(): void
}

/** What `systemd-notify` is run with: its arguments, in order. Tests replace the runner. */
export type NotifyRunner = (args: readonly string[]) => Promise<void>

function defaultRunner(log: Logger): NotifyRunner {
  return (args) =>
    new Promise((resolve) => {
      execFile(SYSTEMD_NOTIFY, [...args], { timeout: 2000 }, (err) => {
        if (err) log.once('sd-notify', 'warn', 'could not notify systemd', { error: err.message })
        else log.clear('sd-notify')
        resolve()
      })
    })
}

export interface NotifierOptions {
  env?: NodeJS.ProcessEnv
  log: Logger
  run?: NotifyRunner
}

/** A notifier for this process: a no-op without `NOTIFY_SOCKET`. */
export function createNotifier(options: NotifierOptions): Notifier {
  const env = options.env ?? process.env
  const socket = env.NOTIFY_SOCKET
  if (socket === undefined || socket === '') {
    const none = (): void => undefined
    return { ready: none, status: none, reloading: none, stopping: none, startWatchdog: none, close: none }
  }
  const run = options.run ?? defaultRunner(options.log)
  // --no-block: do not wait for the manager to acknowledge (systemd-notify's barrier), which needs a
  // reply channel that a plain datagram socket does not give.
  const flags = ['--no-block', `--pid=${process.pid}`]
  let watchdog: NodeJS.Timeout | undefined
  let lastStatus: string | undefined
  const send = (...fields: string[]): void => void run([...flags, ...fields])
  const statusField = (text: string): string => `STATUS=${text.replace(/\s+/g, ' ').slice(0, STATUS_MAX_CHARS)}`
  return {
    ready(status) {
      if (status !== undefined) lastStatus = status
      send('READY=1', ...(status !== undefined ? [statusField(status)] : []))
    },
    status(text) {
      if (text === lastStatus) return
      lastStatus = text
      send(statusField(text))
    },
    reloading() {
      // MONOTONIC_USEC: systemd 253+ wants it with RELOADING=1; process.hrtime is CLOCK_MONOTONIC on Linux.
      send('RELOADING=1', `MONOTONIC_USEC=${process.hrtime.bigint() / 1000n}`)
    },
    stopping() {
      send('STOPPING=1')
    },
    startWatchdog() {
      const usec = Number(env.WATCHDOG_USEC)
      const forUs = env.WATCHDOG_PID === undefined || Number(env.WATCHDOG_PID) === process.pid
      if (watchdog || !Number.isFinite(usec) || usec <= 0 || !forUs) return
      // Half the interval, as sd_watchdog_enabled(3) advises.
      watchdog = setInterval(() => send('WATCHDOG=1'), Math.max(1, Math.floor(usec / 2000)))
      watchdog.unref()
    },
    close() {
      clearInterval(watchdog)
      watchdog = undefined
    },
  }
}
