/**
 * The structured logger, carried by pino. One record per line on stderr: JSON lines under journald
 * (`JOURNAL_STREAM`) or whenever stderr is not a terminal, one readable line per record on a terminal
 * (through pino-pretty, loaded only then). Each Logger writes through a pino child bound to its scope
 * (`surfaces`, `streamdeck/CL12K1A00042`, ...), so a journal can be filtered by layer
 * (`journalctl -u panelbridge -o cat | jq 'select(.scope == "surfaces")'`).
 *
 * What is ours and what is pino's:
 * - The level threshold is the pino root's level (`setLogLevel`, `PANELBRIDGE_LOG_LEVEL`); children
 *   follow it.
 * - Secrets and bounds: every message and field is copied through src/redact.ts before pino sees it
 *   (secrets inside texts and at any depth, texts cut, depth and entries bounded); pino's `redact`
 *   paths are a second net for the secret field names.
 * - The record shape (`level` by name, ISO `time`, `scope`, `msg`, the fields) is pino's `formatters`;
 *   a field named like one of pino's own keys is written as `_name`.
 * - Warnings and errors are rate-limited per Logger in pino's `hooks.logMethod`: at most
 *   LOG_LIMITS.rateBurst records per LOG_LIMITS.rateWindowMs; what is held back is counted and reported in one
 *   line when the window passes.
 * - `once(key, ...)` logs a fault the first time only, until `clear(key)`: a dropped socket or an
 *   unplugged device is logged once, not on every retry. Keys often carry names a peer chose (an
 *   unknown method, a signal), so a Logger remembers at most LOG_LIMITS.onceMaxKeys of them, the least
 *   recently seen forgotten first.
 *
 * `setLogSink` hands every record, after the threshold, the rate limit and redaction, to a function
 * instead of pino's writer (tests capture records with it); a Logger made with its own `sink` writes
 * there whatever the global sink is.
 */
import { createRequire } from 'node:module'
import {
  pino,
  stdTimeFunctions,
  type DestinationStream,
  type LogFn,
  type Logger as PinoLogger,
  type LoggerOptions as PinoOptions,
} from 'pino'
import type PinoPretty from 'pino-pretty'
import { LruMap } from './lru.js'
import { cutText, redact, redactText, SECRET_FIELD_NAMES } from './redact.js'

export { REDACT_LIMITS, redact, redactText } from './redact.js'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
const LEVEL_NAMES: readonly LogLevel[] = ['debug', 'info', 'warn', 'error']
/** Our level names by pino's level numbers (the names are pino's own: the JSON `level` field is the name). */
const LEVEL_OF_VALUE: ReadonlyMap<number, LogLevel> = new Map(
  LEVEL_NAMES.map((name) => [pino.levels.values[name]!, name]),
)
const WARN_VALUE = pino.levels.values.warn!

export interface LogRecord {
  level: LogLevel
  scope: string
  message: string
  fields?: Record<string, unknown>
}
export type LogSink = (record: LogRecord) => void

/** A logger's bounds. */
export const LOG_LIMITS = {
  /** Most `once` keys a logger remembers; past it the least recently seen key is forgotten. */
  onceMaxKeys: 1000,
  /** A `once` key is cut to this many characters (keys often embed a name a peer chose). */
  onceMaxKeyChars: 200,
  /** The rate-limit window for warnings and errors, per logger, ms. */
  rateWindowMs: 10_000,
  /** Warnings and errors written per window and logger; the rest are counted and reported once. */
  rateBurst: 20,
} as const

/** Overrides of the logger's bounds (tests and the bench lower them). */
export interface LoggerLimits {
  onceMaxKeys: number
  rateWindowMs: number
  rateBurst: number
}
/** A Logger's bounds, and optionally a sink of its own (a test hands a class a Logger that captures). */
export interface LoggerOptions extends LoggerLimits {
  sink: LogSink
}
const DEFAULT_LIMITS: LoggerLimits = {
  onceMaxKeys: LOG_LIMITS.onceMaxKeys,
  rateWindowMs: LOG_LIMITS.rateWindowMs,
  rateBurst: LOG_LIMITS.rateBurst,
}

/** How records are written: JSON lines (journald, files, pipes) or one readable line (a terminal). */
export type LogFormat = 'json' | 'pretty'

/**
 * The format for this process: `PANELBRIDGE_LOG_FORMAT` (`json` or `pretty`) when set; else JSON under
 * journald (`JOURNAL_STREAM`) or when stderr is not a terminal; else pretty.
 */
