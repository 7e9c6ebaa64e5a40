/**
 * The QWebChannel client's edges, pinned where mutation testing found them unwatched: result and init
 * parsing, error texts, frames too deep, replies handled in `onReply`, signals by name, faults, and the
 * close event. The peer is a raw WebSocket server on port 0 written here.
 * Cases from the former qwebchannel-mutants.test.ts (mutation survivors).
 */
import type { AddressInfo } from 'node:net'
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import { QWC_MESSAGE } from '../../../src/api/protocol.js'
import { QWebChannelClient, QWebChannelError, parseInitReply, parseQwcResult } from '../../../src/api/qwebchannel.js'
import type { LogRecord } from '../../../src/log.js'
import { OUTGOING_LIMITS } from '../../../src/outgoing-bound.js'
import { captureLogs } from '../../helpers/logs.js'
import { thrownBy } from '../../helpers/thrown.js'

let logs: LogRecord[]
beforeEach(() => {
  logs = captureLogs('debug')
})

const initData = {
  scheduler: {
    methods: [
      ['scheduleCommand', 41],
      ['scheduleCommand', 42],
    ],
    signals: [['onNotify', 7]],
    properties: [[1, 'p', [1, 2], 'v']],
  },
}

/** A peer that answers init with `initData`, and every call with `answer(msg, ws)`. */
async function peer(answer: (msg: Record<string, unknown>, ws: WebSocket) => void = () => undefined) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await new Promise<void>((r) => wss.once('listening', () => r()))
  const sockets: WebSocket[] = []
  const received: Record<string, unknown>[] = []
  wss.on('connection', (ws) => {
    sockets.push(ws)
    ws.on('message', (raw: WebSocket.RawData) => {
      const msg = JSON.parse((raw as Buffer).toString()) as Record<string, unknown>
      received.push(msg)
      if (msg.type === QWC_MESSAGE.init) ws.send(JSON.stringify({ type: 10, id: msg.id, data: initData }))
      else if (msg.type === QWC_MESSAGE.invokeMethod) answer(msg, ws)
    })
  })
  const close = (): Promise<void> =>
    new Promise<void>((r) => {
      for (const c of wss.clients) c.terminate()
      wss.close(() => r())
    })
  onTestFinished(close)
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, sockets, received, close }
}

async function connected(url: string, opts: Partial<ConstructorParameters<typeof QWebChannelClient>[0]> = {}) {
  const client = new QWebChannelClient({ url, connectTimeoutMs: 2000, callTimeoutMs: 2000, ...opts })
  onTestFinished(() => client.close())
  await client.connect()
  return client
}

async function rejection(p: Promise<unknown>): Promise<QWebChannelError> {
  const err: unknown = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(err instanceof QWebChannelError)) throw new Error(`expected a QWebChannelError, got ${String(err)}`)
  return err
}

const thrown = (f: () => unknown): QWebChannelError => thrownBy(f, QWebChannelError)

