/**
 * `run --record FILE` (or `record:` in the config): a show's control input as a trace, one JSON line
 * per fact, for `panelbridge replay` and for "who pressed what, when":
 *
 *     {"t":0,"kind":"start","format":"panelbridge-record","version":1,"started":"2026-11-26T03:40:00.000Z","config":"/etc/panelbridge/config.yaml","pages":{"deck":"main"}}
 *     {"t":812.4,"kind":"input","surface":"deck","control":"key:0","type":"down","source":"surface"}
 *     {"t":815.1,"kind":"command","command":"schedule","params":{"title":"Lower Third","action":"automatic"},"origin":"deck/key:0","outcome":"ok","ms":2.6}
 *     {"t":901.7,"kind":"page","surface":"deck","page":"replay"}
 *
 * `t` is ms since the recording began (the start line's `started`), on the monotonic clock. Inputs are
 * what the engine received (after the input door summed a burst of turns), with where they came from
 * (`source`: `surface` or `api`; `by` and `view` as the event named them). Commands are the sender's
 * records, their parameters redacted once more (src/redact.ts) and their texts bounded. The door's
 * observers see an input after the engine has had it, so a page line comes just before the input
 * line of the press that turned the page, and a command line when the application has answered.
 *
 * The input path never waits for the disk: a line is put in a bounded buffer (RECORD_BUFFER_MAX_CHARS)
 * and written by a flush at least every RECORD_FLUSH_MS and at stop. When the buffer is full (a slow
 * disk), lines are dropped and a warning says so once; the stop says how many. A write that fails (a
 * full disk, an I/O error) stops the recording there (`onFail`: the daemon says so and runs on); what
 * was written stays, in whole lines only: a write that fails or ends short is cut back to the last
 * whole line and its lines counted dropped.
 *
 * The record file is a regular file or nothing: a FIFO or a device (at the start, or put in its place
 * later) is refused, never opened in a way that waits. A file moved away (log rotation) is noticed at
 * the next flush, and the new file at its path starts with a start line of its own (`continued: true`). The file is rotated by size: FILE becomes FILE.1 (FILE.1 becomes FILE.2, ... up to RECORD_KEEP)
 * and the new FILE opens with a start line of its own (`continued: true`), so each file replays alone.
 *
 * Readers of `GET /api/record` follow the same lines (`follow`), handed each line as it is made, before
 * the buffer (a slow disk does not drop a reader's lines); each reader bounds itself (`record-stream.ts`).
 * A start line names the pages as they are when it is written (a page line moves them on).
 */
import { constants as fsc } from 'node:fs'
import { mkdir, open, rename, stat } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { Logger } from '../log.js'
import type { RecordFollower, RecordFollowing } from './api.js'
import type { Config } from '../mappings/schema.js'
import type { SentCommand } from '../mappings/sender.js'
import { LineBuffer } from '../line-buffer.js'
import { redact, redactText } from '../redact.js'
import type { SurfaceEvent } from '../surfaces/types.js'
import type { InputSource } from './input.js'

/** The trace format's name and version (the start line's `format` and `version`). */
export const RECORD_FORMAT = 'panelbridge-record'
const RECORD_VERSION = 1
/** The buffer is written at least this often, ms. */
export const RECORD_FLUSH_MS = 1000
/**
 * Characters waiting to be written at most; beyond, lines are dropped. ASSUMED: 8 Mi characters, a few
 * seconds of the 2,000 deltas/s storm on a disk that stalls, and a bound on the memory it can take.
 */
