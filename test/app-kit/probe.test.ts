/**
 * probe's session against a stand-in written here, not the simulator: an application that answers
 * HTTP flat (no requestId echo, an error beside success), the socket with wrapped objects, sends a
 * frame that is not JSON and a notification that is not JSON text. probe reports each of these, keeps
 * every frame, and never fails on them. Also the two observer seams probe reads the application
 * through (CommandClient `onReply`, QWebChannelClient `onFrame`).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import { CommandClient } from '../../src/api/client.js'
import { runProbe, type ProbeResult } from '../../src/app-kit/probe.js'
import { QWebChannelClient } from '../../src/api/qwebchannel.js'
import { startSimulator } from '../../src/app-kit/simulator/index.js'
import { frameBytes } from '../../src/wire.js'

const METHODS: [string, number][] = [
  ['deleteLater', 0],
  ['scheduleCommand', 3],
  ['notifyClientConnected', 4],
]
const SIGNALS: [string, number][] = [
  ['destroyed', 1],
  ['onNotify', 2],
]

let http: Server
let wss: WebSocketServer
let httpUrl: string
let wsUrl: string
const received: unknown[] = []
const connected: number[] = []

beforeAll(async () => {
  http = createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.split('/').pop() ?? '')
    const flat: Record<string, unknown> = { command: name, reply: name, success: true }
    if (name.startsWith('replay_')) flat.error = 'instant replay is not licensed'
    if (name === 'getTitleControlInfo') flat.titles = []
    // The titles with icons, past the command client's cap: an answer all the same.
    if (name === 'getTitleControlInfo' && req.url?.includes('icon=1')) flat.padding = 'x'.repeat(5 * 1024 * 1024)
    if (name === 'getOutputDevice') flat.device = 'NDI'
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(flat))
  })
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()))
  httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`

  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await new Promise<void>((r) => wss.once('listening', () => r()))
  wsUrl = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`
  wss.on('connection', (ws: WebSocket) => {
    connected.push(Date.now())
    ws.on('message', (frame: WebSocket.RawData) => {
      const msg = JSON.parse(frameBytes(frame).toString()) as {
        type: number
        id?: number
        method?: number
        args?: unknown[]
      }
      received.push(msg)
      if (msg.type === 3) {
        ws.send(
          JSON.stringify({
            type: 10,
            id: msg.id,
            data: { scheduler: { methods: METHODS, signals: SIGNALS, properties: [] } },
          }),
        )
        return
      }
      if (msg.type === 7 && msg.id === undefined) {
        // Connected to a signal: a frame that is not JSON, and a notification that is not JSON text.
        ws.send('garbage {')
        ws.send(JSON.stringify({ type: 1, object: 'scheduler', signal: 2, args: ['plain words'] }))
        return
      }
      if (msg.type !== 6) return
      const [command, params] = msg.args ?? []
      const data =
        msg.method === 4
          ? { host: 'StandIn', version: '1' }
          : {
              result: {
                command,
                success: true,
                requestId: (params as Record<string, unknown>).requestId,
                ...(command === 'getTitleControlInfo' ? { titles: [] } : {}),
              },
            }
      ws.send(JSON.stringify({ type: 10, id: msg.id, data }))
    })
  })
})

afterAll(async () => {
  for (const c of wss.clients) c.terminate()
  await new Promise<void>((r) => wss.close(() => r()))
  await new Promise<void>((r) => http.close(() => r()))
})

describe('probe against a stand-in that answers otherwise', () => {
  let result: ProbeResult
  const lines: string[] = []
  beforeAll(async () => {
    result = await runProbe({ httpUrl, socketUrl: wsUrl, listenMs: 200, pollMs: 50, onLine: (l) => lines.push(l) })
  })
  const fact = (name: string): { value?: unknown; seen: string } => result.facts.find((f) => f.fact === name)!
  const assumption = (name: string): { verdict: string; seen: string } =>
    result.assumptions.find((a) => a.name === name)!

  it('reaches both, and reads each shape as it came', () => {
    expect(result.reached).toEqual({ http: true, socket: true })
    expect(fact('http_reply').value).toBe('flat')
    expect(fact('socket_reply').value).toBe('wrapped-object')
    expect(fact('companion_registry').value).toBe(false)
  })

  it('reports what panelbridge assumed and the stand-in did not do', () => {
    expect(assumption('request-id-echo-http')).toMatchObject({ verdict: 'differs' })
    expect(assumption('request-id-echo-http').seen).toContain('not echoed')
    expect(assumption('request-id-echo-socket').verdict).toBe('held')
    expect(assumption('error-beside-success')).toMatchObject({ verdict: 'held' })
    expect(assumption('error-beside-success').seen).toContain('replay_get_play_info')
    // getAllVideoIns answered without its fields: the command client refuses it, and probe says so.
    expect(assumption('reply-reader')).toMatchObject({ verdict: 'differs' })
    expect(assumption('reply-reader').seen).toContain('http getAllVideoIns: BAD_ENVELOPE')
    expect(assumption('reply-reader').seen).toContain('http getTitleControlInfo: REPLY_TOO_LARGE')
    // A reply past the cap is an answer: the commands after it were sent too.
    expect(lines).toContain(`http   ${httpUrl}: 8 of 8 commands answered`)
    expect(assumption('client-info')).toMatchObject({ verdict: 'differs' })
    expect(assumption('notification-forms')).toMatchObject({ verdict: 'differs' })
    expect(assumption('notification-forms').seen).toContain('not-json')
  })

  it('sends only the read-only methods, by index, and never connects to destroyed', () => {
    const calls = received.filter((m): m is { type: number; method: number; args: unknown[] } => {
      return (m as { type: number }).type === 6
    })
    expect(new Set(calls.map((c) => c.method))).toEqual(new Set([3, 4]))
    const commands = new Set(calls.filter((c) => c.method === 3).map((c) => c.args[0]))
    expect([...commands].sort()).toEqual(
      [
        'getAllVideoIns',
        'getOutputDevice',
        'getSubscriptions',
        'getTitleControlInfo',
        'replay_get_play_info',
        'replay_get_settings',
        'replay_is_trial_mode',
      ].sort(),
    )
    const signals = received
      .filter((m) => (m as { type: number }).type === 7)
      .map((m) => (m as { signal: number }).signal)
    expect(signals).toEqual([2])
    // Two connections: the second runs the init exchange only, to compare indexes.
    expect(connected.length).toBe(2)
  })

  it('keeps every frame in the capture, the one that is not JSON too, and prints the signal', () => {
    const frames = result.recorder.capture.frames.map((f) => f.text)
    expect(frames).toContain('garbage {')
    expect(lines.some((l) => /^ {2}\+\d+\.\ds onNotify plain words$/.test(l))).toBe(true)
  })
})

describe('the observer seams', () => {
  it("CommandClient's onReply sees each body; a throwing observer does not fail the call", async () => {
    const seen: { command: string; status: number; text: string }[] = []
    const client = new CommandClient({
      baseUrl: httpUrl,
      onReply: (r) => {
        seen.push(r)
        throw new Error('observer fault')
      },
    })
    try {
      const result = await client.callByName('getOutputDevice')
      expect(result.raw.device).toBe('NDI')
      expect(seen).toEqual([
        {
          command: 'getOutputDevice',
          requestId: result.requestId,
          status: 200,
          text: JSON.stringify({ command: 'getOutputDevice', reply: 'getOutputDevice', success: true, device: 'NDI' }),
        },
      ])
    } finally {
      await client.close()
    }
  })

  it("QWebChannelClient's onFrame sees every frame as text, before it is handled", async () => {
    const sim = await startSimulator()
    const frames: string[] = []
    const client = new QWebChannelClient({ url: sim.wsUrl, onFrame: (t) => frames.push(t) })
    try {
      await client.connect()
      expect(JSON.parse(frames[0]!)).toMatchObject({ type: 10, id: 0, data: { scheduler: {} } })
      await client.invoke('scheduler', 'scheduleCommand', ['getOutputDevice', {}, {}])
      // The reply's data as it came: JSON text (the client hands it over parsed).
      expect((JSON.parse(frames.at(-1)!) as { data: unknown }).data).toBeTypeOf('string')
    } finally {
      client.close()
      await sim.close()
    }
  })
})