describe('parsing', () => {
  it('parses JSON text with blanks around it and JSON strings; leaves other text as it came', () => {
    expect(parseQwcResult('  {"a":1}\n')).toEqual({ a: 1 })
    expect(parseQwcResult(' [1] ')).toEqual([1])
    expect(parseQwcResult('"quoted"')).toBe('quoted')
    expect(parseQwcResult(' {oops ')).toBe(' {oops ')
    expect(parseQwcResult('plain [1]')).toBe('plain [1]')
    // Only text that opens like an object, a list or a string is JSON here: '42' stays text.
    expect([parseQwcResult('42'), parseQwcResult('true'), parseQwcResult('null')]).toEqual(['42', 'true', 'null'])
  })

  it('refuses JSON text nested past the limit, naming it', () => {
    const err = thrown(() => parseQwcResult('[[[1]]]', 2))
    expect([err.name, err.code, err.message]).toEqual([
      'QWebChannelError',
      'BAD_REPLY',
      'result nested deeper than 2 levels',
    ])
    expect(parseQwcResult('[[1]]', 2)).toEqual([[1]])
  })

  it('reads the init reply: first index of an overload wins, signals may be absent, properties kept', () => {
    const objects = parseInitReply({
      a: {
        methods: [
          ['m', 1],
          ['m', 2],
        ],
      },
      b: initData.scheduler,
    })
    expect(objects.get('a')!.methods.get('m')).toBe(1)
    expect(objects.get('a')!.signals.size).toBe(0)
    expect(objects.get('a')!.properties).toEqual([])
    expect(objects.get('b')!.signalNames.get(7)).toBe('onNotify')
    expect(objects.get('b')!.properties).toEqual(initData.scheduler.properties)
  })

  it('names what is wrong with an init reply', () => {
    expect(thrown(() => parseInitReply([])).message).toBe('init reply data is not an object')
    expect(thrown(() => parseInitReply({ a: 1 })).message).toBe('init reply: object a is not an object')
    for (const methods of ['x', 5, [['m']], [[1, 1]], [['m', '1']], [5]]) {
      const err = thrown(() => parseInitReply({ a: { methods } }))
      expect([err.code, err.message]).toEqual(['BAD_REPLY', 'init reply: bad methods/signals for a'])
    }
    expect(thrown(() => parseInitReply({ a: { methods: [], signals: 'x' } })).code).toBe('BAD_REPLY')
  })
})

describe('the connection', () => {
  it('connects once; a second connect() is refused', async () => {
    const { url } = await peer()
    const client = await connected(url)
    const err = await rejection(client.connect())
    expect([err.code, err.message]).toEqual(['DISCONNECTED', 'a QWebChannelClient connects once; make a new one'])
  })

  it('a client closed before it connects refuses the init exchange', async () => {
    const { url } = await peer()
    const client = new QWebChannelClient({ url, connectTimeoutMs: 2000 })
    onTestFinished(() => client.close())
    client.close()
    const err = await rejection(client.connect())
    expect([err.code, err.message]).toEqual(['DISCONNECTED', 'init: socket is not open'])
  })

  it('names the URL it could not open', async () => {
    const { url, close } = await peer()
    await close()
    const err = await rejection(new QWebChannelClient({ url, connectTimeoutMs: 1000 }).connect())
    expect(err.message).toBe(`could not open ${url}`)
  })

  it('names unknown methods and signals', async () => {
    const { url } = await peer()
    const client = await connected(url)
    expect(thrown(() => client.methodIndex('scheduler', 'nope')).message).toBe('no method scheduler.nope in init reply')
    expect(thrown(() => client.signalIndex('other', 'x')).message).toBe('no signal other.x in init reply')
    expect(client.signalIndex('scheduler', 'onNotify')).toBe(7)
  })

  it('reports the close code and reason, rejects calls in flight by name, and refuses later calls', async () => {
    const { url, sockets } = await peer()
    const client = await connected(url)
    const closed = new Promise<{ code: number; reason: string }>((r) => client.on('close', r))
    const call = rejection(client.invoke('scheduler', 'scheduleCommand', []))
    await expect.poll(() => client.pendingCount).toBe(1)
    sockets[0]!.close(4001, 'bye')
    expect(await closed).toEqual({ code: 4001, reason: 'bye' })
    const err = await call
    expect([err.code, err.message]).toEqual([
      'DISCONNECTED',
      'scheduler.scheduleCommand: socket closed before the reply',
    ])
    expect(client.isOpen).toBe(false)
    const later = await rejection(client.invoke('scheduler', 'scheduleCommand', []))
    expect(later.message).toBe('scheduler.scheduleCommand: socket is not open')
    client.ping()
  })

  it('names the call that timed out, with the per-call time-out', async () => {
    const { url } = await peer()
    const client = await connected(url)
    const err = await rejection(client.invoke('scheduler', 'scheduleCommand', [], { timeoutMs: 30 }))
    expect([err.code, err.message]).toEqual(['TIMEOUT', 'scheduler.scheduleCommand: no reply within 30 ms'])
  })

  it('takes a frame or a pong as activity', async () => {
    const { url, sockets } = await peer()
    const client = await connected(url)
    client.lastActivity = 0
    client.ping()
    await expect.poll(() => client.lastActivity).toBeGreaterThan(0)
    client.lastActivity = 0
    sockets[0]!.send(JSON.stringify({ type: QWC_MESSAGE.idle }))
    await expect.poll(() => client.lastActivity).toBeGreaterThan(0)
  })

  it('closes the socket on a frame past maxFrameBytes', async () => {
    const { url, sockets } = await peer()
    const client = await connected(url, { maxFrameBytes: 1024 })
    const closed = new Promise<{ code: number }>((r) => client.on('close', r))
    sockets[0]!.send('x'.repeat(2048))
    // ws closes with 1009 towards the peer; locally the socket ends abnormally (1006).
    expect((await closed).code).toBe(1006)
  })
})

