/**
 * One connection to a network Stream Deck, framed: the part of `@elgato-stream-deck/tcp` that its
 * `SocketWrapper` does (packet framing, the keepalive and its answer, the silence timeout), rebuilt over
 * our transport (`socket.ts`) with bounds. The library's HID devices (`TcpCoraHidDevice`,
 * `TcpLegacyHidDevice`) read this object as they read the library's wrapper: `dataCora` and `dataLegacy`
 * packets in, `sendCoraWrites` and `sendLegacyWrites` out, `disconnected` and `error` events; every HID
 * report inside a packet is the library's to encode and decode.
 *
 * Why not the library's own wrapper: it builds its `net.Socket` itself (no seam for a test's socket), it
 * reconnects on a fixed 5 s timer of its own (the surface manager's back-off is ours to follow), and it
 * buffers whatever payload length a packet header states (a bad header would grow the buffer without end).
 *
 * Two packet formats (ASSUMED from the library's socketWrapper.js, 7.3.2; no public spec): Cora (the
 * Studio and the Network Dock): a 16-byte header (the magic 43 93 8a 41, flags u16le, HID op u8, message
 * id u32le at 8, payload length u32le at 12) and the payload; legacy (earlier Studio firmware): fixed
 * 512-byte packets. A keepalive (payload `01 0a`) is answered with `03 1a <connection number>`.
 */
import { EventEmitter } from 'node:events'
import type { Logger } from '../../log.js'
import { OUTGOING_LIMITS, overOutgoingBound } from '../../outgoing-bound.js'
import type { NetDeckSocket } from './socket.js'

/** The network deck protocol's sizes and the link's silence bound. */
export const NET_DECK_LINK = {
  /** The first bytes of every Cora packet. */
  coraMagic: Buffer.from([0x43, 0x93, 0x8a, 0x41]),
  /** A legacy packet's size. */
  legacyPacket: 512,
  /**
   * The largest Cora payload accepted from a deck. ASSUMED: a deck sends input reports, keepalives and
   * feature-report answers, none over 1 KiB (the library reads 1024-byte reports); 64 KiB leaves room and
   * bounds what one connection may buffer.
   */
  maxCoraPayload: 64 * 1024,
  /**
   * A deck silent this long is gone (ASSUMED: the library's TIMEOUT_DURATION; decks send a keepalive every
   * second or so).
   */
  silenceTimeoutMs: 5000,
} as const

const CORA_HEADER = 16

/** How often silence is checked. */
const SILENCE_CHECK_MS = 1000

/** The Cora message flags and HID ops, as the library names them. */
export const CoraFlags = { NONE: 0, RESULT: 0x100, ACK_NAK: 0x200, REQ_ACK: 0x4000, VERBATIM: 0x8000 } as const
export const CoraHidOp = { WRITE: 0, SEND_REPORT: 1, GET_REPORT: 2 } as const

/** One Cora message, as the library's HID device reads and writes it. */
export interface CoraMessage {
  flags: number
  hidOp: number
  messageId: number
  payload: Uint8Array
}

/** Writes one Cora message's bytes (header and payload). */
export function encodeCora(message: CoraMessage): Buffer {
  const out = Buffer.alloc(CORA_HEADER + message.payload.length)
  NET_DECK_LINK.coraMagic.copy(out, 0)
  out.writeUInt16LE(message.flags, 4)
  out.writeUInt8(message.hidOp, 6)
  out.writeUInt32LE(message.messageId >>> 0, 8)
  out.writeUInt32LE(message.payload.length, 12)
  out.set(message.payload, CORA_HEADER)
  return out
}

type Mode = 'unknown' | 'cora' | 'legacy'

export class DeckLink extends EventEmitter {
  private mode: Mode = 'unknown'
  private buffer: Buffer = Buffer.alloc(0)
  private lastReceived = Date.now()
  private ready = false
  private ended = false
  private readonly timer: NodeJS.Timeout

  constructor(
    private readonly socket: NetDeckSocket,
    readonly address: string,
    readonly port: number,
    private readonly log: Logger,
  ) {
    super()
    socket.on('data', (data) => this.receive(data))
    socket.on('error', (err) => this.log.debug('socket error', { error: err }))
    socket.on('close', () => this.end())
    this.timer = setInterval(() => {
      if (Date.now() - this.lastReceived > NET_DECK_LINK.silenceTimeoutMs) this.drop('the deck fell silent')
    }, SILENCE_CHECK_MS)
  }

  /** The library's HID devices ask which format the deck speaks. */
  get isCora(): boolean {
    return this.mode === 'cora'
  }

  get isLegacy(): boolean {
    return this.mode === 'legacy'
  }

  /** Whether the first keepalive came (the deck is there and speaking). */
  get connected(): boolean {
    return this.ready && !this.ended
  }

  sendCoraWrites(messages: readonly CoraMessage[]): void {
    if (this.mode !== 'cora' || this.ended) throw new Error('the deck is not connected')
    for (const m of messages) this.send(encodeCora(m))
  }

