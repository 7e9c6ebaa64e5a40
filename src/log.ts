/**
 * The structured logger, written through pino. One record per line on stderr: JSON lines under journald
 * (`JOURNAL_STREAM` set) or whenever stderr is not a terminal, one readable line per record on a
 * terminal (a small formatter of our own, so pino-pretty is no runtime dependency). Each logger writes
 * through a pino child named by its scope (`surfaces`, `streamdeck/CL12K1A00042`, ...), so a journal
 * can be filtered by layer (`journalctl -u panelbridge -o cat | jq 'select(.scope == "surfaces")'`).
 *
 * - `once(key, ...)` logs a fault the first time only, until `clear(key)`: a dropped socket or an
 *   unplugged device is logged once, not on every retry. Keys often carry names a peer chose (an
 *   unknown method, a signal), so a logger remembers at most LOG_ONCE_MAX_KEYS of them, the least
 *   recently seen forgotten first.
 * - Warnings and errors are rate-limited per logger: at most LOG_RATE_BURST records per
 *   LOG_RATE_WINDOW_MS; what is held back is counted and reported in one line when the window passes.
 * - Everything written is bounded and secrets never reach a log: every message and field is copied
 *   through src/redact.ts before anything is written; pino's own `redact` paths are a second net.
 *
 * `setLogSink` replaces the pino writer (tests capture the records it would have written).
 */
import { pino, stdTimeFunctions, type Logger as PinoLogger } from 'pino'
import { cutText, redact, redactText, SECRET_FIELD_NAMES } from './redact.js'

export { LOG_MAX_DEPTH, LOG_MAX_ENTRIES, LOG_MAX_TEXT_CHARS, redact, redactText } from './redact.js'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

export interface LogRecord {
  level: LogLevel
  scope: string
  message: string
  fields?: Record<string, unknown>
}
export type LogSink = (record: LogRecord) => void

/** Most `once` keys a logger remembers; past it the least recently seen key is forgotten. */
export const LOG_ONCE_MAX_KEYS = 1000
/** A `once` key is cut to this many characters (keys often embed a name a peer chose). */
export const LOG_ONCE_MAX_KEY_CHARS = 200
/** The rate-limit window for warnings and errors, per logger, ms. */
export const LOG_RATE_WINDOW_MS = 10_000
/** Warnings and errors written per window and logger; the rest are counted and reported once. */
export const LOG_RATE_BURST = 20

