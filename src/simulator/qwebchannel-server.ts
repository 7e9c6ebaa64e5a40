/**
 * The simulator's WebSocket side: a Qt QWebChannel server (protocol notes 1.3; decisions: QWebChannel).
 *
 * `QWebChannelServer` is the protocol core, generic over published objects (methods and signals). It
 * answers init with `{methods: [[name, index]], signals: [[name, index]], properties, enums}`, method
 * calls by index (as the application's own clients send them) and by name (as Qt's current
 * qwebchannel.js sends them), and pushes a signal to every client that connected to it.
 *
 * `createScheduler()` builds the `scheduler` object the application publishes, on top of the
 * simulator's state (`dispatch` + `notifications`), and `startQWebChannelSimulator()` ties the two.
 *
 * Test hooks on the server: drop every socket, go silent without closing, stop and restart on the
 * same port, delay replies, send a garbage frame, and shuffle the method order between starts.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import WebSocket, { WebSocketServer } from 'ws'
import { DEFAULT_WS_PORT, QWC_MESSAGE, QWC_NOTIFY_SIGNAL, QWC_SCHEDULER_OBJECT } from '../api/protocol.js'
import { DEFAULT_LISTEN_HOST } from '../defaults.js'
import { createLogger, type Logger } from '../log.js'
import { frameBytes, isRecord } from '../wire.js'
import { toText } from './params.js'

const MSG = QWC_MESSAGE

export type QwcMethodHandler = (...args: unknown[]) => unknown
export interface QwcPublishedObject {
  /** Methods by name, in their natural order (this order gives the indexes unless shuffled). */
  readonly methods: Readonly<Record<string, QwcMethodHandler>>
  /** Signal names. */
  readonly signals: readonly string[]
}

/** Members every QObject has; listed like Qt lists them so that indexes do not start at the object's own. */
const QOBJECT_SIGNALS = ['destroyed', 'objectNameChanged']
const QOBJECT_METHODS = ['deleteLater']

export interface QwcObjectLayout {
  methods: [string, number][]
  signals: [string, number][]
}

export interface QWebChannelServerOptions {
  objects: Readonly<Record<string, QwcPublishedObject>>
  /** Default 9023 (the application's); 0 picks a free port, kept across restarts. */
  port?: number
  host?: string
  /** Give methods and signals new indexes on every start (proves clients read them from init). */
  shuffle?: boolean
  random?: () => number
  logger?: Logger
}

interface ClientState {
  ws: WebSocket
  /** `object\u0000signalIndex` keys the client connected to. */
  signals: Set<string>
}

type Json = Record<string, unknown>

export class QWebChannelServer {
  private http: Server | undefined
  private wss: WebSocketServer | undefined
  private readonly clients = new Set<ClientState>()
  private layouts = new Map<string, QwcObjectLayout>()
  private methodByIndex = new Map<string, Map<number, string>>()
  private signalIndexByName = new Map<string, Map<string, number>>()
  private readonly log: Logger
  private readonly host: string
  private port: number
  private silent = false
  private replyDelayMs = 0
  private shuffle: boolean
  private readonly random: () => number
  private readonly timers = new Set<NodeJS.Timeout>()

  constructor(private readonly options: QWebChannelServerOptions) {
    this.log = options.logger ?? createLogger('sim/qwebchannel')
    this.host = options.host ?? DEFAULT_LISTEN_HOST
    this.port = options.port ?? DEFAULT_WS_PORT
    this.shuffle = options.shuffle ?? false
    this.random = options.random ?? Math.random
  }

