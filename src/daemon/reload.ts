/**
 * Reloading the config: when the file changes (its folder is watched: editors replace files) and on
 * SIGHUP (`Daemon.reload`). One reload at a time; the file is read and checked here, off the event loop
 * (`config-load.ts`: read without blocking, refused unless a regular file, parsed and checked in a
 * worker thread), and a config that loads is handed to `apply` (the daemon's, which prepares everything
 * the new config needs before it changes anything, so a failed reload leaves all of it as it was). A
 * refused file, or an `apply` that throws, is logged and kept among the recent errors, and the last
 * good mapping keeps running. A reload that does not finish within `timeoutMs` is stopped and reported
 * failed, and the next one may run.
 *
 * The watch follows a symlinked config: the folder of the link, of every link on the way to the file
 * (a Kubernetes ConfigMap's `..data`, swapped to a new timestamped folder on an update) and of the file
 * itself, worked out again after each change.
 *
 * It keeps the config's state for `/api/status` and `/metrics` (`status()`, `onState`): `ok` while the
 * file on disk runs, `refused` from a refused or failed reload until a good one, and when the mapping
 * that runs was loaded, so a box managed from git can alert on a bad push.
 */
import { watch, type FSWatcher } from 'node:fs'
import { lstat, readlink, realpath } from 'node:fs/promises'
import { basename, dirname, resolve } from 'node:path'
import type { Logger } from '../log.js'
import { redactText } from '../redact.js'
import { formatProblem, type LoadResult } from '../mappings/load.js'
import type { Config } from '../mappings/schema.js'
import type { ConfigStateStatus } from './api.js'
import { loadConfigOffLoop } from './config-load.js'
import type { Notifier } from './sd-notify.js'

/** Editors write a file in bursts (truncate, write, rename): a reload waits for quiet this long, ms. */
const RELOAD_DEBOUNCE_MS = 200
/**
 * Longest a reload may take, ms, read, check and apply together. ASSUMED: the largest file loads in
 * about a second on a small box (`npm run bench config-reload`); ten leave room for a simulator to
 * start, and a wedged step (a worker that never answers) is stopped within this.
 */
export const RELOAD_TIMEOUT_MS = 10_000
/** Links followed from the config path when working out what to watch (a loop of links ends here). */
const MAX_LINK_HOPS = 8

export interface ReloaderOptions {
  /** The config file (absolute). */
  file: string
  /**
   * Changes what runs to `config`. Throws when it cannot; the reload is then reported failed. `signal`
   * aborts when the reload timed out: an apply that has not changed anything yet should give up then.
   */
  apply(config: Config, signal: AbortSignal): Promise<void>
  /** Reads and checks the file (default: `loadConfigOffLoop`, in a worker thread). */
  load?(file: string, signal: AbortSignal): Promise<LoadResult>
  /** See RELOAD_TIMEOUT_MS. */
  timeoutMs?: number
  notifier: Notifier
  /** The daemon's one line for systemd's STATUS=, sent with READY=1 when a reload ends. */
  statusLine(): string
  /** A line for the status strip, under the key RELOAD_ERROR_KEY. */
  recordError(message: string, key: string): void
  /** The line under RELOAD_ERROR_KEY no longer holds (a good reload). */
  clearError?(key: string): void
  /** The config's state changed (and once at construction): for the metrics. */
  onState?(state: ConfigState): void
  /** When the running mapping was loaded (the daemon's start), epoch ms; default now. */
  loadedAt?: number
  log: Logger
}

/** The recent errors' key of a refused or failed reload. */
const RELOAD_ERROR_KEY = 'config'

/** The config's state: whether the file on disk runs, and when the running mapping was loaded (epoch ms). */
export interface ConfigState {
  state: 'ok' | 'refused'
  lastGoodLoad: number
  refusedAt?: number
  /** The first problem of a refusal, or why the reload failed (secrets replaced). */
  error?: string
}

export class ConfigReloader {
  /** One watcher per folder of `watchPlan`, with the names in it that concern the config. */
  private watchers: FSWatcher[] = []
  private watching = false
  private timer: NodeJS.Timeout | undefined
  private running: Promise<boolean> | undefined
  /** A reload asked for while one runs: it runs after, as the file may have changed since it was read. */
  private queued: Promise<boolean> | undefined
  private closed = false
  /** Aborts the reload that runs (its worker ended, its pictures' drawing killed). */
  private stopRunning: AbortController | undefined
  private current: ConfigState

  constructor(private readonly o: ReloaderOptions) {
    this.current = { state: 'ok', lastGoodLoad: o.loadedAt ?? Date.now() }
    o.onState?.(this.current)
  }

  /** The config's state now. */
  get state(): Readonly<ConfigState> {
    return this.current
  }

  /** The state as `/api/status` shows it (`configState`), times in ISO. */
  status(): ConfigStateStatus {
    const c = this.current
    return {
      state: c.state,
      lastGoodLoad: new Date(c.lastGoodLoad).toISOString(),
      ...(c.refusedAt !== undefined ? { refusedAt: new Date(c.refusedAt).toISOString() } : {}),
      ...(c.error !== undefined ? { error: c.error } : {}),
    }
  }