export function chooseLogFormat(
  env: NodeJS.ProcessEnv = process.env,
  isTTY = process.stderr.isTTY === true,
): LogFormat {
  const forced = env.PANELBRIDGE_LOG_FORMAT
  if (forced === 'json' || forced === 'pretty') return forced
  if (env.JOURNAL_STREAM !== undefined && env.JOURNAL_STREAM !== '') return 'json'
  return isTTY ? 'pretty' : 'json'
}

/** Pino child loggers a sink keeps per scope; past it the oldest is dropped (scopes may carry device ids). */
const LOG_MAX_SCOPES = 256

/**
 * Keys pino and pino-pretty give a meaning of their own. A field with one of these names is written as
 * `_name`, so that it can neither replace the record's own level, time, message or scope nor produce a
 * duplicate JSON key, and a terminal line shows it among the fields (pino-pretty would read `name` and
 * `caller` as the logger's name and call site, and leave `timestamp` out).
 */
const RESERVED_KEYS = new Set(['level', 'time', 'msg', 'scope', 'pid', 'hostname', 'name', 'caller', 'timestamp'])

/** pino's second net for secrets: field names redacted wherever they stand at the top or one level down. */
const PINO_REDACT_PATHS: readonly string[] = [...SECRET_FIELD_NAMES, ...SECRET_FIELD_NAMES.map((k) => `*.${k}`)]

/** pino's `formatters.log`: the fields with reserved names moved aside (the same object when there are none). */
function withoutReservedKeys(fields: Record<string, unknown>): Record<string, unknown> {
  if (!Object.keys(fields).some((k) => RESERVED_KEYS.has(k))) return fields
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(fields)) {
    // defineProperty: a key named __proto__ stays a plain entry.
    Object.defineProperty(out, RESERVED_KEYS.has(k) ? `_${k}` : k, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}

/** The options every pino root of ours shares: the record shape, the second net, the rate-limit hook. */
function pinoOptions(level: LogLevel): PinoOptions {
  return {
    level,
    base: undefined,
    timestamp: stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }), log: withoutReservedKeys },
    redact: { paths: [...PINO_REDACT_PATHS], censor: '***' },
    hooks: { logMethod },
  }
}

/** What the hook needs to know about the Logger behind a pino child. */
interface Route {
  scope: string
  rate: RateLimit
  /** The Logger's own sink, else the global one. */
  sink: LogSink | undefined
}
/** Routes by the pino child of each Logger; children a sink makes have none and are written as they are. */
const routes = new WeakMap<PinoLogger, Route>()

/**
 * pino's `hooks.logMethod`, called for every record at or above the threshold: the rate limit of the
 * Logger behind the child, then pino's own writer or the sink that replaced it.
 */
function logMethod(this: PinoLogger, args: Parameters<LogFn>, method: LogFn, level: number): void {
  const route = routes.get(this)
  if (route !== undefined) {
    if (level >= WARN_VALUE && !route.rate.admit()) return
    const target = route.sink ?? sink
    if (target !== pinoSink) return target(recordOf(route.scope, level, args))
  }
  method.apply(this, args)
}

/** A record as a Logger hands it to pino (`[message]` or `[fields, message]`), for a sink. */
function recordOf(scope: string, level: number, args: Parameters<LogFn>): LogRecord {
  const [first, second] = args as unknown[]
  const name = LEVEL_OF_VALUE.get(level) ?? 'info'
  return typeof first === 'string'
    ? { level: name, scope, message: first }
    : { level: name, scope, message: String(second), fields: first as Record<string, unknown> }
}

/**
 * A sink that writes each record through `root`, one child logger per scope. It writes whatever it is
 * handed (the threshold was applied before), so its children take every level.
 */
function sinkThrough(root: PinoLogger): LogSink {
  const children = new Map<string, PinoLogger>()
  return (record) => {
    let child = children.get(record.scope)
    if (child === undefined) {
      if (children.size >= LOG_MAX_SCOPES) children.delete(children.keys().next().value!)
      children.set(record.scope, (child = root.child({ scope: record.scope }, { level: 'debug' })))
    }
    child[record.level](record.fields ?? {}, record.message)
  }
}

const ANSI = { debug: '\x1b[90m', info: '\x1b[36m', warn: '\x1b[33m', error: '\x1b[31m', reset: '\x1b[0m' }

