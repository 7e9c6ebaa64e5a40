/**
 * The one graceful stop of the long-running commands (run, sim, surfaces, learn): close once stopped,
 * within the bound; a failed or late close is exit 1; a repeated signal during the stop is swallowed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { STOP_BOUND_MS } from '../../src/defaults.js'
import { createLogger, type LogRecord } from '../../src/log.js'
import { EXIT } from '../../src/commands/subcommand.js'
import { ignoreLateSignal, untilStopped, whileListening } from '../../src/commands/until-stopped.js'

function capture(): { log: ReturnType<typeof createLogger>; records: LogRecord[] } {
  const records: LogRecord[] = []
  return { log: createLogger('test/stop', { sink: (r) => records.push(r) }), records }
}

/** The listeners `act` adds to a process signal (called directly: a real signal would reach vitest too). */
function added(signal: NodeJS.Signals, before: readonly unknown[]): ((s: NodeJS.Signals) => void)[] {
  return process.listeners(signal).filter((l) => !before.includes(l))
}

afterEach(() => {
  vi.useRealTimers()
})

describe('untilStopped', () => {
  it('waits for the stop, then closes and resolves 0, logging the stop', async () => {
    const { log, records } = capture()
    const stop = new AbortController()
    const close = vi.fn(() => Promise.resolve())
    vi.useFakeTimers()
    const done = untilStopped(close, { log, stop: stop.signal })
    // No stop yet: however long it waits (fake time, well past the stop bound), nothing is closed.
    await vi.advanceTimersByTimeAsync(STOP_BOUND_MS * 10)
    expect(close).not.toHaveBeenCalled()
    stop.abort('SIGTERM')
    expect(await done).toBe(EXIT.ok)
    expect(close).toHaveBeenCalledTimes(1)
    expect(records).toEqual([{ level: 'info', scope: 'test/stop', message: 'stopping', fields: { signal: 'SIGTERM' } }])
  })

  it('a close that fails is exit 1, and says so', async () => {
    const { log, records } = capture()
    const stop = new AbortController()
    stop.abort()
    expect(await untilStopped(() => Promise.reject(new Error('port stuck')), { log, stop: stop.signal })).toBe(
      EXIT.failure,
    )
    expect(records.map((r) => [r.level, r.message])).toEqual([
      ['info', 'stopping'],
      ['error', 'stop failed'],
    ])
  })

  it('a close past STOP_BOUND_MS is exit 1 at the bound, not later', async () => {
    vi.useFakeTimers()
    const { log, records } = capture()
    const stop = new AbortController()
    stop.abort()
    let result: number | undefined
    void untilStopped(() => new Promise<void>(() => undefined), { log, stop: stop.signal }).then((r) => (result = r))
    await vi.advanceTimersByTimeAsync(STOP_BOUND_MS - 1)
    expect(result).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    expect(result).toBe(EXIT.failure)
    expect(records.at(-1)).toMatchObject({
      level: 'error',
      message: `stop took longer than ${STOP_BOUND_MS} ms; exiting anyway`,
    })
  })

  it('without a signal of its own: the first SIGINT stops, a repeat during the stop is swallowed, a late one after it too', async () => {
    const { log } = capture()
    const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') }
    let finishClose: () => void = () => undefined
    const close = vi.fn(() => new Promise<void>((resolve) => (finishClose = resolve)))
    const done = untilStopped(close, { log })
    const [onInt] = added('SIGINT', before.SIGINT)
    const [onTerm] = added('SIGTERM', before.SIGTERM)
    expect(onInt).toBeTypeOf('function')
    expect(onTerm).toBeTypeOf('function')
    onInt!('SIGINT')
    await vi.waitFor(() => expect(close).toHaveBeenCalledTimes(1))
    // Still listening while it stops: a second Ctrl+C (or systemd's SIGTERM) neither kills nor restarts it.
    expect(added('SIGINT', before.SIGINT)).toEqual([onInt])
    onInt!('SIGINT')
    onTerm!('SIGTERM')
    finishClose()
    expect(await done).toBe(EXIT.ok)
    expect(close).toHaveBeenCalledTimes(1)
    // Its own listeners go; a signal after the stop (the process is exiting) meets only the one that ignores it.
    expect(added('SIGINT', before.SIGINT)).toEqual([ignoreLateSignal])
    expect(added('SIGTERM', before.SIGTERM)).toEqual([ignoreLateSignal])
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(s, ignoreLateSignal)
  })
})

describe('whileListening', () => {
  it('hands a given signal through and listens to no process signal', async () => {
    const before = process.listeners('SIGINT')
    const stop = new AbortController()
    const seen = await whileListening(stop.signal, (s) => {
      expect(added('SIGINT', before)).toEqual([])
      return Promise.resolve(s)
    })
    expect(seen).toBe(stop.signal)
  })

  it('removes its listeners when the work throws', async () => {
    const before = process.listeners('SIGTERM')
    await expect(whileListening(undefined, () => Promise.reject(new Error('no device')))).rejects.toThrow('no device')
    expect(added('SIGTERM', before)).toEqual([])
  })
})
