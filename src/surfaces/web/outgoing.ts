/**
 * What one browser is still to be sent. Messages wait in an ordered queue, flushed on the next turn
 * of the event loop; a newer key face (or state) for a control replaces a queued one, so a browser on a
 * slow link gets the newest picture of every key, never a backlog. While its socket holds more than
 * the high-water mark of unsent bytes nothing more is written; the queue keeps coalescing meanwhile.
 */
import type { ServerMessage } from '../../face/protocol.js'

/** A browser whose socket holds more unsent bytes than this gets no new frames until it drains. */
const SEND_HIGH_WATER_BYTES = 1 << 20
/** How often a backed-up browser is checked for having drained. */
export const SEND_RETRY_MS = 50

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
    case 'deck-state':
      return undefined
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

export class OutgoingQueue {
  private readonly queue = new Map<string, ServerMessage>()
  private seq = 0
  private immediate: NodeJS.Immediate | undefined
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly sink: MessageSink,
    private readonly highWaterBytes = SEND_HIGH_WATER_BYTES,
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
    const key = coalesceKey(message) ?? `#${this.seq++}`
    if (message.type === 'surface' || message.type === 'removed') {
      const id = surfaceOf(message)
      for (const [k, queued] of this.queue) if (surfaceOf(queued) === id) this.queue.delete(k)
    }
    // Delete first so that the replacement goes to the end: a surface is never drawn after its keys.
    this.queue.delete(key)
    this.queue.set(key, message)
    if (!this.immediate && !this.timer) this.immediate = setImmediate(() => this.flush())
  }

  /** Drops everything and stops the timers (the browser has gone). */
  dispose(): void {
    if (this.immediate) clearImmediate(this.immediate)
    if (this.timer) clearTimeout(this.timer)
    this.immediate = this.timer = undefined
    this.queue.clear()
  }

  private flush(): void {
    this.immediate = this.timer = undefined
    if (this.sink.readyState !== OPEN) return
    if (this.sink.bufferedAmount > this.highWaterBytes) {
      this.timer = setTimeout(() => this.flush(), SEND_RETRY_MS)
      return
    }
    const batch = [...this.queue.values()]
    this.queue.clear()
    for (const message of batch) this.sink.send(jsonOf(message))
  }
}
