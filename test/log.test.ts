import { readdirSync, readFileSync } from 'node:fs'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createLogger, redact, redactText, setLogSink, type LogRecord, type LogSink } from '../src/log.js'

describe('logger', () => {
  const records: LogRecord[] = []
  const capture: LogSink = (r) => records.push(r)
  const previous = setLogSink(capture)
  afterEach(() => {
    records.length = 0
  })
  afterAll(() => {
    setLogSink(previous)
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
    // A yes/no under a secret's name is no secret; a number may be one (a PIN).
    expect(redact({ tokenRequired: true, token: 1234, streamKey: false })).toEqual({
      tokenRequired: true,
      token: '***',
      streamKey: false,
    })
  })

  it('setLogSink routes every logger to the new sink and returns the one it replaced', () => {
    const elsewhere: LogRecord[] = []
    const other: LogSink = (r) => elsewhere.push(r)
    const log = createLogger('sink')
    expect(setLogSink(other)).toBe(capture)
    log.warn('to the other sink')
    expect(setLogSink(capture)).toBe(other)
    log.warn('back to the first')
    expect(elsewhere).toEqual([{ level: 'warn', scope: 'sink', message: 'to the other sink' }])
    expect(records).toEqual([{ level: 'warn', scope: 'sink', message: 'back to the first' }])
  })

  it('a logger made with its own sink writes there, and so do its children, whatever the global sink', () => {
    const own: LogRecord[] = []
    const log = createLogger('own', { sink: (r) => own.push(r), rateBurst: 1 })
    log.info('to its own sink', { token: 'secret-1' })
    log.child('part').warn('from a child')
    log.warn('first warning')
    log.warn('held back')
    log.reportSuppressed()
    expect(records).toEqual([])
    expect(own).toEqual([
      { level: 'info', scope: 'own', message: 'to its own sink', fields: { token: '***' } },
      { level: 'warn', scope: 'own/part', message: 'from a child' },
      { level: 'warn', scope: 'own', message: 'first warning' },
      {
        level: 'warn',
        scope: 'own',
        message: '1 more warnings and errors held back by the rate limit',
        fields: { suppressed: 1, windowMs: 10_000 },
      },
    ])
  })
})

describe('redaction apart from the logger', () => {
  const src = new URL('../src/', import.meta.url)
  const source = (path: string): string => readFileSync(new URL(path, src), 'utf8')

  it('src/redact.ts imports nothing, and every module takes redact and redactText from it, not from the logger', () => {
    expect(source('redact.ts')).not.toMatch(/^import /m)
    const files = (readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'))
    expect(files).toContain('api/errors.ts')
    const redactingThroughLog = files.filter((f) =>
      /import \{[^}]*\bredact(Text)?\b[^}]*\} from '[./]*log\.js'/.test(source(f)),
    )
    expect(redactingThroughLog).toEqual([])
    expect(source('api/errors.ts')).toMatch(/from '\.\.\/redact\.js'/)
  })
})
