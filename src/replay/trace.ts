/**
 * Reads a recording (`run --record`, src/daemon/recorder.ts) for `panelbridge replay`: its start line,
 * its inputs (what the engine received, with their times) and the commands the run sent. A trace may
 * come from anywhere (a bug report): it is bounded (REPLAY_MAX_BYTES, REPLAY_MAX_LINE_CHARS,
 * REPLAY_MAX_LINES), and a line that is not a well-formed record is counted and skipped, never trusted.
 */
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { RECORD_FORMAT } from '../daemon/recorder.js'
import type { SurfaceEvent } from '../surfaces/types.js'

/** A trace longer than this is refused. ASSUMED: 1 GiB, ten of the recorder's default files. */
const REPLAY_MAX_BYTES = 1024 * 1024 * 1024
/** A longer line is skipped (the recorder's lines are far shorter). */
export const REPLAY_MAX_LINE_CHARS = 64 * 1024
/** At most this many lines are read. */
const REPLAY_MAX_LINES = 10_000_000
/** A rotate's delta or a value beyond this is not a device's: the line is skipped. */
const MAX_MAGNITUDE = 1_000_000

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

/** The event of an input line, or undefined when it is not one. */
function inputOf(r: Record<string, unknown>): TraceInput | undefined {
  if (!isNumber(r.t) || !isText(r.surface) || !isText(r.control)) return undefined
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

function commandOf(r: Record<string, unknown>): TraceCommand | undefined {
  if (!isNumber(r.t) || !isText(r.command) || !isText(r.origin) || !isText(r.outcome) || !isObject(r.params))
    return undefined
  return { t: r.t, command: r.command, params: r.params, origin: r.origin, outcome: r.outcome }
}

/** Takes one line into the trace; false when it is not a record. */
function take(trace: Trace, line: string): boolean {
  if (line.length > REPLAY_MAX_LINE_CHARS) return false
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
    const input = inputOf(r)
    if (input) trace.inputs.push(input)
    return input !== undefined
  }
  if (r.kind === 'command') {
    const command = commandOf(r)
    if (command) trace.commands.push(command)
    return command !== undefined
  }
  return false
}

/** Reads a trace file; throws when it cannot be read or is too large. */
export async function readTrace(file: string): Promise<Trace> {
  const size = (await stat(file)).size
  if (size > REPLAY_MAX_BYTES) throw new Error(`${file}: ${size} bytes, over the ${REPLAY_MAX_BYTES} a trace may have`)
  const trace: Trace = { pages: {}, inputs: [], commands: [], skipped: 0 }
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })
  let n = 0
  for await (const line of lines) {
    if (++n > REPLAY_MAX_LINES) break
    if (line.trim() === '') continue
    if (!take(trace, line)) trace.skipped++
  }
  lines.close()
  // Inputs in the order of their times (the recorder writes them so; a hand-made trace may not).
  trace.inputs.sort((a, b) => a.t - b.t)
  return trace
}
