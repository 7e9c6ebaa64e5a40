/**
 * Issue 9, finding 1: a hostile QWebChannel server (a real `ws` server on port 0) sends signals whose
 * argument, or a `data` variable's value, is nested thousands of levels deep. The link must log a typed
 * error, stay up on the same socket, and keep applying the notifications that follow. The server here is
 * its own (it writes frames as raw text, which the shared scheduler of ./harness.ts does not).
 * Cases from the former hardening-notifications.test.ts.
 */
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import { AppState } from '../../../src/api/app-state.js'
import { NotificationLink, parseNotification } from '../../../src/api/notifications.js'
import { QWC_MESSAGE } from '../../../src/api/protocol.js'
import { QWebChannelClient, QWebChannelError } from '../../../src/api/qwebchannel.js'
import { deepJsonText, deepValue } from '../../fuzz/harness.js'
import { captureLogs } from '../../helpers/logs.js'
import { until } from '../../helpers/until.js'

const TITLE = 'T1'
const NOTIFY_INDEX = 7
const INIT_DATA = {
  scheduler: {
    methods: [
      ['notifyClientConnected', 40],
      ['scheduleCommand', 41],
    ],
    signals: [['onNotify', NOTIFY_INDEX]],
    properties: [],
  },
}
const SNAPSHOT = {
  result: { titles: [{ id: TITLE, name: 'One', status: 'Off', variables: [{ variable: 'Name', value: 'Alex' }] }] },
}

/** A QWebChannel server that answers the link's session and lets the test push raw frames. */
async function hostileServer() {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await new Promise<void>((r) => wss.once('listening', () => r()))
  const sockets: WebSocket[] = []
  let connections = 0
  wss.on('connection', (ws) => {
    connections++
    sockets.push(ws)
    ws.on('message', (raw: WebSocket.RawData) => {
      const msg = JSON.parse((raw as Buffer).toString()) as { type: number; id?: number; args?: unknown[] }
      if (msg.type === QWC_MESSAGE.init) ws.send(JSON.stringify({ type: 10, id: msg.id, data: INIT_DATA }))
      if (msg.type !== QWC_MESSAGE.invokeMethod) return
      const command = msg.args?.[0]
      if (command === 'deep') return void ws.send(`{"type":10,"id":${msg.id},"data":${deepJsonText(5000)}}`)
      const data = command === 'getTitleControlInfo' ? SNAPSHOT : command === 'subscribe' ? { result: {} } : '{}'
      ws.send(JSON.stringify({ type: 10, id: msg.id, data: typeof data === 'string' ? data : JSON.stringify(data) }))
    })
  })
  onTestFinished(
    () =>
      new Promise<void>((r) => {
        for (const c of wss.clients) c.terminate()
        wss.close(() => r())
      }),
  )
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    get connections() {
      return connections
    },
    /** Sends raw text as a frame to every client. */
    sendRaw(text: string) {
      for (const s of sockets) s.send(text)
    },
    /** An onNotify signal frame whose one argument is `argText` (JSON text inserted as it is). */
    notifyRaw(argText: string) {
      this.sendRaw(`{"type":1,"object":"scheduler","signal":${NOTIFY_INDEX},"args":[${argText}]}`)
    },
  }
}

async function connectedLink() {
  const server = await hostileServer()
  const store = new AppState()
  const link = new NotificationLink({
    url: server.url,
    state: store,
    timing: { backoffInitialMs: 20, backoffMaxMs: 80, livenessTimeoutMs: 5000, callTimeoutMs: 2000 },
  })
  onTestFinished(() => link.stop())
  link.start()
  await until('connected', () => store.link.status === 'connected', 5000)
  return { server, store, link }
}

/** A play notification as JSON text in a signal argument. */
const play = (state: string) => JSON.stringify(JSON.stringify({ id: TITLE, play: state }))

