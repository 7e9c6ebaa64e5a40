/**
 * `GET /api/events`, the remote API's event stream (an extension, for `panelbridge learn`), on real
 * sockets: its format, the same Host and token checks as the rest of `/api`, and its bounds (concurrent
 * streams, a reader that falls behind).
 */
import { request, type IncomingMessage } from 'node:http'
import { connect as netConnect } from 'node:net'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import type { DaemonEvent, SurfaceStateEvent } from '../../src/daemon/api.js'
import { AUTH } from '../../src/daemon/auth.js'
import {
  DAEMON_SERVER_LIMITS,
  startDaemonServer,
  type DaemonServer,
  type DaemonServerOptions,
} from '../../src/daemon/server.js'
import { call, FakeDaemon, fileLogs, TOKEN, WatchedDaemon } from './helpers.js'
import { until as untilTrue } from '../helpers/until.js'

/** The surfaces the test's daemon announces first. */
const STATES: SurfaceStateEvent[] = [
  { name: 'desk', driver: 'streamdeck', state: 'open', device: 'CL-1', model: 'Stream Deck +' },
  { name: 'pedal', driver: 'hid', state: 'waiting', message: 'no matching device found yet' },
]

const PRESS: DaemonEvent = {
  type: 'input',
  input: { surface: 'desk', driver: 'streamdeck', device: 'CL-1', control: 'key:3', kind: 'key', type: 'down' },
}

const records = fileLogs()
let daemon: WatchedDaemon
afterEach(() => {
  vi.useRealTimers()
})

async function start(options: Partial<DaemonServerOptions> = {}): Promise<DaemonServer> {
  daemon = new WatchedDaemon(structuredClone(STATES))
  const server = await startDaemonServer({ api: daemon, port: 0, ...options })
  // Registered first, so closed last: after every stream the test opened.
  onTestFinished(() => server.close())
  return server
}

interface Stream {
  res: IncomingMessage
  text(): string
  ended: Promise<void>
  close(): void
}

/** Opens `/api/events` on its own connection and collects what arrives. */
function open(server: DaemonServer, headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: '/api/events', headers, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      const ended = new Promise<void>((r) => res.once('close', () => r()))
      const stream = { res, text: () => text, ended, close: () => void req.destroy() }
      onTestFinished(stream.close)
      resolve(stream)
    })
    req.on('error', reject)
    req.end()
  })
}

/** Waits as the shared `until` does, for at most 5 s. */
const until = (what: string, check: () => boolean): Promise<void> => untilTrue(what, check, 5000)

