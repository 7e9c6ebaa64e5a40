/**
 * The Stream Deck write queue, on a fake clock: pacing to one flush per frame, coalescing per slot, one
 * write at a time in the order slots last changed, stopping, failing writes, the default frame and `idle()`.
 * Cases from the former write-queue.test.ts (pacing and coalescing).
 * Cases from the former write-queue-mutants.test.ts (mutation survivors: the edges).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { WriteQueue } from '../../../src/surfaces/streamdeck/write-queue.js'
import { gate } from '../helpers/surfaces.js'

// The queue measures frames with performance.now(): fake it along with the timers (a flush due at once
// waits for setImmediate, not a timer).
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] })
})
afterEach(() => {
  vi.useRealTimers()
})

/**
 * A queue whose jobs record, as they start, their slot (`written`) and `label@time` (`timed`), and how many
 * run at once; a job waits for `wait` when given.
 */
function queueOf(frameMs?: number) {
  const written: string[] = []
  const timed: string[] = []
  const errors: unknown[] = []
  let inFlight = 0
  let maxInFlight = 0
  const queue = new WriteQueue({ ...(frameMs !== undefined ? { frameMs } : {}), onError: (err) => errors.push(err) })
  const put = (slot: string, wait?: Promise<void>, label = slot): void =>
    queue.put(slot, async () => {
      written.push(slot)
      timed.push(`${label}@${performance.now()}`)
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      try {
        await wait
      } finally {
        inFlight--
      }
    })
  return { queue, put, written, timed, errors, maxInFlight: () => maxInFlight }
}

/** As `queueOf`, its `written` being `label@time` and `put` taking the label second (the pacing cases read times). */
function recordingQueue(frameMs: number) {
  const q = queueOf(frameMs)
  const put = (slot: string, label = slot): void => q.put(slot, undefined, label)
  return { queue: q.queue, put, written: q.timed, errors: q.errors }
}

/** As `queueOf`, with slot `a` put (its job waiting for `wait`, when given) and its flush begun. */
async function afterFirstPut(frameMs: number, wait?: Promise<void>) {
  const q = queueOf(frameMs)
  q.put('a', wait)
  await vi.advanceTimersByTimeAsync(0)
  return q
}

/** A frameless queue writing slot `a`, held until `slow` opens (or fails), with slot `b` put behind it. */
async function bBehindHeldA() {
  const slow = gate()
  const q = queueOf(0)
  q.put('a', slow.done)
  q.put('b')
  await vi.advanceTimersByTimeAsync(0)
  return { ...q, slow }
}

