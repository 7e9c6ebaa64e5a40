/**
 * The simulator's WebSocket side: a Qt QWebChannel server (protocol notes 1.3; decisions: QWebChannel).
 *
 * `QWebChannelServer` is the protocol core, generic over published objects (methods and signals). It
 * answers init with `{methods: [[name, index]], signals: [[name, index]], properties, enums}`, method
 * calls by index (as the application's own clients send them) and by name (as Qt's current
 * qwebchannel.js sends them; `methodCalls: 'index-only'` drops those), and pushes a signal to every
 * client that connected to it.
 *
 * The `scheduler` object the application publishes, and `startQWebChannelSimulator()` that ties it to
 * this server, live in `scheduler.ts`.
 *
 * Test hooks on the server: drop every socket, go silent without closing, stop and restart on the
 * same port, delay replies, send a garbage frame, and shuffle the method order between starts.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import WebSocket, { WebSocketServer } from 'ws'
import { APP_DEFAULT_PORTS, QWC_MESSAGE } from '../../api/protocol.js'
import { DEFAULT_LISTEN_HOST } from '../../defaults.js'
import { createLogger, type Logger } from '../../log.js'
import { hostAllowed, hostSet, isLoopbackAddress, originAllowed } from '../../http-guard.js'
import { frameBytes, isRecord } from '../../wire.js'
import { SendGuard } from './backpressure.js'
import { answerClientError } from './http.js'
import { SIM_LIMITS } from './limits.js'

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

/** Largest frame a client may send, bytes (a bigger one closes its socket with 1009). */
const MAX_QWC_PAYLOAD_BYTES = 1024 * 1024
/** Most sockets open at once; the next upgrade is answered 503. */
const MAX_QWC_CONNECTIONS = 64
/** Most arguments a method call may carry (the scheduler's methods take four). */
const MAX_QWC_ARGS = 16
/** Longest object, method, signal or string id a frame may name, characters. */
const MAX_QWC_NAME_CHARS = 256

/** A client frame the server cannot act on (bad JSON, unknown type, a field of the wrong shape). */
export class QwcFrameError extends Error {
  override readonly name = 'QwcFrameError'
}

/** A member named by index (as the application's clients send it) or by name (as qwebchannel.js does). */
export type QwcMemberRef = string | number
/** A request id as echoed back: text or a number, nothing else (never a nested value). */
export type QwcId = string | number

/** A client frame after its shape was checked; only these fields are ever read. */
export type QwcClientFrame =
  | { type: typeof MSG.init; id?: QwcId }
  | { type: typeof MSG.idle }
  | { type: typeof MSG.debug; data: unknown }
  | { type: typeof MSG.invokeMethod; id?: QwcId; object: string; method: QwcMemberRef; args: unknown[] }
  | { type: typeof MSG.connectToSignal | typeof MSG.disconnectFromSignal; object: string; signal: QwcMemberRef }

function nameOrFail(v: unknown, what: string): string {
  if (typeof v !== 'string' || v.length > MAX_QWC_NAME_CHARS) throw new QwcFrameError(`${what} must be short text`)
  return v
}
function memberOrFail(v: unknown, what: string): QwcMemberRef {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v
  return nameOrFail(v, what)
}
function idOrFail(v: unknown): QwcId | undefined {
  if (v === undefined) return undefined
  if (typeof v === 'number' && Number.isFinite(v)) return v
  if (typeof v === 'string' && v.length <= MAX_QWC_NAME_CHARS) return v
  // Never echoed: an id nested 100,000 deep would overflow JSON.stringify on the way back.
  throw new QwcFrameError('id must be a number or short text')
}

/**
 * Checks one client frame's shape before anything reads it: a known numeric type, object/method/signal
 * as short text or an index, an id as text or a number, args an array of at most MAX_QWC_ARGS. Throws
 * QwcFrameError for anything else, and only that.
 */
