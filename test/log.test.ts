import { afterEach, describe, expect, it } from 'vitest'
import { createLogger, redact, redactText, setLogSink, type LogRecord } from '../src/log.js'

describe('logger', () => {
  const records: LogRecord[] = []
  const previous = setLogSink((r) => records.push(r))
  afterEach(() => {
    records.length = 0
  })

  it('never writes a stream key or token, in text or in fields', () => {
    const log = createLogger('test')
    log.info('GET /api/command/startStreaming?choice=yt&streamKey=abcd-1234&serverUrl=rtmp://x', {
      streamKey: 'abcd-1234',
      nested: { token: 't0k3n', other: 'kept' },
      url: 'rtmp://host/live?token=zzz',
    })
    const text = JSON.stringify(records)
    expect(text).not.toContain('abcd-1234')
    expect(text).not.toContain('t0k3n')
    expect(text).not.toContain('zzz')
    expect(text).toContain('kept')
    expect(records[0]!.message).toContain('streamKey=***')
  })

  it('logs a fault once until it is cleared', () => {
    const log = createLogger('once')
    expect(log.once('unplugged', 'warn', 'device gone')).toBe(true)
    expect(log.once('unplugged', 'warn', 'device gone')).toBe(false)
    log.clear('unplugged')
    expect(log.once('unplugged', 'warn', 'device gone')).toBe(true)
    expect(records.map((r) => r.message)).toEqual(['device gone', 'device gone'])
  })

  it('redacts errors and arrays without touching other values', () => {
    expect(redactText('a=1&stream_key=s3cret&b=2')).toBe('a=1&stream_key=***&b=2')
    expect(redact([{ password: 'x' }, 3, null])).toEqual([{ password: '***' }, 3, null])
    expect(redact(new Error('bad streamKey=zzz'))).toBe('bad streamKey=***')
  })

  it('restores the previous sink', () => {
    const mine = setLogSink(previous)
    expect(typeof mine).toBe('function')
    setLogSink(mine)
  })
})