describe('notification link against a hostile QWebChannel server', () => {
  it('survives a signal argument nested 5,000 levels deep and applies the next notification', async () => {
    const records = captureLogs()
    const { server, store } = await connectedLink()
    server.notifyRaw(deepJsonText(5000, '{"id":"T1","play":"Running"}', 'object'))
    server.notifyRaw(deepJsonText(5000, '1', 'array'))
    server.notifyRaw(play('Running'))
    await until('Running after the deep frames', () => store.title(TITLE)?.play === 'Running', 5000)
    expect(store.link.status).toBe('connected')
    expect(server.connections).toBe(1)
    expect(records.some((r) => r.level === 'warn' && /too deep/.test(r.message))).toBe(true)
  })

  it('drops a data variable whose value is nested 5,000 levels deep, with one log line, and keeps the rest', async () => {
    const records = captureLogs()
    const { server, store } = await connectedLink()
    const deep = deepJsonText(5000, '"x"', 'mixed')
    // As an object argument and as JSON text, as the application sends both.
    const notification = `{"event":"data","id":"T1","variables":[{"name":"Deep","value":${deep}},{"name":"Name","value":"Sam"}]}`
    server.notifyRaw(notification)
    server.notifyRaw(JSON.stringify(notification))
    server.notifyRaw(play('Paused'))
    await until('Paused after the deep values', () => store.title(TITLE)?.play === 'Paused', 5000)
    expect(store.title(TITLE)?.variables.Name).toBe('Sam')
    expect(store.title(TITLE)?.variables.Deep).toBeUndefined()
    expect(server.connections).toBe(1)
    expect(records.filter((r) => /variable value/.test(r.message))).toHaveLength(1)
  })

  it('turns a throw inside a signal listener into a logged BAD_MESSAGE fault; the socket stays open', async () => {
    const records = captureLogs()
    const server = await hostileServer()
    const client = new QWebChannelClient({ url: server.url, connectTimeoutMs: 2000 })
    onTestFinished(() => client.close())
    await client.connect()
    const faults: QWebChannelError[] = []
    client.on('fault', (err) => faults.push(err))
    client.on('signal', () => {
      throw new RangeError('listener blew up')
    })
    const signals: unknown[] = []
    client.on('signal', (e) => signals.push(e))
    server.notifyRaw('"first"')
    await until('a fault', () => faults.length === 1, 5000)
    expect(faults[0]).toBeInstanceOf(QWebChannelError)
    expect(faults[0]!.code).toBe('BAD_MESSAGE')
    expect(client.isOpen).toBe(true)
    expect(records.some((r) => r.level === 'warn' && /frame handler failed/.test(r.message))).toBe(true)
    // The next call on the same socket still works.
    expect(await client.invoke('scheduler', 'scheduleCommand', ['getTime', {}, {}])).toEqual({})
  })

  it('refuses a reply nested too deep with BAD_REPLY instead of leaving the call to time out', async () => {
    const server = await hostileServer()
    const client = new QWebChannelClient({ url: server.url, connectTimeoutMs: 2000, callTimeoutMs: 10_000 })
    onTestFinished(() => client.close())
    await client.connect()
    const err = await client.invoke('scheduler', 'scheduleCommand', ['deep', {}, {}]).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(QWebChannelError)
    expect((err as QWebChannelError).code).toBe('BAD_REPLY')
    expect(client.pendingCount).toBe(0)
    expect(client.isOpen).toBe(true)
  })

  it('closes the socket on a frame past maxFrameBytes, and reports the close', async () => {
    const server = await hostileServer()
    const client = new QWebChannelClient({ url: server.url, connectTimeoutMs: 2000, maxFrameBytes: 4096 })
    onTestFinished(() => client.close())
    await client.connect()
    const closed = new Promise<{ code: number }>((r) => client.once('close', r))
    server.notifyRaw(JSON.stringify('x'.repeat(8192)))
    // ws refuses the frame (1009 to the peer) and reports an abnormal close locally.
    expect([1006, 1009]).toContain((await closed).code)
    expect(client.isOpen).toBe(false)
  })

  it('parseNotification never throws on deep values and reports the dropped variable', () => {
    const dropped: string[] = []
    const n = parseNotification(
      {
        event: 'data',
        id: TITLE,
        variables: [
          { name: 'Deep', value: deepValue(8000) },
          { name: 'A', value: 'b' },
        ],
      },
      (name) => dropped.push(name),
    )
    expect(n).toEqual({ kind: 'data', id: TITLE, variables: { A: 'b' } })
    expect(dropped).toEqual(['Deep'])
    expect(parseNotification(deepValue(8000))).toBeUndefined()
  })
})
