/**
 * What one browser is still to be sent. Messages wait in an ordered queue, flushed on the next turn
 * of the event loop (paced: FLUSH_PACE); a newer key face (or state) for a control replaces a queued
 * one, so a browser on a slow link gets the newest picture of every key, never a backlog. While its
 * socket holds more than the high-water mark of unsent bytes nothing more is written; the queue keeps
 * coalescing meanwhile.
 * A browser holding more than the outgoing bound (`outgoing-bound.ts`), its socket's unsent bytes and
 * what is queued here together, does not read: it is dropped, and what was queued for it let go.
 */
import type { ServerMessage } from '../../face/protocol.js'
import type { Logger } from '../../log.js'
import { OUTGOING_LIMITS, overOutgoingBound } from '../../outgoing-bound.js'

/** A browser whose socket holds more unsent bytes than this gets no new frames until it drains. */
const SEND_HIGH_WATER_BYTES = 1 << 20
/** How often a backed-up browser is checked for having drained. */
export const SEND_RETRY_MS = 50

/**
 * Flushes a browser may have at once, and how soon one more comes back, ms (a token bucket). A press's
 * pending badge and then its light go out at once; a control that changes at every turn of the loop (a
 * jog's position under a spinning hand) reaches the browser at most once a refill, the newest look
 * winning meanwhile. More than `holdBytes` queued goes on the next turn whatever the pace (a page
 * turned, many new faces): pacing never makes a browser that reads look like one that does not.
 * ASSUMED: 4, and 8 ms (half a frame of a 60 Hz screen: no frame misses a change), 16 KiB.
 */
export const FLUSH_PACE = { burst: 4, refillMs: 8, holdBytes: 16 * 1024 } as const

/** The part of a WebSocket the queue needs (the `ws` WebSocket has it). */
export interface MessageSink {
  readonly readyState: number
  readonly bufferedAmount: number
  send(text: string): void
}
const OPEN = 1

/**
 * Each message's JSON text, made once however many browsers it goes to (a key's pre-rendered image is
 * a data URL of several kilobytes). Messages are never changed after they are made, so the text stays true.
 */
const encoded = new WeakMap<ServerMessage, string>()
function jsonOf(message: ServerMessage): string {
  let text = encoded.get(message)
  if (text === undefined) encoded.set(message, (text = JSON.stringify(message)))
  return text
}

/** Which queued message a newer one replaces; undefined: never replaced. */
function coalesceKey(message: ServerMessage): string | undefined {
  switch (message.type) {
    case 'key':
    case 'state':
      return `c\0${message.surface}\0${message.control}`
    case 'brightness':
      return `b\0${message.surface}`
    case 'page':
      return `p\0${message.surface}`
    case 'surface':
      return `s\0${message.surface.id}`
    case 'removed':
      return `s\0${message.surface}`
    case 'hello':
      return undefined
    // A browser's own Stream Deck (WebHID): the newest face per key, colour per key, brightness per deck.
    case 'deck-key':
    case 'deck-color':
      return `d\0${message.deck}\0${message.control}`
    case 'deck-brightness':
      return `db\0${message.deck}`
    // A deck's newest state replaces an older one: a page repeating a refused `deck-add` gets one refusal.
    case 'deck-state':
      return `ds\0${message.deck}`
    // Find by pressing: the newest armed state replaces an older one; every selection is its own.
    case 'find-state':
      return 'f'
    case 'selected':
      return undefined
  }
}

function surfaceOf(message: ServerMessage): string | undefined {
  switch (message.type) {
    case 'hello':
    case 'deck-state':
    case 'deck-key':
    case 'deck-color':
    case 'deck-brightness':
    case 'find-state':
    case 'selected':
      return undefined
    case 'surface':
      return message.surface.id
    case 'removed':
    case 'key':
    case 'state':
    case 'brightness':
    case 'page':
      return message.surface
  }
}

/** What the queue does with a browser that does not read (the outgoing rule, `outgoing-bound.ts`). */
export interface OutgoingDrop {
  /** Closes the browser's socket (what waited for it is let go when it closes). */
  drop(): void
  log?: Logger
  /** Unsent bytes allowed, in the socket and here together (default OUTGOING_LIMITS.maxUnsentPageBytes). */
  limitBytes?: number
}

