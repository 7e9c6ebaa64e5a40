/**
 * Network Stream Decks in memory: the transport boundary of `streamdeck-net`. `FakeNetwork` is the
 * driver's `NetDeckTransport`: a connection to an address where a `FakeNetDeck` is online gives the
 * driver one end of an in-memory byte stream and the deck the other. The deck speaks the device's side
 * of the Cora protocol as `@elgato-stream-deck/tcp` expects it (its keepalive, its answers to the HID
 * feature-report queries, input reports), and decodes what the library writes: key images (the gen-2
 * image reports, `02 07 <key> <last> ...`) and brightness (`03 08 <percent>`). Nothing above the byte
 * stream is faked.
 */
import { EventEmitter } from 'node:events'
import { createRequire } from 'node:module'
import { NET_DECK_LINK, CoraHidOp, encodeCora, type CoraMessage } from '../../../src/surfaces/streamdeck-net/link.js'
import type { NetDeckSocket, NetDeckTransport } from '../../../src/surfaces/streamdeck-net/socket.js'

interface ModelSpec {
  productIds: number[]
  vendorId: number
}
// The core the tcp library pins (its model table: product ids the library recognises).
const fromTcp = createRequire(createRequire(import.meta.url).resolve('@elgato-stream-deck/tcp'))
const core = fromTcp('@elgato-stream-deck/core') as {
  DEVICE_MODELS2: Record<string, ModelSpec>
}

/** The product id the library knows a model by. */
export function productIdOf(model: string): number {
  return core.DEVICE_MODELS2[model]!.productIds[0]!
}

/** The host's end of an in-memory stream: what the driver holds. */
class HostEnd extends EventEmitter implements NetDeckSocket {
  peer: DeckEnd | undefined
  closed = false
  write(data: Uint8Array): void {
    if (this.closed) return
    const copy = Buffer.from(data)
    queueMicrotask(() => this.peer?.receive(copy))
  }
  destroy(): void {
    if (this.closed) return
    this.closed = true
    queueMicrotask(() => {
      this.emit('close')
      this.peer?.hostClosed()
    })
  }
}

/** The deck's end of one connection. */
class DeckEnd {
  private buffer = Buffer.alloc(0)
  constructor(
    readonly host: HostEnd,
    private readonly onMessage: (m: CoraMessage) => void,
    readonly onClose: () => void,
  ) {}
  /** Bytes from the deck to the host, as they would arrive (in one chunk). */
  send(bytes: Uint8Array): void {
    if (this.host.closed) return
    const copy = Buffer.from(bytes)
    queueMicrotask(() => {
      if (!this.host.closed) this.host.emit('data', copy)
    })
  }
  sendCora(m: CoraMessage): void {
    this.send(encodeCora(m))
  }
  receive(data: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, data])
    while (this.buffer.length >= 16 && this.buffer.subarray(0, 4).equals(NET_DECK_LINK.coraMagic)) {
      const length = this.buffer.readUInt32LE(12)
      if (this.buffer.length < 16 + length) return
      this.onMessage({
        flags: this.buffer.readUInt16LE(4),
        hidOp: this.buffer.readUInt8(6),
        messageId: this.buffer.readUInt32LE(8),
        payload: Buffer.from(this.buffer.subarray(16, 16 + length)),
      })
      this.buffer = this.buffer.subarray(16 + length)
    }
  }
  /** The deck drops the connection (the network went). */
  drop(): void {
    this.host.destroy()
  }
  hostClosed(): void {
    this.onClose()
  }
}

/** One key image as the deck received it (all its parts). */
export interface KeyImage {
  key: number
  bytes: number
}

export interface FakeNetDeckOptions {
  /** The library's model id: `studio`, `network-dock`, or a USB deck's (`xl`, ...) behind a dock. */
  model: string
  serial: string
  /** A deck behind a dock: it answers the child queries, not the primary ones. */
  child?: boolean
}

/** A deck on the network at one address. */
export class FakeNetDeck {
  online = true
  /** Every key image written, in order (one entry per complete image). */
  readonly images: KeyImage[] = []
  /** Every brightness sent, in order. */
  readonly brightness: number[] = []
  /** Connections accepted so far. */
  connections = 0
  /** Reports sent by the host that the deck did not expect (none in a healthy run). */
  current: DeckEnd | undefined
  /** For a dock: the deck plugged into it (its port on the same host). */
  docked: { deck: FakeNetDeck; port: number } | undefined
  private partial = new Map<number, number>()

  constructor(readonly o: FakeNetDeckOptions) {}

  accept(host: HostEnd): void {
    this.connections++
    const end = new DeckEnd(
      host,
      (m) => this.message(end, m),
      () => {
        if (this.current === end) this.current = undefined
      },
    )
    host.peer = end
    this.current = end
    queueMicrotask(() => {
      host.emit('connect')
      this.keepalive()
    })
  }

