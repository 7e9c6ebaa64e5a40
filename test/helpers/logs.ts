/**
 * Capturing what a component logs, for one test. Two doors, as the code has two: `loggerInto` makes a Logger
 * with a sink of its own (for the classes that take an injected logger: nothing global changes), and
 * `captureLogs` swaps the process-wide sink (for code that logs through `createLogger` at module level).
 * Either way the sink, and the level when one is given, come back when the test finishes, after whatever
 * the test's own `onTestFinished` stops (vitest runs those hooks last registered first).
 */
import { onTestFinished } from 'vitest'
import { Logger, setLogLevel, setLogSink, type LogLevel, type LogRecord } from '../../src/log.js'

/** Every record that reaches the global sink during this test (at `level` and above, when one is given). */
export function captureLogs(level?: LogLevel): LogRecord[] {
  const records: LogRecord[] = []
  const previous = setLogSink((r) => records.push(r))
  if (level) setLogLevel(level)
  onTestFinished(() => {
    setLogSink(previous)
    // The level the suite runs at: PANELBRIDGE_LOG_LEVEL when set, else info (as src/log.ts starts).
    if (level) setLogLevel(startLevel())
  })
  return records
}

/** A Logger whose records land in the returned array instead of the global sink. */
export function loggerInto(scope: string): { logger: Logger; records: LogRecord[] } {
  const records: LogRecord[] = []
  return { logger: new Logger(scope, { sink: (r) => records.push(r) }), records }
}

/** The messages of the records at `level` (all levels when not given): the usual thing a test compares. */
export function messages(records: readonly LogRecord[], level?: LogLevel): string[] {
  return records.filter((r) => level === undefined || r.level === level).map((r) => r.message)
}

/** The log level the process started with (`PANELBRIDGE_LOG_LEVEL`, else info). */
export function startLevel(): LogLevel {
  const env = process.env.PANELBRIDGE_LOG_LEVEL
  return env === 'debug' || env === 'info' || env === 'warn' || env === 'error' ? env : 'info'
}
