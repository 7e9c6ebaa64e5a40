/**
 * The simulator's QWebChannel server under hostile clients (issue 9, findings 3, 4, 6): real `ws`
 * clients and raw sockets on port 0. Every test ends by proving the server still answers.
 * Cases from the former qwebchannel-hardening.test.ts.
 */
import { connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it, vi, onTestFinished } from 'vitest'
import WebSocket from 'ws'
import { QWC_MESSAGE } from '../../../../src/api/protocol.js'
import {
  QWebChannelServer,
  type QWebChannelServerOptions,
} from '../../../../src/app-kit/simulator/qwebchannel-server.js'
import { startSimulator } from '../../../../src/app-kit/simulator/index.js'
import { openJsonSocket } from '../../../helpers/json-socket.js'
import { untilFound } from '../../../helpers/until.js'

afterEach(() => {
  vi.useRealTimers()
})

async function server(extra: Partial<QWebChannelServerOptions> = {}): Promise<QWebChannelServer> {
  const s = new QWebChannelServer({
    port: 0,
    objects: { echo: { methods: { echo: (...args: unknown[]) => args }, signals: ['big'] } },
    ...extra,
  })
  await s.start()
  onTestFinished(() => s.stop())
  return s
}

interface Peer {
  ws: WebSocket
  frames: Record<string, unknown>[]
  /** Waits for the response to `id`. */
  response(id: unknown, timeoutMs?: number): Promise<Record<string, unknown>>
  send(frame: unknown): void
}

async function peer(url: string, headers: Record<string, string> = {}): Promise<Peer> {
  const { ws, messages: frames } = await openJsonSocket<Record<string, unknown>>(url, headers)
  onTestFinished(() => ws.terminate())
  return {
    ws,
    frames,
    send: (frame) => ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
    response: (id, timeoutMs = 3000) =>
      untilFound(
        `a response to ${String(id)}`,
        () => frames.find((f) => f.type === QWC_MESSAGE.response && f.id === id),
        timeoutMs,
      ),
  }
}

/** The server still answers init (and so is alive and serving this socket). */
async function stillServes(p: Peer, id: string): Promise<void> {
  p.send({ type: QWC_MESSAGE.init, id })
  const reply = await p.response(id)
  expect(reply.data).toHaveProperty('echo')
}

/** The status line a raw upgrade request gets (read as soon as it arrives). */
function upgradeStatus(port: number, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    onTestFinished(() => void socket.destroy())
    let text = ''
    const done = (): void => {
      resolve(text.split('\r\n')[0] ?? '')
      socket.destroy()
    }
    socket.on('data', (d) => {
      text += d.toString('latin1')
      if (text.includes('\r\n')) done()
    })
    socket.on('close', done)
    socket.on('error', reject)
    const lines = [
      'GET / HTTP/1.1',
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ]
    socket.write(lines.join('\r\n') + '\r\n\r\n')
  })
}

describe('QWebChannel server: hostile frames (finding 3)', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'an invoke on object %j is ignored, and the server stays up',
    async (object) => {
      const s = await server()
      const p = await peer(s.url)
      p.send({ type: QWC_MESSAGE.invokeMethod, object, method: 'toString', args: [], id: 'x' })
      p.send({ type: QWC_MESSAGE.invokeMethod, object: 'echo', method: object, args: [], id: 'y' })
      p.send({ type: QWC_MESSAGE.connectToSignal, object, signal: 'toString' })
      await stillServes(p, 'after')
      expect(p.frames.some((f) => f.id === 'x' || f.id === 'y')).toBe(false)
    },
  )

  it('a method given as an object is ignored', async () => {
    const s = await server()
    const p = await peer(s.url)
    p.send({ type: QWC_MESSAGE.invokeMethod, object: 'echo', method: { toString: 1 }, args: [], id: 'm' })
    p.send({ type: QWC_MESSAGE.connectToSignal, object: 'echo', signal: { toString: 1 } })
    await stillServes(p, 'after')
    expect(p.frames.some((f) => f.id === 'm')).toBe(false)
  })

  it('an id nested 100,000 deep is never echoed', async () => {
    const s = await server()
    const p = await peer(s.url)
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    p.send(`{"type":6,"object":"echo","method":"echo","args":[1],"id":${deep}}`)
    p.send(`{"type":3,"id":${deep}}`)
    await stillServes(p, 'after')
    expect(p.frames.filter((f) => f.type === QWC_MESSAGE.response)).toHaveLength(1)
  })

  it('args that are not an array, or too many, are refused; a good call still works', async () => {
    const s = await server()
    const p = await peer(s.url)
    p.send({ type: QWC_MESSAGE.invokeMethod, object: 'echo', method: 'echo', args: 'abc', id: 'a' })
    p.send({ type: QWC_MESSAGE.invokeMethod, object: 'echo', method: 'echo', args: new Array(10_000).fill(1), id: 'b' })
    p.send({ type: QWC_MESSAGE.invokeMethod, object: 'echo', method: 'echo', args: [1, 'two'], id: 'c' })
    expect((await p.response('c')).data).toEqual([1, 'two'])
    expect(p.frames.some((f) => f.id === 'a' || f.id === 'b')).toBe(false)
  })

  it('a method whose result cannot be written answers null instead of killing the server', async () => {
    const deep = JSON.parse('['.repeat(20_000) + ']'.repeat(20_000)) as unknown
    const s = await server({ objects: { echo: { methods: { deep: () => deep }, signals: [] } } })
    const p = await peer(s.url)
    p.send({ type: QWC_MESSAGE.invokeMethod, object: 'echo', method: 'deep', args: [], id: 'd' })
    expect((await p.response('d')).data).toBeNull()
    await stillServes(p, 'after')
  })

  it('the simulator scheduler survives deep and hostile arguments to scheduleCommand', async () => {
    const sim = await startSimulator({ animationMs: 10 })
    onTestFinished(() => sim.close())
    const p = await peer(sim.wsUrl)
    const deep = '['.repeat(50_000) + ']'.repeat(50_000)
    p.send(
      `{"type":6,"object":"scheduler","method":"scheduleCommand","args":["readTitle",{"id":${deep}},${deep}],"id":"s1"}`,
    )
    p.send({
      type: QWC_MESSAGE.invokeMethod,
      object: 'scheduler',
      method: 'scheduleCommand',
      args: ['readTitle', { id: [{ toString: 1 }] }, { __proto__: 1 }],
      id: 's2',
    })
    await p.response('s1')
    await p.response('s2')
    p.send({ type: QWC_MESSAGE.init, id: 'after' })
    expect((await p.response('after')).data).toHaveProperty('scheduler')
  })
})

