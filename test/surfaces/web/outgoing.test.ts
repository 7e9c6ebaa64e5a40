import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { FLUSH_PACE, OutgoingQueue, SEND_RETRY_MS, type MessageSink } from '../../../src/surfaces/web/outgoing.js'
import type { ServerMessage } from '../../../src/face/protocol.js'
import { loggerInto } from '../../helpers/logs.js'

// The queue sends on the next turn (setImmediate) and retries a backed-up socket after SEND_RETRY_MS:
// both run on a fake clock, so "nothing was sent" is checked after the send or retry was due.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] })
})
afterEach(() => {
  vi.useRealTimers()
})

/** A socket whose backlog the test sets. */
class FakeSocket implements MessageSink {
  readyState = 1
  bufferedAmount = 0
  readonly sent: ServerMessage[] = []
  send(text: string): void {
    this.sent.push(JSON.parse(text) as ServerMessage)
  }
}

const image = (control: string, label: string, surface = 'desk'): ServerMessage => ({
  type: 'key',
  surface,
  control,
  face: { color: '#202020', text: label },
  label,
})
const view = (id: string): ServerMessage => ({
  type: 'surface',
  surface: { id, driver: 'web', model: 'Web surface', mode: 'interactive', controls: [] },
})

describe('OutgoingQueue', () => {
  it('paces flushes: a burst goes at once, a key changing every millisecond reaches the browser once a refill, the newest last', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] })
    const socket = new FakeSocket()
    const queue = new OutgoingQueue(socket)
    // A press: its pending badge, then its light, each on its own turn, neither waits.
    queue.enqueue(image('key:0', 'pending'))
    await vi.advanceTimersByTimeAsync(0)
    queue.enqueue(image('key:0', 'lit'))
    await vi.advanceTimersByTimeAsync(0)
    expect(socket.sent.map((m) => (m.type === 'key' ? m.label : m.type))).toEqual(['pending', 'lit'])
    // A jog's position under a spinning hand: a new look every millisecond for 200 ms.
    for (let t = 0; t < 200; t++) {
      queue.enqueue(image('jog', `position ${t}`))
      await vi.advanceTimersByTimeAsync(1)
    }
    await vi.advanceTimersByTimeAsync(FLUSH_PACE.refillMs)
    const jog = socket.sent.flatMap((m) => (m.type === 'key' && m.control === 'jog' ? [m.label] : []))
    expect(jog.length).toBeGreaterThan(200 / FLUSH_PACE.refillMs - 2)
    expect(jog.length).toBeLessThanOrEqual(FLUSH_PACE.burst + 200 / FLUSH_PACE.refillMs + 1)
    expect(jog.at(-1)).toBe('position 199')
    queue.dispose()
  })

  it('sends in order on the next turn, a newer face for a key replacing a queued one', async () => {
    const socket = new FakeSocket()
    const queue = new OutgoingQueue(socket)
    queue.enqueue({ type: 'hello', version: 1 })
    queue.enqueue(view('desk'))
    queue.enqueue(image('key:0', 'a'))
    queue.enqueue(image('key:1', 'b'))
    queue.enqueue(image('key:0', 'c'))
    expect(socket.sent).toEqual([])
    await vi.advanceTimersByTimeAsync(0)
    const sent = socket.sent.map((m) => (m.type === 'key' ? `${m.control}=${m.label}` : m.type))
    expect(sent).toEqual(['hello', 'surface', 'key:1=b', 'key:0=c'])
  })

  it('holds everything while the socket is backed up, then sends only the newest of each key', async () => {
    const socket = new FakeSocket()
    socket.bufferedAmount = 10_000
    const queue = new OutgoingQueue(socket, 1000)
    for (let i = 0; i < 100; i++) {
      queue.enqueue(image('key:0', `k0-${i}`))
      queue.enqueue(image('key:1', `k1-${i}`))
    }
    queue.enqueue({ type: 'brightness', surface: 'desk', percent: 20 })
    queue.enqueue({ type: 'brightness', surface: 'desk', percent: 30 })
    await vi.advanceTimersByTimeAsync(SEND_RETRY_MS * 3) // the first try and two retries
    expect(socket.sent).toEqual([])
    expect(queue.size).toBe(3)
    socket.bufferedAmount = 0
    await vi.advanceTimersByTimeAsync(SEND_RETRY_MS - 1)
    expect(socket.sent).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(socket.sent.map((m) => (m.type === 'key' ? m.label : m.type === 'brightness' ? m.percent : m.type))).toEqual(
      ['k0-99', 'k1-99', 30],
    )
    queue.dispose()
  })

  it('starts a surface afresh on surface and removed messages', async () => {
    const socket = new FakeSocket()
    const queue = new OutgoingQueue(socket)
    queue.enqueue(view('desk'))
    queue.enqueue(image('key:0', 'old'))
    queue.enqueue(image('key:0', 'other', 'deck2'))
    queue.enqueue({ type: 'removed', surface: 'desk' })
    await vi.advanceTimersByTimeAsync(0)
    expect(socket.sent.map((m) => m.type + ':' + (m.type === 'key' ? m.label : ''))).toEqual(['key:other', 'removed:'])
    socket.sent.length = 0
    queue.enqueue(image('key:0', 'stale'))
    queue.enqueue(view('desk'))
    queue.enqueue(image('key:0', 'fresh'))
    await vi.advanceTimersByTimeAsync(0)
    expect(socket.sent.map((m) => m.type + ':' + (m.type === 'key' ? m.label : ''))).toEqual(['surface:', 'key:fresh'])
  })

  it('sends nothing to a closed socket and nothing after dispose', async () => {
    const socket = new FakeSocket()
    const queue = new OutgoingQueue(socket)
    queue.enqueue(image('key:0', 'a'))
    queue.dispose()
    await vi.advanceTimersByTimeAsync(0)
    socket.readyState = 3
    queue.enqueue(image('key:0', 'b'))
    await vi.advanceTimersByTimeAsync(0)
    expect(socket.sent).toEqual([])
  })
})