const RECORD_BUFFER_MAX_CHARS = 8 * 1024 * 1024
/** `--record-max-mb` by default: the file is rotated past this size. */
export const DEFAULT_RECORD_MAX_MB = 100
/** Rotated files kept beside the current one (FILE.1 .. FILE.3). ASSUMED: three. */
export const RECORD_KEEP = 3
/** A command's parameters longer than this in JSON are replaced by a marker (a line stays readable). */
const RECORD_MAX_PARAMS_CHARS = 4000
/** A failure's text is cut to this many characters. */
const RECORD_MAX_MESSAGE_CHARS = 200
/** How long the stop waits for the last write, ms (a hung disk must not hold the daemon's stop). */
export const RECORD_STOP_WAIT_MS = 2000

/**
 * The record file, open for appending, as the recorder uses it (tests pass one that is slow, full or
 * writes short).
 */
export interface RecordHandle {
  /** Which file this is (device and inode): a file moved away and replaced has another. */
  readonly identity: string
  /** The file's size now, bytes. */
  size(): Promise<number>
  /** Whether the file is empty or its last byte ends a line (a line cut by a crash does not). */
  endsLine(): Promise<boolean>
  /** Appends `data`; resolves with the bytes written, fewer than asked on a short write. */
  write(data: Buffer): Promise<number>
  /** Cuts the file back to `length` bytes (a line that could not be written whole goes). */
  truncate(length: number): Promise<void>
  close(): Promise<void>
}

/** The file system as the recorder uses it (tests pass their own). */
export interface RecordFs {
  /**
   * Opens FILE for appending, made when missing: never waits on it (non-blocking), and refuses anything
   * but a regular file (a FIFO or a device put in its place) with `NOT_REGULAR`.
   */
  open(path: string): Promise<RecordHandle>
  rename(from: string, to: string): Promise<void>
  /** The identity of what is at `path` now (as `RecordHandle.identity`); undefined when nothing is. */
  identity(path: string): Promise<string | undefined>
}

