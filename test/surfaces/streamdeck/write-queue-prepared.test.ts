/**
 * The write queue's two-step jobs (issue 29): a flush's prepares run side by side up to `parallel`, their
 * writes go out one at a time as each prepare finishes, and the next flush waits for all of them.
 */
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { WriteQueue, type WriteJob } from '../../../src/surfaces/streamdeck/write-queue.js'
import { gate } from '../helpers/surfaces.js'

function harness(parallel: number) {
  const log: string[] = []
  const errors: unknown[] = []
  let preparing = 0
  let maxPreparing = 0
  let writing = 0
  let maxWriting = 0
  const queue = new WriteQueue({ frameMs: 0, parallel, onError: (err) => errors.push(err) })
  const put = (slot: string, ready: Promise<void>, written?: Promise<void>): void =>
    queue.put(slot, {
      prepare: async (): Promise<WriteJob> => {
        preparing++
        maxPreparing = Math.max(maxPreparing, preparing)
        log.push(`prepare ${slot}`)
        try {
          await ready
        } finally {
          preparing--
        }
        return async () => {
          writing++
          maxWriting = Math.max(maxWriting, writing)
          log.push(`write ${slot}`)
          await written
          writing--
        }
      },
    })
  return { queue, put, log, errors, max: () => ({ preparing: maxPreparing, writing: maxWriting }) }
}

describe('two-step write jobs', () => {
  it('prepares up to `parallel` at once and writes in the order the prepares finish, one at a time', async () => {
    const h = harness(2)
    const gates = [gate(), gate(), gate()]
    const slow = gate()
    h.put('a', gates[0]!.done, slow.done)
    h.put('b', gates[1]!.done)
    h.put('c', gates[2]!.done)
    await expect.poll(() => h.log).toEqual(['prepare a', 'prepare b'])
    gates[1]!.open()
    // b is written and c's prepare takes b's place (in either order: the write is queued, not awaited).
    await expect.poll(() => [...h.log].sort()).toEqual(['prepare a', 'prepare b', 'prepare c', 'write b'])
    gates[0]!.open()
    gates[2]!.open()
    await expect.poll(() => h.log.length).toBe(5)
    // a is written while c's write waits for it (a's write is slow): never two writes at once.
    expect(h.log.at(-1)).toBe('write a')
    slow.open()
    await h.queue.idle()
    expect(h.log.slice(4)).toEqual(['write a', 'write c'])
    expect(h.max()).toEqual({ preparing: 2, writing: 1 })
    expect(h.errors).toEqual([])
  })

  it('a slot put again during a flush is prepared only after that flush has written everything', async () => {
    // Fake time (the queue's loop turns and frame clock too): that nothing more is prepared while the first
    // flush waits is seen after a long wait that takes no real time.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] })
    onTestFinished(() => void vi.useRealTimers())
    const h = harness(4)
    const first = gate()
    h.put('a', first.done)
    await vi.advanceTimersByTimeAsync(0)
    expect(h.log).toEqual(['prepare a'])
    h.put('a', Promise.resolve())
    h.put('b', Promise.resolve())
    await vi.advanceTimersByTimeAsync(1000)
    expect(h.log).toEqual(['prepare a'])
    first.open()
    await vi.advanceTimersByTimeAsync(1000)
    await h.queue.idle()
    expect(h.log).toEqual(['prepare a', 'write a', 'prepare a', 'prepare b', 'write a', 'write b'])
  })

  it('a prepare that returns nothing writes nothing; one that fails stops the queue once', async () => {
    const errors: unknown[] = []
    const queue = new WriteQueue({ frameMs: 0, parallel: 3, onError: (err) => errors.push(err) })
    const written: string[] = []
    queue.put('skip', { prepare: () => Promise.resolve(undefined) })
    queue.put('ok', { prepare: () => Promise.resolve(() => Promise.resolve(void written.push('ok'))) })
    await queue.idle()
    expect(written).toEqual(['ok'])
    queue.put('bad', { prepare: () => Promise.reject(new Error('broken')) })
    queue.put('late', { prepare: () => Promise.resolve(() => Promise.resolve(void written.push('late'))) })
    await queue.idle()
    expect(errors).toEqual([new Error('broken')])
    queue.put('after', { prepare: () => Promise.resolve(() => Promise.resolve(void written.push('after'))) })
    await queue.idle()
    expect(written).not.toContain('after')
  })
})
