/**
 * What browsers send, handled in bounded slices (issue 24, item 3: one page socket flooding rotate frames
 * held the loop for as long as the flood lasted, as every frame was handled where `ws` parsed it).
 *
 * Each browser's frames wait in its `Inbox`, in order; one `FrameTurns` per server hands them on a
 * slice at a time, once per turn of the event loop (`setImmediate`): the waiting browsers are visited in
 * turn, each handing on at most `FRAMES_PER_VISIT` frames a visit, round and round until `TURN_BUDGET_MS`
 * is spent or nothing waits; whoever is left waiting goes first next turn. So one flooding page holds the loop a few milliseconds at a time,
 * and every other socket and request is served between its slices. A browser whose inbox holds
 * `PAUSE_AT_FRAMES` has its socket paused (nothing more is read from it, TCP pushes back on the
 * sender) until the inbox is down to `RESUME_AT_FRAMES`: what waits stays bounded, whatever is sent.
 * Turns merged into one event are the input door's work (src/daemon/input.ts).
 */
import { performance } from 'node:perf_hooks'
import type { RawData } from 'ws'

/**
 * A turn of the loop hands browsers' frames on for at most this long, ms. ASSUMED: 5 ms, a tenth of
 * issue 24's 50 ms bound on any stall, so that ws's parsing of what arrives meanwhile fits beside it.
 */
export const TURN_BUDGET_MS = 5
/** Frames one browser gets handled per visit, before the next waiting browser's turn. */
export const FRAMES_PER_VISIT = 128
/**
 * A browser with this many frames waiting has its socket paused. ASSUMED: 512; `ws` still hands on
 * the rest of the chunk it is parsing (at most 64 KiB, about 1,000 of the smallest frames), so an inbox
 * holds at most about 1,500 frames.
 */
export const PAUSE_AT_FRAMES = 512
/** A paused socket reads again once its inbox is down to this. */
export const RESUME_AT_FRAMES = 128

/** The part of a WebSocket the inbox needs (the `ws` WebSocket has it). */
export interface PausableSocket {
  pause(): void
  resume(): void
}

interface Frame {
  data: RawData
  isBinary: boolean
}

/** One browser's frames, waiting to be handled in order. */
export class Inbox {
  private frames: (Frame | undefined)[] = []
  private head = 0
  private paused = false
  private closed = false

  constructor(
    private readonly turns: FrameTurns,
    private readonly socket: PausableSocket,
    private readonly handle: (data: RawData, isBinary: boolean) => void,
  ) {}

  /** Frames waiting. */
  get waiting(): number {
    return this.frames.length - this.head
  }

  /** A frame as `ws` parsed it: kept, to be handled on a later turn. */
  push(data: RawData, isBinary: boolean): void {
    if (this.closed) return
    this.frames.push({ data, isBinary })
    if (!this.paused && this.waiting >= PAUSE_AT_FRAMES) {
      this.paused = true
      this.socket.pause()
    }
    this.turns.wake(this)
  }

  /**
   * Handles up to `max` frames, stopping early once `deadline` (on the turns' clock) has passed;
   * returns how many it handled.
   */
  handleSome(max: number, deadline: number): number {
    let n = 0
    while (n < max && this.head < this.frames.length && !this.closed) {
      const frame = this.frames[this.head]!
      this.frames[this.head++] = undefined
      n++
      this.handle(frame.data, frame.isBinary)
      if ((n & 7) === 0 && this.turns.now() >= deadline) break
    }
    if (this.head === this.frames.length) {
      this.frames = []
      this.head = 0
    } else if (this.head >= 1024) {
      this.frames = this.frames.slice(this.head)
      this.head = 0
    }
    if (this.paused && !this.closed && this.waiting <= RESUME_AT_FRAMES) {
      this.paused = false
      this.socket.resume()
    }
    return n
  }

  /** The browser went: what still waits is dropped (a press it never finished must not start now). */
  close(): void {
    this.closed = true
    this.frames = []
    this.head = 0
    this.turns.forget(this)
  }
}

/** Hands every browser's waiting frames on, a bounded slice per turn of the loop (see the header). */
export class FrameTurns {
  /** Inboxes with frames waiting, in the order they are next served. */
  private readonly ready = new Set<Inbox>()
  private turn: NodeJS.Immediate | undefined
  private closed = false

  constructor(
    private readonly budgetMs = TURN_BUDGET_MS,
    /** The clock the budget is counted on (tests give one of their own). */
    readonly now: () => number = () => performance.now(),
  ) {}

  /** An inbox has frames waiting: it is served on a coming turn. */
  wake(inbox: Inbox): void {
    if (this.closed) return
    this.ready.add(inbox)
    this.turn ??= setImmediate(this.run)
  }

  forget(inbox: Inbox): void {
    this.ready.delete(inbox)
  }

  close(): void {
    this.closed = true
    this.ready.clear()
    if (this.turn) clearImmediate(this.turn)
    this.turn = undefined
  }

  private readonly run = (): void => {
    this.turn = undefined
    const deadline = this.now() + this.budgetMs
    try {
      // Round and round the inboxes with frames until the budget is spent or none has any left.
      for (const inbox of this.ready) {
        // Served: to the back of the line, if it still has frames after this visit.
        this.ready.delete(inbox)
        inbox.handleSome(FRAMES_PER_VISIT, deadline)
        if (inbox.waiting > 0) this.ready.add(inbox)
        if (this.now() >= deadline) break
      }
    } finally {
      // Also after a throw: the frames still waiting are not stranded.
      if (this.ready.size > 0 && !this.closed) this.turn ??= setImmediate(this.run)
    }
  }
}