describe('replies and frames', () => {
  it('fails a call at once when its reply is nested too deep; drops and logs any other deep frame', async () => {
    const deep = JSON.parse('['.repeat(10) + ']'.repeat(10)) as unknown
    const { url, sockets } = await peer((msg, ws) => ws.send(JSON.stringify({ type: 10, id: msg.id, data: deep })))
    const client = await connected(url, { maxDepth: 8 })
    const err = await rejection(client.invoke('scheduler', 'scheduleCommand', []))
    expect([err.code, err.message]).toEqual([
      'BAD_REPLY',
      'scheduler.scheduleCommand: frame nested deeper than 8 levels',
    ])
    sockets[0]!.send(JSON.stringify({ type: 1, object: 'scheduler', signal: 7, args: [deep] }))
    sockets[0]!.send(JSON.stringify({ type: 10, id: 999, data: deep }))
    await expect.poll(() => logs.filter((l) => l.message === 'ignoring a frame nested too deep').length).toBe(2)
    expect(logs.find((l) => l.message === 'ignoring a frame nested too deep')!.fields).toEqual({
      url,
      type: 1,
      why: 'frame nested deeper than 8 levels',
    })
  })

  it('runs onReply with the parsed reply; a throw there fails the call, a QWebChannelError as it is', async () => {
    const { url } = await peer((msg, ws) => ws.send(JSON.stringify({ type: 10, id: msg.id, data: '{"n":1}' })))
    const client = await connected(url)
    let seen: unknown
    expect(await client.invoke('scheduler', 'scheduleCommand', [], { onReply: (r) => (seen = r) })).toEqual({ n: 1 })
    expect(seen).toEqual({ n: 1 })
    const plain = await rejection(
      client.invoke('scheduler', 'scheduleCommand', [], {
        onReply: () => {
          throw new TypeError('no good')
        },
      }),
    )
    expect([plain.code, plain.message, plain.cause]).toEqual([
      'BAD_REPLY',
      'scheduler.scheduleCommand: TypeError: no good',
      expect.any(TypeError),
    ])
    const own = new QWebChannelError('UNKNOWN_MEMBER', 'mine')
    expect(
      await rejection(
        client.invoke('scheduler', 'scheduleCommand', [], {
          onReply: () => {
            throw own
          },
        }),
      ),
    ).toBe(own)
  })

  it('logs a stray reply once at debug level, with its id', async () => {
    const { url, sockets } = await peer()
    const client = await connected(url)
    sockets[0]!.send(JSON.stringify({ type: 10, id: 77, data: null }))
    sockets[0]!.send(JSON.stringify({ type: 10, id: 78, data: null }))
    await expect.poll(() => logs.some((l) => l.message === 'ignoring a reply that matches no pending call')).toBe(true)
    expect(client.isOpen).toBe(true)
    expect(logs.filter((l) => l.message === 'ignoring a reply that matches no pending call')).toEqual([
      {
        level: 'debug',
        scope: 'qwebchannel',
        message: 'ignoring a reply that matches no pending call',
        fields: { id: '77' },
      },
    ])
  })

  it('delivers a signal named by text, with no args as an empty list; drops one without an object', async () => {
    const { url, sockets } = await peer()
    const client = await connected(url)
    const signals: unknown[] = []
    client.on('signal', (s) => signals.push(s))
    sockets[0]!.send(JSON.stringify({ type: 1, signal: 7 }))
    sockets[0]!.send(JSON.stringify({ type: 1, object: 'scheduler', signal: 'custom', args: 'x' }))
    await expect.poll(() => signals.length).toBe(1)
    expect(signals).toEqual([{ object: 'scheduler', signal: 'custom', args: [] }])
    expect(logs.find((l) => l.message === 'ignoring a signal without an object name')?.level).toBe('warn')
  })

  it('logs a signal it cannot name once per object, quoting it', async () => {
    const { url, sockets } = await peer()
    await connected(url)
    sockets[0]!.send(JSON.stringify({ type: 1, object: 'scheduler', signal: 99 }))
    sockets[0]!.send(JSON.stringify({ type: 1, object: 'other', signal: 1 }))
    sockets[0]!.send(JSON.stringify({ type: 1, object: 'third', signal: { a: 1 } }))
    await expect
      .poll(() => logs.filter((l) => l.message === 'ignoring a signal not named in the init reply').length)
      .toBe(3)
    expect(
      logs.filter((l) => l.message === 'ignoring a signal not named in the init reply').map((l) => l.fields),
    ).toEqual([
      { object: 'scheduler', signal: '99' },
      { object: 'other', signal: '1' },
      { object: 'third', signal: '{"a":1}' },
    ])
  })

  it('logs frames that are not JSON or have no numeric type, and unexpected types, quoting them', async () => {
    const { url, sockets } = await peer()
    const client = await connected(url)
    sockets[0]!.send(`not json ${'z'.repeat(200)}`)
    sockets[0]!.send(JSON.stringify({ type: 'x', pad: 'p'.repeat(200) }))
    sockets[0]!.send(JSON.stringify({ type: 42 }))
    sockets[0]!.send(JSON.stringify({ type: QWC_MESSAGE.propertyUpdate }))
    await expect.poll(() => logs.filter((l) => l.level === 'warn').length).toBe(3)
    expect(logs.filter((l) => l.level === 'warn').map((l) => [l.message, l.fields])).toEqual([
      ['ignoring a frame that is not JSON', { url, frame: `not json ${'z'.repeat(71)}` }],
      [
        'ignoring a message without a numeric type',
        { frame: JSON.stringify({ type: 'x', pad: 'p'.repeat(200) }).slice(0, 80) },
      ],
      ['ignoring a message of an unexpected type', { type: 42 }],
    ])
    expect(client.isOpen).toBe(true)
  })

  it('a signal listener that throws becomes a fault; a fault listener that throws is logged; the socket stays', async () => {
    const { url, sockets } = await peer((msg, ws) => ws.send(JSON.stringify({ type: 10, id: msg.id, data: 'ok' })))
    const client = await connected(url)
    const faults: QWebChannelError[] = []
    client.on('signal', () => {
      throw new Error('listener broke')
    })
    client.on('fault', (f) => {
      faults.push(f)
      throw new Error('fault listener broke')
    })
    sockets[0]!.send(JSON.stringify({ type: 1, object: 'scheduler', signal: 7, args: [] }))
    await expect.poll(() => faults.length).toBe(1)
    expect([faults[0]!.code, faults[0]!.message, (faults[0]!.cause as Error).message]).toEqual([
      'BAD_MESSAGE',
      'message: frame handler failed: Error: listener broke',
      'listener broke',
    ])
    expect(logs.find((l) => l.message === 'frame handler failed; frame dropped')?.fields).toEqual({
      url,
      what: 'message',
      error: 'message: frame handler failed: Error: listener broke',
    })
    expect(logs.find((l) => l.message === 'fault listener failed')?.fields).toEqual({
      url,
      error: 'Error: fault listener broke',
    })
    expect(await client.invoke('scheduler', 'scheduleCommand', [])).toBe('ok')
  })
})

