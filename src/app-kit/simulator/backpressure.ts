/**
 * Bounded sending for one WebSocket: the simulator's counterpart of the web surface's outgoing queue
 * (`src/surfaces/web/outgoing.ts`). A socket whose peer does not read holds every frame written to
 * it; without a bound one such subscriber grows the process by gigabytes. While a socket holds more
 * than the high-water mark of unsent bytes, new frames for it are dropped (a notification missed is
 * what a slow client of the real application sees too), and a socket still behind after the grace
 * time is closed, so that its client reconnects and reads the state afresh.
 */
import { SIM_LIMITS } from './limits.js'

/** The part of a `ws` WebSocket the guard needs. */
export interface GuardedSocket {
  readonly bufferedAmount: number
  send(data: string): void
  terminate(): void
}

export interface SendGuardOptions {
  highWaterBytes?: number
  graceMs?: number
  /** The clock (tests move it). Default Date.now. */
  now?: () => number
}

export class SendGuard {
  private behindSince: number | undefined
  private readonly highWaterBytes: number
  private readonly graceMs: number
  private readonly now: () => number

  constructor(
    private readonly socket: GuardedSocket,
    options: SendGuardOptions = {},
  ) {
    this.highWaterBytes = options.highWaterBytes ?? SIM_LIMITS.sendHighWaterBytes
    this.graceMs = options.graceMs ?? SIM_LIMITS.slowClientGraceMs
    this.now = options.now ?? Date.now
  }

  /**
   * Sends `frame` unless the socket is behind. Returns whether it was sent; a socket behind for longer
   * than the grace time is terminated here. At most one frame past the mark is ever held.
   */
  send(frame: string): boolean {
    if (this.socket.bufferedAmount <= this.highWaterBytes) {
      this.behindSince = undefined
      this.socket.send(frame)
      return true
    }
    const now = this.now()
    this.behindSince ??= now
    if (now - this.behindSince >= this.graceMs) this.socket.terminate()
    return false
  }
}