  get url(): string {
    return `ws://${this.host}:${this.port}`
  }
  get boundPort(): number {
    return this.port
  }
  get clientCount(): number {
    return this.clients.size
  }
  /** The indexes the current start gave each object's methods and signals. */
  layout(object: string): QwcObjectLayout | undefined {
    return this.layouts.get(object)
  }
  /** Listens; with port 0 the chosen port is kept for later restarts. Resolves with the URL. */
  async start(): Promise<string> {
    if (this.http) return this.url
    this.assignIndexes()
    const http = createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain' }).end('QWebChannel: WebSocket only\n')
    })
    const wss = new WebSocketServer({ server: http, autoPong: false })
    wss.on('connection', (ws) => this.onConnection(ws))
    wss.on('error', (err) => this.log.warn('server error', { error: err.message }))
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject)
      http.listen(this.port, this.host, () => {
        http.off('error', reject)
        resolve()
      })
    })
    this.port = (http.address() as AddressInfo).port
    this.http = http
    this.wss = wss
    this.log.debug('listening', { url: this.url })
    return this.url
  }

  /** Closes every socket and stops listening. Idempotent. */
  async stop(): Promise<void> {
    const http = this.http
    const wss = this.wss
    this.http = undefined
    this.wss = undefined
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
    this.dropAll()
    if (!http || !wss) return
    await new Promise<void>((resolve) => wss.close(() => resolve()))
    http.closeAllConnections()
    await new Promise<void>((resolve) => http.close(() => resolve()))
  }

  /** Stops and starts again on the same port; `shuffle` changes the method order for this and later starts. */
  async restart(opts: { shuffle?: boolean } = {}): Promise<string> {
    await this.stop()
    if (opts.shuffle !== undefined) this.shuffle = opts.shuffle
    return this.start()
  }

  // ---- test hooks ---------------------------------------------------------------------------------

  /** Drops every socket at once, without a close handshake (as a crash or a cable pull would). */
  dropAll(): void {
    for (const c of this.clients) c.ws.terminate()
    this.clients.clear()
  }
  /** Silent: sockets stay open, but nothing is answered, no pong is sent and no signal goes out. */
  setSilent(silent: boolean): void {
    this.silent = silent
  }
  /** Delays every method reply (and the init reply) by `ms`. */
  setReplyDelay(ms: number): void {
    this.replyDelayMs = Math.max(0, ms)
  }
  /** Sends a frame that is not a QWebChannel message to every client. */
  sendGarbage(frame = '\u0000not json{'): void {
    for (const c of this.clients) c.ws.send(frame)
  }
  setShuffle(shuffle: boolean): void {
    this.shuffle = shuffle
  }

  /** Sends a signal to every client connected to it. Returns how many clients it went to. */
  emitSignal(object: string, signal: string, args: unknown[]): number {
    if (this.silent) return 0
    const index = this.signalIndexByName.get(object)?.get(signal)
    if (index === undefined) return 0
    const key = `${object}\u0000${index}`
    const frame = JSON.stringify({ type: MSG.signal, object, signal: index, args })
    let sent = 0
    for (const c of this.clients) {
      if (c.signals.has(key) && c.ws.readyState === WebSocket.OPEN) {
        c.ws.send(frame)
        sent++
      }
    }
    return sent
  }

  // ---- protocol -----------------------------------------------------------------------------------

  private assignIndexes(): void {
    const previous = this.layouts
    this.layouts = new Map()
    this.methodByIndex = new Map()
    this.signalIndexByName = new Map()
    for (const [name, obj] of Object.entries(this.options.objects)) {
      const members: { name: string; kind: 'method' | 'signal' }[] = [
        ...[...QOBJECT_SIGNALS, ...obj.signals].map((n) => ({ name: n, kind: 'signal' as const })),
        ...[...QOBJECT_METHODS, ...Object.keys(obj.methods)].map((n) => ({ name: n, kind: 'method' as const })),
      ]
      const before = previous.get(name)
      for (let attempt = 0; attempt < 8; attempt++) {
        if (this.shuffle) shuffleInPlace(members, this.random)
        // A shuffle that happens to give the same order proves nothing; try again (bounded).
        if (!this.shuffle || !before || !sameOrder(before, members)) break
      }
      const layout: QwcObjectLayout = { methods: [], signals: [] }
      const byIndex = new Map<number, string>()
      const signalIdx = new Map<string, number>()
      members.forEach((m, index) => {
        if (m.kind === 'method') {
          layout.methods.push([m.name, index])
          byIndex.set(index, m.name)
        } else {
          layout.signals.push([m.name, index])
          signalIdx.set(m.name, index)
        }
      })
      this.layouts.set(name, layout)
      this.methodByIndex.set(name, byIndex)
      this.signalIndexByName.set(name, signalIdx)
    }
  }

  private onConnection(ws: WebSocket): void {
    const client: ClientState = { ws, signals: new Set() }
    this.clients.add(client)
    ws.on('ping', (data: Buffer) => {
      if (!this.silent && ws.readyState === WebSocket.OPEN) ws.pong(data)
    })
    ws.on('message', (raw: WebSocket.RawData) => {
      if (this.silent) return
      this.onMessage(client, raw)
    })
    ws.on('close', () => this.clients.delete(client))
    ws.on('error', (err) => this.log.debug('client socket error', { error: err.message }))
  }

  private onMessage(client: ClientState, raw: WebSocket.RawData): void {
    const text = frameBytes(raw).toString()
    let msg: unknown
    try {
      msg = JSON.parse(text)
    } catch {
      this.log.once('bad-json', 'warn', 'ignoring a client frame that is not JSON')
      return
    }
    if (!isRecord(msg) || typeof msg.type !== 'number') {
      this.log.once('bad-msg', 'warn', 'ignoring a client message without a numeric type')
      return
    }
    switch (msg.type) {
      case MSG.init:
        this.reply(client, msg.id, this.initData())
        return
      case MSG.idle:
        return
      case MSG.invokeMethod:
        this.invoke(client, msg)
        return
      case MSG.connectToSignal:
      case MSG.disconnectFromSignal: {
        const key = this.signalKey(msg)
        if (!key) {
          this.log.once('bad-signal', 'warn', 'ignoring a (dis)connect for an unknown signal', { signal: msg.signal })
          return
        }
        if (msg.type === MSG.connectToSignal) client.signals.add(key)
        else client.signals.delete(key)
        return
      }
      case MSG.debug:
        this.log.debug('client debug message', { data: msg.data })
        return
      default:
        this.log.once(`type-${msg.type}`, 'warn', 'ignoring a client message of an unsupported type', {
          type: msg.type,
        })
    }
  }

  private initData(): Json {
    const data: Json = {}
    for (const [name, layout] of this.layouts) {
      const objectNameChanged = layout.signals.find(([s]) => s === 'objectNameChanged')?.[1] ?? 1
      data[name] = {
        methods: layout.methods,
        signals: layout.signals,
        properties: [[0, 'objectName', ['objectNameChanged', objectNameChanged], name]],
        enums: {},
      }
    }
    return data
  }

  private signalKey(msg: Json): string | undefined {
    if (typeof msg.object !== 'string') return undefined
    const indexes = this.signalIndexByName.get(msg.object)
    if (!indexes) return undefined
    const index =
      typeof msg.signal === 'number' ? msg.signal : typeof msg.signal === 'string' ? indexes.get(msg.signal) : undefined
    if (index === undefined || ![...indexes.values()].includes(index)) return undefined
    return `${msg.object}\u0000${index}`
  }

  private invoke(client: ClientState, msg: Json): void {
    const objectName = msg.object
    const obj = typeof objectName === 'string' ? this.options.objects[objectName] : undefined
    const methodName =
      typeof msg.method === 'number'
        ? this.methodByIndex.get(objectName as string)?.get(msg.method)
        : typeof msg.method === 'string'
          ? msg.method
          : undefined
    if (!obj || methodName === undefined) {
      // Qt logs a warning and sends no reply; the caller's time-out is what tells it.
      this.log.once(`no-method-${String(msg.method)}`, 'warn', 'invoke of an unknown object or method', {
        object: objectName,
        method: msg.method,
      })
      return
    }
    const args = Array.isArray(msg.args) ? (msg.args as unknown[]) : []
    const handler = obj.methods[methodName]
    if (!handler) {
      // deleteLater and the like: accepted, nothing to do.
      this.reply(client, msg.id, null)
      return
    }
    let result: Promise<unknown>
    try {
      result = Promise.resolve(handler(...args))
    } catch (err) {
      result = Promise.reject(err instanceof Error ? err : new Error(String(err)))
    }
    result.then(
      (data) => this.reply(client, msg.id, data),
      (err: unknown) => {
        this.log.warn('method failed', { method: methodName, error: err instanceof Error ? err.message : String(err) })
        this.reply(client, msg.id, null)
      },
    )
  }

  private reply(client: ClientState, id: unknown, data: unknown): void {
    const send = (): void => {
      if (this.silent || client.ws.readyState !== WebSocket.OPEN) return
      client.ws.send(JSON.stringify({ type: MSG.response, id, data: data ?? null }))
    }
    if (this.replyDelayMs === 0) {
      send()
      return
    }
    const t = setTimeout(() => {
      this.timers.delete(t)
      send()
    }, this.replyDelayMs)
    this.timers.add(t)
  }
}