  /** A keepalive, as the deck sends one every second or so. */
  keepalive(): void {
    const payload = Buffer.alloc(32)
    payload.set([0x01, 0x0a, 0, 0, 0, 7])
    this.current?.sendCora({ flags: 0, hidOp: CoraHidOp.WRITE, messageId: 0, payload })
  }

  /** Presses (`true`) or releases a key: the gen-2 input report with every key's state. */
  key(index: number, down: boolean): void {
    const payload = Buffer.alloc(1 + 3 + 64)
    payload.set([0x01, 0x00, 32, 0])
    if (down) payload[4 + index] = 1
    this.current?.sendCora({ flags: 0, hidOp: CoraHidOp.WRITE, messageId: 0, payload })
  }

  /** Raw bytes from the deck (a bad packet). */
  raw(bytes: Uint8Array): void {
    this.current?.send(bytes)
  }

  /** The connection drops (a cable pulled, the dock off the network). */
  drop(): void {
    this.current?.drop()
  }

  /** Plugs a deck into this dock (or unplugs with `undefined`): the dock tells the host. */
  plug(docked: { deck: FakeNetDeck; port: number } | undefined): void {
    this.docked = docked
    const payload = this.childInfo()
    payload[0] = 0x01
    payload[1] = 0x0b
    this.current?.sendCora({ flags: 0, hidOp: CoraHidOp.GET_REPORT, messageId: 0, payload })
  }

  /** Key images written since `from` (an index into `images`), as the set of keys. */
  keysWritten(from = 0): Set<number> {
    return new Set(this.images.slice(from).map((i) => i.key))
  }

  private message(end: DeckEnd, m: CoraMessage): void {
    const p = Buffer.from(m.payload)
    if (m.hidOp === CoraHidOp.GET_REPORT) return this.answer(end, m, p)
    if (m.hidOp === CoraHidOp.SEND_REPORT && p[0] === 0x03 && p[1] === 0x08) this.brightness.push(p[2]!)
    if (m.hidOp === CoraHidOp.WRITE && p[0] === 0x02 && p[1] === 0x07) this.imagePart(p)
  }

  private imagePart(p: Buffer): void {
    const key = p[2]!
    const length = p.readUInt16LE(4)
    this.partial.set(key, (this.partial.get(key) ?? 0) + length)
    if (p[3] === 1) {
      this.images.push({ key, bytes: this.partial.get(key)! })
      this.partial.delete(key)
    }
  }

  private answer(end: DeckEnd, m: CoraMessage, p: Buffer): void {
    const reply = (payload: Buffer): void =>
      end.sendCora({ flags: 0x100, hidOp: CoraHidOp.GET_REPORT, messageId: m.messageId, payload })
    const primary = p[0] === 0x03
    const what = primary ? p[1] : p[0]
    if (this.o.child) {
      // A deck behind a dock answers the secondary query and its own device record.
      if (!primary && what === 0x08) reply(Buffer.from([0x08, ...Buffer.alloc(31)]))
      else if (primary && what === 0x1c) reply(this.deviceRecord(this, 0))
      return
    }
    if (!primary) return
    if (what === 0x80) {
      const data = Buffer.alloc(32)
      data.set([0x03, 0x80])
      data.writeUInt16LE(0x0fd9, 12)
      data.writeUInt16LE(productIdOf(this.o.model), 14)
      reply(data)
    } else if (what === 0x84) {
      const data = Buffer.alloc(32)
      data.set([0x03, 0x84, 0, this.o.serial.length])
      data.write(this.o.serial, 4, 'ascii')
      reply(data)
    } else if (what === 0x1c) reply(this.childInfo())
  }

  /** The dock's record of its child (`parseDevice2Info`: status at 4, ids at 26, serial at 94, port at 126). */
  private childInfo(): Buffer {
    return this.docked ? this.deviceRecord(this.docked.deck, this.docked.port) : Buffer.from([0x03, 0x1c, 0, 0, 0])
  }

  private deviceRecord(deck: FakeNetDeck, port: number): Buffer {
    const data = Buffer.alloc(128)
    data.set([0x03, 0x1c, 0, 0, 0x02])
    data.writeUInt16LE(0x0fd9, 26)
    data.writeUInt16LE(productIdOf(deck.o.model), 28)
    data.write(deck.o.serial, 94, 'ascii')
    data.writeUInt16LE(port, 126)
    return data
  }
}

/** The network: decks at addresses, and the driver's transport to them. */
export class FakeNetwork implements NetDeckTransport {
  private readonly decks = new Map<string, FakeNetDeck>()
  /** Connection attempts, by address. */
  readonly attempts: string[] = []

  add(host: string, port: number, deck: FakeNetDeck): FakeNetDeck {
    this.decks.set(`${host}:${port}`, deck)
    return deck
  }

  connect(host: string, port: number): NetDeckSocket {
    const address = `${host}:${port}`
    this.attempts.push(address)
    const end = new HostEnd()
    const deck = this.decks.get(address)
    if (deck?.online) deck.accept(end)
    else
      queueMicrotask(() => {
        end.emit('error', Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' }))
        end.closed = true
        end.emit('close')
      })
    return end
  }
}
