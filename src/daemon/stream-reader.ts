/**
 * One reader of a streamed HTTP response (`event-stream.ts`, `record-stream.ts`): text goes straight to
 * its socket until the socket stops taking it; then it waits here, and all that waits goes out when the
 * socket drains. A reader really behind, more than `limit` unread (the socket's buffer and what waits
 * here) once the socket had its chance to drain, or `HARD_LIMIT_FACTOR` times that at any moment, is
 * dropped: its last text says why (each stream its own), then the response ends.
 */
import type { ServerResponse } from 'node:http'

/**
 * What waits may pass the limit until the socket had its chance to drain, but never this many times
 * it: the bound on memory while a burst is handled in one run of code.
 */
const HARD_LIMIT_FACTOR = 4
/**
 * How long a dropped reader's socket is given to take its last event, ms, before it is cut. ASSUMED:
 * 2 s; a reader that reads gets it at once, and one that never reads holds only what was already unread.
 */
const LAST_EVENT_GRACE_MS = 2000

/** The shared part of a stream's reader; `W` is what waits (text, or what a stream still merges). */
export abstract class StreamReader<W> {
  protected waiting: W[] = []
  protected waitingBytes = 0
  private drainAwaited = false
  private check: NodeJS.Immediate | undefined
  /** Its last text is sent (dropped, or the stream ended): nothing more. */
  finished = false

  constructor(
    protected readonly res: ServerResponse,
    protected readonly limit: number,
    private readonly onDropped: () => void,
  ) {}

  /** The text of what waits, all at once (the socket drained). */
  protected abstract waitingText(): string
  /** The last text of a reader dropped with `unread` bytes unread. */
  protected abstract droppedText(unread: number): string

  /** Lets go of what waits (a stream that merges clears its own state too). */
  protected clearWaiting(): void {
    this.waiting = []
    this.waitingBytes = 0
  }

  /** Sends `now()` straight to a socket that takes it; else `wait()` queues it until the socket drains. */
  protected deliver(now: () => string, wait: () => void): void {
    if (this.finished || this.res.destroyed) return
    if (this.waiting.length === 0 && !this.res.writableNeedDrain) {
      this.res.write(now())
      return
    }
    wait()
    if (!this.drainAwaited) {
      this.drainAwaited = true
      this.res.once('drain', this.flush)
    }
    this.checkUnread()
  }

  /** The socket drained: everything waiting goes out at once. */
  private readonly flush = (): void => {
    this.drainAwaited = false
    if (this.finished || this.res.destroyed) return
    const text = this.waitingText()
    this.clearWaiting()
    if (text !== '') this.res.write(text)
  }

  /**
   * Over the limit: checked again once the socket has had its chance to drain (two turns of the loop,
   * so that a poll for I/O comes between), and dropped if still over; far over it, dropped at once.
   */
  private checkUnread(): void {
    const unread = this.unread()
    if (unread > this.limit * HARD_LIMIT_FACTOR) return this.drop(unread)
    if (unread <= this.limit || this.check) return
    this.check = setImmediate(() => {
      this.check = setImmediate(() => {
        this.check = undefined
        const now = this.unread()
        if (now > this.limit && !this.finished) this.drop(now)
      })
    })
  }

  private unread(): number {
    return this.res.writableLength + this.waitingBytes
  }

  /** Drops the reader: what waits is let go; its last text says why. */
  private drop(unread: number): void {
    if (this.finished) return
    this.clearWaiting()
    this.finish(this.droppedText(unread))
    this.onDropped()
  }

  /** The last text, then the end; a socket that never takes it is cut after LAST_EVENT_GRACE_MS. */
  protected finish(text: string): void {
    this.finished = true
    if (this.check) clearImmediate(this.check)
    this.check = undefined
    const cut = setTimeout(() => this.res.destroy(), LAST_EVENT_GRACE_MS).unref()
    this.res.once('close', () => clearTimeout(cut))
    this.res.end(text)
  }
}