/** The start of a readable line: `12:04:05.123 warn  [surfaces] device gone` (UTC, as the JSON time). */
function lineHead(log: Record<string, unknown>, color: boolean): string {
  const { level, time, scope, msg } = log
  const label = typeof level === 'string' ? level : 'info'
  const clock = typeof time === 'string' ? time.slice(11, 23) : ''
  const tag = color && label in ANSI ? `${ANSI[label as LogLevel]}${label.padEnd(5)}${ANSI.reset}` : label.padEnd(5)
  return `${clock} ${tag} [${String(scope)}] ${String(msg)}`
}

const requireCjs = createRequire(import.meta.url)
const prettifiers = new Map<boolean, (line: string) => string>()

/**
 * pino-pretty, set up for our one-line shape, loaded on first use (only a terminal pays for it).
 * pino-pretty parses the line (keys named __proto__ dropped), passes a line that is not JSON through,
 * and writes the fields as one JSON object. The head of the line is ours (`lineHead`): pino-pretty's
 * own puts a colon after the level and, coloured, tints the whole message; its own level and time are
 * blanked, `scope` is in the head, and no field is read as an error block, so a record stays one line.
 */
function prettifier(color: boolean): (line: string) => string {
  let pretty = prettifiers.get(color)
  if (pretty === undefined) {
    const { prettyFactory } = requireCjs('pino-pretty') as typeof PinoPretty
    pretty = prettyFactory({
      colorize: false,
      translateTime: false,
      customPrettifiers: { time: () => '', level: () => '' },
      messageFormat: (log) => lineHead(log, color),
      ignore: 'scope',
      singleLine: true,
      errorLikeObjectKeys: [],
    })
    prettifiers.set(color, pretty)
  }
  return pretty
}

/**
 * One pino JSON line as one readable line: `12:04:05.123 warn  [surfaces] device gone {"surface":"desk"}`.
 * A line that is not pino's JSON is passed on as it is.
 */
export function formatPrettyLine(line: string, color = false): string {
  // pino's lines end in a newline; pino-pretty adds its own.
  return prettifier(color)(line.endsWith('\n') ? line.slice(0, -1) : line)
}

export interface PinoSinkOptions {
  /** Where lines go; default `process.stderr.write`, looked up at each write. */
  write?: (line: string) => void
  /** Default: `chooseLogFormat()`. */
  format?: LogFormat
  /** Colour the level on pretty lines; default: stderr is a terminal and `NO_COLOR` is unset. */
  color?: boolean
}

/** pino's destination for a format: the line as it is, or made readable by pino-pretty. */
function destination(options: PinoSinkOptions): DestinationStream {
  const write = options.write ?? ((line: string) => void process.stderr.write(line))
  if ((options.format ?? chooseLogFormat()) === 'json') return { write }
  const pretty = prettifier(options.color ?? (process.stderr.isTTY === true && process.env.NO_COLOR === undefined))
  return { write: (line) => write(pretty(line)) }
}

/** A sink that writes every record through a pino of its own, one child logger per scope. */
export function createPinoSink(options: PinoSinkOptions = {}): LogSink {
  return sinkThrough(pino(pinoOptions('debug'), destination(options)))
}

function levelFromEnv(raw: string | undefined): LogLevel {
  return LEVEL_NAMES.find((name) => name === raw) ?? 'info'
}

/**
 * The process's pino, parent of every Logger's child. Its writer is chosen at the first record, not
 * at import (so the format follows the environment then, and pino-pretty loads only when a terminal
 * gets a line).
 */
let stderrWriter: DestinationStream | undefined
const root = pino(pinoOptions(levelFromEnv(process.env.PANELBRIDGE_LOG_LEVEL)), {
  write: (line: string) => (stderrWriter ??= destination({})).write(line),
})
/** The sink until `setLogSink`: records go through the Logger's own pino child to stderr. */
const pinoSink: LogSink = sinkThrough(root)
let sink: LogSink = pinoSink

/** Routes every logger's output (tests capture records with this). Returns the previous sink. */
export function setLogSink(next: LogSink): LogSink {
  const prev = sink
  sink = next
  return prev
}
/** The lowest level written (default `info`, or `PANELBRIDGE_LOG_LEVEL`). */
export function setLogLevel(level: LogLevel): void {
  root.level = level
}