function shuffleInPlace<T>(items: T[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    const a = items[i] as T
    items[i] = items[j] as T
    items[j] = a
  }
}

function sameOrder(layout: QwcObjectLayout, members: { name: string; kind: string }[]): boolean {
  const before = [...layout.methods, ...layout.signals].sort((a, b) => a[1] - b[1]).map(([n]) => n)
  return before.every((n, i) => members[i]?.name === n)
}

// ---- the application's scheduler object ---------------------------------------------------------

/** What the scheduler needs from the simulator's state (the HTTP side owns the implementation). */
export interface SchedulerBackend {
  /** Runs a command as HTTP would; returns the same reply object (`{result: {...}}`). */
  dispatch(command: string, params: Record<string, string>, variables?: Record<string, string>): unknown
  /** The WebSocket's scheduleAction(action, inputName, titleId, variables). */
  scheduleAction(action: string, inputName: string, titleId: string, variables: unknown): unknown
  /** Emits `notify` once per notification, already filtered by subscriptions. */
  readonly notifications: {
    on(event: 'notify', fn: (payload: unknown) => void): unknown
    off(event: 'notify', fn: (payload: unknown) => void): unknown
  }
}

/** What `notifyClientConnected` answers (protocol notes 1.3: a JSON string with these fields). */
export const SIM_CLIENT_INFO = {
  buildDate: '2026-01-01',
  buildTime: '00:00:00',
  host: 'PanelbridgeSimulator',
  platform: 'linux',
  sku: 'simulator',
  version: '5.9.0-sim',
} as const

