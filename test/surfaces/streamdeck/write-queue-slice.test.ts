/**
 * Issue 29: writes that are ready at once (a page seen before) give the event loop a turn once they
 * have held it `sliceMs`, so input is read between them rather than after the whole page; writes that
 * fit in the slice go out together. Real timers: the turns are the loop's own.
 */
import { describe, expect, it } from 'vitest'
import { WriteQueue } from '../../../src/surfaces/streamdeck/write-queue.js'

/** Holds the loop for `ms` (a write that takes time on the loop, as a HID write does). */
function spin(ms: number): void {
  const end = performance.now() + ms
  while (performance.now() < end) {
    // busy
  }
}

/** Puts `count` slots whose prepares are ready at once; each write records the loop turn it ran in. */
async function turnsOfWrites(sliceMs: number, count: number, writeMs: number): Promise<number[]> {
  let turn = 0
  let flushing = true
  const count_ = (): void => {
    turn++
    if (flushing) setImmediate(count_)
  }
  setImmediate(count_)
  const seen: number[] = []
  const errors: unknown[] = []
  const queue = new WriteQueue({ frameMs: 0, parallel: 4, sliceMs, onError: (err) => errors.push(err) })
  for (let i = 0; i < count; i++) {
    queue.put(`key:${i}`, {
      prepare: () =>
        Promise.resolve(() => {
          seen.push(turn)
          spin(writeMs)
          return Promise.resolve()
        }),
    })
  }
  await queue.idle()
  flushing = false
  expect(errors).toEqual([])
  expect(seen).toHaveLength(count)
  return seen
}

describe('write queue slices', () => {
  it('writes longer than the slice each get a turn of the loop before them', async () => {
    const turns = await turnsOfWrites(0.5, 12, 0.8)
    for (let i = 1; i < turns.length; i++) expect(turns[i]!, `write ${i}`).toBeGreaterThan(turns[i - 1]!)
  })

  it('writes within the slice go out in one turn; with no slice a whole page does', async () => {
    const quick = await turnsOfWrites(1000, 12, 0.01)
    expect(new Set(quick).size).toBe(1)
    const unsliced = await turnsOfWrites(Infinity, 12, 0.8)
    expect(new Set(unsliced).size).toBe(1)
  })
})

describe('write queue parallel prepares', () => {
  it('runs at most `parallel` prepares of a flush at once', async () => {
    let preparing = 0
    const most: number[] = []
    const page = async (allowed: number): Promise<void> => {
      const queue = new WriteQueue({ frameMs: 0, parallel: allowed, onError: () => undefined })
      let max = 0
      for (let i = 0; i < 8; i++) {
        queue.put(`key:${i}`, {
          prepare: async () => {
            max = Math.max(max, ++preparing)
            await new Promise((resolve) => setImmediate(resolve))
            preparing--
            return undefined
          },
        })
      }
      await queue.idle()
      most.push(max)
    }
    await page(4)
    await page(1)
    expect(most).toEqual([4, 1])
  })
})

describe('write queue flush due at once', () => {
  it('starts on the next turn of the loop, before a timer of the shortest wait, and idle() hears it end', async () => {
    const order: string[] = []
    const queue = new WriteQueue({ frameMs: 0, onError: () => undefined })
    // From a timer callback, the loop's check phase (setImmediate) comes before its next timers phase:
    // the timer set first still fires after the flush (a flush on setTimeout(0) would come after it).
    await new Promise<void>((resolve) =>
      setTimeout(() => {
        setTimeout(() => {
          order.push('timer')
          resolve()
        }, 0)
        queue.put('key:0', () => {
          order.push('written')
          return Promise.resolve()
        })
      }, 0),
    )
    await queue.idle()
    expect(order).toEqual(['written', 'timer'])
  })
})