/** The rate limit of one Logger's warnings and errors (LOG_LIMITS.rateBurst per LOG_LIMITS.rateWindowMs). */
class RateLimit {
  private windowStart = -Infinity
  private windowCount = 0
  private suppressed = 0
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly limits: LoggerLimits,
    /** Writes the count held back in a window that passed (not itself rate-limited). */
    private readonly report: (count: number) => void,
  ) {}

  /** True when this warning or error may be written. */
  admit(): boolean {
    const now = Date.now()
    if (now - this.windowStart >= this.limits.rateWindowMs) {
      this.flush()
      this.windowStart = now
      this.windowCount = 0
    }
    if (this.windowCount < this.limits.rateBurst) {
      this.windowCount++
      return true
    }
    this.suppressed++
    if (this.timer === undefined) {
      this.timer = setTimeout(flushOf, Math.max(0, this.windowStart + this.limits.rateWindowMs - now), this)
      // A pending report must not keep a finished process alive.
      this.timer.unref()
    }
    return false
  }

  /** Reports the count held back in the window that passed, once. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    if (this.suppressed === 0) return
    const count = this.suppressed
    this.suppressed = 0
    this.report(count)
  }
}

function flushOf(rate: RateLimit): void {
  rate.flush()
}

export class Logger {
  /** The `once` keys seen, the least recently seen forgotten first; set in the constructor (limits). */
  private readonly onceKeys: LruMap<string, true>
  private readonly limits: LoggerLimits
  private readonly sink: LogSink | undefined
  private readonly rate: RateLimit
  private readonly pino: PinoLogger

  constructor(
    readonly scope: string,
    options: Partial<LoggerOptions> = {},
  ) {
    const { sink: own, ...limits } = options
    this.limits = { ...DEFAULT_LIMITS, ...limits }
    this.onceKeys = new LruMap(this.limits.onceMaxKeys)
    this.sink = own
    this.rate = new RateLimit(this.limits, (count) => this.reportHeldBack(count))
    this.pino = root.child({ scope })
    routes.set(this.pino, { scope, rate: this.rate, sink: own })
  }

  /** A logger for a part of this one's scope, with the same limits and sink (its own keys and rate window). */
  child(scope: string): Logger {
    return new Logger(`${this.scope}/${scope}`, { ...this.limits, ...(this.sink ? { sink: this.sink } : {}) })
  }
  /** How many `once` keys are remembered (the bench and tests watch it). */
  get onceKeyCount(): number {
    return this.onceKeys.size
  }
  debug(message: string, fields?: Record<string, unknown>): void {
    this.write('debug', message, fields)
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.write('info', message, fields)
  }
  warn(message: string, fields?: Record<string, unknown>): void {
    this.write('warn', message, fields)
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.write('error', message, fields)
  }
  /**
   * Logs only the first time `key` is seen (until `clear(key)`, or until the key is forgotten as the
   * least recently seen of more than LOG_LIMITS.onceMaxKeys). Returns whether the key was new; the record
   * itself may still be held back by the rate limit.
   */
  once(key: string, level: LogLevel, message: string, fields?: Record<string, unknown>): boolean {
    const k = key.length > LOG_LIMITS.onceMaxKeyChars ? key.slice(0, LOG_LIMITS.onceMaxKeyChars) : key
    // A key seen again becomes the most recently seen.
    if (this.onceKeys.get(k) !== undefined) return false
    this.onceKeys.set(k, true)
    this.write(level, message, fields)
    return true
  }
  /** Forgets a `once` key, e.g. when the fault has cleared, so that the next fault is logged again. */
  clear(key: string): void {
    this.onceKeys.delete(key.length > LOG_LIMITS.onceMaxKeyChars ? key.slice(0, LOG_LIMITS.onceMaxKeyChars) : key)
  }

  /** Writes the count of records held back in the window that passed, once. */
  reportSuppressed(): void {
    this.rate.flush()
  }

  private write(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
    // Below the threshold nothing is copied; at or above it pino's hook applies the rate limit.
    if (!this.pino.isLevelEnabled(level)) return
    const text = redactText(cutText(message))
    if (fields === undefined) this.pino[level](text)
    else this.pino[level](redact(fields) as Record<string, unknown>, text)
  }

  /** The held-back count goes to the sink directly: it is not itself subject to the rate limit. */
  private reportHeldBack(count: number): void {
    ;(this.sink ?? sink)({
      level: 'warn',
      scope: this.scope,
      message: `${count} more warnings and errors held back by the rate limit`,
      fields: { suppressed: count, windowMs: this.limits.rateWindowMs },
    })
  }
}

export function createLogger(scope: string, options?: Partial<LoggerOptions>): Logger {
  return new Logger(scope, options)
}
