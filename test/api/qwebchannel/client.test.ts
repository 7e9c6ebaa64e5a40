/**
 * The QWebChannel client against the simulator's server and raw WebSocket servers on port 0: the
 * session, calls and replies, signals, time-outs, garbage frames; and the server core's own cases.
 */
import { createServer, type Socket } from 'node:net'
import { afterEach, describe, expect, it, vi, onTestFinished } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import type { AddressInfo } from 'node:net'
import { QWebChannelClient, QWebChannelError, parseInitReply, parseQwcResult } from '../../../src/api/qwebchannel.js'
import { QWebChannelServer, type QwcPublishedObject } from '../../../src/app-kit/simulator/qwebchannel-server.js'
import { captureLogs } from '../../helpers/logs.js'
import { openJsonSocket } from '../../helpers/json-socket.js'
import { QWC_MESSAGE } from '../../../src/api/protocol.js'

const calls: unknown[][] = []
const testObject: QwcPublishedObject = {
  signals: ['changed', 'onNotify'],
  methods: {
    echo: (...args: unknown[]) => JSON.stringify({ args }),
    plain: () => 'hello',
    object: () => ({ direct: true }),
    record: (...args: unknown[]) => {
      calls.push(args)
      return null
    },
  },
}

afterEach(() => {
  vi.useRealTimers()
  calls.length = 0
})

/** How long and how often `expect.poll` looks. */
const WAIT = { timeout: 5000, interval: 5 }

async function startServer(opts: { shuffle?: boolean } = {}): Promise<QWebChannelServer> {
  const server = new QWebChannelServer({ objects: { scheduler: testObject }, port: 0, ...opts })
  await server.start()
  onTestFinished(() => server.stop())
  return server
}

async function connect(url: string, callTimeoutMs = 2000): Promise<QWebChannelClient> {
  const client = new QWebChannelClient({ url, callTimeoutMs, connectTimeoutMs: 2000 })
  onTestFinished(() => client.close())
  await client.connect()
  return client
}

/** A raw WebSocket server that records what a client sends and answers with `answer`. */
async function rawServer(answer: (msg: Record<string, unknown>, ws: WebSocket) => void) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await new Promise<void>((r) => wss.once('listening', () => r()))
  const received: Record<string, unknown>[] = []
  wss.on('connection', (ws) =>
    ws.on('message', (raw: WebSocket.RawData) => {
      const msg = JSON.parse((raw as Buffer).toString()) as Record<string, unknown>
      received.push(msg)
      answer(msg, ws)
    }),
  )
  onTestFinished(
    () =>
      new Promise<void>((r) => {
        for (const c of wss.clients) c.terminate()
        wss.close(() => r())
      }),
  )
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, received }
}

const initData = {
  scheduler: {
    methods: Object.entries({ deleteLater: 2, scheduleCommand: 41 }),
    signals: [['onNotify', 7]],
    properties: [],
    enums: {},
  },
}