describe('WriteQueue pacing', () => {
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

describe('WriteQueue edges', () => {
  it('writes slots in the order they last changed', async () => {
    const { put, written } = queueOf(0)
    put('a')
    put('b')
    put('a')
    await vi.advanceTimersByTimeAsync(0)
    expect(written).toEqual(['b', 'a'])
  })

  it('runs one write at a time: a put while a write is in flight waits for it to finish', async () => {
    const { slow, put, written, maxInFlight } = await bBehindHeldA()
    expect(written).toEqual(['a'])
    put('c')
    await vi.advanceTimersByTimeAsync(50)
    expect(written).toEqual(['a'])
    slow.open()
    await vi.advanceTimersByTimeAsync(0)
    expect(written).toEqual(['a', 'b', 'c'])
    expect(maxInFlight()).toBe(1)
  })

  it('paces to the default frame of 1000/60 ms when none is given', async () => {
    const { put, written } = queueOf()
    put('a')
    await vi.advanceTimersByTimeAsync(0)
    put('b')
    await vi.advanceTimersByTimeAsync(15)
    expect(written).toEqual(['a'])
    await vi.advanceTimersByTimeAsync(2)
    expect(written).toEqual(['a', 'b'])
  })

  it('treats a negative frame as none: writes as soon as the event loop turns', async () => {
    const { queue, put, written } = await afterFirstPut(-100)
    put('b')
    await vi.advanceTimersByTimeAsync(0)
    expect(written).toEqual(['a', 'b'])
    const idle = queue.idle()
    let idleDone = false
    void idle.then(() => (idleDone = true))
    await vi.advanceTimersByTimeAsync(1)
    expect(idleDone).toBe(true)
  })

  it('stop() drops what is pending, leaves no timer behind, and ignores later puts', async () => {
    const { queue, put, written } = await afterFirstPut(100)
    put('b')
    expect(vi.getTimerCount()).toBe(1)
    await queue.stop()
    expect(vi.getTimerCount()).toBe(0)
    put('c')
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(1000)
    expect(written).toEqual(['a'])
    await queue.idle()
    await queue.stop()
  })

  it('stop() waits for the write in flight and skips the rest of that flush', async () => {
    const { slow, queue, written } = await bBehindHeldA()
    expect(written).toEqual(['a'])
    let stopped = false
    const stopping = queue.stop().then(() => (stopped = true))
    await vi.advanceTimersByTimeAsync(10)
    expect(stopped).toBe(false)
    slow.open()
    await stopping
    expect(stopped).toBe(true)
    await vi.advanceTimersByTimeAsync(100)
    expect(written).toEqual(['a'])
  })

  it('a failing write is reported once; the queue stops and drops everything after it', async () => {
    const { slow, queue, put, written, errors } = await bBehindHeldA()
    put('c')
    const boom = new Error('unplugged')
    slow.fail(boom)
    await vi.advanceTimersByTimeAsync(0)
    expect(errors).toEqual([boom])
    put('d')
    await vi.advanceTimersByTimeAsync(100)
    expect(written).toEqual(['a'])
    expect(errors).toEqual([boom])
    expect(vi.getTimerCount()).toBe(0)
    await queue.idle()
  })

  it('leaves no timer behind once everything is written', async () => {
    const { queue, written } = await afterFirstPut(100)
    expect(written).toEqual(['a'])
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(300)
    expect(vi.getTimerCount()).toBe(0)
    await queue.idle()
  })

  it('idle() resolves once the pending write is done, when it is done (it waits for the flush, never polls)', async () => {
    const { queue, put, written } = await afterFirstPut(100)
    await vi.advanceTimersByTimeAsync(90)
    put('b') // due at t = 100
    let idleAt: number | undefined
    void queue.idle().then(() => (idleAt = performance.now()))
    await vi.advanceTimersByTimeAsync(9)
    expect(idleAt).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    expect(written).toEqual(['a', 'b'])
    // Why this is pinned: idle() waits for the flush it finds scheduled, so it notices at t = 100, not a frame later.
    expect(idleAt).toBe(100)
  })

  it('idle() waits for a write in flight', async () => {
    const slow = gate()
    const { queue } = await afterFirstPut(0, slow.done)
    let idle = false
    void queue.idle().then(() => (idle = true))
    await vi.advanceTimersByTimeAsync(10)
    expect(idle).toBe(false)
    slow.open()
    await vi.advanceTimersByTimeAsync(0)
    expect(idle).toBe(true)
  })

  it('idle() on a stopped queue resolves at once', async () => {
    const { queue, put } = await afterFirstPut(100)
    put('b')
    await queue.stop()
    let idle = false
    void queue.idle().then(() => (idle = true))
    await Promise.resolve()
    await Promise.resolve()
    expect(idle).toBe(true)
  })
})

describe('WriteQueue on the real clock', () => {
  it('schedules its first write with a delay Node accepts (no TimeoutOverflowWarning)', async () => {
    vi.useRealTimers()
    const warnings: string[] = []
    const onWarning = (w: Error): void => void warnings.push(w.name)
    process.on('warning', onWarning)
    try {
      const { queue, put, written } = queueOf(100)
      put('a')
      await queue.idle()
      expect(written).toEqual(['a'])
      // Why a turn of the loop: Node emits process warnings on a later tick.
      await new Promise((resolve) => setImmediate(resolve))
      expect(warnings).not.toContain('TimeoutOverflowWarning')
    } finally {
      process.off('warning', onWarning)
    }
  })
})