/** Overrides of the logger's bounds (tests and the bench lower them). */
export interface LoggerLimits {
  onceMaxKeys: number
  rateWindowMs: number
  rateBurst: number
}
const DEFAULT_LIMITS: LoggerLimits = {
  onceMaxKeys: LOG_ONCE_MAX_KEYS,
  rateWindowMs: LOG_RATE_WINDOW_MS,
  rateBurst: LOG_RATE_BURST,
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

/** Pino child loggers kept per scope; past it the oldest is dropped (scopes may carry device ids). */
export const LOG_MAX_SCOPES = 256

/**
 * Keys pino writes itself. A field with one of these names is written as `_name`, so that it can
 * neither replace the record's own level, time, message or scope nor produce a duplicate JSON key.
 */
const RESERVED_KEYS = new Set(['level', 'time', 'msg', 'scope', 'pid', 'hostname'])

/** pino's second net for secrets: field names redacted wherever they stand at the top or one level down. */
export const PINO_REDACT_PATHS: readonly string[] = [...SECRET_FIELD_NAMES, ...SECRET_FIELD_NAMES.map((k) => `*.${k}`)]

const ANSI = { debug: '\x1b[90m', info: '\x1b[36m', warn: '\x1b[33m', error: '\x1b[31m', reset: '\x1b[0m' }

/**
 * One pino JSON line as one readable line: `12:04:05.123 warn  [surfaces] device gone {"surface":"desk"}`.
 * A line that is not pino's JSON is passed on as it is.
 */
export function formatPrettyLine(line: string, color = false): string {
  let record: Record<string, unknown>
  try {
    record = JSON.parse(line) as Record<string, unknown>
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`
  }
  const { level, time, scope, msg, ...fields } = record
  const label = typeof level === 'string' ? level : 'info'
  const clock = typeof time === 'string' ? time.slice(11, 23) : ''
  const tag = color && label in ANSI ? `${ANSI[label as LogLevel]}${label.padEnd(5)}${ANSI.reset}` : label.padEnd(5)
  const rest = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : ''
  return `${clock} ${tag} [${String(scope)}] ${String(msg)}${rest}\n`
}

export interface PinoSinkOptions {
  /** Where lines go; default `process.stderr.write`, looked up at each write. */
  write?: (line: string) => void
  /** Default: `chooseLogFormat()`. */
  format?: LogFormat
  /** Colour the level on pretty lines; default: stderr is a terminal and `NO_COLOR` is unset. */
  color?: boolean
}

/** A sink that writes every record through pino, one child logger per scope. */
export function createPinoSink(options: PinoSinkOptions = {}): LogSink {
  const write = options.write ?? ((line: string) => void process.stderr.write(line))
  const format = options.format ?? chooseLogFormat()
  const color = options.color ?? (process.stderr.isTTY === true && process.env.NO_COLOR === undefined)
  const destination = { write: format === 'json' ? write : (line: string) => write(formatPrettyLine(line, color)) }
  const root = pino(
    {
      level: 'debug',
      base: undefined,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...PINO_REDACT_PATHS], censor: '***' },
    },
    destination,
  )
  const children = new Map<string, PinoLogger>()
  const childOf = (scope: string): PinoLogger => {
    let child = children.get(scope)
    if (child === undefined) {
      if (children.size >= LOG_MAX_SCOPES) children.delete(children.keys().next().value!)
      children.set(scope, (child = root.child({ scope })))
    }
    return child
  }
  return (record) => {
    const fields: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(record.fields ?? {})) {
      Object.defineProperty(fields, RESERVED_KEYS.has(k) ? `_${k}` : k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      })
    }
    childOf(record.scope)[record.level](fields, record.message)
  }
}

/** The sink until `setLogSink`: pino, made on first use (so the format follows the environment then). */
let pinoSink: LogSink | undefined
const defaultSink: LogSink = (record) => {
  pinoSink ??= createPinoSink()
  pinoSink(record)
}

function levelFromEnv(raw: string | undefined): LogLevel {
  return raw !== undefined && Object.hasOwn(LEVELS, raw) ? (raw as LogLevel) : 'info'
}

let sink: LogSink = defaultSink
let threshold: LogLevel = levelFromEnv(process.env.PANELBRIDGE_LOG_LEVEL)

/** Routes every logger's output (tests capture records with this). Returns the previous sink. */
export function setLogSink(next: LogSink): LogSink {
  const prev = sink
  sink = next
  return prev
}
/** The lowest level written (default `info`, or `PANELBRIDGE_LOG_LEVEL`). */
export function setLogLevel(level: LogLevel): void {
  threshold = level
}

export class Logger {
  /** Insertion order is recency order: a key seen again is moved to the end. */
  private readonly onceKeys = new Set<string>()
  private readonly limits: LoggerLimits
  private windowStart = -Infinity
  private windowCount = 0
  private suppressed = 0
  private suppressedTimer: NodeJS.Timeout | undefined

  constructor(
    readonly scope: string,
    limits: Partial<LoggerLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits }
  }

  /** A logger for a part of this one's scope, with the same limits (its own keys and rate window). */
  child(scope: string): Logger {
    return new Logger(`${this.scope}/${scope}`, this.limits)
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
   * least recently seen of more than LOG_ONCE_MAX_KEYS). Returns whether the key was new; the record
   * itself may still be held back by the rate limit.
   */
  once(key: string, level: LogLevel, message: string, fields?: Record<string, unknown>): boolean {
    const k = key.length > LOG_ONCE_MAX_KEY_CHARS ? key.slice(0, LOG_ONCE_MAX_KEY_CHARS) : key
    if (this.onceKeys.delete(k)) {
      this.onceKeys.add(k)
      return false
    }
    if (this.onceKeys.size >= this.limits.onceMaxKeys) {
      const oldest = this.onceKeys.values().next()
      if (oldest.done !== true) this.onceKeys.delete(oldest.value)
    }
    this.onceKeys.add(k)
    this.write(level, message, fields)
    return true
  }
  /** Forgets a `once` key, e.g. when the fault has cleared, so that the next fault is logged again. */
  clear(key: string): void {
    this.onceKeys.delete(key.length > LOG_ONCE_MAX_KEY_CHARS ? key.slice(0, LOG_ONCE_MAX_KEY_CHARS) : key)
  }

  private write(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
    if (LEVELS[level] < LEVELS[threshold]) return
    if (LEVELS[level] >= LEVELS.warn && !this.admit()) return
    sink({
      level,
      scope: this.scope,
      message: redactText(cutText(message)),
      ...(fields ? { fields: redact(fields) as Record<string, unknown> } : {}),
    })
  }

  /** The rate limit of warnings and errors: true when this record may be written. */
  private admit(): boolean {
    const now = Date.now()
    if (now - this.windowStart >= this.limits.rateWindowMs) {
      this.reportSuppressed()
      this.windowStart = now
      this.windowCount = 0
    }
    if (this.windowCount < this.limits.rateBurst) {
      this.windowCount++
      return true
    }
    this.suppressed++
    if (this.suppressedTimer === undefined) {
      this.suppressedTimer = setTimeout(
        reportSuppressedOf,
        Math.max(0, this.windowStart + this.limits.rateWindowMs - now),
        this,
      )
      // A pending report must not keep a finished process alive.
      this.suppressedTimer.unref()
    }
    return false
  }

  /** Writes the count of records held back in the window that passed, once. */
  reportSuppressed(): void {
    if (this.suppressedTimer !== undefined) clearTimeout(this.suppressedTimer)
    this.suppressedTimer = undefined
    if (this.suppressed === 0) return
    const count = this.suppressed
    this.suppressed = 0
    sink({
      level: 'warn',
      scope: this.scope,
      message: `${count} more warnings and errors held back by the rate limit`,
      fields: { suppressed: count, windowMs: this.limits.rateWindowMs },
    })
  }
}

function reportSuppressedOf(logger: Logger): void {
  logger.reportSuppressed()
}

export function createLogger(scope: string, limits?: Partial<LoggerLimits>): Logger {
  return new Logger(scope, limits)
}
