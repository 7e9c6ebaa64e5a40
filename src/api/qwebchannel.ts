/**
 * A small Qt QWebChannel client over `ws` (protocol notes 1.3; decisions: QWebChannel).
 *
 * The application's WebSocket API is Qt's QWebChannel: numeric message types, an init exchange that
 * describes every published object (its methods and signals with their *indexes*), method calls by
 * index with a reply matched by id, and signals pushed to clients that connected to them. Indexes
 * are read from the init reply and never hard-coded: the 2019 Titler Live module hard-coded index 27
 * and broke with the next build.
 *
 * This class is one connection, with no reconnect logic: the notification link owns the one reconnect
 * state machine (`notifications.ts`) and makes a new client per attempt.
 */
import { Announcer } from '../events.js'
import WebSocket from 'ws'
import { createLogger, type Logger } from '../log.js'
import { OUTGOING_LIMITS, overOutgoingBound } from '../outgoing-bound.js'
import { QWC_MESSAGE } from './protocol.js'
import { frameBytes, isRecord, jsonDepthExceeds, jsonSnippet } from '../wire.js'

/** Default time a method call may take before it is rejected with `TIMEOUT`. */
const QWC_DEFAULT_CALL_TIMEOUT_MS = 5000
/** Default time for the socket to open and the init exchange to finish. */
const QWC_DEFAULT_CONNECT_TIMEOUT_MS = 5000
/**
 * Largest frame accepted from the peer; a larger one closes the socket (code 1009) and the link
 * reconnects. Why 16 MiB: a `getTitleControlInfo` reply without icons is well under a megabyte for
 * hundreds of titles, and `ws`'s own default (100 MiB) lets one frame cost far too much memory.
 */
const QWC_MAX_FRAME_BYTES = 16 * 1024 * 1024
/**
 * Deepest nesting accepted in a frame or in a JSON-text result. The protocol's own messages nest a
 * handful of levels; a deeper frame is refused before any code walks it recursively.
 */
const QWC_MAX_DEPTH = 256
/**
 * Largest init reply accepted, bytes: refused before it is decoded, and the link closed (its reconnect
 * backs off). ASSUMED: 2 MiB; the init reply describes the published objects (names, method and signal
 * indices, property values), tens of kilobytes from a real application, and a peer that answers each
 * init with megabytes costs the daemon that many, again at every reconnect.
 */
const QWC_MAX_INIT_BYTES = 2 * 1024 * 1024

/**
 * Stable error codes; callers branch on `code`, never on message text. `TIMEOUT`, `DISCONNECTED` and
 * `BAD_REPLY` carry the same meaning as the HTTP client's codes in `errors.ts`. `BAD_MESSAGE`: a frame
 * from the peer could not be handled (it is dropped, the socket stays up; see the `fault` event).
 */
export type QWebChannelErrorCode = 'TIMEOUT' | 'DISCONNECTED' | 'BAD_REPLY' | 'BAD_MESSAGE' | 'UNKNOWN_MEMBER'

