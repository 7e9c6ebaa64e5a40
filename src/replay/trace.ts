/**
 * Reads a recording (`run --record`, src/daemon/recorder.ts) for `panelbridge replay`: its start line,
 * its inputs (what the engine received, with their times) and the commands the run sent. A trace may
 * come from anywhere (a bug report), so it is read as a stream and bounded (`REPLAY_LIMITS`):
 *
 * - a regular file only (a FIFO is never waited on, /dev/zero never read without end), of a bounded size;
 * - line by line, split on bytes: a line longer than the bound is skipped whole as it streams past,
 *   never held; the reader's own memory does not grow with the file's length;
 * - a record nested deeper than the bound is no record (looked at before it is parsed);
 * - what is kept (the inputs and commands) is bounded in count and characters: a longer show is refused
 *   in words (its rotated files each replay alone);
 * - a line that is not a well-formed record is counted and skipped, never trusted.
 *
 * `t` is ms since the recording began and grows for as long as the show runs: any time a show can last
 * is taken (days, years), only a negative or unbounded one is no record.
 */
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { RECORD_FORMAT } from '../daemon/recorder.js'
import { kindOf } from '../read-regular.js'
import type { SurfaceEvent } from '../surfaces/types.js'

/** The bounds of a trace read; every one can be lowered through `TraceReadOptions` (tests). */
export const REPLAY_LIMITS = {
  /** A trace longer than this is refused. ASSUMED: 1 GiB, ten of the recorder's default files. */
  maxBytes: 1024 * 1024 * 1024,
  /** A longer line is skipped whole (the recorder's lines are far shorter), bytes. */
  maxLineBytes: 64 * 1024,
  /** At most this many lines are read. */
  maxLines: 10_000_000,
  /**
   * Inputs and commands kept at most: a longer trace is refused. ASSUMED: a million, hours of a busy
   * show; the recorder's rotated files (100 MB each by default) stay well within it.
   */
  maxRecords: 1_000_000,
  /** Characters of the kept records' lines at most (what they hold in memory). ASSUMED: 256 Mi. */
  maxKeptChars: 256 * 1024 * 1024,
  /** A record nested deeper (objects and arrays) is no record. The recorder's are 3 deep. */
  maxDepth: 32,
  /** A `t` past this is no record. ASSUMED: 1e12 ms, over 30 years of show. */
  maxTimeMs: 1e12,
} as const

/** The longest line taken, characters (the recorder's lines are far shorter). */
export const REPLAY_MAX_LINE_CHARS = REPLAY_LIMITS.maxLineBytes

/** A rotate's delta or a value beyond this is not a device's: the line is skipped. */
const MAX_MAGNITUDE = 1_000_000

/** Bounds lowered for a test (a long line of a few MB against a lowered line bound). */
export type TraceReadOptions = Partial<Record<keyof typeof REPLAY_LIMITS, number>>

/** One input as recorded: the event without its stamp, and when it came (ms since the start). */
export interface TraceInput {
  t: number
  source: 'surface' | 'api'
  event: Omit<SurfaceEvent, 'at'>
}

/** One command the recorded run sent. */
export interface TraceCommand {
  t: number
  command: string
  params: Record<string, unknown>
  origin: string
  outcome: string
}

export interface Trace {
  /** The config the recording was made with (its start line), if it named one. */
  config?: string
  /** The start page of each paged surface, as the recording began. */
  pages: Record<string, string>
  inputs: TraceInput[]
  commands: TraceCommand[]
  /** Lines that were not records (bad JSON, unknown kind, wrong fields, too long). */
  skipped: number
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
function isText(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= 256
}
function isNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= MAX_MAGNITUDE
}
/** A time since the recording began: any length of show. */
function isTime(v: unknown, max: number): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= max
}

/** The event of an input line, or undefined when it is not one. */
function inputOf(r: Record<string, unknown>, maxT: number): TraceInput | undefined {
  if (!isTime(r.t, maxT) || !isText(r.surface) || !isText(r.control)) return undefined
  if (r.source !== 'surface' && r.source !== 'api') return undefined
  const base: Record<string, unknown> = { surface: r.surface, control: r.control }
  if (isText(r.view)) base.view = r.view
  if (isText(r.by)) base.source = r.by
  let event: Record<string, unknown>
  switch (r.type) {
    case 'down':
      event = { ...base, type: 'down', ...(isNumber(r.velocity) ? { velocity: r.velocity } : {}) }
      break
    case 'up':
      event = { ...base, type: 'up', ...(r.cancel === true ? { cancel: true } : {}) }
      break
    case 'rotate':
      if (!isNumber(r.delta)) return undefined
      event = { ...base, type: 'rotate', delta: r.delta }
      break
    case 'value':
      if (!isNumber(r.value)) return undefined
      event = { ...base, type: 'value', value: r.value, ...(isNumber(r.raw) ? { raw: r.raw } : {}) }
      break
    default:
      return undefined
  }
  return { t: r.t, source: r.source, event: event as Omit<SurfaceEvent, 'at'> }
}

function commandOf(r: Record<string, unknown>, maxT: number): TraceCommand | undefined {
  if (!isTime(r.t, maxT) || !isText(r.command) || !isText(r.origin) || !isText(r.outcome) || !isObject(r.params))
    return undefined
  return { t: r.t, command: r.command, params: r.params, origin: r.origin, outcome: r.outcome }
}

/** Whether `text` (JSON) nests objects and arrays deeper than `max`: looked at without parsing it. */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // a backslash: the next character is escaped
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}

