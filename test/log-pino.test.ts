/**
 * Issue 13, Build 4: the logger writes through pino — JSON lines under journald or into a pipe, one
 * readable line on a terminal, a child logger per scope, and no secret in either form.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  chooseLogFormat,
  createLogger,
  createPinoSink,
  formatPrettyLine,
  redactText,
  setLogLevel,
  setLogSink,
} from '../src/log.js'
import { expectMapping } from './helpers/table.js'

const lines: string[] = []
const write = (line: string): void => void lines.push(line)
let previous: ReturnType<typeof setLogSink> | undefined
afterEach(() => {
  if (previous) setLogSink(previous)
  previous = undefined
  lines.length = 0
  setLogLevel('info')
})

describe('the log format', () => {
  it('is JSON under journald even on a terminal, JSON into a pipe, readable on a terminal; PANELBRIDGE_LOG_FORMAT wins', () => {
    expect(chooseLogFormat({ JOURNAL_STREAM: '8:12345' }, true)).toBe('json')
    expect(chooseLogFormat({}, false)).toBe('json')
    expect(chooseLogFormat({}, true)).toBe('pretty')
    expect(chooseLogFormat({ PANELBRIDGE_LOG_FORMAT: 'pretty', JOURNAL_STREAM: '8:1' }, false)).toBe('pretty')
    expect(chooseLogFormat({ PANELBRIDGE_LOG_FORMAT: 'json' }, true)).toBe('json')
    expect(chooseLogFormat({ PANELBRIDGE_LOG_FORMAT: 'fancy' }, true)).toBe('pretty')
  })
})

describe('the pino sink', () => {
  it('writes one JSON line per record with the level name, the scope of its child logger, the message and the fields', () => {
    previous = setLogSink(createPinoSink({ format: 'json', write }))
    setLogLevel('debug')
    const log = createLogger('surfaces')
    log.info('surface open', { surface: 'desk', model: 'Stream Deck +' })
    log.child('CL12').debug('report', { bytes: 512 })
    expect(lines).toHaveLength(2)
    for (const line of lines) expect(line.endsWith('\n') && line.indexOf('\n') === line.length - 1).toBe(true)
    const [first, second] = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(first).toMatchObject({
      level: 'info',
      scope: 'surfaces',
      msg: 'surface open',
      surface: 'desk',
      model: 'Stream Deck +',
    })
    expect(typeof first!.time).toBe('string')
    expect(second).toMatchObject({ level: 'debug', scope: 'surfaces/CL12', msg: 'report', bytes: 512 })
  })

  it('keeps a field named like pino’s own keys from replacing the record’s level, message or scope', () => {
    previous = setLogSink(createPinoSink({ format: 'json', write }))
    createLogger('cli').warn('real message', { level: 'fake', msg: 'fake', scope: 'fake', time: 'fake' })
    const record = JSON.parse(lines[0]!) as Record<string, unknown>
    expect(record).toMatchObject({ level: 'warn', msg: 'real message', scope: 'cli' })
    expect(record).toMatchObject({ _level: 'fake', _msg: 'fake', _scope: 'fake', _time: 'fake' })
    expect(lines[0]!.match(/"level":/g)).toHaveLength(1)
  })

  it('prints a readable line on a terminal: time, level, [scope], message, fields', () => {
    previous = setLogSink(createPinoSink({ format: 'pretty', write, color: false }))
    createLogger('app/link').warn('link lost', { attempt: 3 })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} warn {2}\[app\/link\] link lost \{"attempt":3\}\n$/)
    expect(formatPrettyLine('not json')).toBe('not json\n')
    expect(formatPrettyLine('{"level":"error","time":"2026-01-02T03:04:05.678Z","scope":"s","msg":"m"}', true)).toBe(
      '03:04:05.678 \x1b[31merror\x1b[0m [s] m\n',
    )
  })

  it('hides secrets in both formats: fields, query strings, Bearer credentials and JSON texts', () => {
    for (const format of ['json', 'pretty'] as const) {
      previous = setLogSink(createPinoSink({ format, write }))
      createLogger('api').info(
        'GET /api/command/startStreaming?serverUrl=rtmp://x&streamKey=KEY-1 with Authorization: Bearer TOK-2',
        {
          token: 'TOK-3',
          headers: { Authorization: 'Bearer TOK-4', cookie: 'pb_token=TOK-5' },
          reply: '{"streamKey": "KEY-6", "ok": true}',
          kept: 'visible',
        },
      )
      setLogSink(previous)
    }
    expect(lines).toHaveLength(2)
    const text = lines.join('')
    for (const secret of ['KEY-1', 'TOK-2', 'TOK-3', 'TOK-4', 'TOK-5', 'KEY-6']) expect(text).not.toContain(secret)
    expect(text).toContain('visible')
    expect(text).toContain('streamKey=***')
  })

  it('redacts secret fields with pino’s own paths even when a record bypasses the Logger', () => {
    const sink = createPinoSink({ format: 'json', write })
    sink({ level: 'info', scope: 'raw', message: 'raw', fields: { streamKey: 'RAW-1', nested: { token: 'RAW-2' } } })
    expect(lines[0]).not.toContain('RAW-1')
    expect(lines[0]).not.toContain('RAW-2')
    expect(JSON.parse(lines[0]!)).toMatchObject({ streamKey: '***', nested: { token: '***' } })
  })
})

describe('pino carries the Logger', () => {
  it('applies the rate limit in pino’s hook to what pino itself writes, not only to captured records', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      const log = createLogger('flood', { rateBurst: 3, rateWindowMs: 60_000 })
      for (let i = 0; i < 10; i++) log.warn(`warning ${i}`)
      log.info('info is not limited')
      expect(write).toHaveBeenCalledTimes(4)
      expect(String(write.mock.calls[2]![0])).toContain('warning 2')
      expect(String(write.mock.calls[3]![0])).toContain('info is not limited')
    } finally {
      write.mockRestore()
    }
  })

  it('moves the threshold of loggers made before setLogLevel (their pino children follow the root)', () => {
    const records: string[] = []
    previous = setLogSink((r) => records.push(r.message))
    const log = createLogger('early')
    log.debug('hidden')
    setLogLevel('debug')
    log.debug('shown')
    log.child('late').debug('shown too')
    setLogLevel('warn')
    log.info('hidden again')
    expect(records).toEqual(['shown', 'shown too'])
  })

  it('keeps a record on one terminal line when its fields carry names pino-pretty reads as its own', () => {
    previous = setLogSink(createPinoSink({ format: 'pretty', write, color: false }))
    createLogger('app').warn('failed', { name: 'Lower Third', caller: 'x', error: 'boom', err: 'bad' })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} warn {2}\[app\] failed \{.*\}\n$/)
    expect(lines[0]!.indexOf('\n')).toBe(lines[0]!.length - 1)
    for (const part of ['"_name":"Lower Third"', '"_caller":"x"', '"error":"boom"', '"err":"bad"'])
      expect(lines[0]).toContain(part)
  })
})

describe('redactText', () => {
  it('replaces Bearer credentials and secret JSON members, and leaves other text alone', () => {
    expectMapping(redactText, {
      'Authorization: Bearer abc.def-123': 'Authorization: Bearer ***',
      '{"token":"a\\"b","x":"y"}': '{"token":"***","x":"y"}',
      'authorization=xyz&a=1': 'authorization=***&a=1',
      // Errs on the safe side: the word after any "bearer" is hidden.
      'a bearer of news': 'a bearer *** news',
      'nothing secret here: 1, 2': 'nothing secret here: 1, 2',
    })
  })
})