describe('QWebChannel server: size, count and pace bounds (finding 4)', () => {
  it('a frame larger than maxPayload closes that socket with 1009; others are served', async () => {
    const s = await server({ maxPayloadBytes: 64 * 1024 })
    const bystander = await peer(s.url)
    const p = await peer(s.url)
    const closed = new Promise<number>((r) => p.ws.once('close', (code) => r(code)))
    p.send('x'.repeat(128 * 1024))
    expect(await closed).toBe(1009)
    await stillServes(bystander, 'after')
  })

  it('the default maxPayload is 1 MiB', async () => {
    const s = await server()
    const p = await peer(s.url)
    const closed = new Promise<number>((r) => p.ws.once('close', (code) => r(code)))
    p.send('x'.repeat(1024 * 1024 + 1))
    expect(await closed).toBe(1009)
  })

  it('connections past the cap are refused with 503', async () => {
    const s = await server({ maxConnections: 2 })
    await peer(s.url)
    const second = await peer(s.url)
    expect(await upgradeStatus(s.boundPort, { Host: `127.0.0.1:${s.boundPort}` })).toBe(
      'HTTP/1.1 503 Service Unavailable',
    )
    await stillServes(second, 'after')
  })

  it('a subscriber that never reads holds at most the high-water mark, and is closed once it stays behind', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const highWater = 256 * 1024
    const s = await server({ sendHighWaterBytes: highWater, slowClientGraceMs: 5_000 })
    const p = await peer(s.url)
    p.send({ type: QWC_MESSAGE.init, id: 'i' })
    await p.response('i')
    const signal = s.layout('echo')!.signals.find(([n]) => n === 'big')![1]
    p.send({ type: QWC_MESSAGE.connectToSignal, object: 'echo', signal })
    p.send({ type: QWC_MESSAGE.init, id: 'sync' })
    await p.response('sync')
    // The client stops reading: its socket's buffers fill, then the server's.
    ;(p.ws as unknown as { _socket: Socket })._socket.pause()
    const payload = 'v'.repeat(64 * 1024)
    let peak = 0
    for (let i = 0; i < 600 && s.droppedFrames === 0; i++) {
      s.emitSignal('echo', 'big', [payload])
      peak = Math.max(peak, ...s.bufferedAmounts)
      await new Promise((r) => setImmediate(r))
    }
    expect(s.droppedFrames).toBeGreaterThan(0)
    for (let i = 0; i < 50; i++) {
      s.emitSignal('echo', 'big', [payload])
      peak = Math.max(peak, ...s.bufferedAmounts)
    }
    expect(peak).toBeLessThanOrEqual(highWater + payload.length + 1024)
    expect(s.clientCount).toBe(1)
    vi.setSystemTime(Date.now() + 5_001)
    s.emitSignal('echo', 'big', [payload])
    await vi.waitUntil(() => s.clientCount === 0, { timeout: 3000, interval: 5 })
  })
})

describe('QWebChannel server: foreign pages (finding 6)', () => {
  it('refuses an upgrade from a foreign Origin or a foreign DNS Host, accepts local ones', async () => {
    const s = await server()
    const port = s.boundPort
    expect(await upgradeStatus(port, { Host: `127.0.0.1:${port}`, Origin: 'http://evil.example' })).toBe(
      'HTTP/1.1 403 Forbidden',
    )
    expect(await upgradeStatus(port, { Host: `evil.example:${port}` })).toBe('HTTP/1.1 403 Forbidden')
    expect(await upgradeStatus(port, { Host: `localhost:${port}`, Origin: `http://localhost:${port}` })).toBe(
      'HTTP/1.1 101 Switching Protocols',
    )
    const p = await peer(s.url)
    await stillServes(p, 'after')
  })

  it('bound to a non-loopback address by choice, DNS hosts are accepted but foreign origins are not', async () => {
    const s = await server({ checkHost: false })
    const port = s.boundPort
    expect(await upgradeStatus(port, { Host: `studio-box.lan:${port}` })).toBe('HTTP/1.1 101 Switching Protocols')
    expect(await upgradeStatus(port, { Host: `studio-box.lan:${port}`, Origin: 'http://evil.example' })).toBe(
      'HTTP/1.1 403 Forbidden',
    )
  })

  it('a handshake that never finishes its headers is answered 408 and cut', async () => {
    const s = await server({ headersTimeoutMs: 200 })
    const socket = connect(s.boundPort, '127.0.0.1')
    onTestFinished(() => void socket.destroy())
    let text = ''
    socket.on('data', (d) => (text += d.toString('latin1')))
    const closed = new Promise<void>((r) => socket.once('close', () => r()))
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n')
    await closed
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout')
    const p = await peer(s.url)
    await stillServes(p, 'after')
  })
})