export interface ClientAnnouncement {
  appId: string
  version: string
}

function text(v: unknown): string {
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return ''
}

/** A JSON object's values as text (strings as they are, anything else as JSON); `null`s are left out. */
function toStringRecord(v: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  if (!isRecord(v)) return out
  for (const [k, val] of Object.entries(v)) if (val !== undefined && val !== null) out[k] = toText(val)
  return out
}

/** Variables as the backend takes them: none rather than an empty object. */
function variablesOrNone(v: unknown): Record<string, string> | undefined {
  const vars = toStringRecord(v)
  return Object.keys(vars).length > 0 ? vars : undefined
}

/** Results go out as JSON text, as the application sends them (protocol notes 1.3). */
async function replyText(reply: unknown): Promise<string> {
  const value = await Promise.resolve(reply)
  return typeof value === 'string' ? value : JSON.stringify(value ?? {})
}

/** The `scheduler` object: `scheduleCommand`, `scheduleAction`, `notifyClientConnected`, `onNotify`. */
export function createScheduler(
  backend: SchedulerBackend,
  announcements: ClientAnnouncement[] = [],
): QwcPublishedObject {
  return {
    signals: [QWC_NOTIFY_SIGNAL],
    methods: {
      scheduleCommand: (command: unknown, params: unknown, variables: unknown) => {
        const vars = variablesOrNone(variables)
        const p = toStringRecord(params)
        return replyText(vars ? backend.dispatch(text(command), p, vars) : backend.dispatch(text(command), p))
      },
      scheduleAction: (action: unknown, inputName: unknown, titleId: unknown, variables: unknown) =>
        replyText(backend.scheduleAction(text(action), text(inputName), text(titleId), variablesOrNone(variables))),
      notifyClientConnected: (appId: unknown, version: unknown) => {
        announcements.push({ appId: text(appId), version: text(version) })
        return JSON.stringify(SIM_CLIENT_INFO)
      },
    },
  }
}

export interface QWebChannelSimulatorOptions {
  backend: SchedulerBackend
  port?: number
  host?: string
}

export interface QWebChannelSimulator {
  readonly server: QWebChannelServer
  readonly url: string
  /** Every `notifyClientConnected` call seen, oldest first. */
  readonly announcements: ClientAnnouncement[]
  close(): Promise<void>
}

/** Starts the `scheduler` QWebChannel server over a simulator backend and forwards its notifications. */
export async function startQWebChannelSimulator(opts: QWebChannelSimulatorOptions): Promise<QWebChannelSimulator> {
  const announcements: ClientAnnouncement[] = []
  const server = new QWebChannelServer({
    objects: { [QWC_SCHEDULER_OBJECT]: createScheduler(opts.backend, announcements) },
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.host !== undefined ? { host: opts.host } : {}),
  })
  // Each notification is sent once to every connected client (decisions: Notifications).
  const onNotify = (payload: unknown): void => {
    server.emitSignal(QWC_SCHEDULER_OBJECT, QWC_NOTIFY_SIGNAL, [
      typeof payload === 'string' ? payload : JSON.stringify(payload),
    ])
  }
  opts.backend.notifications.on('notify', onNotify)
  try {
    await server.start()
  } catch (err) {
    opts.backend.notifications.off('notify', onNotify)
    throw err
  }
  return {
    server,
    get url() {
      return server.url
    },
    announcements,
    async close() {
      opts.backend.notifications.off('notify', onNotify)
      await server.stop()
    },
  }
}
