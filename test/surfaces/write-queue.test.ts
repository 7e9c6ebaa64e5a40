/** The Stream Deck write queue, on a fake clock: pacing to one flush per frame, coalescing per slot. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { WriteQueue } from '../../src/surfaces/streamdeck/write-queue.js'

// The queue measures frames with performance.now(): fake it along with the timers.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
})
afterEach(() => {
  vi.useRealTimers()
})

/** A queue whose jobs record `slot@time` as they run. */
function recordingQueue(frameMs: number) {
  const written: string[] = []
  const errors: unknown[] = []
  const queue = new WriteQueue({ frameMs, onError: (err) => errors.push(err) })
  const put = (slot: string, label = slot): void =>
    queue.put(slot, () => {
      written.push(`${label}@${performance.now()}`)
      return Promise.resolve()
    })
  return { queue, put, written, errors }
}

describe('WriteQueue', () => {
  it('flushes at most once per frame: a write put just after a flush waits for the next frame', async () => {
    const { put, written } = recordingQueue(100)
    put('key:0')
    await vi.advanceTimersByTimeAsync(0)
    expect(written).toEqual(['key:0@0'])
    await vi.advanceTimersByTimeAsync(10)
    put('key:1')
    await vi.advanceTimersByTimeAsync(89) // t = 99: still inside the first frame
    expect(written).toEqual(['key:0@0'])
    await vi.advanceTimersByTimeAsync(1) // t = 100: the next frame starts
    expect(written).toEqual(['key:0@0', 'key:1@100'])
  })

  it('writes a burst for one slot once per frame, with the last job put', async () => {
    const { put, written } = recordingQueue(100)
    put('key:0', 'first')
    await vi.advanceTimersByTimeAsync(0)
    for (let i = 0; i < 50; i++) put('key:0', `burst ${i}`)
    put('brightness')
    await vi.advanceTimersByTimeAsync(100)
    expect(written).toEqual(['first@0', 'burst 49@100', 'brightness@100'])
  })

  it('after a quiet spell writes at once', async () => {
    const { put, written } = recordingQueue(100)
    put('key:0')
    await vi.advanceTimersByTimeAsync(250)
    put('key:1')
    await vi.advanceTimersByTimeAsync(0)
    expect(written).toEqual(['key:0@0', 'key:1@250'])
  })
})