describe('QWebChannel client', () => {
  it('runs the init exchange and reads method and signal indexes from the init reply', async () => {
    const server = await startServer()
    const client = await connect(server.url)
    const info = client.published.get('scheduler')!
    const layout = server.layout('scheduler')!
    for (const [name, index] of layout.methods) expect(info.methods.get(name)).toBe(index)
    for (const [name, index] of layout.signals) expect(info.signals.get(name)).toBe(index)
    expect(client.methodIndex('scheduler', 'echo')).toBe(layout.methods.find(([n]) => n === 'echo')![1])
  })

  it('sends init, then idle, then invokes by the index given in the init reply', async () => {
    const raw = await rawServer((msg, ws) => {
      if (msg.type === QWC_MESSAGE.init) ws.send(JSON.stringify({ type: 10, id: msg.id, data: initData }))
      if (msg.type === QWC_MESSAGE.invokeMethod) ws.send(JSON.stringify({ type: 10, id: msg.id, data: '{"ok":1}' }))
    })
    const client = await connect(raw.url)
    const result = await client.invoke('scheduler', 'scheduleCommand', ['getTime', {}, {}])
    expect(result).toEqual({ ok: 1 })
    client.connectSignal('scheduler', 'onNotify')
    // connectToSignal has no reply: a round trip after it proves the server has read it.
    expect(await client.invoke('scheduler', 'scheduleCommand', ['getTime', {}, {}])).toEqual({ ok: 1 })
    expect(raw.received.map((m) => m.type)).toEqual([3, 4, 6, 7, 6])
    expect(raw.received[2]).toMatchObject({ type: 6, object: 'scheduler', method: 41, args: ['getTime', {}, {}] })
    // Each request gets the next id of its connection; idle and connectToSignal carry none.
    expect(raw.received.map((m) => m.id)).toEqual([0, undefined, 1, undefined, 2])
    expect(raw.received[3]).toEqual({ type: 7, object: 'scheduler', signal: 7 })
  })

  it('parses JSON text results and passes other results through', async () => {
    const server = await startServer()
    const client = await connect(server.url)
    expect(await client.invoke('scheduler', 'echo', ['a', { b: 1 }])).toEqual({ args: ['a', { b: 1 }] })
    expect(await client.invoke('scheduler', 'plain', [])).toBe('hello')
    expect(await client.invoke('scheduler', 'object', [])).toEqual({ direct: true })
    expect(parseQwcResult('{bad json')).toBe('{bad json')
    expect(parseQwcResult(42)).toBe(42)
  })

  it('keeps calls apart by id when replies are delayed', async () => {
    const server = await startServer()
    server.setReplyDelay(30)
    const client = await connect(server.url)
    const results = await Promise.all([1, 2, 3].map((n) => client.invoke('scheduler', 'echo', [n])))
    expect(results).toEqual([{ args: [1] }, { args: [2] }, { args: [3] }])
    expect(client.pendingCount).toBe(0)
  })

  it('rejects a call that gets no reply in time with TIMEOUT, and forgets it', async () => {
    const server = await startServer()
    const client = await connect(server.url, 60)
    server.setReplyDelay(300)
    const err = await client.invoke('scheduler', 'echo', []).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(QWebChannelError)
    expect((err as QWebChannelError).code).toBe('TIMEOUT')
    expect(client.pendingCount).toBe(0)
  })

  it('rejects pending calls at once with DISCONNECTED when the socket closes', async () => {
    const server = await startServer()
    const client = await connect(server.url, 10_000)
    server.setReplyDelay(5_000)
    const closed = new Promise((r) => client.once('close', r))
    const call = client.invoke('scheduler', 'echo', []).catch((e: unknown) => e)
    expect(client.pendingCount).toBe(1)
    server.dropAll()
    const err = await call
    expect((err as QWebChannelError).code).toBe('DISCONNECTED')
    await closed
    expect(client.pendingCount).toBe(0)
    const after = await client.invoke('scheduler', 'echo', []).catch((e: unknown) => e)
    expect((after as QWebChannelError).code).toBe('DISCONNECTED')
  })

  it('rejects an unknown method with UNKNOWN_MEMBER without sending anything', async () => {
    const server = await startServer()
    const client = await connect(server.url)
    const err = await client.invoke('scheduler', 'nope', []).catch((e: unknown) => e)
    expect((err as QWebChannelError).code).toBe('UNKNOWN_MEMBER')
    expect(() => client.connectSignal('scheduler', 'nope')).toThrow(QWebChannelError)
  })

  it('fails to connect to a closed port with DISCONNECTED', async () => {
    const server = await startServer()
    const url = server.url
    await server.stop()
    const client = new QWebChannelClient({ url, connectTimeoutMs: 1000 })
    const err = await client.connect().catch((e: unknown) => e)
    expect((err as QWebChannelError).code).toBe('DISCONNECTED')
  })

  it('rejects with TIMEOUT when the init reply does not come within the connect time-out, not the call time-out', async () => {
    let initSeen!: () => void
    const init = new Promise<void>((r) => (initSeen = r))
    const raw = await rawServer((msg) => {
      if (msg.type === QWC_MESSAGE.init) initSeen() // and never answered
    })
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    const client = new QWebChannelClient({ url: raw.url, connectTimeoutMs: 500, callTimeoutMs: 60_000 })
    onTestFinished(() => client.close())
    let outcome: unknown = 'pending'
    const done = client.connect().then(
      () => 'connected',
      (e: unknown) => e,
    )
    void done.then((v) => (outcome = v))
    await init
    await vi.advanceTimersByTimeAsync(499)
    expect(outcome).toBe('pending')
    await vi.advanceTimersByTimeAsync(1)
    expect(outcome).toBeInstanceOf(QWebChannelError)
    const err = await done
    expect((err as QWebChannelError).code).toBe('TIMEOUT')
    expect((err as QWebChannelError).message).toBe('init: no reply within 500 ms')
    expect(client.isOpen).toBe(false)
  })

  it('gives up on a server that accepts the connection but never answers the WebSocket upgrade', async () => {
    // Why real time: the upgrade's time-out is a socket time-out inside Node's http, which fake timers
    // do not reach. Without it connect() would hang until the test's own limit.
    const sockets: Socket[] = []
    const server = createServer((socket) => sockets.push(socket))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
    onTestFinished(
      () =>
        new Promise<void>((r) => {
          for (const s of sockets) s.destroy()
          server.close(() => r())
        }),
    )
    const client = new QWebChannelClient({
      url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
      connectTimeoutMs: 100,
    })
    const err = await client.connect().catch((e: unknown) => e)
    expect(sockets).toHaveLength(1)
    expect(err).toBeInstanceOf(QWebChannelError)
    expect((err as QWebChannelError).code).toBe('DISCONNECTED')
  })

  it('rejects a malformed init reply with BAD_REPLY', async () => {
    const raw = await rawServer((msg, ws) => {
      if (msg.type === QWC_MESSAGE.init)
        ws.send(JSON.stringify({ type: 10, id: msg.id, data: { scheduler: { methods: 'x' } } }))
    })
    const client = new QWebChannelClient({ url: raw.url, connectTimeoutMs: 1000 })
    const err = await client.connect().catch((e: unknown) => e)
    expect((err as QWebChannelError).code).toBe('BAD_REPLY')
    expect(() => parseInitReply(null)).toThrow(QWebChannelError)
  })

  it('delivers signals by name with their arguments', async () => {
    const server = await startServer()
    const client = await connect(server.url)
    client.connectSignal('scheduler', 'onNotify')
    // connectToSignal has no reply: a round trip after it proves the server has read it.
    expect(await client.invoke('scheduler', 'plain', [])).toBe('hello')
    const got = new Promise<unknown>((r) => client.once('signal', r))
    expect(server.emitSignal('scheduler', 'onNotify', ['{"id":"x","play":"Running"}'])).toBe(1)
    expect(await got).toEqual({ object: 'scheduler', signal: 'onNotify', args: ['{"id":"x","play":"Running"}'] })
    // A signal the client did not connect to is not sent to it.
    expect(server.emitSignal('scheduler', 'changed', [])).toBe(0)
  })

  it('survives garbage and unknown messages, logging each kind once', async () => {
    const records = captureLogs()
    const raw = await rawServer((msg, ws) => {
      if (msg.type === QWC_MESSAGE.init) {
        ws.send('garbage{')
        ws.send('garbage{')
        ws.send(JSON.stringify({ type: 99 }))
        ws.send(JSON.stringify([1, 2]))
        ws.send(JSON.stringify({ type: 1, object: 'scheduler', signal: 123, args: [] }))
        ws.send(JSON.stringify({ type: 10, id: msg.id, data: initData }))
      }
      if (msg.type === QWC_MESSAGE.invokeMethod) {
        ws.send('more garbage')
        ws.send(JSON.stringify({ type: 10, id: msg.id, data: 'ok' }))
      }
    })
    const client = await connect(raw.url)
    expect(await client.invoke('scheduler', 'scheduleCommand', [])).toBe('ok')
    const warnings = records.filter((r) => r.level === 'warn')
    expect(warnings.filter((r) => r.message.includes('not JSON'))).toHaveLength(1)
    expect(warnings.some((r) => r.message.includes('unexpected type'))).toBe(true)
    expect(warnings.some((r) => r.message.includes('without a numeric type'))).toBe(true)
    expect(warnings.some((r) => r.message.includes('not named in the init reply'))).toBe(true)
  })

  it('answers pings with pongs, and stops when the server goes silent', async () => {
    const server = await startServer()
    const client = await connect(server.url)
    client.lastActivity = 0
    client.ping()
    await expect.poll(() => client.lastActivity, WAIT).toBeGreaterThan(0)
    server.setSilent(true)
    client.lastActivity = 0
    client.ping()
    const reply = client.invoke('scheduler', 'echo', [], { timeoutMs: 80 }).catch((e: unknown) => e)
    expect(((await reply) as QWebChannelError).code).toBe('TIMEOUT')
    expect(client.lastActivity).toBe(0)
  })

  it('follows shuffled indexes after a restart', async () => {
    const server = await startServer({ shuffle: true })
    const before = JSON.stringify(server.layout('scheduler'))
    const first = await connect(server.url)
    expect(first.methodIndex('scheduler', 'echo')).toBe(
      server.layout('scheduler')!.methods.find(([n]) => n === 'echo')![1],
    )
    await server.restart()
    expect(JSON.stringify(server.layout('scheduler'))).not.toBe(before)
    const second = await connect(server.url)
    expect(second.methodIndex('scheduler', 'echo')).toBe(
      server.layout('scheduler')!.methods.find(([n]) => n === 'echo')![1],
    )
    expect(await second.invoke('scheduler', 'echo', ['still'])).toEqual({ args: ['still'] })
  })
})

