/**
 * The network deck's framing (`link.ts`), over an in-memory socket: the keepalive answered and the link
 * ready, Cora packets reassembled across chunks, legacy 512-byte packets, and the bounds: a header that
 * states a payload past the cap, a first packet of neither format, a report the library cannot read and
 * a deck that falls silent are each logged once and end (or skip) without a throw, and nothing read is
 * kept past the cap.
 */
import { EventEmitter } from 'node:events'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { OUTGOING_LIMITS } from '../../../src/outgoing-bound.js'
import {
  NET_DECK_LINK,
  CoraFlags,
  CoraHidOp,
  DeckLink,
  encodeCora,
  type CoraMessage,
} from '../../../src/surfaces/streamdeck-net/link.js'
import { tcpTransport, type NetDeckSocket } from '../../../src/surfaces/streamdeck-net/socket.js'
import type { Logger } from '../../../src/log.js'
import { loggerInto } from '../../helpers/logs.js'
import { until } from '../../helpers/until.js'

/** The host's end of a stream, driven by the test: `feed` is what the deck sends. */
class TestSocket extends EventEmitter implements NetDeckSocket {
  readonly written: Buffer[] = []
  destroyed = 0
  write(data: Uint8Array): void {
    this.written.push(Buffer.from(data))
  }
  destroy(): void {
    this.destroyed++
    this.emit('close')
  }
  feed(bytes: Uint8Array): void {
    this.emit('data', Buffer.from(bytes))
  }
}

function setup() {
  const socket = new TestSocket()
  const { logger, records } = loggerInto('net')
  const link = new DeckLink(socket, '127.0.0.5', 5343, logger)
  const cora: CoraMessage[] = []
  const legacy: Buffer[] = []
  let ready = 0
  let disconnected = 0
  link.on('dataCora', (m: CoraMessage) => cora.push(m))
  link.on('dataLegacy', (p: Buffer) => legacy.push(p))
  link.on('ready', () => ready++)
  link.on('disconnected', () => disconnected++)
  return {
    socket,
    link,
    records,
    cora,
    legacy,
    ready: () => ready,
    disconnected: () => disconnected,
    warnings: () => records.filter((r) => r.level === 'warn').map((r) => r.message),
  }
}

const keepalive = (): Buffer => {
  const payload = Buffer.alloc(32)
  payload.set([0x01, 0x0a, 0, 0, 0, 9])
  return encodeCora({ flags: 0, hidOp: CoraHidOp.WRITE, messageId: 5, payload })
}
const report = (bytes: number[]): Buffer =>
  encodeCora({ flags: 0, hidOp: CoraHidOp.WRITE, messageId: 0, payload: Buffer.from(bytes) })

afterEach(() => {
  vi.useRealTimers()
})