/** The error of a record file that is not a regular file (`fileTrouble` says it in words). */
function notRegular(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${path} is not a regular file`), { code: NOT_REGULAR })
}
const NOT_REGULAR = 'NOT_REGULAR'

const identityOf = (st: { dev: number; ino: number }): string => `${st.dev}:${st.ino}`

export const nodeRecordFs: RecordFs = {
  async open(path) {
    // Something already there that is no file is refused before it is opened: opening a FIFO waits for
    // a reader, a device may do anything.
    const before = await stat(path).catch(() => undefined)
    if (before && !before.isFile()) throw notRegular(path)
    // O_NONBLOCK as well: what was put there between the look and the open is never waited on.
    const fh = await open(path, fsc.O_WRONLY | fsc.O_APPEND | fsc.O_CREAT | fsc.O_NONBLOCK, 0o666)
    const st = await fh.stat().catch(async (err: unknown) => {
      await fh.close()
      throw err
    })
    if (!st.isFile()) {
      await fh.close()
      throw notRegular(path)
    }
    return {
      identity: identityOf(st),
      size: async () => (await fh.stat()).size,
      endsLine: async () => {
        const size = (await fh.stat()).size
        if (size === 0) return true
        // Opened for writing only: the last byte is read through a second, read-only descriptor.
        const reader = await open(path, fsc.O_RDONLY | fsc.O_NONBLOCK)
        try {
          const last = Buffer.alloc(1)
          await reader.read(last, 0, 1, size - 1)
          return last[0] === 0x0a
        } finally {
          await reader.close()
        }
      },
      write: async (data) => (await fh.write(data)).bytesWritten,
      truncate: (length) => fh.truncate(length),
      close: () => fh.close(),
    }
  },
  rename: (from, to) => rename(from, to),
  identity: async (path) => {
    try {
      return identityOf(await stat(path))
    } catch {
      return undefined
    }
  },
}

export interface RecorderOptions {
  file: string
  /** Rotate past this many MB (default DEFAULT_RECORD_MAX_MB). */
  maxMb?: number
  /** The config file the recording was made with (the start line names it, for replay). */
  config: string
  /** The current page of each paged surface at the start (replay starts there). */
  pages?: Record<string, string>
  log: Logger
  fs?: RecordFs
  /** Bound of the buffer, characters (default RECORD_BUFFER_MAX_CHARS). */
  bufferMaxChars?: number
  /** A write failed and the recording stopped: `error` says why, as a sentence. Called once. */
  onFail?(error: string): void
}

export class Recorder {
  private readonly fs: RecordFs
  private maxBytes: number
  private readonly t0 = performance.now()
  private readonly started = new Date().toISOString()
  private readonly buffer: LineBuffer
  /** The file being written; replaced when it was moved away (log rotation) or rotated by size. */
  private handle!: RecordHandle
  /** Bytes of the file that end in a whole line: a write that fails is cut back to here. */
  private fileBytes = 0
  private dropped = 0
  private saidDropped = false
  private stopped = false
  /** Why a write failed (the recording stopped then). */
  private failure: string | undefined
  private readonly stopHooks: (() => void)[] = []
  /** The readers of `GET /api/record`. */
  private readonly followers = new Set<RecordFollower>()
  /** Each paged surface's shared page now: what a start line names. */
  private readonly pages: Record<string, string>

  private constructor(private readonly options: RecorderOptions) {
    this.fs = options.fs ?? nodeRecordFs
    this.maxBytes = Math.max(1, options.maxMb ?? DEFAULT_RECORD_MAX_MB) * 1024 * 1024
    this.pages = { ...options.pages }
    this.buffer = new LineBuffer({
      flushMs: RECORD_FLUSH_MS,
      maxChars: options.bufferMaxChars ?? RECORD_BUFFER_MAX_CHARS,
      stopWaitMs: RECORD_STOP_WAIT_MS,
      write: (lines) => this.write(lines),
    })
  }

  /**
   * Opens FILE for appending (throws when it cannot be, or it is no regular file) and puts the start line
   * in the buffer.
   */
  static async open(options: RecorderOptions): Promise<Recorder> {
    const fs = options.fs ?? nodeRecordFs
    const handle = await fs.open(options.file)
    let cut = false
    try {
      cut = !(await handle.endsLine())
    } catch (err) {
      await handle.close().catch(() => undefined)
      throw err
    }
    const r = new Recorder(options)
    r.handle = handle
    r.fileBytes = await handle.size()
    // A line a crash left cut stays alone on its line (a reader skips it), never joined to the start line.
    r.put(`${cut ? '\n' : ''}${r.startLine(false)}`)
    return r
  }

  /** The file being written. */
  get file(): string {
    return this.options.file
  }

  /** Called once at stop (the daemon's observers come off). */
  onStop(hook: () => void): void {
    this.stopHooks.push(hook)
  }

  /**
   * A reader of the recording (`GET /api/record`): the start line to send it first, and every line from
   * now on; undefined once stopped.
   */
  follow(follower: RecordFollower): RecordFollowing | undefined {
    if (this.stopped) return undefined
    this.followers.add(follower)
    return { start: this.startLine(true), stop: () => void this.followers.delete(follower) }
  }

  /** Lines dropped so far (buffer full, or a write failed). */
  get droppedLines(): number {
    return this.dropped
  }

  /** An input as the engine received it (the input door's observer). */
  input(e: SurfaceEvent, source: InputSource): void {
    const line: Record<string, unknown> = {
      t: this.now(),
      kind: 'input',
      surface: e.surface,
      control: e.control,
      type: e.type,
      source,
    }
    if (e.type === 'rotate') line.delta = e.delta
    if (e.type === 'value') {
      line.value = e.value
      if (e.raw !== undefined) line.raw = e.raw
    }
    if (e.type === 'down' && e.velocity !== undefined) line.velocity = e.velocity
    if (e.type === 'up' && e.cancel === true) line.cancel = true
    if (e.view !== undefined) line.view = e.view
    if (e.source !== undefined) line.by = e.source
    this.put(JSON.stringify(line))
  }

  /** A command the bindings sent and its outcome (the daemon's `onSend`). */
  command(c: SentCommand): void {
    let params = redact(c.params)
    if (JSON.stringify(params).length > RECORD_MAX_PARAMS_CHARS) params = { '…': 'parameters too long to record' }
    const line: Record<string, unknown> = {
      t: this.now(),
      kind: 'command',
      command: c.command,
      params,
      origin: c.origin,
      outcome: c.outcome,
      ms: c.durationMs,
    }
    if (c.message !== undefined) line.message = redactText(c.message).slice(0, RECORD_MAX_MESSAGE_CHARS)
    this.put(JSON.stringify(line))
  }

  /** A page turned (the engine's `onPage`). */
  page(surface: string, page: string, view?: string): void {
    if (view === undefined) this.pages[surface] = page
    this.put(JSON.stringify({ t: this.now(), kind: 'page', surface, page, ...(view !== undefined ? { view } : {}) }))
  }

  /**
   * Writes what waits, rotating the file where it would pass its size. One write at a time: a flush
   * while one runs joins it (the buffer keeps filling, up to its bound).
   */
  flush(): Promise<void> {
    return this.buffer.flush()
  }

  /** Stops: the timer ends, what waits is written (within RECORD_STOP_WAIT_MS), the drops are told. */
  async stop(): Promise<void> {
    if (this.stopped) return
    this.halt('the recording stopped')
    await this.buffer.stop()
    // Not awaited past the stop's bound: a close on a hung disk must not hold the daemon's stop.
    void this.handle.close().catch(() => undefined)
    if (this.dropped > 0)
      this.options.log.warn('recording stopped; lines were dropped', { file: this.file, dropped: this.dropped })
    else this.options.log.info('recording stopped', { file: this.file })
  }

  /** Why a write failed, once one did: the recording stopped then. */
  get failed(): string | undefined {
    return this.failure
  }

  /** No line is taken from now on: the observers come off, the readers are ended with `why`. */
  private halt(why: string): void {
    this.stopped = true
    for (const hook of this.stopHooks) hook()
    for (const f of this.followers) f.end(why)
    this.followers.clear()
  }

  /**
   * A write failed (a full disk, an I/O error): the recording stops here. What waits is not written, no
   * line is taken from now on, and `onFail` says why, once.
   */
  private fail(err: unknown): void {
    if (this.failure !== undefined) return
    this.failure = `recording stopped: cannot write ${this.file}: ${fileTrouble(err)}`
    if (!this.stopped) {
      this.halt(this.failure)
      // The timer ends; the lines still waiting reach `append`, which counts them dropped.
      void this.buffer.stop()
    }
    this.options.onFail?.(this.failure)
  }

  private now(): number {
    return Math.round((performance.now() - this.t0) * 10) / 10
  }

  private startLine(continued: boolean): string {
    return JSON.stringify({
      t: this.now(),
      kind: 'start',
      format: RECORD_FORMAT,
      version: RECORD_VERSION,
      started: this.started,
      config: this.options.config,
      ...(Object.keys(this.pages).length > 0 ? { pages: { ...this.pages } } : {}),
      ...(continued ? { continued: true } : {}),
    })
  }

  /** Into the buffer, or dropped when it is full. Never waits. */
  private put(line: string): void {
    if (this.stopped) return
    for (const f of this.followers) f.line(line)
    if (!this.buffer.fits(line.length + 1)) return this.drop(1, 'the disk is too slow')
    this.buffer.push([line], line.length + 1)
  }

  private drop(lines: number, why: string): void {
    this.dropped += lines
    if (this.saidDropped) return
    this.saidDropped = true
    this.options.log.warn(`recording: lines dropped (${why}); the recording goes on with gaps`, { file: this.file })
  }

  /** The lines in parts that fit the file, rotating between them. A part that fails is dropped. */
  private async write(lines: string[]): Promise<void> {
    if (this.failure === undefined && !(await this.sameFile())) {
      this.dropped += lines.length
      return
    }
    let part = ''
    let partBytes = 0
    let partLines = 0
    for (const line of lines) {
      const bytes = Buffer.byteLength(line) + 1
      if (this.fileBytes + partBytes + bytes > this.maxBytes && this.fileBytes + partBytes > 0) {
        await this.append(part, partBytes, partLines)
        await this.rotate()
        part = ''
        partBytes = 0
        partLines = 0
      }
      part += `${line}\n`
      partBytes += bytes
      partLines += 1
    }
    await this.append(part, partBytes, partLines)
  }

  /**
   * Appends whole lines or none: a write that fails or ends short is cut back to the last whole line, its
   * lines counted dropped (a line half written would join the next one and spoil both).
   */
  private async append(text: string, bytes: number, lines: number): Promise<void> {
    if (lines === 0) return
    if (this.failure !== undefined) {
      this.dropped += lines
      return
    }
    const data = Buffer.from(text)
    let written = 0
    try {
      while (written < data.length) {
        const n = await this.handle.write(written === 0 ? data : data.subarray(written))
        if (n <= 0) throw Object.assign(new Error('the disk took no more'), { code: 'ENOSPC' })
        written += n
      }
      this.fileBytes += bytes
    } catch (err) {
      this.dropped += lines
      // Cut back to the last whole line; should even that fail, the next start begins on a line of its own.
      await this.handle.truncate(this.fileBytes).catch(() => undefined)
      this.fail(err)
    }
  }

  /**
   * Whether the file written is still the one at its path. One moved away (log rotation) or replaced is
   * followed: the new file at the path is opened (a regular one only) and starts with its own start
   * line, so it replays alone. False when the new one cannot be opened (the recording stops, said why).
   */
  private async sameFile(): Promise<boolean> {
    const now = await this.fs.identity(this.file)
    if (now === this.handle.identity) return true
    try {
      await this.reopen()
    } catch (err) {
      this.fail(err)
      return false
    }
    this.options.log.info('recording: the file was moved away; a new one is started', { file: this.file })
    const start = this.startLine(true)
    await this.append(`${start}\n`, Buffer.byteLength(start) + 1, 1)
    return this.failure === undefined
  }

  /** Closes the file written and opens the one at its path now. */
  private async reopen(): Promise<void> {
    const old = this.handle
    this.handle = await this.fs.open(this.file)
    this.fileBytes = await this.handle.size()
    void old.close().catch(() => undefined)
  }

  /** FILE → FILE.1 → ... → FILE.RECORD_KEEP (the oldest replaced); the new FILE starts with a start line. */
  private async rotate(): Promise<void> {
    const file = this.file
    try {
      for (let i = RECORD_KEEP - 1; i >= 1; i--)
        await this.fs.rename(`${file}.${i}`, `${file}.${i + 1}`).catch(() => {})
      await this.fs.rename(file, `${file}.1`)
    } catch (err) {
      // The file could not be moved aside: it grows on rather than losing lines, and no more is tried.
      this.maxBytes = Number.POSITIVE_INFINITY
      this.options.log.warn('recording: the file could not be rotated; it grows on', { file, error: String(err) })
      return
    }
    try {
      await this.reopen()
    } catch (err) {
      this.fail(err)
      return
    }
    const start = this.startLine(true)
    await this.append(`${start}\n`, Buffer.byteLength(start) + 1, 1)
  }
}

/**
 * The folder a relative `record.file` of the config is taken from: the service's state folder
 * (`$STATE_DIRECTORY`, which systemd sets for `StateDirectory=`; the first when it names several), else
 * the config file's folder.
 */
export function recordFolder(configFile: string, env: NodeJS.ProcessEnv = process.env): string {
  return serviceStateFolder(env) ?? dirname(configFile)
}

/** The service's state folder (`$STATE_DIRECTORY`, the first when it names several), absolute; none outside systemd. */
export function serviceStateFolder(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const state = env.STATE_DIRECTORY?.split(':')[0]
  return state ? resolve(state) : undefined
}

/** What `run --record` or the config's `record:` asks for. */
export interface RecordWanted {
  /** The trace file (`--record`'s, a relative one taken from the current folder). */
  file: string
  maxMb?: number
}

/** The file to record into and its rotation size: what `run --record` or the config's `record:` asks for. */
export interface RecordTarget {
  /** Absolute. */
  file: string
  maxMb?: number
  /**
   * The service's state folder, when a relative `record.file` lives in it: the folders between it and the
   * file are made when missing (`record: { file: shows/monday.jsonl }` in a new state folder).
   */
  stateFolder?: string
}

/**
 * What to record into: `wanted` (`run --record`, relative to the current folder) over the config's
 * `record:` (relative to `recordFolder`), or nothing.
 */
export function recordTarget(
  wanted: RecordWanted | undefined,
  config: Config,
  configFile: string,
  env: NodeJS.ProcessEnv = process.env,
): RecordTarget | undefined {
  if (wanted) return { ...wanted, file: resolve(wanted.file) }
  if (!config.record) return undefined
  const folder = recordFolder(configFile, env)
  const file = resolve(folder, config.record.file)
  const inState = env.STATE_DIRECTORY ? { stateFolder: folder } : {}
  return config.record.max_mb !== undefined ? { file, maxMb: config.record.max_mb, ...inState } : { file, ...inState }
}

/**
 * Makes the folders between the state folder and the record file (mode 0750, as systemd makes the state
 * folder itself), for a relative `record.file` under `StateDirectory=`; only inside that folder, never
 * elsewhere: a missing folder anywhere else is a mistake to report (a backup disk not mounted), not one
 * to paper over. A failure is left to the open that follows, which says why.
 */
export async function makeStateFolders(target: RecordTarget): Promise<void> {
  if (target.stateFolder === undefined) return
  const folder = dirname(target.file)
  const inside = relative(target.stateFolder, folder)
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return
  await mkdir(folder, { recursive: true, mode: 0o750 }).catch(() => undefined)
}

/**
 * Why a record file could not be opened or written, in words with the system's code (`permission denied
 * (EACCES)`); a failure without a code by its message.
 */
export function fileTrouble(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  const words = code === undefined ? undefined : FILE_TROUBLES[code]
  // Our own code is no system's: the words alone.
  if (words !== undefined) return code === NOT_REGULAR ? words : `${words} (${code})`
  if (code !== undefined) return code
  return err instanceof Error ? err.message : String(err)
}

const FILE_TROUBLES: Readonly<Record<string, string>> = {
  ENOENT: 'its folder does not exist',
  ENOTDIR: 'a part of its path is not a folder',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EIO: 'the disk reported an input/output error',
  EFBIG: 'the file is too large',
  [NOT_REGULAR]: 'it is not a regular file (a pipe, a device or a socket); a recording is written to a file only',
  ENXIO: 'it is a pipe or a device, not a regular file',
}

/** `--record FILE [--record-max-mb N]` as a RecordWanted; throws a usage error's text when they are wrong. */
export function recordWanted(file: string | undefined, maxMb: string | undefined): RecordWanted | undefined {
  if (maxMb !== undefined && file === undefined) throw new Error('--record-max-mb goes with --record FILE')
  if (file === undefined) return undefined
  if (file === '') throw new Error('--record needs a file name')
  if (maxMb === undefined) return { file }
  const n = Number(maxMb)
  if (!/^\d+$/.test(maxMb.trim()) || !Number.isSafeInteger(n) || n < 1 || n > 100_000)
    throw new Error(`--record-max-mb takes a whole number of MB from 1 to 100000 (not '${maxMb}')`)
  return { file, maxMb: n }
}