describe('QWebChannel server core', () => {
  it('answers a method call by name as well as by index', async () => {
    const server = await startServer()
    const { ws, messages: replies } = await openJsonSocket<Record<string, unknown>>(server.url)
    onTestFinished(() => ws.terminate())
    const index = server.layout('scheduler')!.methods.find(([n]) => n === 'record')![1]
    ws.send(JSON.stringify({ type: 6, object: 'scheduler', method: 'record', args: ['byName'], id: 1 }))
    ws.send(JSON.stringify({ type: 6, object: 'scheduler', method: index, args: ['byIndex'], id: 2 }))
    ws.send(JSON.stringify({ type: 6, object: 'scheduler', method: 9999, args: ['nothing'], id: 3 }))
    // The reply to a call sent after the unknown one proves the server has read it.
    ws.send(JSON.stringify({ type: 6, object: 'scheduler', method: 'record', args: ['after'], id: 4 }))
    await expect.poll(() => replies.length, WAIT).toBe(3)
    expect(calls).toEqual([['byName'], ['byIndex'], ['after']])
    expect(replies).toEqual([
      { type: 10, id: 1, data: null },
      { type: 10, id: 2, data: null },
      { type: 10, id: 4, data: null },
    ])
  })

  it('restarts on the same port', async () => {
    const server = await startServer()
    const port = server.boundPort
    await server.restart()
    expect(server.boundPort).toBe(port)
    const client = await connect(server.url)
    expect(await client.invoke('scheduler', 'plain', [])).toBe('hello')
  })
})