  sendLegacyWrites(buffers: readonly Uint8Array[]): void {
    if (this.mode !== 'legacy' || this.ended) throw new Error('the deck is not connected')
    for (const b of buffers) this.send(b)
  }

  /**
   * Writes to the deck; a deck that does not read what it is sent (its keepalives answered, its keys
   * drawn) is dropped past OUTGOING_LIMITS.maxUnsentDeckBytes, and what waited for it is let go.
   */
  private send(bytes: Uint8Array): void {
    if (this.ended) return
    this.socket.write(bytes)
    const peer = { kind: 'network Stream Deck', log: this.log, drop: () => this.drop('the deck does not read') }
    overOutgoingBound(peer, this.socket.writableLength ?? 0, OUTGOING_LIMITS.maxUnsentDeckBytes)
  }

  /** Ends the connection (idempotent); `disconnected` follows. */
  close(): void {
    this.drop(undefined)
  }

  private drop(reason: string | undefined): void {
    if (this.ended) return
    if (reason !== undefined) this.log.debug('dropping the connection', { reason })
    this.socket.destroy()
    this.end()
  }

  private end(): void {
    if (this.ended) return
    this.ended = true
    clearInterval(this.timer)
    this.buffer = Buffer.alloc(0)
    this.emit('disconnected', this)
  }

  private receive(data: Buffer): void {
    if (this.ended) return
    this.lastReceived = Date.now()
    this.buffer = this.buffer.length === 0 ? data : Buffer.concat([this.buffer, data])
    if (this.mode === 'unknown') {
      // The format shows in the first bytes; a first chunk shorter than the magic waits for more.
      const head = this.buffer.subarray(0, NET_DECK_LINK.coraMagic.length)
      if (head.equals(NET_DECK_LINK.coraMagic)) this.mode = 'cora'
      else if (head[0] === 1 && head[1] === 10) this.mode = 'legacy'
      else if (
        head.length < NET_DECK_LINK.coraMagic.length &&
        NET_DECK_LINK.coraMagic.subarray(0, head.length).equals(head)
      )
        return
      else if (head.length === 1 && head[0] === 1) return
      else return this.bad('the first packet is neither Cora nor legacy')
    }
    if (this.mode === 'cora') this.readCora()
    else this.readLegacy()
  }

  /** A deck that breaks the framing is dropped (the next connection starts clean); logged once per connection target. */
  private bad(what: string): void {
    this.log.once(`bad:${this.address}:${this.port}`, 'warn', 'bad packet from the deck; reconnecting', { what })
    this.drop(what)
  }

  private readLegacy(): void {
    while (!this.ended && this.buffer.length >= NET_DECK_LINK.legacyPacket) {
      const packet = this.buffer.subarray(0, NET_DECK_LINK.legacyPacket)
      this.buffer = this.buffer.subarray(NET_DECK_LINK.legacyPacket)
      if (packet[0] === 1 && packet[1] === 10) {
        const ack = Buffer.alloc(1024)
        ack.set([3, 26, packet[5] ?? 0])
        this.send(ack)
        this.becomeReady()
      } else this.deliver('dataLegacy', packet)
    }
  }

  private readCora(): void {
    while (!this.ended && this.buffer.length >= CORA_HEADER) {
      const at = this.buffer.indexOf(NET_DECK_LINK.coraMagic)
      if (at === -1) {
        // Keep a possible start of the magic; drop the rest.
        this.buffer = this.buffer.subarray(-(NET_DECK_LINK.coraMagic.length - 1))
        return
      }
      if (at > 0) this.buffer = this.buffer.subarray(at)
      if (this.buffer.length < CORA_HEADER) return
      const length = this.buffer.readUInt32LE(12)
      if (length > NET_DECK_LINK.maxCoraPayload)
        return this.bad(`a packet of ${length} bytes (at most ${NET_DECK_LINK.maxCoraPayload})`)
      if (this.buffer.length < CORA_HEADER + length) return
      const message: CoraMessage = {
        flags: this.buffer.readUInt16LE(4),
        hidOp: this.buffer.readUInt8(6),
        messageId: this.buffer.readUInt32LE(8),
        payload: Buffer.from(this.buffer.subarray(CORA_HEADER, CORA_HEADER + length)),
      }
      this.buffer = this.buffer.subarray(CORA_HEADER + length)
      const p = message.payload
      if (p.length > 4 && p[0] === 1 && p[1] === 10) {
        const ack = Buffer.alloc(32)
        ack.set([3, 26, p[5] ?? 0])
        this.send(encodeCora({ ...message, flags: CoraFlags.ACK_NAK, payload: ack }))
        this.becomeReady()
      } else this.deliver('dataCora', message)
    }
  }

  private becomeReady(): void {
    if (this.ready) return
    this.ready = true
    this.emit('ready')
  }

  /** Hands a packet to the library's HID device; a report it cannot read is logged once, never thrown. */
  private deliver(event: 'dataCora' | 'dataLegacy', packet: unknown): void {
    try {
      this.emit(event, packet)
    } catch (err) {
      this.log.once(`report:${this.address}:${this.port}`, 'warn', 'a report from the deck could not be read', {
        error: err,
      })
    }
  }
}
