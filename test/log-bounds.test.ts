/**
 * Issue 9, finding 4c: the logger's memory and output stay bounded whatever keys and values a peer
 * makes it log. Time is fake (the rate-limit window).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { REDACT_LIMITS, LOG_LIMITS, createLogger, redact, setLogSink, type LogRecord } from '../src/log.js'
import { deepValue } from './fuzz/harness.js'

const records: LogRecord[] = []
let previous: ReturnType<typeof setLogSink>
beforeEach(() => {
  vi.useFakeTimers()
  previous = setLogSink((r) => records.push(r))
})
afterEach(() => {
  setLogSink(previous)
  records.length = 0
  vi.useRealTimers()
})

describe('log-once keys', () => {
  it(`remember at most LOG_LIMITS.onceMaxKeys (${LOG_LIMITS.onceMaxKeys}) keys, 250,000 unique keys later`, () => {
    const log = createLogger('keys', { rateBurst: Infinity })
    for (let i = 0; i < 250_000; i++) log.once(`no-method-m${i}`, 'debug', 'unknown method')
    expect(LOG_LIMITS.onceMaxKeys).toBeGreaterThan(0)
    expect(log.onceKeyCount).toBe(LOG_LIMITS.onceMaxKeys)
    // The oldest keys were forgotten, the newest are still known.
    expect(log.once('no-method-m0', 'debug', 'unknown method')).toBe(true)
    expect(log.once('no-method-m249999', 'debug', 'unknown method')).toBe(false)
  })

  it('forget the least recently seen key first; a key seen again stays', () => {
    const log = createLogger('lru', { onceMaxKeys: 3, rateBurst: Infinity })
    expect(log.once('a', 'warn', 'a')).toBe(true)
    expect(log.once('b', 'warn', 'b')).toBe(true)
    expect(log.once('c', 'warn', 'c')).toBe(true)
    expect(log.once('a', 'warn', 'a')).toBe(false) // a is now the most recent
    expect(log.once('d', 'warn', 'd')).toBe(true) // forgets b
    expect(log.onceKeyCount).toBe(3)
    expect(log.once('a', 'warn', 'a')).toBe(false)
    expect(log.once('c', 'warn', 'c')).toBe(false)
    expect(log.once('b', 'warn', 'b')).toBe(true)
    expect(records.map((r) => r.message)).toEqual(['a', 'b', 'c', 'd', 'b'])
  })

  it('cut long keys so that a megabyte of name costs no more than a short one; clear() finds them', () => {
    const log = createLogger('long')
    const key = `signal-unknown-${'x'.repeat(1_000_000)}`
    expect(log.once(key, 'warn', 'x')).toBe(true)
    expect(log.once(key, 'warn', 'x')).toBe(false)
    log.clear(key)
    expect(log.once(key, 'warn', 'x')).toBe(true)
  })
})

describe('rate limit of warnings', () => {
  it(`writes LOG_LIMITS.rateBurst (${LOG_LIMITS.rateBurst}) per window, then reports the held-back count once when the window passes`, () => {
    const log = createLogger('flood')
    for (let i = 0; i < 1000; i++) log.warn(`warning ${i}`)
    expect(records).toHaveLength(LOG_LIMITS.rateBurst)
    vi.advanceTimersByTime(LOG_LIMITS.rateWindowMs - 1)
    expect(records).toHaveLength(LOG_LIMITS.rateBurst)
    vi.advanceTimersByTime(1)
    expect(records).toHaveLength(LOG_LIMITS.rateBurst + 1)
    expect(records.at(-1)!.fields).toMatchObject({ suppressed: 1000 - LOG_LIMITS.rateBurst })
    // Nothing more is reported for a window with nothing held back.
    vi.advanceTimersByTime(LOG_LIMITS.rateWindowMs * 3)
    expect(records).toHaveLength(LOG_LIMITS.rateBurst + 1)
    // The next window writes again.
    log.error('after the window')
    expect(records.at(-1)!.message).toBe('after the window')
  })

  it('counts once-records against the same limit, and leaves info and debug alone', () => {
    const log = createLogger('mixed', { rateBurst: 2, rateWindowMs: 1000 })
    for (let i = 0; i < 5; i++) log.once(`k${i}`, 'warn', `w${i}`)
    for (let i = 0; i < 5; i++) log.info(`i${i}`)
    expect(records.map((r) => r.message)).toEqual(['w0', 'w1', 'i0', 'i1', 'i2', 'i3', 'i4'])
    vi.advanceTimersByTime(1000)
    expect(records.at(-1)!.fields).toEqual({ suppressed: 3, windowMs: 1000 })
  })

  it('reports the held-back count before the first record of a later window even if its timer is late', () => {
    const log = createLogger('late', { rateBurst: 1, rateWindowMs: 1000 })
    log.warn('one')
    log.warn('two')
    vi.setSystemTime(Date.now() + 5000) // the clock moves, timers have not run
    log.warn('three')
    expect(records.map((r) => r.message)).toEqual(['one', expect.stringMatching(/1 more/), 'three'])
    vi.runOnlyPendingTimers()
    expect(records).toHaveLength(3)
  })
})

describe('bounded records', () => {
  it('a field nested 10,000 deep, a BigInt and a huge array never crash the stderr sink and are summarised', () => {
    setLogSink(previous)
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      createLogger('deep').warn('deep', { value: deepValue(10_000), big: 10n, list: new Array(100_000).fill(1) })
      expect(write).toHaveBeenCalledTimes(1)
      expect(String(write.mock.calls[0]![0]).length).toBeLessThan(10_000)
    } finally {
      write.mockRestore()
      setLogSink((r) => records.push(r))
    }
  })

  it('cuts long texts and keeps only REDACT_LIMITS.maxEntries entries', () => {
    const copy = redact({ text: 'y'.repeat(1_000_000), list: new Array(1000).fill(0) }) as {
      text: string
      list: unknown[]
    }
    expect(copy.text.length).toBeLessThan(REDACT_LIMITS.maxTextChars + 50)
    expect(copy.list).toHaveLength(REDACT_LIMITS.maxEntries + 1)
    expect(JSON.stringify(redact(deepValue(REDACT_LIMITS.maxDepth + 100)))).toContain('[')
    createLogger('msg').info('z'.repeat(1_000_000))
    expect(records[0]!.message.length).toBeLessThan(REDACT_LIMITS.maxTextChars + 50)
  })

  it('keeps a __proto__ key as a plain entry and still hides secrets below it', () => {
    const copy = redact(JSON.parse('{"__proto__":{"token":"t0k3n"},"a":1}')) as Record<string, unknown>
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"token":"***"},"a":1}')
  })
})