describe('the network deck link', () => {
  it('answers the Cora keepalive (ACK, its connection number) and becomes ready once', () => {
    const t = setup()
    t.socket.feed(keepalive())
    t.socket.feed(keepalive())
    expect(t.ready()).toBe(1)
    expect(t.link.connected).toBe(true)
    expect(t.socket.written).toHaveLength(2)
    const ack = t.socket.written[0]!
    expect(ack.subarray(0, 4).equals(NET_DECK_LINK.coraMagic)).toBe(true)
    expect(ack.readUInt16LE(4)).toBe(CoraFlags.ACK_NAK)
    expect(ack.readUInt32LE(8)).toBe(5)
    expect([...ack.subarray(16, 19)]).toEqual([3, 26, 9])
    t.link.close()
  })

  it('reassembles a packet split across chunks, and several packets in one chunk', () => {
    const t = setup()
    t.socket.feed(keepalive())
    const a = report([0x01, 0x00, 1, 2, 3])
    const b = report([0x01, 0x00, 4, 5, 6])
    t.socket.feed(a.subarray(0, 7))
    t.socket.feed(a.subarray(7, 18))
    expect(t.cora).toHaveLength(0)
    t.socket.feed(Buffer.concat([a.subarray(18), b]))
    expect(t.cora.map((m) => [...m.payload])).toEqual([
      [0x01, 0x00, 1, 2, 3],
      [0x01, 0x00, 4, 5, 6],
    ])
    t.link.close()
  })

  it('skips bytes before a packet’s magic (a resync), keeping no more than a magic’s worth', () => {
    const t = setup()
    t.socket.feed(keepalive())
    t.socket.feed(Buffer.alloc(40_000, 0x55))
    t.socket.feed(report([0x01, 0x00, 7]))
    expect(t.cora.map((m) => [...m.payload])).toEqual([[0x01, 0x00, 7]])
    expect(t.disconnected()).toBe(0)
    t.link.close()
  })

  it('drops a connection whose packet states a payload past the cap: logged once, no throw, nothing buffered', () => {
    const t = setup()
    t.socket.feed(keepalive())
    const header = Buffer.alloc(16)
    NET_DECK_LINK.coraMagic.copy(header)
    header.writeUInt32LE(NET_DECK_LINK.maxCoraPayload + 1, 12)
    expect(() => t.socket.feed(header)).not.toThrow()
    expect(t.disconnected()).toBe(1)
    expect(t.socket.destroyed).toBe(1)
    // A second bad packet on the same address is not logged again.
    expect(() => t.socket.feed(header)).not.toThrow()
    expect(t.warnings()).toEqual(['bad packet from the deck; reconnecting'])
    expect(() => t.link.sendCoraWrites([])).toThrow(/not connected/)
  })

  it('waits for more when the first chunk is shorter than the magic', () => {
    const t = setup()
    const alive = keepalive()
    t.socket.feed(alive.subarray(0, 2))
    expect(t.disconnected()).toBe(0)
    t.socket.feed(alive.subarray(2))
    expect(t.ready()).toBe(1)
    expect(t.link.isCora).toBe(true)
    t.link.close()
  })

  it('drops a connection whose first packet is neither format', () => {
    const t = setup()
    expect(() => t.socket.feed(Buffer.from('GET / HTTP/1.1\r\n\r\n'))).not.toThrow()
    expect(t.disconnected()).toBe(1)
    expect(t.ready()).toBe(0)
    expect(t.warnings()).toEqual(['bad packet from the deck; reconnecting'])
  })

  it('logs a report its reader throws on once and goes on reading', () => {
    const t = setup()
    t.link.on('dataCora', (m: CoraMessage) => {
      if (m.payload[2] === 0xee) throw new RangeError('offset out of range')
    })
    t.socket.feed(keepalive())
    t.socket.feed(report([0x01, 0x00, 0xee]))
    t.socket.feed(report([0x01, 0x00, 0xee]))
    t.socket.feed(report([0x01, 0x00, 1]))
    expect(t.cora.map((m) => m.payload[2])).toEqual([0xee, 0xee, 1])
    expect(t.warnings()).toEqual(['a report from the deck could not be read'])
    expect(t.disconnected()).toBe(0)
    t.link.close()
  })

  it('reads legacy 512-byte packets and answers their keepalive', () => {
    const t = setup()
    const alive = Buffer.alloc(NET_DECK_LINK.legacyPacket)
    alive.set([1, 10, 0, 0, 0, 4])
    const input = Buffer.alloc(NET_DECK_LINK.legacyPacket)
    input.set([1, 0, 0, 0, 1])
    t.socket.feed(Buffer.concat([alive, input.subarray(0, 100)]))
    expect(t.ready()).toBe(1)
    expect(t.link.isLegacy).toBe(true)
    expect(t.socket.written[0]!.length).toBe(1024)
    expect([...t.socket.written[0]!.subarray(0, 3)]).toEqual([3, 26, 4])
    t.socket.feed(input.subarray(100))
    expect(t.legacy.map((p) => p.length)).toEqual([NET_DECK_LINK.legacyPacket])
    t.link.close()
  })

  it('ends a connection whose deck falls silent', () => {
    vi.useFakeTimers()
    const t = setup()
    t.socket.feed(keepalive())
    vi.advanceTimersByTime(NET_DECK_LINK.silenceTimeoutMs - 1000)
    t.socket.feed(keepalive())
    vi.advanceTimersByTime(NET_DECK_LINK.silenceTimeoutMs - 1000)
    expect(t.disconnected()).toBe(0)
    vi.advanceTimersByTime(2000)
    expect(t.disconnected()).toBe(1)
    expect(t.socket.destroyed).toBe(1)
  })
})

describe('a network deck that floods keepalives and never reads (issue 46, item 2)', () => {
  it('is dropped once its unsent answers pass the bound, logged once, and what waited for it is let go', async () => {
    // A real loopback socket: the kernel's buffers fill, then the answers wait in the daemon's socket.
    const server = createServer((deck) => {
      deck.pause() // never reads
      const keepalive = Buffer.alloc(NET_DECK_LINK.legacyPacket)
      keepalive.set([1, 10])
      const flood = Buffer.concat(Array.from({ length: 1024 }, () => keepalive)) // 512 KiB of keepalives
      const more = (): void => {
        while (!deck.destroyed && deck.write(flood));
        if (!deck.destroyed) deck.once('drain', more)
      }
      deck.on('error', () => undefined)
      more()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
    const { port } = server.address() as AddressInfo
    const { logger, records } = loggerInto('net')
    // Only weak references are kept here: once dropped, nothing of the daemon's side may hold the socket.
    const { socket, gone } = connect(port, logger)
    await gone
    expect(records.filter((r) => r.level === 'warn').map((r) => [r.message, r.fields?.limitBytes])).toEqual([
      ['dropped a peer that does not read what it is sent', OUTGOING_LIMITS.maxUnsentDeckBytes],
    ])
    // The unsent answers lived in the socket's buffer: the socket is let go, and its buffer with it.
    const gc = collector()
    await until('the dropped socket and its unsent bytes to be collected', () => {
      gc()
      return socket.deref() === undefined
    })
  })
})

/** A link to a deck at `port` on loopback; only a weak reference to its socket is handed back. */
function connect(port: number, logger: Logger): { socket: WeakRef<Socket>; gone: Promise<void> } {
  const socket = tcpTransport.connect('127.0.0.1', port) as Socket
  const link = new DeckLink(socket, '127.0.0.1', port, logger)
  const gone = new Promise<void>((resolve) => link.once('disconnected', () => resolve()))
  return { socket: new WeakRef(socket), gone }
}

/** The garbage collector, asked for directly (a test of memory let go). */
function collector(): () => void {
  setFlagsFromString('--expose_gc')
  return runInNewContext('gc') as () => void
}