describe('GET /api/events', () => {
  it('sends every surface at once, then each input event, as Server-Sent Events', async () => {
    const s = await start()
    const stream = await open(s)
    expect(stream.res.statusCode).toBe(200)
    expect(stream.res.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(stream.res.headers['cache-control']).toBe('no-store')
    await until('the snapshot', () => stream.text().split('\n\n').length === 3)
    daemon.emit(PRESS)
    daemon.emit({
      type: 'input',
      input: { surface: 'desk', driver: 'streamdeck', control: 'key:3', kind: 'key', type: 'up', injected: true },
    })
    await until('the events', () => stream.text().split('\n\n').length === 5)
    expect(stream.text()).toBe(
      'event: surface\ndata: {"name":"desk","driver":"streamdeck","state":"open","device":"CL-1","model":"Stream Deck +"}\n\n' +
        'event: surface\ndata: {"name":"pedal","driver":"hid","state":"waiting","message":"no matching device found yet"}\n\n' +
        'event: input\ndata: {"surface":"desk","driver":"streamdeck","device":"CL-1","control":"key:3","kind":"key","type":"down"}\n\n' +
        'event: input\ndata: {"surface":"desk","driver":"streamdeck","control":"key:3","kind":"key","type":"up","injected":true}\n\n',
    )
    // A closed reader is forgotten.
    stream.close()
    await until('the unsubscription', () => daemon.watchers.size === 0)
  })

  it('is guarded as the rest of /api: Host always, the token beyond loopback; only GET and HEAD', async () => {
    const s = await start({ host: '0.0.0.0', token: TOKEN })
    const base = `http://127.0.0.1:${s.port}/`
    const foreign = await call(base, 'GET', '/api/events', { host: `evil.example:${s.port}` })
    expect([foreign.status, (foreign.json as { error: { code: string } }).error.code]).toEqual([403, 'FORBIDDEN_HOST'])
    const none = await call(base, 'GET', '/api/events')
    expect([none.status, (none.json as { error: { code: string } }).error.code]).toEqual([401, 'UNAUTHORIZED'])
    const wrong = await call(base, 'GET', '/api/events', { authorization: 'Bearer wrong-token-of-some-length' })
    expect(wrong.status).toBe(401)
    expect(daemon.watchers.size).toBe(0)

    const bearer = await open(s, { authorization: `Bearer ${TOKEN}` })
    expect(bearer.res.statusCode).toBe(200)
    const cookie = await open(s, { cookie: `${AUTH.cookieName}=${encodeURIComponent(TOKEN)}` })
    expect(cookie.res.statusCode).toBe(200)
    await until('both watching', () => daemon.watchers.size === 2)

    const post = await call(base, 'POST', '/api/events', { authorization: `Bearer ${TOKEN}` })
    expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD'])
    const head = await call(base, 'HEAD', '/api/events', { authorization: `Bearer ${TOKEN}` })
    expect([head.status, head.headers['content-type'], head.text]).toEqual([
      200,
      'text/event-stream; charset=utf-8',
      '',
    ])
    expect(daemon.watchers.size).toBe(2)
  })

  it('is 404 on a daemon that offers no event stream', async () => {
    const server = await startDaemonServer({ api: new FakeDaemon(), port: 0 })
    onTestFinished(() => server.close())
    const r = await call(server.url, 'GET', '/api/events')
    expect([r.status, (r.json as { error: { code: string } }).error.code]).toEqual([404, 'NOT_FOUND'])
  })

  it(`serves at most maxEventStreams (${DAEMON_SERVER_LIMITS.maxEventStreams} by default) at once: 503 beyond, until one closes`, async () => {
    const s = await start({ limits: { maxEventStreams: 2 } })
    const first = await open(s)
    await open(s)
    await until('two watching', () => daemon.watchers.size === 2)
    const third = await call(s.url, 'GET', '/api/events')
    expect([third.status, (third.json as { error: { code: string } }).error.code]).toEqual([503, 'TOO_MANY_STREAMS'])
    expect(daemon.watchers.size).toBe(2)
    first.close()
    await until('one left', () => daemon.watchers.size === 1)
    const again = await open(s)
    expect(again.res.statusCode).toBe(200)
    expect(records.filter((r) => r.message.includes('too many open'))).toHaveLength(1)
  })

  it('drops a reader that lets more than maxEventStreamBufferBytes pile up, and keeps one that reads', async () => {
    const limit = 16 * 1024
    const s = await start({ limits: { maxEventStreamBufferBytes: limit } })
    const big: DaemonEvent = {
      type: 'surface',
      surface: { name: 'desk', driver: 'streamdeck', state: 'failed', message: 'x'.repeat(1000) },
    }

    // A reader that keeps up gets every event, however many.
    const reading = await open(s)
    await until('the reader', () => daemon.watchers.size === 1)
    for (let i = 1; i <= 300; i++) {
      daemon.emit(big)
      await until(`event ${i}`, () => reading.text().split('\n\n').length === 3 + i)
    }
    expect(daemon.watchers.size).toBe(1)
    reading.close()
    await until('the reader gone', () => daemon.watchers.size === 0)

    // A reader that never reads: once the socket buffers are full, what waits passes the limit.
    const stalled = netConnect(s.port, '127.0.0.1')
    onTestFinished(() => void stalled.destroy())
    stalled.pause()
    stalled.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\n\r\n`)
    await until('the stalled reader', () => daemon.watchers.size === 1)
    let sent = 0
    while (daemon.watchers.size === 1 && sent < 20_000) {
      for (let i = 0; i < 100; i++) daemon.emit(big)
      sent += 100
      await new Promise((r) => setImmediate(r))
    }
    expect(daemon.watchers.size).toBe(0)
    expect(records.filter((r) => r.message === 'dropped an event stream whose reader fell behind')).toHaveLength(1)
  })

  it('writes a keep-alive comment every eventStreamHeartbeatMs', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    const s = await start({ limits: { eventStreamHeartbeatMs: 1000 } })
    const stream = await open(s)
    await until('the snapshot', () => stream.text().split('\n\n').length === 3)
    vi.advanceTimersByTime(999)
    daemon.emit(PRESS)
    await until('the press', () => stream.text().split('\n\n').length === 4)
    expect(stream.text()).not.toContain(': keep-alive')
    vi.advanceTimersByTime(1)
    await until('a keep-alive', () => stream.text().endsWith('\n\n: keep-alive\n\n'))
    vi.advanceTimersByTime(2000)
    await until('two more', () => stream.text().split(': keep-alive').length === 4)
  })

  it('ends every stream and stops watching when the server closes', async () => {
    const s = await start()
    const a = await open(s)
    const b = await open(s)
    await until('two watching', () => daemon.watchers.size === 2)
    await s.close()
    await Promise.all([a.ended, b.ended])
    expect(daemon.watchers.size).toBe(0)
  })
})