/** A trace being read, with what it keeps counted against the bounds. */
interface Reading {
  trace: Trace
  limits: Record<keyof typeof REPLAY_LIMITS, number>
  keptChars: number
}

/** Takes one line into the trace; false when it is not a record. Throws when the trace keeps too much. */
function take(reading: Reading, line: string): boolean {
  const { trace, limits } = reading
  if (line.length > limits.maxLineBytes || nestedDeeperThan(line, limits.maxDepth)) return false
  let r: unknown
  try {
    r = JSON.parse(line)
  } catch {
    return false
  }
  if (!isObject(r)) return false
  if (r.kind === 'start') {
    if (r.format !== RECORD_FORMAT) return false
    // A rotated file's own start line repeats the first: the first one read is kept.
    if (trace.config === undefined && typeof r.config === 'string') trace.config = r.config
    if (isObject(r.pages) && Object.keys(trace.pages).length === 0)
      for (const [s, p] of Object.entries(r.pages)) if (isText(p)) trace.pages[s] = p
    return true
  }
  if (r.kind === 'page') return isText(r.surface) && isText(r.page)
  if (r.kind === 'input') {
    const input = inputOf(r, limits.maxTimeMs)
    if (input) keep(reading, line, () => trace.inputs.push(input))
    return input !== undefined
  }
  if (r.kind === 'command') {
    const command = commandOf(r, limits.maxTimeMs)
    if (command) keep(reading, line, () => trace.commands.push(command))
    return command !== undefined
  }
  return false
}

/** Keeps one record, or refuses the trace when it would keep more than its bounds. */
function keep(reading: Reading, line: string, push: () => void): void {
  const { trace, limits } = reading
  reading.keptChars += line.length
  if (trace.inputs.length + trace.commands.length >= limits.maxRecords || reading.keptChars > limits.maxKeptChars)
    throw new Error(
      `more than ${limits.maxRecords} records or ${limits.maxKeptChars} characters of them: too long to replay at once; replay it in parts (each file the recorder rotates replays alone)`,
    )
  push()
}

/**
 * The lines of a byte stream, split on bytes: each line as text (its `\r\n` or `\n` taken off), or
 * `undefined` for a line longer than `maxLineBytes`, which is skipped whole as it streams past (never
 * held: only the bytes of a line within the bound are kept while it is read).
 */
export async function* linesOf(
  chunks: AsyncIterable<Buffer>,
  maxLineBytes: number,
): AsyncGenerator<string | undefined> {
  let parts: Buffer[] = []
  let length = 0
  let tooLong = false
  const line = (last: Buffer): string | undefined => {
    if (tooLong || length + last.length > maxLineBytes) return undefined
    const bytes = parts.length === 0 ? last : Buffer.concat([...parts, last])
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length
    return bytes.toString('utf8', 0, end)
  }
  for await (const chunk of chunks) {
    let from = 0
    for (let at = chunk.indexOf(0x0a, from); at !== -1; at = chunk.indexOf(0x0a, from)) {
      yield line(chunk.subarray(from, at))
      parts = []
      length = 0
      tooLong = false
      from = at + 1
    }
    if (from === chunk.length || tooLong) continue
    const rest = chunk.subarray(from)
    if (length + rest.length > maxLineBytes) {
      // Too long already: what came of it is let go, and the rest of it is not kept either.
      tooLong = true
      parts = []
      length = 0
      continue
    }
    parts.push(rest)
    length += rest.length
  }
  if (tooLong || length > 0) yield line(Buffer.alloc(0))
}

/**
 * Reads a trace file; throws, in words, when it cannot be read, is not a regular file, is too large,
 * or keeps more records than a replay takes at once.
 */
export async function readTrace(file: string, options: TraceReadOptions = {}): Promise<Trace> {
  const limits = { ...REPLAY_LIMITS, ...options }
  // Non-blocking: a FIFO put in a trace's place is refused, never waited on.
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const st = await handle.stat()
    if (!st.isFile()) throw new Error(`${kindOf(st)}, not a trace file: a trace is read from a regular file only`)
    if (st.size > limits.maxBytes) throw new Error(`${st.size} bytes, over the ${limits.maxBytes} a trace may have`)
    // At most the bound is read, should the file grow while it is read.
    const stream = handle.createReadStream({ start: 0, end: limits.maxBytes - 1, autoClose: false })
    try {
      return await traceFromLines(linesOf(stream, limits.maxLineBytes), limits)
    } finally {
      stream.destroy()
    }
  } finally {
    await handle.close()
  }
}

/**
 * The trace of lines as `linesOf` gives them (`undefined`: a line too long, skipped). Throws, in words,
 * when it keeps more records than a replay takes at once.
 */
export async function traceFromLines(
  lines: AsyncIterable<string | undefined>,
  options: TraceReadOptions = {},
): Promise<Trace> {
  const limits = { ...REPLAY_LIMITS, ...options }
  const trace: Trace = { pages: {}, inputs: [], commands: [], skipped: 0 }
  const reading: Reading = { trace, limits, keptChars: 0 }
  let n = 0
  for await (const line of lines) {
    if (++n > limits.maxLines) break
    if (line === undefined) trace.skipped++
    else if (line.trim() !== '' && !take(reading, line)) trace.skipped++
  }
  // Inputs in the order of their times (the recorder writes them so; a hand-made trace may not).
  trace.inputs.sort((a, b) => a.t - b.t)
  return trace
}
