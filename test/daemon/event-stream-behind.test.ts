/**
 * `GET /api/events` under a burst (issue 24, item 4), on a real server (127.0.0.1, port 0) with real
 * sockets: a reader that keeps up keeps its stream through 5,000 turns written in one run of code, and
 * sees them summed (the same total, in order against the other events); a reader that never reads is
 * dropped, and when it reads at last, the stream ends with `event: dropped` saying why.
 */
import { request, type IncomingMessage } from 'node:http'
import { getDefaultHighWaterMark } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import type { DaemonEvent, InputEvent } from '../../src/daemon/api.js'
import { startDaemonServer, type DaemonServer, type DaemonServerLimits } from '../../src/daemon/server.js'
import { call, fileLogs, WatchedDaemon } from './helpers.js'
import { until } from '../helpers/until.js'

const records = fileLogs()

const TURN: InputEvent = {
  surface: 'desk',
  driver: 'streamdeck',
  device: 'CL-1',
  control: 'encoder:0',
  kind: 'encoder',
  type: 'rotate',
  delta: 1,
}
const turn = (delta = 1): DaemonEvent => ({ type: 'input', input: { ...TURN, delta } })
const PRESS: DaemonEvent = {
  type: 'input',
  input: { ...TURN, control: 'key:3', kind: 'key', type: 'down', delta: undefined },
}

let daemon: WatchedDaemon
const servers: DaemonServer[] = []
const closers: (() => void)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) close()
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function start(limits: Partial<DaemonServerLimits> = {}): Promise<DaemonServer> {
  daemon = new WatchedDaemon([{ name: 'desk', driver: 'streamdeck', state: 'open', device: 'CL-1' }])
  const server = await startDaemonServer({ api: daemon, port: 0, limits })
  servers.push(server)
  return server
}

interface Stream {
  res: IncomingMessage
  text(): string
  ended: Promise<void>
}

/** Opens `/api/events` on its own connection; `paused`: reads nothing until `res.resume()`. */
function open(server: DaemonServer, paused = false): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: '/api/events', agent: false }, (res) => {
      if (paused) res.pause()
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      const ended = new Promise<void>((r) => res.once('close', () => r()))
      closers.push(() => req.destroy())
      resolve({ res, text: () => text, ended })
    })
    req.on('error', reject)
    req.end()
  })
}

/** The whole events a stream's text holds, in order (the text after the last blank line is not whole yet). */
function eventsOf(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .slice(0, -1)
    .filter((block) => block.startsWith('event: '))
    .map((block) => {
      const [head, data] = block.split('\n')
      return {
        event: head!.slice('event: '.length),
        data: JSON.parse(data!.slice('data: '.length)) as Record<string, unknown>,
      }
    })
}

const deltas = (events: ReturnType<typeof eventsOf>): number[] =>
  events.filter((e) => e.event === 'input' && e.data.type === 'rotate').map((e) => e.data.delta as number)
const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0)

