/**
 * A small structured logger. One line per record on stderr (journald adds the time under systemd).
 *
 * - `once(key, ...)` logs a fault the first time only, until `clear(key)`: a dropped socket or an
 *   unplugged device is logged once, not on every retry.
 * - Secrets never reach a log: values under secret-looking keys (streamKey, token, password, ...)
 *   and `streamKey=` query parameters are replaced by `***` before anything is written.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

export interface LogRecord {
  level: LogLevel
  scope: string
  message: string
  fields?: Record<string, unknown>
}
export type LogSink = (record: LogRecord) => void

const SECRET_KEY = /(stream_?key|token|password|secret|authorization|api_?key)/i
const SECRET_IN_TEXT = /((?:stream_?key|token|password|secret|api_?key)=)[^&\s"']+/gi

/** Replaces secrets in a text (query strings, URLs). */
export function redactText(text: string): string {
  return text.replace(SECRET_IN_TEXT, '$1***')
}

/** Deep-copies a value with secrets replaced. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value)
  if (value instanceof Error) return redactText(value.message)
  if (value === null || typeof value !== 'object' || depth > 6) return value
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '***' : redact(v, depth + 1)
  return out
}

function stderrSink(record: LogRecord): void {
  const fields = record.fields && Object.keys(record.fields).length > 0 ? ' ' + JSON.stringify(record.fields) : ''
  process.stderr.write(`${record.level.padEnd(5)} [${record.scope}] ${record.message}${fields}\n`)
}

let sink: LogSink = stderrSink
let threshold: LogLevel = (process.env.PANELBRIDGE_LOG_LEVEL as LogLevel | undefined) ?? 'info'

/** Routes every logger's output (tests capture records with this). Returns the previous sink. */
export function setLogSink(next: LogSink): LogSink {
  const prev = sink
  sink = next
  return prev
}
export function setLogLevel(level: LogLevel): void {
  threshold = level
}

export class Logger {
  private readonly onceKeys = new Set<string>()
  constructor(readonly scope: string) {}

  child(scope: string): Logger {
    return new Logger(`${this.scope}/${scope}`)
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
  /** Logs only the first time `key` is seen (until `clear(key)`). Returns whether it logged. */
  once(key: string, level: LogLevel, message: string, fields?: Record<string, unknown>): boolean {
    if (this.onceKeys.has(key)) return false
    this.onceKeys.add(key)
    this.write(level, message, fields)
    return true
  }
  /** Forgets a `once` key, e.g. when the fault has cleared, so that the next fault is logged again. */
  clear(key: string): void {
    this.onceKeys.delete(key)
  }

  private write(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
    if (LEVELS[level] < LEVELS[threshold]) return
    sink({
      level,
      scope: this.scope,
      message: redactText(message),
      ...(fields ? { fields: redact(fields) as Record<string, unknown> } : {}),
    })
  }
}

export function createLogger(scope: string): Logger {
  return new Logger(scope)
}
