/**
 * One write queue per device, with redraw coalescing.
 *
 * Every write to a device goes through one queue, one write at a time, because HID writes to the same
 * device must not interleave (an image is several reports). Jobs are keyed by a slot (a control id, or
 * `brightness`): putting a job for a slot that already has a pending one replaces it, so a burst of
 * feedback for one key costs one write with the final state. Flushes are paced to at most one per frame
 * (`frameMs`, 60 fps by default): every dirty slot is written once per frame at most.
 *
 * A job may come in two steps (`PreparedJob`): `prepare` (draw and encode, which may wait on the JPEG
 * encoder's threads) and the write it hands back. The prepares of one flush run side by side, up to
 * `parallel` at once; each write is sent as soon as its prepare is done, one write at a time. A flush
 * ends only when all its writes are sent, and each slot is in a flush once, so a later face for a key
 * is never overwritten by an earlier one.
 *
 * Writes that are ready at once (a page seen before: cached bytes only) would otherwise go out as one
 * chain of promise callbacks, holding the event loop for the whole page while input waits; once the
 * writes of one loop turn have run `sliceMs`, the next waits for a turn of the loop (setImmediate), so
 * a jog's deltas are read between writes.
 */
import { availableParallelism } from 'node:os'

export type WriteJob = () => Promise<void>

/** A job in two steps: `prepare` runs alongside others; the write it returns (if any) goes out alone. */
export interface PreparedJob {
  prepare: () => Promise<WriteJob | undefined>
}

export interface WriteQueueOptions {
  /** Minimum time between the starts of two flushes. 0 flushes as soon as the event loop turns. */
  frameMs?: number
  /** How many prepares of a flush run at once; default the cores available (os.availableParallelism()). */
  parallel?: number
  /** Called once with the first write that fails; the queue stops and drops what is pending. */
  onError: (err: unknown) => void
  /** How long writes may hold the event loop before they give it a turn; default WRITE_SLICE_MS. */
  sliceMs?: number
}

const DEFAULT_FRAME_MS = 1000 / 60
/**
 * ASSUMED (`npm run bench` jog lag while a page is written): half a millisecond of writes, then a turn of
 * the loop, so a seen page's writes give input a few turns on the way; a turn costs far less than a slice.
 */
const WRITE_SLICE_MS = 0.5

export class WriteQueue {
  private readonly pending = new Map<string, WriteJob | PreparedJob>()
  private readonly frameMs: number
  private readonly parallel: number
  private readonly onError: (err: unknown) => void
  /** The next flush, waiting for its frame: how to cancel it, and a promise settled when it starts (or is cancelled). */
  private timer: { cancel: () => void; fired: Promise<void>; fire: () => void } | undefined
  private running: Promise<void> | undefined
  private lastFlush = -Infinity
  private stopped = false
  private readonly sliceMs: number
  /** When writes started holding the loop in this turn of it; undefined once the loop has turned. */
  private sliceStart: number | undefined
  /** The immediate that notices the loop's turn (cleared when a flush ends: no timer left behind). */
  private sliceEnd: NodeJS.Immediate | undefined

  constructor(opts: WriteQueueOptions) {
    this.frameMs = Math.max(0, opts.frameMs ?? DEFAULT_FRAME_MS)
    const cores = availableParallelism()
    this.parallel = Math.max(1, Math.floor(opts.parallel ?? cores) || 1)
    this.onError = opts.onError
    this.sliceMs = Math.max(0, opts.sliceMs ?? WRITE_SLICE_MS)
  }

  /** Queues `job` for `slot`, replacing a job still pending for the same slot. */
  put(slot: string, job: WriteJob | PreparedJob): void {
    if (this.stopped) return
    // Deleting first moves the slot to the end, so slots are written in the order they last changed.
    this.pending.delete(slot)
    this.pending.set(slot, job)
    this.schedule()
  }

  /** Resolves when nothing is pending or running (or the queue has stopped). */
  async idle(): Promise<void> {
    while (this.running || (this.timer && !this.stopped)) {
      if (this.running) await this.running
      else if (this.timer) await this.timer.fired
    }
  }

  /** Drops pending jobs and waits for the one in flight. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true
    this.pending.clear()
    const timer = this.timer
    this.timer = undefined
    timer?.cancel()
    timer?.fire()
    if (this.running) await this.running
  }

  private schedule(): void {
    if (this.timer || this.running || this.stopped || this.pending.size === 0) return
    const wait = Math.max(0, this.lastFlush + this.frameMs - performance.now())
    let fire = (): void => undefined
    const fired = new Promise<void>((resolve) => (fire = resolve))
    const start = (): void => {
      this.timer = undefined
      this.running = this.flush().finally(() => {
        this.running = undefined
        this.schedule()
      })
      fire()
    }
    // A flush due now waits one turn of the loop, not a timer: setTimeout's shortest wait is 1 ms, which
    // was most of a seen page's time (and a millisecond of every cold one's).
    if (wait > 0) {
      const handle = setTimeout(start, wait)
      this.timer = { cancel: () => clearTimeout(handle), fired, fire }
    } else {
      const handle = setImmediate(start)
      this.timer = { cancel: () => clearImmediate(handle), fired, fire }
    }
  }

  /**
   * Before a write: a turn of the event loop when the writes of this turn have held it `sliceMs`. The
   * loop's turn is noticed by an immediate set when the slice starts (it runs before one set later).
   */
  private async turn(): Promise<void> {
    if (this.sliceStart === undefined) return this.startSlice()
    if (performance.now() - this.sliceStart < this.sliceMs) return
    await new Promise<void>((resolve) => setImmediate(resolve))
    this.startSlice()
  }

  private startSlice(): void {
    this.sliceStart = performance.now()
    this.sliceEnd = setImmediate(() => this.endSlice())
  }

  private endSlice(): void {
    if (this.sliceEnd) clearImmediate(this.sliceEnd)
    this.sliceEnd = undefined
    this.sliceStart = undefined
  }

  private async flush(): Promise<void> {
    this.lastFlush = performance.now()
    const jobs = [...this.pending.values()]
    this.pending.clear()
    let next = 0
    // One write at a time, in the order the prepares finish.
    let writes: Promise<void> = Promise.resolve()
    const worker = async (): Promise<void> => {
      while (next < jobs.length && !this.stopped) {
        const job = jobs[next++]!
        const write = typeof job === 'function' ? job : await job.prepare()
        if (!write || this.stopped) continue
        const sent = writes.then(() => this.turn()).then(() => (this.stopped ? undefined : write()))
        writes = sent
        // A plain job is its own write: wait for it, so plain jobs stay one after another as before.
        if (typeof job === 'function') await sent
      }
    }
    try {
      await Promise.all(Array.from({ length: Math.min(this.parallel, jobs.length) }, worker))
      await writes
    } catch (err) {
      if (this.stopped) return
      this.stopped = true
      this.pending.clear()
      // Let the other workers' writes settle (each checks `stopped`) before reporting.
      await writes.catch(() => undefined)
      this.onError(err)
    } finally {
      this.endSlice()
    }
  }
}
