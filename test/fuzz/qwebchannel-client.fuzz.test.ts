/**
 * The QWebChannel client's parsers (`parseQwcResult`, `parseInitReply`) return or throw only
 * QWebChannelError; and the client's frame handling, over a real socket on port 0, survives any frame
 * a hostile server sends: nothing throws out of the `ws` handler, no fault is raised by the client's
 * own code, and the next call on the same socket still gets its reply.
 */
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import { parseNotification } from '../../src/api/notifications.js'
import { QWC_MESSAGE } from '../../src/api/protocol.js'
import { QWebChannelClient, QWebChannelError, parseInitReply, parseQwcResult } from '../../src/api/qwebchannel.js'
import { setLogSink } from '../../src/log.js'
import { checkProperty, fc, fuzzParser, hostileJsonValue, hostileText, objectWith } from './harness.js'

const isQwcError = (e: unknown): boolean => e instanceof QWebChannelError
const INIT_DATA = {
  scheduler: { methods: [['scheduleCommand', 41]], signals: [['onNotify', 7]], properties: [] },
}

/** Init-reply-like data: objects whose methods/signals are hostile or nearly right. */
const initLike = fc.oneof(
  hostileJsonValue,
  fc.dictionary(fc.string({ maxLength: 12 }), objectWith({}, ['methods', 'signals', 'properties']), { maxKeys: 4 }),
  fc.dictionary(
    fc.string({ maxLength: 12 }),
    fc.record({
      methods: fc.array(fc.tuple(fc.string({ maxLength: 8 }), fc.oneof(fc.integer(), hostileJsonValue))),
      signals: fc.array(fc.tuple(fc.oneof(fc.string({ maxLength: 8 }), hostileJsonValue), fc.integer())),
    }),
    { maxKeys: 4 },
  ),
)

/** A data notification as JSON text around one hostile value text. */
const notificationText = hostileText.map((v) => `{"event":"data","id":"T","variables":[{"name":"v","value":${v}}]}`)

/**
 * Frames a hostile server may send, built as text (values may nest deeper than the test's own
 * JSON.stringify could print): garbage, deep JSON, and protocol-shaped messages with one hostile field.
 */
const hostileFrame = fc.oneof(
  hostileText,
  fc
    .tuple(
      fc.constantFrom(1, 2, 4, 10, 99, -1, 1.5),
      fc.constantFrom('object', 'signal', 'args', 'id', 'data'),
      hostileText,
    )
    .map(([type, key, v]) => `{"type":${type},"${key}":${v}}`),
  fc
    .tuple(fc.constantFrom('x', 'scheduler'), hostileText)
    .map(([object, v]) => `{"type":1,"object":"${object}","signal":${v},"args":[]}`),
  hostileText.map((v) => `{"type":10,"id":${v},"data":1}`),
  // The notification as a JSON-text argument (as the application sends it) and as an object.
  notificationText.map((n) => `{"type":1,"object":"scheduler","signal":7,"args":[${JSON.stringify(n)}]}`),
  notificationText.map((n) => `{"type":1,"object":"scheduler","signal":7,"args":[${n}]}`),
)

describe('QWebChannel client parsers', () => {
  fuzzParser('parseQwcResult (values)', { input: hostileJsonValue, parse: parseQwcResult, typedError: isQwcError })
  fuzzParser('parseQwcResult (text)', { input: hostileText, parse: parseQwcResult, typedError: isQwcError })
  fuzzParser('parseInitReply', { input: initLike, parse: parseInitReply, typedError: isQwcError })
})

describe('QWebChannel client frame handling over a real socket', () => {
  let wss: WebSocketServer
  let peer: WebSocket | undefined
  let client: QWebChannelClient
  const faults: QWebChannelError[] = []
  let restoreSink: ReturnType<typeof setLogSink> | undefined

  beforeAll(async () => {
    // Records are serialised as the stderr sink does (a deep field must not make that throw), then dropped.
    restoreSink = setLogSink((record) => void JSON.stringify(record))
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
    await new Promise<void>((r) => wss.once('listening', () => r()))
    wss.on('connection', (ws) => {
      peer = ws
      ws.on('message', (raw: WebSocket.RawData) => {
        const msg = JSON.parse((raw as Buffer).toString()) as { type: number; id: number }
        if (msg.type === QWC_MESSAGE.init) ws.send(JSON.stringify({ type: 10, id: msg.id, data: INIT_DATA }))
        if (msg.type === QWC_MESSAGE.invokeMethod) ws.send(JSON.stringify({ type: 10, id: msg.id, data: '"pong"' }))
      })
    })
    client = new QWebChannelClient({
      url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
      connectTimeoutMs: 5000,
      callTimeoutMs: 5000,
    })
    client.on('fault', (err) => faults.push(err))
    // A listener that reads every signal as the link does; it must not throw either.
    client.on('signal', (e) => void parseNotification(e.args[0]))
    await client.connect()
  })

  afterAll(async () => {
    client.close()
    for (const c of wss.clients) c.terminate()
    await new Promise<void>((r) => wss.close(() => r()))
    if (restoreSink) setLogSink(restoreSink)
  })

  test('fuzz: any frame leaves the socket up and the next call answered', async () => {
    await checkProperty(
      'QWebChannelClient frames',
      fc.asyncProperty(fc.array(hostileFrame, { minLength: 1, maxLength: 4 }), async (frames) => {
        for (const frame of frames) peer!.send(frame)
        // Frames are handled in order, so this reply comes after every hostile frame was handled.
        expect(await client.invoke('scheduler', 'scheduleCommand', ['ping', {}, {}])).toBe('pong')
        expect(client.isOpen).toBe(true)
        expect(faults).toEqual([])
      }),
      100,
    )
  })
})