export class QWebChannelError extends Error {
  override readonly name = 'QWebChannelError'
  constructor(
    readonly code: QWebChannelErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** What the init reply says about one published object. */
export interface QwcObjectInfo {
  /** Method name → index (the first index wins when Qt lists overloads). */
  readonly methods: ReadonlyMap<string, number>
  /** Signal name → index. */
  readonly signals: ReadonlyMap<string, number>
  /** Signal index → name, for incoming signal messages. */
  readonly signalNames: ReadonlyMap<number, string>
  /** Properties exactly as sent (`[[index, name, [notifySignal, index], value], ...]`). */
  readonly properties: readonly unknown[]
}

export interface QwcSignalEvent {
  object: string
  signal: string
  args: unknown[]
}

export interface QWebChannelClientEvents {
  /** A signal the client connected to fired. */
  signal: [event: QwcSignalEvent]
  /** The socket closed (after `connect()` resolved or not). Pending calls are already rejected. */
  close: [info: { code: number; reason: string }]
  /**
   * Handling a frame threw (a listener included): the frame is dropped, the fault logged, the socket
   * kept. Always `BAD_MESSAGE`, with the thrown value as `cause`.
   */
  fault: [error: QWebChannelError]
}

export interface QWebChannelClientOptions {
  url: string
  callTimeoutMs?: number
  connectTimeoutMs?: number
  /** Largest frame accepted, bytes (default QWC_MAX_FRAME_BYTES). */
  maxFrameBytes?: number
  /** Deepest nesting accepted in a frame (default QWC_MAX_DEPTH). */
  maxDepth?: number
  logger?: Logger
  /**
   * Sees every frame received, as text, before it is handled (`panelbridge probe` records them). Runs
   * inside the frame guard: a throw drops the frame as any handler fault does.
   */
  onFrame?: (text: string) => void
}

interface PendingCall {
  resolve: (data: unknown) => void
  reject: (err: QWebChannelError) => void
  timer: NodeJS.Timeout
  what: string
  onReply: ((data: unknown) => void) | undefined
}

type Json = Record<string, unknown>

/**
 * Results often arrive as JSON text (protocol notes 1.3): text that looks like JSON is parsed, other
 * values are returned as they are. Parsed text nested deeper than `maxDepth` is refused with
 * `BAD_REPLY`, as a frame that deep is.
 */
export function parseQwcResult(data: unknown, maxDepth = QWC_MAX_DEPTH): unknown {
  if (typeof data !== 'string') return data
  const t = data.trim()
  if (!(t.startsWith('{') || t.startsWith('[') || t.startsWith('"'))) return data
  let parsed: unknown
  try {
    parsed = JSON.parse(t)
  } catch {
    // Text that only looks like JSON is a plain text result.
    return data
  }
  if (jsonDepthExceeds(parsed, maxDepth)) {
    throw new QWebChannelError('BAD_REPLY', `result nested deeper than ${maxDepth} levels`)
  }
  return parsed
}

/** Reads `[[name, index], ...]` into a map; returns undefined when the shape is wrong. */
function readPairs(raw: unknown): Map<string, number> | undefined {
  if (!Array.isArray(raw)) return undefined
  const out = new Map<string, number>()
  for (const pair of raw) {
    if (!Array.isArray(pair) || typeof pair[0] !== 'string' || typeof pair[1] !== 'number') return undefined
    if (!out.has(pair[0])) out.set(pair[0], pair[1])
  }
  return out
}

/** Parses the `data` of an init reply; throws `BAD_REPLY` on a wrong shape. */
export function parseInitReply(data: unknown): Map<string, QwcObjectInfo> {
  if (!isRecord(data)) throw new QWebChannelError('BAD_REPLY', 'init reply data is not an object')
  const objects = new Map<string, QwcObjectInfo>()
  for (const [name, raw] of Object.entries(data)) {
    if (!isRecord(raw)) throw new QWebChannelError('BAD_REPLY', `init reply: object ${name} is not an object`)
    const methods = readPairs(raw.methods)
    const signals = readPairs(raw.signals ?? [])
    if (!methods || !signals) throw new QWebChannelError('BAD_REPLY', `init reply: bad methods/signals for ${name}`)
    const signalNames = new Map<number, string>()
    for (const [s, i] of signals) signalNames.set(i, s)
    objects.set(name, {
      methods,
      signals,
      signalNames,
      properties: Array.isArray(raw.properties) ? (raw.properties as unknown[]) : [],
    })
  }
  return objects
}

/**
 * One QWebChannel connection. Usage: `await client.connect()`, then `invoke()` and `connectSignal()`;
 * `close()` when done. Listen to `close` to learn that the socket went away.
 */
export class QWebChannelClient extends Announcer<QWebChannelClientEvents> {
  private ws: WebSocket | undefined
  private objects = new Map<string, QwcObjectInfo>()
  private readonly pending = new Map<number, PendingCall>()
  private nextId = 0
  private closed = false
  private readonly log: Logger
  private readonly callTimeoutMs: number
  private readonly connectTimeoutMs: number
  private readonly maxDepth: number
  /** `Date.now()` of the last frame or pong received; the link's liveness check reads it. */
  lastActivity = 0

  constructor(private readonly options: QWebChannelClientOptions) {
    super()
    this.log = options.logger ?? createLogger('qwebchannel')
    this.callTimeoutMs = options.callTimeoutMs ?? QWC_DEFAULT_CALL_TIMEOUT_MS
    this.connectTimeoutMs = options.connectTimeoutMs ?? QWC_DEFAULT_CONNECT_TIMEOUT_MS
    this.maxDepth = options.maxDepth ?? QWC_MAX_DEPTH
  }

  get url(): string {
    return this.options.url
  }
  get isOpen(): boolean {
    return this.ws?.readyState === WebSocket.OPEN
  }
  /** Number of calls awaiting a reply (the bench watches it for growth). */
  get pendingCount(): number {
    return this.pending.size
  }
  /** The objects described by the init reply (empty before `connect()` resolves). */
  get published(): ReadonlyMap<string, QwcObjectInfo> {
    return this.objects
  }

  /**
   * Opens the socket and runs the init exchange (`{type:3}` → `{type:10, data}` → `{type:4}`).
   * Rejects with `DISCONNECTED` (refused / closed), `TIMEOUT` or `BAD_REPLY`; the socket is closed then.
   */
  async connect(): Promise<ReadonlyMap<string, QwcObjectInfo>> {
    if (this.ws) throw new QWebChannelError('DISCONNECTED', 'a QWebChannelClient connects once; make a new one')
    const ws = new WebSocket(this.options.url, {
      handshakeTimeout: this.connectTimeoutMs,
      maxPayload: this.options.maxFrameBytes ?? QWC_MAX_FRAME_BYTES,
    })
    this.ws = ws
    // Every handler of data from the peer runs inside `guard`: a throw there (ours or a listener's)
    // must never reach `ws`'s emitter, where it would end the process.
    ws.on('message', (data: WebSocket.RawData) => this.guard('message', () => this.onFrame(data)))
    ws.on('pong', () => {
      this.lastActivity = Date.now()
    })
    ws.on('close', (code: number, reason: Buffer) => this.guard('close', () => this.onClose(code, reason.toString())))
    ws.on('error', (err: Error) => {
      // 'close' follows every 'error'; the failure is reported there and by connect()'s rejection.
      this.log.debug('socket error', { url: this.options.url, error: err.message })
    })
    try {
      await new Promise<void>((resolve, reject) => {
        const onOpen = (): void => {
          this.off('close', onClosed)
          resolve()
        }
        const onClosed = (): void => {
          ws.off('open', onOpen)
          reject(new QWebChannelError('DISCONNECTED', `could not open ${this.options.url}`))
        }
        ws.once('open', onOpen)
        this.once('close', onClosed)
      })
      this.lastActivity = Date.now()
      const data = await this.request({ type: QWC_MESSAGE.init }, 'init', this.connectTimeoutMs)
      this.objects = parseInitReply(data)
      this.send({ type: QWC_MESSAGE.idle })
      return this.objects
    } catch (err) {
      this.close()
      throw err
    }
  }

  /** Index of a method of a published object, from the init reply; throws `UNKNOWN_MEMBER`. */
  methodIndex(object: string, method: string): number {
    const index = this.objects.get(object)?.methods.get(method)
    if (index === undefined) throw new QWebChannelError('UNKNOWN_MEMBER', `no method ${object}.${method} in init reply`)
    return index
  }

  /** Index of a signal of a published object, from the init reply; throws `UNKNOWN_MEMBER`. */
  signalIndex(object: string, signal: string): number {
    const index = this.objects.get(object)?.signals.get(signal)
    if (index === undefined) throw new QWebChannelError('UNKNOWN_MEMBER', `no signal ${object}.${signal} in init reply`)
    return index
  }

  /**
   * Invokes a method by the index the init reply gave it. Resolves with the reply's `data`, parsed when
   * it is JSON text. Rejects with `TIMEOUT`, `DISCONNECTED` or `UNKNOWN_MEMBER`.
   *
   * `onReply`, when given, runs synchronously as the reply frame is handled, before any later frame:
   * a caller that must order a reply against the signals around it (a state snapshot against the
   * notifications that follow it) does its work there, not after the `await`.
   */
  async invoke(
    object: string,
    method: string,
    args: unknown[],
    opts: { timeoutMs?: number; onReply?: (result: unknown) => void } = {},
  ): Promise<unknown> {
    const index = this.methodIndex(object, method)
    const { onReply } = opts
    // Parsed once: in `onReply` when there is one (the reply can be a whole state snapshot), else here.
    let parsed: { value: unknown } | undefined
    const data = await this.request(
      { type: QWC_MESSAGE.invokeMethod, object, method: index, args },
      `${object}.${method}`,
      opts.timeoutMs ?? this.callTimeoutMs,
      onReply
        ? (raw) => {
            parsed = { value: parseQwcResult(raw, this.maxDepth) }
            onReply(parsed.value)
          }
        : undefined,
    )
    return parsed ? parsed.value : parseQwcResult(data, this.maxDepth)
  }

  /** Connects to a signal by the index the init reply gave it (`{type:7}`; Qt sends no reply). */
  connectSignal(object: string, signal: string): void {
    this.send({ type: QWC_MESSAGE.connectToSignal, object, signal: this.signalIndex(object, signal) })
  }

  /** Sends a WebSocket ping; a pong (or any frame) updates `lastActivity`. */
  ping(): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.ping()
  }

  /** Closes the socket at once (terminate: a dead peer would never answer a close handshake). */
  close(): void {
    if (!this.ws) {
      this.closed = true
      return
    }
    if (this.ws.readyState !== WebSocket.CLOSED) this.ws.terminate()
  }

  private request(message: Json, what: string, timeoutMs: number, onReply?: (data: unknown) => void): Promise<unknown> {
    if (this.closed || this.ws?.readyState !== WebSocket.OPEN) {
      return Promise.reject(new QWebChannelError('DISCONNECTED', `${what}: socket is not open`))
    }
    const id = this.nextId++
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(new QWebChannelError('TIMEOUT', `${what}: no reply within ${timeoutMs} ms`))
      }, timeoutMs)
      this.pending.set(id, { resolve, reject, timer, what, onReply })
      this.send({ ...message, id })
    })
  }

  /**
   * Sends one message; an application that does not read what it is sent is dropped past the
   * outgoing bound (`outgoing-bound.ts`): the socket closed, its unsent calls let go and failed.
   */
  private send(message: Json): void {
    const ws = this.ws
    if (ws?.readyState !== WebSocket.OPEN) return
    ws.send(JSON.stringify(message))
    const peer = { kind: 'qwebchannel', log: this.log, drop: () => this.close() }
    overOutgoingBound(peer, ws.bufferedAmount, OUTGOING_LIMITS.maxUnsentBytes)
  }

  /** Whether the init exchange waits for its reply (the only call made before it ends). */
  private initPending(): boolean {
    for (const call of this.pending.values()) if (call.what === 'init') return true
    return false
  }

  /**
   * A frame too large for an init reply came before the init exchange finished: the init fails
   * (BAD_REPLY) and the link is closed, the frame never decoded.
   */
  private refuseInit(bytes: number): void {
    this.log.once('init-too-large', 'warn', 'refused an init reply larger than the bound', {
      url: this.url,
      bytes,
      limitBytes: QWC_MAX_INIT_BYTES,
    })
    for (const [id, call] of this.pending) {
      if (call.what !== 'init') continue
      this.pending.delete(id)
      clearTimeout(call.timer)
      call.reject(new QWebChannelError('BAD_REPLY', `init: a reply of ${bytes} bytes (at most ${QWC_MAX_INIT_BYTES})`))
    }
    this.close()
  }

  /** Runs a handler of peer data; a throw becomes a logged `BAD_MESSAGE` fault and the socket stays up. */
  private guard(what: string, handler: () => void): void {
    try {
      handler()
    } catch (err) {
      const fault = new QWebChannelError('BAD_MESSAGE', `${what}: frame handler failed: ${describe(err)}`, {
        cause: err,
      })
      this.log.warn('frame handler failed; frame dropped', { url: this.url, what, error: fault.message })
      try {
        this.announce('fault', fault)
      } catch (listenerErr) {
        // A fault listener that throws is reported, not re-thrown into `ws`.
        this.log.warn('fault listener failed', { url: this.url, error: describe(listenerErr) })
      }
    }
  }

  private onFrame(raw: WebSocket.RawData): void {
    this.lastActivity = Date.now()
    const bytes = frameBytes(raw)
    if (bytes.length > QWC_MAX_INIT_BYTES && this.initPending()) return this.refuseInit(bytes.length)
    const text = bytes.toString()
    this.options.onFrame?.(text)
    let msg: unknown
    try {
      msg = JSON.parse(text)
    } catch {
      this.log.once('malformed', 'warn', 'ignoring a frame that is not JSON', {
        url: this.url,
        frame: text.slice(0, 80),
      })
      return
    }
    if (!isRecord(msg) || typeof msg.type !== 'number') {
      this.log.once('no-type', 'warn', 'ignoring a message without a numeric type', { frame: text.slice(0, 80) })
      return
    }
    if (jsonDepthExceeds(msg, this.maxDepth)) {
      this.onTooDeep(msg)
      return
    }
    switch (msg.type) {
      case QWC_MESSAGE.response:
        this.onResponse(msg)
        return
      case QWC_MESSAGE.signal:
        this.onSignal(msg)
        return
      case QWC_MESSAGE.propertyUpdate:
      case QWC_MESSAGE.idle:
        // Property updates concern properties; panelbridge uses none. Idle needs no answer.
        return
      default:
        this.log.once(`type-${msg.type}`, 'warn', 'ignoring a message of an unexpected type', { type: msg.type })
    }
  }

  /** A frame nested past `maxDepth`: a reply fails its call at once; anything else is dropped. */
  private onTooDeep(msg: Json): void {
    const call = msg.type === QWC_MESSAGE.response && typeof msg.id === 'number' ? this.pending.get(msg.id) : undefined
    const why = `frame nested deeper than ${this.maxDepth} levels`
    if (call && typeof msg.id === 'number') {
      this.pending.delete(msg.id)
      clearTimeout(call.timer)
      call.reject(new QWebChannelError('BAD_REPLY', `${call.what}: ${why}`))
      return
    }
    this.log.warn(`ignoring a frame nested too deep`, { url: this.url, type: msg.type, why })
  }

  private onResponse(msg: Json): void {
    const id = msg.id
    const call = typeof id === 'number' ? this.pending.get(id) : undefined
    if (!call || typeof id !== 'number') {
      // A late reply after a time-out lands here too; that is expected and not worth more than one line.
      this.log.once('stray-reply', 'debug', 'ignoring a reply that matches no pending call', { id: jsonSnippet(id) })
      return
    }
    this.pending.delete(id)
    clearTimeout(call.timer)
    if (call.onReply) {
      try {
        call.onReply(msg.data)
      } catch (err) {
        call.reject(
          err instanceof QWebChannelError
            ? err
            : new QWebChannelError('BAD_REPLY', `${call.what}: ${describe(err)}`, { cause: err }),
        )
        return
      }
    }
    call.resolve(msg.data)
  }

  private onSignal(msg: Json): void {
    const object = msg.object
    if (typeof object !== 'string') {
      this.log.once('signal-no-object', 'warn', 'ignoring a signal without an object name')
      return
    }
    const info = this.objects.get(object)
    const signal =
      typeof msg.signal === 'number'
        ? info?.signalNames.get(msg.signal)
        : typeof msg.signal === 'string'
          ? msg.signal
          : undefined
    if (!signal) {
      this.log.once(`signal-unknown-${object}`, 'warn', 'ignoring a signal not named in the init reply', {
        object,
        signal: jsonSnippet(msg.signal),
      })
      return
    }
    const args = Array.isArray(msg.args) ? (msg.args as unknown[]) : []
    this.announce('signal', { object, signal, args })
  }

  private onClose(code: number, reason: string): void {
    if (this.closed) return
    this.closed = true
    for (const [id, call] of this.pending) {
      clearTimeout(call.timer)
      call.reject(new QWebChannelError('DISCONNECTED', `${call.what}: socket closed before the reply`))
      this.pending.delete(id)
    }
    this.announce('close', { code, reason })
  }
}

/** The message of a thrown value, for a log line or an error message (never throws). */
function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : jsonSnippet(err)
}