export function parseClientFrame(text: string): QwcClientFrame {
  let msg: unknown
  try {
    msg = JSON.parse(text)
  } catch {
    throw new QwcFrameError('not JSON')
  }
  if (!isRecord(msg) || typeof msg.type !== 'number') throw new QwcFrameError('no numeric type')
  switch (msg.type) {
    case MSG.init: {
      const id = idOrFail(msg.id)
      return id === undefined ? { type: MSG.init } : { type: MSG.init, id }
    }
    case MSG.idle:
      return { type: MSG.idle }
    case MSG.debug:
      return { type: MSG.debug, data: typeof msg.data === 'string' ? msg.data.slice(0, MAX_QWC_NAME_CHARS) : '' }
    case MSG.invokeMethod: {
      const id = idOrFail(msg.id)
      const args = msg.args ?? []
      if (!Array.isArray(args) || args.length > MAX_QWC_ARGS) throw new QwcFrameError('args must be a short array')
      const frame = {
        type: MSG.invokeMethod,
        object: nameOrFail(msg.object, 'object'),
        method: memberOrFail(msg.method, 'method'),
        args: args as unknown[],
      }
      return id === undefined ? frame : { ...frame, id }
    }
    case MSG.connectToSignal:
    case MSG.disconnectFromSignal:
      return { type: msg.type, object: nameOrFail(msg.object, 'object'), signal: memberOrFail(msg.signal, 'signal') }
    default:
      throw new QwcFrameError('unsupported type')
  }
}

export interface QWebChannelServerOptions {
  objects: Readonly<Record<string, QwcPublishedObject>>
  /** Default 9023 (the application's); 0 picks a free port, kept across restarts. */
  port?: number
  host?: string
  /** Give methods and signals new indexes on every start (proves clients read them from init). */
  shuffle?: boolean
  /**
   * How a method call may name its method: by index or by name (default), or by index only, as the
   * application's own clients call (profile fact `method_calls`). A call by name is then dropped
   * without a reply, as Qt logs and drops a call it cannot resolve: the caller's time-out tells it.
   */
  methodCalls?: 'index-or-name' | 'index-only'
  random?: () => number
  logger?: Logger
  /** Largest client frame, bytes. Default MAX_QWC_PAYLOAD_BYTES. */
  maxPayloadBytes?: number
  /** Most open sockets. Default MAX_QWC_CONNECTIONS. */
  maxConnections?: number
  /** A socket holding more unsent bytes than this gets no new frames. Default SIM_LIMITS.sendHighWaterBytes. */
  sendHighWaterBytes?: number
  /**
   * A socket still behind this long after frames were first dropped for it is closed. Default
   * SIM_LIMITS.slowClientGraceMs.
   */
  slowClientGraceMs?: number
  /**
   * Apply the Host rule of `src/http-guard.ts` (DNS names other than localhost refused). Default: on
   * when `host` is a loopback address; bound elsewhere by choice, DNS names are expected. The Origin
   * rule (foreign web pages refused) always applies.
   */
  checkHost?: boolean
  /** DNS names besides `localhost` accepted in `Host`. */
  allowedHosts?: string[]
  /** A handshake whose headers take longer than this is cut. Default SIM_LIMITS.headersTimeoutMs. */
  headersTimeoutMs?: number
}

interface ClientState {
  ws: WebSocket
  /** `object\u0000signalIndex` keys the client connected to. */
  signals: Set<string>
  send: SendGuard
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
  private readonly byNameAllowed: boolean
  private readonly random: () => number
  private readonly timers = new Set<NodeJS.Timeout>()
  /** Published objects and their methods, in Maps: names come from clients (`__proto__` is just a name). */
  private readonly objects: ReadonlyMap<string, ReadonlyMap<string, QwcMethodHandler>>
  private readonly checkHost: boolean
  private readonly allowedHosts: ReadonlySet<string>
  private dropped = 0

