/**
 * Reloading the config: when the file changes (its folder is watched: editors replace files) and on
 * SIGHUP (`Daemon.reload`). One reload at a time; the file is read and checked here, and a config that
 * loads is handed to `apply` (the daemon's, which changes what runs). A refused file, or an `apply`
 * that throws, is logged and kept among the recent errors, and the last good mapping keeps running.
 *
 * It keeps the config's state for `/api/status` and `/metrics` (`status()`, `onState`): `ok` while the
 * file on disk runs, `refused` from a refused or failed reload until a good one, and when the mapping
 * that runs was loaded, so a box managed from git can alert on a bad push.
 */
import { watch, type FSWatcher } from 'node:fs'
import { basename, dirname } from 'node:path'
import type { Logger } from '../log.js'
import { redactText } from '../redact.js'
import { formatProblem, loadConfigFile } from '../mappings/load.js'
import type { Config } from '../mappings/schema.js'
import type { ConfigStateStatus } from './api.js'
import type { Notifier } from './sd-notify.js'

/** Editors write a file in bursts (truncate, write, rename): a reload waits for quiet this long, ms. */
export const RELOAD_DEBOUNCE_MS = 200

export interface ReloaderOptions {
  /** The config file (absolute). */
  file: string
  /** Changes what runs to `config`. Throws when it cannot; the reload is then reported failed. */
  apply(config: Config): Promise<void>
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
export const RELOAD_ERROR_KEY = 'config'

/** The config's state: whether the file on disk runs, and when the running mapping was loaded (epoch ms). */
export interface ConfigState {
  state: 'ok' | 'refused'
  lastGoodLoad: number
  refusedAt?: number
  /** The first problem of a refusal, or why the reload failed (secrets replaced). */
  error?: string
}

export class ConfigReloader {
  private watcher: FSWatcher | undefined
  private timer: NodeJS.Timeout | undefined
  private running: Promise<boolean> | undefined
  private closed = false
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

  /** Reloads the file now (or joins the reload under way). Resolves false when it was refused or failed. */
  reload(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false)
    this.running ??= this.run().finally(() => {
      this.running = undefined
    })
    return this.running
  }

  /** Reloads after RELOAD_DEBOUNCE_MS of quiet whenever the file's folder reports a change to it. */
  watch(): void {
    const name = basename(this.o.file)
    try {
      this.watcher = watch(dirname(this.o.file), (_event, file) => {
        if (file !== null && file !== name) return
        clearTimeout(this.timer)
        this.timer = setTimeout(() => void this.reload(), RELOAD_DEBOUNCE_MS)
      })
      this.watcher.on('error', (err) =>
        this.o.log.once('watch', 'warn', 'cannot watch the config folder', { error: err }),
      )
    } catch (err) {
      this.o.log.once('watch', 'warn', 'cannot watch the config folder; reload with SIGHUP', { error: err })
    }
  }

  /** No reload after this; a pending one is dropped, the folder no longer watched. */
  close(): void {
    this.closed = true
    clearTimeout(this.timer)
    this.watcher?.close()
  }

  private async run(): Promise<boolean> {
    const { log, notifier } = this.o
    notifier.reloading()
    try {
      const loaded = await loadConfigFile(this.o.file)
      if (!loaded.config) {
        const errors = loaded.problems.filter((p) => p.severity === 'error').map(formatProblem)
        log.error(`config refused; the last good mapping keeps running:\n${errors.join('\n')}`, {
          config: this.o.file,
          errors: errors.length,
        })
        this.refused(`config refused: ${errors[0] ?? 'unreadable'}`)
        return false
      }
      await this.o.apply(loaded.config)
      log.info('config reloaded', { config: this.o.file, bindings: loaded.config.bindings.length })
      this.setState({ state: 'ok', lastGoodLoad: Date.now() })
      this.o.clearError?.(RELOAD_ERROR_KEY)
      return true
    } catch (err) {
      log.error('reload failed; the last good mapping keeps running', { error: err })
      this.refused(`reload failed: ${err instanceof Error ? err.message : String(err)}`)
      return false
    } finally {
      notifier.ready(this.o.statusLine())
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