describe('GET /api/events under a burst', () => {
  it('keeps a reader that keeps up through 5,000 turns in one run of code: summed, same total, in order', async () => {
    const s = await start()
    const reader = await open(s)
    await until('the snapshot', () => eventsOf(reader.text()).length === 1)
    // Turns, a press, more turns, all before the socket can send a byte: far more than the 256 KiB
    // the stream may hold unread were each written out.
    for (let i = 0; i < 2500; i++) daemon.emit(turn())
    daemon.emit(PRESS)
    for (let i = 0; i < 2500; i++) daemon.emit(turn(2))
    await until('every turn', () => sum(deltas(eventsOf(reader.text()))) === 2500 + 5000)

    const events = eventsOf(reader.text())
    const press = events.findIndex((e) => e.data.type === 'down')
    expect(press).toBeGreaterThan(0)
    expect(sum(deltas(events.slice(0, press)))).toBe(2500)
    expect(sum(deltas(events.slice(press + 1)))).toBe(5000)
    // Summed while the socket drained: far fewer events than turns.
    expect(deltas(events).length).toBeLessThan(5000)
    expect(daemon.watchers.size).toBe(1)
    expect(reader.res.destroyed).toBe(false)
    expect(records.filter((r) => r.message.includes('dropped an event stream'))).toEqual([])
    // Still followed afterwards.
    daemon.emit(turn(-3))
    await until('a later turn', () => deltas(eventsOf(reader.text())).at(-1) === -3)
  })

  it('drops every one of eight readers that never read under 80,000 events (the default bound), another client served', async () => {
    const s = await start()
    const stalled = await Promise.all(Array.from({ length: 8 }, () => open(s, true)))
    await until('the stalled readers', () => daemon.watchers.size === stalled.length)
    let sent = 0
    while (daemon.watchers.size > 0 && sent < 80_000) {
      for (let i = 0; i < 1000; i++) daemon.emit(PRESS)
      sent += 1000
      await new Promise((r) => setImmediate(r))
    }
    expect(daemon.watchers.size).toBe(0)
    expect(records.filter((r) => r.message === 'dropped an event stream whose reader fell behind')).toHaveLength(1)
    expect((await call(s.url, 'GET', '/api/status')).status).toBe(200)
  })

  it('drops a reader that never reads, and its stream ends with the last event saying why', async () => {
    const limit = 16 * 1024
    const s = await start({ maxEventStreamBufferBytes: limit })
    const stalled = await open(s, true)
    await until('the stalled reader', () => daemon.watchers.size === 1)
    const big: DaemonEvent = {
      type: 'surface',
      surface: { name: 'desk', driver: 'streamdeck', state: 'failed', message: 'x'.repeat(1000) },
    }
    // Presses and states cannot be summed: once the socket's buffers are full, what waits passes the limit.
    let sent = 0
    while (daemon.watchers.size === 1 && sent < 50_000) {
      for (let i = 0; i < 100; i++) daemon.emit(i % 2 === 0 ? big : PRESS)
      sent += 100
      await new Promise((r) => setImmediate(r))
    }
    expect(daemon.watchers.size).toBe(0)
    expect(records.filter((r) => r.message === 'dropped an event stream whose reader fell behind')).toHaveLength(1)

    stalled.res.resume()
    await stalled.ended
    expect(stalled.res.complete).toBe(true)
    const events = eventsOf(stalled.text())
    const last = events.at(-1)!
    expect(last.event).toBe('dropped')
    expect(last.data).toMatchObject({ reason: 'behind', limitBytes: limit })
    expect(last.data.unreadBytes as number).toBeGreaterThan(limit)
    expect(String(last.data.message)).toContain('fell behind')
    expect(events.filter((e) => e.event === 'dropped')).toHaveLength(1)
  })

  it('keeps a reader that only fell behind on turns: they wait summed, never past the limit', async () => {
    // The socket itself holds up to its high-water mark unread before it asks to drain (16 KiB on Node 20,
    // 64 KiB from Node 22): the limit is above that, so what this reader is kept for is the summing of turns.
    const limit = 4 * getDefaultHighWaterMark(false)
    const s = await start({ maxEventStreamBufferBytes: limit })
    const slow = await open(s, true)
    await until('the slow reader', () => daemon.watchers.size === 1)
    // 200,000 turns, far more than the socket's buffers take: what waits is one summed turn, not 200,000.
    let sent = 0
    while (sent < 200_000) {
      for (let i = 0; i < 1000; i++) daemon.emit(turn())
      sent += 1000
      await new Promise((r) => setImmediate(r))
    }
    expect(daemon.watchers.size).toBe(1)
    slow.res.resume()
    await until('every turn', () => sum(deltas(eventsOf(slow.text()))) === 200_000)
    expect(slow.res.destroyed).toBe(false)
  })
})