describe('edges the second mutation run found unwatched', () => {
  it('init reply faults carry the BAD_REPLY code', () => {
    expect(thrown(() => parseInitReply([])).code).toBe('BAD_REPLY')
    expect(thrown(() => parseInitReply({ a: 1 })).code).toBe('BAD_REPLY')
  })

  it('a member of an unknown object is UNKNOWN_MEMBER, for methods and signals alike', async () => {
    const { url } = await peer()
    const client = await connected(url)
    const method = thrown(() => client.methodIndex('other', 'x'))
    expect([method.code, method.message]).toEqual(['UNKNOWN_MEMBER', 'no method other.x in init reply'])
    expect(thrown(() => client.signalIndex('other', 'x')).code).toBe('UNKNOWN_MEMBER')
  })

  it('before connect() the client is not open and ping() does nothing', () => {
    const client = new QWebChannelClient({ url: 'ws://127.0.0.1:1' })
    expect(client.isOpen).toBe(false)
    client.ping()
    expect(client.lastActivity).toBe(0)
  })

  it('logs why a socket failed, at debug level, with the URL', async () => {
    const { url, close } = await peer()
    await close()
    await rejection(new QWebChannelClient({ url, connectTimeoutMs: 1000 }).connect())
    const record = logs.find((l) => l.message === 'socket error')
    expect([record?.level, record?.fields?.url]).toEqual(['debug', url])
    expect(String(record?.fields?.error)).toMatch(/ECONNREFUSED/)
  })

  it('connect() leaves no close listener of its own behind', async () => {
    const { url } = await peer()
    const client = await connected(url)
    expect(client.listenerCount('close')).toBe(0)
  })

  it('a call made right after close() is refused at once, not left pending', async () => {
    const { url } = await peer()
    const client = await connected(url)
    client.close()
    const err = await rejection(client.invoke('scheduler', 'scheduleCommand', []))
    expect([err.code, err.message]).toEqual(['DISCONNECTED', 'scheduler.scheduleCommand: socket is not open'])
  })

  it('logs each unexpected message type once, not only the first type seen', async () => {
    const { url, sockets } = await peer()
    await connected(url)
    for (const type of [42, 43, 42]) sockets[0]!.send(JSON.stringify({ type }))
    sockets[0]!.send('not json')
    await expect.poll(() => logs.some((l) => l.message === 'ignoring a frame that is not JSON')).toBe(true)
    expect(logs.filter((l) => l.message === 'ignoring a message of an unexpected type').map((l) => l.fields)).toEqual([
      { type: 42 },
      { type: 43 },
    ])
  })

  it('a deep frame that is not a reply leaves the pending call with the same id alone', async () => {
    const deep = JSON.parse('['.repeat(10) + ']'.repeat(10)) as unknown
    const { url, sockets, received } = await peer()
    const client = await connected(url, { maxDepth: 8 })
    const call = client.invoke('scheduler', 'scheduleCommand', [])
    await expect.poll(() => received.find((m) => m.type === QWC_MESSAGE.invokeMethod)).toBeDefined()
    const id = received.find((m) => m.type === QWC_MESSAGE.invokeMethod)!.id
    sockets[0]!.send(JSON.stringify({ type: QWC_MESSAGE.signal, id, object: 'scheduler', signal: 7, args: [deep] }))
    await expect.poll(() => logs.some((l) => l.message === 'ignoring a frame nested too deep')).toBe(true)
    expect(client.pendingCount).toBe(1)
    sockets[0]!.send(JSON.stringify({ type: QWC_MESSAGE.response, id, data: 'late' }))
    expect(await call).toBe('late')
  })

  it('a close listener that throws becomes a fault named close', async () => {
    const { url, sockets } = await peer()
    const client = await connected(url)
    const faults: QWebChannelError[] = []
    client.on('fault', (f) => faults.push(f))
    client.on('close', () => {
      throw new Error('close listener broke')
    })
    sockets[0]!.close(4000, 'bye')
    await expect.poll(() => faults.length).toBe(1)
    expect(faults[0]!.message).toBe('close: frame handler failed: Error: close listener broke')
    expect(logs.find((l) => l.message === 'frame handler failed; frame dropped')?.fields?.what).toBe('close')
  })

  it('a client closed before it connects announces no close when its socket goes', async () => {
    const { url, sockets } = await peer()
    const client = new QWebChannelClient({ url, connectTimeoutMs: 2000 })
    onTestFinished(() => client.close())
    const closes: unknown[] = []
    client.on('close', (c) => closes.push(c))
    client.close()
    await rejection(client.connect())
    await expect.poll(() => sockets.length).toBe(1)
    const server = sockets[0]!
    if (server.readyState !== WebSocket.CLOSED) await new Promise((r) => server.once('close', r))
    // The client's own socket closes before the peer reads the FIN; one more turn lets its handler run.
    await new Promise((r) => setImmediate(r))
    expect(closes).toEqual([])
  })
})

