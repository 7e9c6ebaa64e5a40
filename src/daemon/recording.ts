/**
 * The daemon's recording (`run --record`, the config's `record:`; the trace itself is `recorder.ts`'s) and
 * its state, for `/api/status` (`recording`), `/metrics` (`panelbridge_recording{state}`) and the page's
 * status strip.
 *
 * A recording never takes the desk down. A record file that cannot be opened (its folder missing, no
 * permission, a read-only file system), or a write that fails mid-show (a full disk, an I/O error), is a
 * warning: logged once until it changes, the state `failed` with why, and the daemon runs on without
 * recording (what was written stays). Presses never wait for the recording, whatever its state.
 */
import type { Logger } from '../log.js'
import type { RecordingStatus } from './api.js'
import type { Config } from '../mappings/schema.js'
import type { SurfaceEvent } from '../surfaces/types.js'
import type { InputSource } from './input.js'
import {
  DEFAULT_RECORD_MAX_MB,
  fileTrouble,
  makeStateFolders,
  Recorder,
  recordTarget,
  type RecordFs,
  type RecordTarget,
  type RecordWanted,
} from './recorder.js'

export interface RecordingOptions {
  door: { observe(observer: (e: SurfaceEvent, source: InputSource) => void): () => void }
  pageOf(surface: string): string | undefined
  log: Logger
  fs?: RecordFs
  /** The state changed (and once at construction): for the metrics. */
  onState?(status: RecordingStatus): void
}

export class Recording {
  private recorder: Recorder | undefined
  /** What was asked for last (recording or failed). */
  private target: RecordTarget | undefined
  private current: RecordingStatus = { state: 'off' }
  /** The last warning logged: the same one is not logged again until another state came between. */
  private warned: string | undefined
  /** The daemon stops: a recorder opened from now on (a reload's, late) is stopped at once. */
  private closed = false

  constructor(private readonly o: RecordingOptions) {
    o.onState?.(this.current)
  }

  /** The recorder writing now, if any. */
  get active(): Recorder | undefined {
    return this.recorder
  }

  status(): RecordingStatus {
    return { ...this.current }
  }

  /** Starts recording what `wanted` (`run --record`) or the config's `record:` asks for; never throws. */
  async start(wanted: RecordWanted | undefined, config: Config, configFile: string): Promise<void> {
    const target = recordTarget(wanted, config, configFile)
    this.target = target
    if (target) await this.open(target, config, configFile)
  }

  /**
   * A reload: the recording follows the new config's `record:` (`run --record`, when given, stays as it
   * is). The same file and size, recording: it runs on. `record:` gained: the recording starts; lost: it
   * stops; another file: the new one is opened before the old one stops (no input falls between), and
   * the old one stops even when the new one cannot be opened; the size alone: the file's recording starts
   * again (a start line of its own, the file continued). A recording that had failed is tried again.
   * Never throws.
   */
  async apply(wanted: RecordWanted | undefined, config: Config, configFile: string): Promise<void> {
    const target = recordTarget(wanted, config, configFile)
    const before = this.target
    if (this.recorder && target && before && sameTarget(target, before)) return
    this.target = target
    const old = this.recorder
    this.recorder = undefined
    if (!target) {
      this.setState({ state: 'off' })
      this.warned = undefined
      await old?.stop()
      return
    }
    // The same file is never written by two recorders at once.
    if (old && before?.file === target.file) await old.stop()
    await this.open(target, config, configFile)
    await old?.stop()
  }

  /** Stops the recording (the daemon's stop). */
  async stop(): Promise<void> {
    this.closed = true
    const recorder = this.recorder
    this.recorder = undefined
    await recorder?.stop()
  }

  /** Opens `target`; a file that cannot be opened leaves the state `failed` with why. */
  private async open(target: RecordTarget, config: Config, configFile: string): Promise<void> {
    const pages: Record<string, string> = {}
    for (const surface of Object.keys(config.pages)) {
      const page = this.o.pageOf(surface)
      if (page !== undefined) pages[surface] = page
    }
    let recorder: Recorder | undefined
    // A write that fails stops that recorder; the state says so while it is the one in use.
    const onFail = (error: string): void => {
      if (recorder === undefined || this.recorder !== recorder) return
      this.recorder = undefined
      this.failed(target.file, error)
    }
    try {
      await makeStateFolders(target)
      recorder = await Recorder.open({
        file: target.file,
        ...(target.maxMb !== undefined ? { maxMb: target.maxMb } : {}),
        config: configFile,
        pages,
        log: this.o.log,
        onFail,
        ...(this.o.fs ? { fs: this.o.fs } : {}),
      })
    } catch (err) {
      this.failed(target.file, `not recording: cannot open ${target.file}: ${fileTrouble(err)}`)
      return
    }
    if (this.closed) return recorder.stop()
    const detach = this.o.door.observe((e, source) => recorder.input(e, source))
    recorder.onStop(detach)
    this.recorder = recorder
    this.warned = undefined
    this.setState({ state: 'recording', file: target.file })
    this.o.log.info('recording the control input', {
      file: target.file,
      max_mb: target.maxMb ?? DEFAULT_RECORD_MAX_MB,
    })
  }

  /**
   * The recording cannot go on (or start): `error` is the sentence the status strip shows. Logged once
   * until it changes; the daemon runs on without a recording.
   */
  private failed(file: string, error: string): void {
    this.setState({ state: 'failed', file, error })
    if (this.warned === error) return
    this.warned = error
    this.o.log.warn(`${error}; the daemon runs on without a recording`, { file })
  }

  private setState(next: RecordingStatus): void {
    this.current = next
    this.o.onState?.(this.status())
  }
}

function sameTarget(a: RecordTarget, b: RecordTarget): boolean {
  return a.file === b.file && (a.maxMb ?? DEFAULT_RECORD_MAX_MB) === (b.maxMb ?? DEFAULT_RECORD_MAX_MB)
}