export class OutgoingQueue {
  private readonly queue = new Map<string, ServerMessage>()
  /** The bytes of the messages queued (their JSON text). */
  private queuedBytes = 0
  private dropped = false
  private seq = 0
  private immediate: NodeJS.Immediate | undefined
  private timer: NodeJS.Timeout | undefined
  /** Flushes in hand (FLUSH_PACE), as of `tokensAt`. */
  private tokens: number = FLUSH_PACE.burst
  private tokensAt = performance.now()
  /** `timer` waits for the pace (not for a backed-up socket to drain). */
  private paced = false

  constructor(
    private readonly sink: MessageSink,
    private readonly highWaterBytes = SEND_HIGH_WATER_BYTES,
    private readonly overflow?: OutgoingDrop,
    /** Called after a flush that wrote a key's face or a control's state (the daemon's press trace). */
    private readonly onKeysWritten?: () => void,
  ) {}

  /** Messages waiting (for tests and diagnostics). */
  get size(): number {
    return this.queue.size
  }

  /**
   * Queues one message. A `surface` or `removed` message starts that surface afresh: whatever was
   * queued for it is dropped (the caller follows a `surface` with the surface's current state).
   */
  enqueue(message: ServerMessage): void {
    if (this.dropped) return
    const key = coalesceKey(message) ?? `#${this.seq++}`
    if (message.type === 'surface' || message.type === 'removed') {
      const id = surfaceOf(message)
      for (const [k, queued] of this.queue) if (surfaceOf(queued) === id) this.forget(k)
    }
    // Delete first so that the replacement goes to the end: a surface is never drawn after its keys.
    this.forget(key)
    this.queue.set(key, message)
    this.queuedBytes += jsonOf(message).length
    if (!this.overBound()) this.schedule()
  }

  /** A flush on the next turn while one is in hand or much is queued, else when the next comes back. */
  private schedule(): void {
    const hold = this.queuedBytes <= FLUSH_PACE.holdBytes
    if (this.paced && !hold) {
      clearTimeout(this.timer)
      this.timer = undefined
      this.paced = false
    }
    if (this.immediate || this.timer) return
    const wait = (1 - this.refill()) * FLUSH_PACE.refillMs
    if (wait <= 0 || !hold) this.immediate = setImmediate(() => this.flush())
    else {
      this.timer = setTimeout(() => this.flush(), wait)
      this.paced = true
    }
  }

  /** The flushes in hand now. */
  private refill(): number {
    const now = performance.now()
    this.tokens = Math.min(FLUSH_PACE.burst, this.tokens + (now - this.tokensAt) / FLUSH_PACE.refillMs)
    this.tokensAt = now
    return this.tokens
  }

  /** Bytes waiting for this browser: its socket's and the queue's. */
  get unsentBytes(): number {
    return this.sink.bufferedAmount + this.queuedBytes
  }

  private forget(key: string): void {
    const queued = this.queue.get(key)
    if (queued === undefined) return
    this.queue.delete(key)
    this.queuedBytes -= jsonOf(queued).length
  }

  /** The outgoing rule: a browser past the bound is dropped, and everything queued for it let go. */
  private overBound(): boolean {
    const o = this.overflow
    if (!o) return false
    const peer = { kind: 'page', log: o.log, drop: () => o.drop() }
    if (!overOutgoingBound(peer, this.unsentBytes, o.limitBytes ?? OUTGOING_LIMITS.maxUnsentPageBytes)) return false
    this.dropped = true
    this.dispose()
    return true
  }

  /** Drops everything and stops the timers (the browser has gone). */
  dispose(): void {
    if (this.immediate) clearImmediate(this.immediate)
    if (this.timer) clearTimeout(this.timer)
    this.immediate = this.timer = undefined
    this.queue.clear()
    this.queuedBytes = 0
  }

  private flush(): void {
    this.immediate = this.timer = undefined
    this.paced = false
    if (this.sink.readyState !== OPEN) return
    if (this.sink.bufferedAmount > this.highWaterBytes) {
      this.timer = setTimeout(() => this.flush(), SEND_RETRY_MS)
      return
    }
    // A flush past the pace (much queued) spends what is in hand, never what has not come back yet.
    this.tokens = Math.max(0, this.refill() - 1)
    const batch = [...this.queue.values()]
    this.queue.clear()
    this.queuedBytes = 0
    let keys = false
    for (const message of batch) {
      this.sink.send(jsonOf(message))
      keys ||= message.type === 'key' || message.type === 'state'
    }
    if (keys) this.onKeysWritten?.()
  }
}
