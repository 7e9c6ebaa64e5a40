/**
 * Every log record of one test, from a `beforeEach` or the test itself: the sink (and the level, when one
 * is given) come back when the test finishes, after whatever the test's own `onTestFinished` stops.
 */
import { onTestFinished } from 'vitest'
import { setLogLevel, setLogSink, type LogLevel, type LogRecord } from '../../../src/log.js'

export function captureLogs(level?: LogLevel): LogRecord[] {
  const logs: LogRecord[] = []
  const previous = setLogSink((r) => logs.push(r))
  if (level) setLogLevel(level)
  onTestFinished(() => {
    setLogSink(previous)
    if (level) setLogLevel('info')
  })
  return logs
}
