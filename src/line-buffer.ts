/**
 * A bounded buffer of JSON lines on their way to a file (`run --record`'s recorder, `learn --record`):
 * the writer never waits for the disk. Lines wait here, at most `maxChars` of them (the owner drops
 * what does not fit), and are written by a flush at least every `flushMs` and at stop, one write at a
 * time; the stop waits for the last write at most `stopWaitMs` (a hung disk must not hold a stop).
 */

export interface LineBufferOptions {
  /** The buffer is written at least this often, ms. */
  flushMs: number
  /** Characters waiting to be written at most. */
  maxChars: number
  /** How long the stop waits for the last write, ms. */
  stopWaitMs: number
  /** Writes lines that waited (the owner counts what fails). */
  write: (lines: string[]) => Promise<void>
}

export class LineBuffer {
  private lines: string[] = []
  private chars = 0
  private writing: Promise<void> | undefined
  private readonly timer: NodeJS.Timeout

  constructor(private readonly o: LineBufferOptions) {
    this.timer = setInterval(() => void this.flush(), o.flushMs)
    // The flush never keeps the process alive on its own.
    this.timer.unref()
  }

  /** Whether `chars` more characters fit in the buffer. */
  fits(chars: number): boolean {
    return this.chars + chars <= this.o.maxChars
  }

  /** Lines into the buffer (`chars` of them, the owner's count); the owner has checked `fits`. */
  push(lines: string[], chars: number): void {
    this.lines.push(...lines)
    this.chars += chars
  }

  /** Writes what waits; one write at a time (a flush while one runs joins it, the buffer keeps filling). */
  flush(): Promise<void> {
    if (this.writing) return this.writing
    if (this.lines.length === 0) return Promise.resolve()
    const lines = this.lines
    this.lines = []
    this.chars = 0
    this.writing = this.o.write(lines).finally(() => (this.writing = undefined))
    return this.writing
  }

  /** Stops: the timer ends, what waits is written (within `stopWaitMs`). */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    let bound: NodeJS.Timeout | undefined
    const timeout = new Promise<void>((resolve) => {
      bound = setTimeout(resolve, this.o.stopWaitMs)
      bound.unref()
    })
    const drain = async (): Promise<void> => {
      await this.writing
      await this.flush()
    }
    await Promise.race([drain(), timeout])
    clearTimeout(bound)
  }
}