  /**
   * Reloads the file now; while a reload runs, once more after it (every request made meanwhile joins
   * that one). Resolves false when it was refused or failed.
   */
  reload(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false)
    if (this.running) {
      this.queued ??= this.running.then(() => {
        this.queued = undefined
        return this.reload()
      })
      return this.queued
    }
    this.running = this.bounded().finally(() => {
      this.running = undefined
    })
    return this.running
  }

  /**
   * Reloads after RELOAD_DEBOUNCE_MS of quiet whenever a watched folder reports a change to the config
   * or to a link on the way to it (`watchPlan`); the folders are worked out again at each change.
   */
  watch(): Promise<void> {
    this.watching = true
    return this.rewatch()
  }

  /**
   * No reload after this; a pending one is dropped, one that runs is stopped (nothing it started keeps
   * running: the daemon is stopping), the folders no longer watched.
   */
  close(): void {
    this.closed = true
    this.stopRunning?.abort()
    clearTimeout(this.timer)
    this.closeWatchers()
  }

  private closeWatchers(): void {
    for (const w of this.watchers.splice(0)) w.close()
  }

  /** Watches the folders of `watchPlan` now (a ConfigMap's update swaps the folder the links lead to). */
  private async rewatch(): Promise<void> {
    const plan = await watchPlan(this.o.file)
    if (this.closed || !this.watching) return
    this.closeWatchers()
    for (const [folder, names] of plan) {
      try {
        const watcher = watch(folder, (_event, file) => {
          if (file !== null && !names.has(file)) return
          clearTimeout(this.timer)
          this.timer = setTimeout(() => void this.rewatch().then(() => this.reload()), RELOAD_DEBOUNCE_MS)
        })
        watcher.on('error', (err) => this.o.log.once('watch', 'warn', 'cannot watch the config folder', { error: err }))
        this.watchers.push(watcher)
      } catch (err) {
        this.o.log.once('watch', 'warn', 'cannot watch the config folder; reload with SIGHUP', {
          folder,
          error: err,
        })
      }
    }
  }

  /**
   * One reload, bounded by `timeoutMs`: one that cannot finish is aborted (its worker ended, its
   * prepared parts closed by `apply`) and reported failed, and the next reload may start at once.
   */
  private async bounded(): Promise<boolean> {
    const abort = new AbortController()
    this.stopRunning = abort
    const ms = this.o.timeoutMs ?? RELOAD_TIMEOUT_MS
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<'timeout'>((done) => {
      timer = setTimeout(() => done('timeout'), ms)
    })
    const result = await Promise.race([this.run(abort.signal), timedOut])
    clearTimeout(timer)
    if (this.stopRunning === abort) this.stopRunning = undefined
    if (result !== 'timeout') return result
    abort.abort()
    this.o.log.error('reload timed out; the last good mapping keeps running', { config: this.o.file, ms })
    this.refused(`reload failed: it did not finish within ${ms} ms`)
    this.o.notifier.ready(this.o.statusLine())
    return false
  }

  private async run(signal: AbortSignal): Promise<boolean> {
    const { log, notifier } = this.o
    notifier.reloading()
    try {
      const loaded = await (this.o.load ?? loadConfigOffLoop)(this.o.file, signal)
      if (signal.aborted) return false
      if (!loaded.config) {
        const errors = loaded.problems.filter((p) => p.severity === 'error').map(formatProblem)
        log.error(`config refused; the last good mapping keeps running:\n${errors.join('\n')}`, {
          config: this.o.file,
          errors: errors.length,
        })
        this.refused(`config refused: ${errors[0] ?? 'unreadable'}`)
        return false
      }
      // As at the start: a warning (a picture that cannot be had: its key says why) is logged, not refused.
      for (const p of loaded.problems) if (p.severity === 'warning') log.warn(formatProblem(p))
      await this.o.apply(loaded.config, signal)
      // An apply that finished after the time-out still changed what runs: the state says so.
      log.info(signal.aborted ? 'config reloaded after the time-out' : 'config reloaded', {
        config: this.o.file,
        bindings: loaded.config.bindings.length,
      })
      this.setState({ state: 'ok', lastGoodLoad: Date.now() })
      this.o.clearError?.(RELOAD_ERROR_KEY)
      return true
    } catch (err) {
      // A reload stopped by its time-out was reported then.
      if (signal.aborted) return false
      log.error('reload failed; the last good mapping keeps running', { error: err })
      this.refused(`reload failed: ${err instanceof Error ? err.message : String(err)}`)
      return false
    } finally {
      if (!signal.aborted) notifier.ready(this.o.statusLine())
    }
  }

  /**
   * The file on disk does not run: said among the recent errors and in the state. A reload that fails
   * in `apply` counts too: the file is not what runs (the steps before the failure may have run).
   */
  private refused(line: string): void {
    const error = redactText(line)
    this.o.recordError(error, RELOAD_ERROR_KEY)
    this.setState({ state: 'refused', lastGoodLoad: this.current.lastGoodLoad, refusedAt: Date.now(), error })
  }

  private setState(next: ConfigState): void {
    this.current = next
    this.o.onState?.(next)
  }
}

/**
 * The folders to watch for `file`, each with the names in it that concern the config: the file's own
 * folder for its name; for each symbolic link on the way (the file itself, a folder link such as a
 * ConfigMap's `..data`), the folder holding the link for the link's name, then the link's target in
 * turn; and the folder the file really is in. A path that cannot be read ends the walk there.
 */
export async function watchPlan(file: string): Promise<Map<string, Set<string>>> {
  const plan = new Map<string, Set<string>>()
  const want = (path: string): void => {
    const folder = dirname(path)
    const names = plan.get(folder) ?? new Set<string>()
    names.add(basename(path))
    plan.set(folder, names)
  }
  const isLink = (path: string): Promise<boolean> =>
    lstat(path).then(
      (st) => st.isSymbolicLink(),
      () => false,
    )
  let path = resolve(file)
  for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
    want(path)
    for (let up = dirname(path); up !== dirname(up); up = dirname(up)) if (await isLink(up)) want(up)
    const target = await readlink(path).catch(() => undefined)
    if (target === undefined) break
    path = resolve(dirname(path), target)
  }
  const real = await realpath(file).catch(() => undefined)
  if (real !== undefined) want(real)
  return plan
}