describe('an application that does not read, or answers init with megabytes (issue 46, item 2)', () => {
  it('refuses an init reply past its bound before decoding it, and the connect fails', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
    await new Promise<void>((r) => wss.once('listening', () => r()))
    onTestFinished(() => new Promise<void>((r) => wss.close(() => r())))
    const huge = {
      scheduler: { methods: [['m', 1]], signals: [], properties: [[1, 'p', [1, 2], 'x'.repeat(3 << 20)]] },
    }
    wss.on('connection', (ws) => {
      ws.on('message', (raw: WebSocket.RawData) => {
        const msg = JSON.parse((raw as Buffer).toString()) as Record<string, unknown>
        if (msg.type === QWC_MESSAGE.init) ws.send(JSON.stringify({ type: 10, id: msg.id, data: huge }))
      })
    })
    const client = new QWebChannelClient({
      url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
      connectTimeoutMs: 60_000,
    })
    onTestFinished(() => client.close())
    const err = await rejection(client.connect())
    expect(err.code).toBe('BAD_REPLY')
    expect(err.message).toMatch(/^init: a reply of \d+ bytes \(at most 2097152\)$/)
    expect(logs.filter((r) => r.message === 'refused an init reply larger than the bound')).toHaveLength(1)
  })

  it('drops the link once what waits to be sent passes the outgoing bound; its calls fail', async () => {
    const p = await peer()
    const client = await connected(p.url, { callTimeoutMs: 600_000 })
    // The application stops reading: the kernel's buffers fill, then the calls wait in the client.
    p.sockets[0]!.pause()
    const arg = 'x'.repeat(64 * 1024)
    const calls: Promise<unknown>[] = []
    for (let i = 0; i < 400 && client.pendingCount === i; i++) {
      calls.push(client.invoke('scheduler', 'scheduleCommand', [arg]).catch((e: unknown) => e))
      await new Promise((r) => setImmediate(r))
    }
    const failed = await Promise.all(calls)
    expect(failed.every((e) => e instanceof QWebChannelError && e.code === 'DISCONNECTED')).toBe(true)
    expect(client.pendingCount).toBe(0)
    const drops = logs.filter((r) => r.message === 'dropped a peer that does not read what it is sent')
    expect(drops.map((r) => [r.fields?.peer, r.fields?.limitBytes])).toEqual([
      ['qwebchannel', OUTGOING_LIMITS.maxUnsentBytes],
    ])
  })
})