describe('a browser that does not read (issue 46, item 2)', () => {
  const refusal = (deck: number, detail: string): ServerMessage => ({
    type: 'deck-state',
    deck,
    state: 'refused',
    detail,
  })

  it("merges a deck's refusals: a page repeating deck-add gets one refusal per deck, not one per message", async () => {
    const socket = new FakeSocket()
    socket.bufferedAmount = 10_000 // backed up: nothing is written, everything waits
    const queue = new OutgoingQueue(socket, 1000, { drop: () => expect.unreachable('not dropped') })
    for (let i = 0; i < 10_000; i++) queue.enqueue(refusal(i % 16, `unknown model m${i}`))
    expect(queue.size).toBe(16)
    socket.bufferedAmount = 0
    await vi.advanceTimersByTimeAsync(SEND_RETRY_MS)
    expect(socket.sent).toHaveLength(16)
    expect(socket.sent.at(-1)).toEqual(refusal(15, 'unknown model m9999'))
  })

  it('drops it once its unsent bytes (socket and queue) pass the bound, logged once, the queue let go', async () => {
    const socket = new FakeSocket()
    socket.bufferedAmount = 60_000
    const { logger, records } = loggerInto('web')
    let drops = 0
    const queue = new OutgoingQueue(socket, 1000, { drop: () => drops++, log: logger, limitBytes: 64 * 1024 })
    // Selections are never merged: each is its own message, so only the bound holds them.
    for (let i = 0; i < 1000; i++) queue.enqueue({ type: 'selected', surface: 'desk', control: `key:${i}`, page: null })
    expect(drops).toBe(1)
    expect(queue.size).toBe(0)
    expect(queue.unsentBytes).toBe(socket.bufferedAmount)
    expect(records.map((r) => [r.level, r.message, r.fields?.peer])).toEqual([
      ['warn', 'dropped a peer that does not read what it is sent', 'page'],
    ])
    await vi.advanceTimersByTimeAsync(SEND_RETRY_MS * 4)
    expect(socket.sent).toEqual([])
  })

  it('keeps a browser that reads, whatever it is sent', async () => {
    const socket = new FakeSocket()
    const queue = new OutgoingQueue(socket, 1000, {
      drop: () => expect.unreachable('not dropped'),
      limitBytes: 64 * 1024,
    })
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 100; i++)
        queue.enqueue({ type: 'selected', surface: 'desk', control: `key:${i}`, page: null })
      await vi.advanceTimersByTimeAsync(0)
    }
    await vi.advanceTimersByTimeAsync(FLUSH_PACE.refillMs) // a flush held by the pace
    expect(socket.sent).toHaveLength(2000)
  })
})
