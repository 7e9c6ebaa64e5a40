/**
 * Reloading the config: when the file changes (its folder is watched: editors replace files) and on
 * SIGHUP (`Daemon.reload`). One reload at a time; the file is read and checked here, and a config that
 * loads is handed to `apply` (the daemon's, which changes what runs). A refused file, or an `apply`
 * that throws, is logged and kept among the recent errors, and the last good mapping keeps running.
 */
import { watch, type FSWatcher } from 'node:fs'
import { basename, dirname } from 'node:path'
import type { Logger } from '../log.js'
import { formatProblem, loadConfigFile } from '../mappings/load.js'
import type { Config } from '../mappings/schema.js'
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
  /** A line for the status strip. */
  recordError(message: string): void
  log: Logger
}

export class ConfigReloader {
  private watcher: FSWatcher | undefined
  private timer: NodeJS.Timeout | undefined
  private running: Promise<boolean> | undefined
  private closed = false

  constructor(private readonly o: ReloaderOptions) {}

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
        this.o.recordError(`config refused: ${errors[0] ?? 'unreadable'}`)
        return false
      }
      await this.o.apply(loaded.config)
      log.info('config reloaded', { config: this.o.file, bindings: loaded.config.bindings.length })
      return true
    } catch (err) {
      log.error('reload failed; the last good mapping keeps running', { error: err })
      this.o.recordError(`reload failed: ${err instanceof Error ? err.message : String(err)}`)
      return false
    } finally {
      notifier.ready(this.o.statusLine())
    }
  }
}