  constructor(private readonly options: QWebChannelServerOptions) {
    this.log = options.logger ?? createLogger('sim/qwebchannel')
    this.host = options.host ?? DEFAULT_LISTEN_HOST
    this.port = options.port ?? APP_DEFAULT_PORTS.ws
    this.shuffle = options.shuffle ?? false
    this.byNameAllowed = (options.methodCalls ?? 'index-or-name') === 'index-or-name'
    this.random = options.random ?? Math.random
    this.objects = new Map(
      Object.entries(options.objects).map(([name, obj]) => [name, new Map(Object.entries(obj.methods))]),
    )
    this.checkHost = options.checkHost ?? isLoopbackAddress(this.host)
    this.allowedHosts = hostSet(options.allowedHosts)
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
  /** Unsent bytes held for each open socket (diagnostics; the slow-subscriber bound is on these). */
  get bufferedAmounts(): number[] {
    return [...this.clients].map((c) => c.ws.bufferedAmount)
  }
  /** Frames dropped so far because their socket was behind. */
  get droppedFrames(): number {
    return this.dropped
  }
  /** The indexes the current start gave each object's methods and signals. */
  layout(object: string): QwcObjectLayout | undefined {
    return this.layouts.get(object)
  }
  /** Listens; with port 0 the chosen port is kept for later restarts. Resolves with the URL. */
  async start(): Promise<string> {
    if (this.http) return this.url
    this.assignIndexes()
    const headersTimeout = this.options.headersTimeoutMs ?? SIM_LIMITS.headersTimeoutMs
    const interval = Math.min(SIM_LIMITS.connectionsCheckMs, headersTimeout)
    const http = createServer({ connectionsCheckingInterval: interval }, (_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain' }).end('QWebChannel: WebSocket only\n')
    })
    // A socket that never finishes its handshake is cut (slow loris).
    http.headersTimeout = headersTimeout
    http.requestTimeout = SIM_LIMITS.requestTimeoutMs
    const wss = new WebSocketServer({
      noServer: true,
      autoPong: false,
      maxPayload: this.options.maxPayloadBytes ?? MAX_QWC_PAYLOAD_BYTES,
    })
    http.on(
      'upgrade',
      this.guarded((req: IncomingMessage, socket: Duplex, head: Buffer) => this.onUpgrade(wss, req, socket, head)),
    )
    http.on('clientError', answerClientError)
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
      if (c.signals.has(key) && c.ws.readyState === WebSocket.OPEN && this.sendTo(c, frame)) sent++
    }
    return sent
  }

  /** Sends through the client's guard; a frame dropped because the socket is behind is counted. */
  private sendTo(client: ClientState, frame: string): boolean {
    const ok = client.send.send(frame)
    if (!ok) {
      this.dropped++
      this.log.once('slow-client', 'warn', 'dropping frames for a client that does not read')
    }
    return ok
  }

  /** Refuses foreign pages (Host/Origin rules) and sockets past the cap before the handshake. */
  private onUpgrade(wss: WebSocketServer, req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy())
    if ((this.checkHost && !hostAllowed(req, this.allowedHosts)) || !originAllowed(req)) {
      this.log.once('refused-upgrade', 'warn', 'refused a WebSocket from a foreign origin or host')
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    if (this.clients.size >= (this.options.maxConnections ?? MAX_QWC_CONNECTIONS)) {
      this.log.once('too-many-sockets', 'warn', 'refused a WebSocket: too many open')
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws))
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
    const client: ClientState = {
      ws,
      signals: new Set(),
      send: new SendGuard(ws, {
        highWaterBytes: this.options.sendHighWaterBytes ?? SIM_LIMITS.sendHighWaterBytes,
        graceMs: this.options.slowClientGraceMs ?? SIM_LIMITS.slowClientGraceMs,
      }),
    }
    this.clients.add(client)
    ws.on(
      'ping',
      this.guarded((data: Buffer) => {
        if (!this.silent && ws.readyState === WebSocket.OPEN) ws.pong(data)
      }),
    )
    ws.on(
      'message',
      this.guarded((raw: WebSocket.RawData) => {
        if (this.silent) return
        this.onMessage(client, raw)
      }),
    )
    ws.on('close', () => this.clients.delete(client))
    ws.on('error', (err) => this.log.debug('client socket error', { error: err.message }))
  }

  /**
   * A socket handler that cannot take the server down: a throw is logged (once) and the frame is lost.
   * One guard for every handler, rather than a check per message kind.
   */
  private guarded<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
    return (...args) => {
      try {
        fn(...args)
      } catch (err) {
        this.log.once('handler-threw', 'error', 'a client frame made the server throw; frame dropped', {
          error: err instanceof Error ? err.message : String(err),
        })
      }
    }
  }

  /** Handles one client frame; never throws for any frame (bad ones are logged once and dropped). */
  private handleFrame(client: ClientState, text: string): void {
    let msg: QwcClientFrame
    try {
      msg = parseClientFrame(text)
    } catch (err) {
      if (!(err instanceof QwcFrameError)) throw err
      this.log.once('bad-frame', 'warn', 'ignoring a client frame', { reason: err.message })
      return
    }
    this.act(client, msg)
  }

  private onMessage(client: ClientState, raw: WebSocket.RawData): void {
    this.handleFrame(client, frameBytes(raw).toString())
  }

  private act(client: ClientState, msg: QwcClientFrame): void {
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
          this.log.once('bad-signal', 'warn', 'ignoring a (dis)connect for an unknown signal')
          return
        }
        if (msg.type === MSG.connectToSignal) client.signals.add(key)
        else client.signals.delete(key)
        return
      }
      case MSG.debug:
        this.log.debug('client debug message', { data: msg.data })
        return
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

  private signalKey(msg: { object: string; signal: QwcMemberRef }): string | undefined {
    const indexes = this.signalIndexByName.get(msg.object)
    if (!indexes) return undefined
    const index = typeof msg.signal === 'number' ? msg.signal : indexes.get(msg.signal)
    if (index === undefined || ![...indexes.values()].includes(index)) return undefined
    return `${msg.object}\u0000${index}`
  }

  private invoke(client: ClientState, msg: Extract<QwcClientFrame, { type: typeof MSG.invokeMethod }>): void {
    if (typeof msg.method === 'string' && !this.byNameAllowed) {
      this.log.once('call-by-name', 'warn', 'dropped a method call by name: this server takes indexes only')
      return
    }
    const methods = this.objects.get(msg.object)
    const methodName = typeof msg.method === 'number' ? this.methodByIndex.get(msg.object)?.get(msg.method) : msg.method
    const known = methodName !== undefined && (methods?.has(methodName) || QOBJECT_METHODS.includes(methodName))
    if (!methods || !known) {
      // Qt logs a warning and sends no reply; the caller's time-out is what tells it. The key is fixed:
      // names come from the client and must not grow the log's memory.
      this.log.once('no-method', 'warn', 'invoke of an unknown object or method')
      return
    }
    const args = msg.args
    const handler = methods.get(methodName)
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

  private reply(client: ClientState, id: QwcId | undefined, data: unknown): void {
    const send = (): void => {
      if (this.silent || client.ws.readyState !== WebSocket.OPEN) return
      let frame: string
      try {
        frame = JSON.stringify({ type: MSG.response, id, data: data ?? null })
      } catch (err) {
        // A method result too deep to write: the caller hears null rather than nothing.
        this.log.once('reply-unwritable', 'warn', 'a method result could not be written', {
          error: err instanceof Error ? err.message : String(err),
        })
        frame = JSON.stringify({ type: MSG.response, id, data: null })
      }
      this.sendTo(client, frame)
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
