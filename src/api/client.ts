/**
 * The typed command client: one undici keep-alive `Pool` per application, one method to run a command.
 *
 * - GET `{base}/api/command/<name>?...` (default) or POST `{base}/api` with `{command, parameters}`.
 * - Every call carries a `requestId`; a reply echoing a different one is refused.
 * - Replies are decoded per `shared/spec/decisions.md` and converted to the catalogue's types by
 *   `codec.ts`, beside the encoding of requests; this file is the transport.
 * - No retries, ever: a command that failed is reported to the caller, never sent again later
 *   (a button press replayed late is worse than a press lost and shown as failed).
 * - Nothing waits long to be sent: a call not on the wire within its send deadline (`sendDeadlineMs`),
 *   or still waiting when a connection to the application is lost (it restarts), is dropped and fails
 *   with `NotSentError`; it never reaches the application late.
 */
import { performance } from 'node:perf_hooks'
import { randomBytes } from 'node:crypto'
import type { Dispatcher } from 'undici'
import { Pool } from './undici-pool.js'
import { getCommandSpec, type CommandName, type HasRequiredParams, type ParamsOf, type ReplyOf } from './commands.js'
import { CommandError, NotSentError, ReplyTooLargeError, TimeoutError, type CommandErrorCode } from './errors.js'
import { decodeReply, encodeParams, unlistedSpec, type Encoded, type Transport } from './codec.js'

/** The command client's defaults and bounds. */
export const CLIENT_DEFAULTS = {
  /** Default time-out of one command, in ms (issue 2). */
  timeoutMs: 2000,
  /**
   * How long a command may wait to go on the wire, ms (`app.send_deadline_ms`). ASSUMED: 500 ms (issue 24,
   * item 8): a press the application takes later than that (its connections held by a hung request,
   * or while it restarts) is worse than a press shown as failed.
   */
  sendDeadlineMs: 500,
  /** Keep-alive sockets per application: commands are small and the panel rarely has more in flight. */
  connections: 4,
  /**
   * Largest reply body the client reads, bytes; past it the call fails with `REPLY_TOO_LARGE` and the
   * rest of the body is never read (the connection is dropped). Why 4 MiB: the largest replies the
   * contract describes (a title list with icons as data URLs) are well under it, and one reply must not
   * be able to cost the daemon more than a few MB.
   */
  maxReplyBytes: 4 * 1024 * 1024,
} as const
/**
 * How long an idle keep-alive socket is kept, in ms (undici's default; a server's `Keep-Alive: timeout`
 * hint shortens it). Why not longer: a command written just as the server closes an idle socket fails,
 * and the client never re-sends, so the socket is better dropped first.
 */
const DEFAULT_KEEP_ALIVE_MS = 4000
const GET_HEADERS = { accept: 'application/json' }
const POST_HEADERS = { accept: 'application/json', 'content-type': 'application/json' }

export type { Transport } from './codec.js'

export interface CommandClientOptions {
  /** The application's base URL, e.g. `http://127.0.0.1:9022`. A path prefix is kept. */
  baseUrl: string
  /** `get` (default): `/api/command/<name>?...`; `post`: `/api` with a JSON body. */
  transport?: Transport
  /** Default time-out per call, ms. */
  timeoutMs?: number
  /** How long a call may wait to go on the wire, ms (default CLIENT_DEFAULTS.sendDeadlineMs). */
  sendDeadlineMs?: number
  /** Keep-alive sockets in the pool. */
  connections?: number
  keepAliveTimeoutMs?: number
  /** Largest reply body read, bytes (default CLIENT_DEFAULTS.maxReplyBytes). */
  maxReplyBytes?: number
  /**
   * Called once per finished call (success or failure) with its latency. Meant for a metrics layer;
   * it runs on the hot path, so keep it cheap. Exceptions it throws are ignored.
   */
  onCall?: (record: CallRecord) => void
  /**
   * Sees every reply body received, before it is parsed (`panelbridge probe` records how the
   * application answers). Exceptions it throws are ignored.
   */
  onReply?: (reply: { command: string; requestId: string; status: number; text: string }) => void
}

export interface CallOptions {
  /** Overrides the client's time-out for this call, ms. */
  timeoutMs?: number
  /** Aborts the call: it rejects with code `ABORTED`. */
  signal?: AbortSignal
  /** Uses this requestId instead of a generated one. */
  requestId?: string
  /** Overrides the client's transport for this call. */
  transport?: Transport
  /**
   * Sends a command the catalogue lacks as written (parameters encoded by their JS type, reply taken
   * unconverted) instead of refusing it with `BAD_PARAMS`. For YAML bindings: the application has more
   * commands than panelbridge knows.
   */
  unlisted?: boolean
}

/** What `onCall` receives. */
export interface CallRecord {
  command: string
  requestId: string
  ok: boolean
  code?: CommandErrorCode
  latencyMs: number
}

/** A successful call in full. */
export interface CallResult<N extends CommandName = CommandName> {
  command: N
  requestId: string
  /** Reply fields converted to the catalogue's types. */
  reply: ReplyOf<N>
  /** The reply's `result` object as received (`{}` for a bare empty reply). */
  raw: Readonly<Record<string, unknown>>
  /** Time from sending to a parsed reply, ms. */
  latencyMs: number
}

/** The arguments after the command name: params are required only if the command has required ones. */
export type CallArgs<N extends CommandName> =
  HasRequiredParams<N> extends true
    ? [params: ParamsOf<N>, options?: CallOptions]
    : [params?: ParamsOf<N>, options?: CallOptions]

/** Client of one application's HTTP command interface. */
export class CommandClient {
  private readonly pool: Pool
  private readonly basePath: string
  private readonly transport: Transport
  private readonly timeoutMs: number
  /** @internal read by each exchange */
  readonly maxReplyBytes: number
  /** @internal read by each exchange */
  readonly sendDeadlineMs: number
  /** @internal Exchanges not yet on the wire: a lost connection drops them (`onDisconnect`). */
  readonly waiting = new Set<Exchange>()
  private readonly onCall: ((record: CallRecord) => void) | undefined
  private readonly onReply: CommandClientOptions['onReply']
  private readonly idPrefix = `pb-${randomBytes(3).toString('hex')}-`
  private seq = 0
  private closed = false

  constructor(options: CommandClientOptions) {
    const url = new URL(options.baseUrl)
    this.basePath = url.pathname.replace(/\/+$/, '')
    this.transport = options.transport ?? 'get'
    this.timeoutMs = options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs
    this.maxReplyBytes = options.maxReplyBytes ?? CLIENT_DEFAULTS.maxReplyBytes
    this.sendDeadlineMs = options.sendDeadlineMs ?? CLIENT_DEFAULTS.sendDeadlineMs
    this.onCall = options.onCall
    this.onReply = options.onReply
    this.pool = new Pool(url.origin, {
      connections: options.connections ?? CLIENT_DEFAULTS.connections,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_MS,
      pipelining: 1,
    })
    this.pool.on('disconnect', (_origin, _targets, err) => this.onDisconnect(err))
  }

  /**
   * A connection to the application closed. One lost by a fault (reset, closed by the other side: the
   * application restarting) drops every call still waiting to be sent, before the pool sends them on a
   * new connection. undici's own closes (idle time-out, `Connection: close`) are informational and
   * drop nothing.
   */
  private onDisconnect(err: Error): void {
    if ((err as { code?: unknown }).code === 'UND_ERR_INFO' || this.waiting.size === 0) return
    for (const exchange of [...this.waiting]) exchange.notSent('reconnect', err)
  }

  /** Runs a command and resolves with its typed reply fields. Rejects with a `CommandError`. */
  async call<N extends CommandName>(name: N, ...args: CallArgs<N>): Promise<ReplyOf<N>> {
    const [params, options] = args
    const result = await this.execute(name, params, options)
    return result.reply as ReplyOf<N>
  }

  /** Like `call`, with the requestId, the raw result and the latency. */
  async request<N extends CommandName>(name: N, ...args: CallArgs<N>): Promise<CallResult<N>> {
    const [params, options] = args
    return (await this.execute(name, params, options)) as CallResult<N>
  }

  /**
   * Runs a command whose name and parameters are only known at run time (YAML bindings, remote API).
   * The name and parameters are checked against the catalogue; a mismatch rejects with `BAD_PARAMS`.
   */
  async callByName(name: string, params?: Record<string, unknown>, options?: CallOptions): Promise<CallResult> {
    return this.execute(name, params, options)
  }

  /** Destroys the pool: open sockets are closed and calls in flight reject with `ABORTED`. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.pool.destroy()
  }

  private async execute(
    name: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions = {},
  ): Promise<CallResult> {
    const requestId = options.requestId ?? this.idPrefix + String(++this.seq)
    const started = performance.now()
    try {
      const spec = getCommandSpec(name) ?? (options.unlisted ? unlistedSpec(name, params ?? {}) : undefined)
      if (spec === undefined) {
        throw new CommandError('BAD_PARAMS', name, 'unknown command', { requestId })
      }
      if (this.closed) throw new CommandError('ABORTED', name, 'client closed', { requestId })
      const transport = options.transport ?? this.transport
      const encoded = encodeParams(name, spec, params ?? {}, transport, requestId)
      if ('message' in encoded) throw new CommandError('BAD_PARAMS', name, encoded.message, { requestId })
      const { status, text } = await this.send(name, encoded, transport, requestId, options)
      if (this.onReply !== undefined) {
        try {
          this.onReply({ command: name, requestId, status, text })
        } catch {
          // An observer's fault must not fail the command it watched.
        }
      }
      const { reply, raw } = decodeReply(name, spec, status, text, requestId)
      const latencyMs = performance.now() - started
      this.report(name, requestId, latencyMs)
      return { command: name as CommandName, requestId, reply: reply, raw, latencyMs }
    } catch (err) {
      const error =
        err instanceof CommandError ? err : new CommandError('NETWORK', name, String(err), { cause: err, requestId })
      this.report(name, requestId, performance.now() - started, error.code)
      throw error
    }
  }

  /**
   * One HTTP exchange with a time-out and the caller's signal. Resolves with the status and the body.
   *
   * Why `dispatch` with a handler object rather than `pool.request`: it skips the body stream and the
   * per-call AbortSignal plumbing, a large share of the client's own cost per command on loopback.
   */
  private send(
    name: string,
    encoded: Encoded,
    transport: Transport,
    requestId: string,
    options: CallOptions,
  ): Promise<{ status: number; text: string }> {
    const signal = options.signal
    if (signal?.aborted)
      return Promise.reject(new CommandError('ABORTED', name, 'aborted before sending', { requestId }))
    return new Promise((resolve, reject) => {
      const exchange = new Exchange(this, name, requestId, options.timeoutMs ?? this.timeoutMs, signal, resolve, reject)
      try {
        this.pool.dispatch(
          transport === 'get'
            ? {
                method: 'GET',
                path: `${this.basePath}/api/command/${encodeURIComponent(name)}${encoded.query}`,
                headers: GET_HEADERS,
              }
            : { method: 'POST', path: `${this.basePath}/api`, headers: POST_HEADERS, body: encoded.body },
          exchange,
        )
      } catch (err) {
        exchange.onResponseError(undefined, err as Error)
      }
    })
  }

  /** True once `close()` was called. */
  get isClosed(): boolean {
    return this.closed
  }

  private report(command: string, requestId: string, latencyMs: number, code?: CommandErrorCode): void {
    if (this.onCall === undefined) return
    try {
      this.onCall(
        code === undefined
          ? { command, requestId, ok: true, latencyMs }
          : { command, requestId, ok: false, code, latencyMs },
      )
    } catch {
      // An observer's fault must not turn a finished command into a failed one.
      return
    }
  }
}

type ExchangeResult = { status: number; text: string }

/**
 * The state of one HTTP exchange, and undici's dispatch handler for it. A class rather than closures:
 * one object per call, with a single timer and an abort listener (`handleEvent`) that need no binding.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined
  private settled = false
  private status = 0
  private readonly chunks: Buffer[] = []
  private received = 0
  private readonly timer: NodeJS.Timeout
  /** Runs until the request goes on the wire (`onRequestStart`); see `notSent`. */
  private sendTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly client: CommandClient,
    private readonly name: string,
    private readonly requestId: string,
    private readonly timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
    private readonly resolve: (value: ExchangeResult) => void,
    private readonly reject: (err: CommandError) => void,
  ) {
    this.timer = setTimeout(onExchangeTimeout, timeoutMs, this)
    if (client.sendDeadlineMs < timeoutMs) this.sendTimer = setTimeout(onSendDeadline, client.sendDeadlineMs, this)
    client.waiting.add(this)
    signal?.addEventListener('abort', this, { once: true })
  }

  /** Not on the wire within the send deadline, or its connection was lost while it waited: dropped. */
  notSent(reason: 'deadline' | 'reconnect', cause?: Error): void {
    if (this.controller !== undefined) return // already on the wire
    this.fail(
      new NotSentError(this.name, reason, this.client.sendDeadlineMs, {
        requestId: this.requestId,
        ...(cause ? { cause } : {}),
      }),
    )
  }

  /** The caller's AbortSignal fired. */
  handleEvent(): void {
    this.fail(new CommandError('ABORTED', this.name, 'aborted by caller', { requestId: this.requestId }))
  }

  timedOut(): void {
    this.fail(new TimeoutError(this.name, this.timeoutMs, { requestId: this.requestId }))
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller
    this.onWire()
    // A call that timed out or was aborted while queued in the pool must not reach the application late.
    if (this.settled) controller.abort(new Error('call already settled'))
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.status = statusCode
    // A body announced past the cap is refused before a byte of it is read.
    const declared = Number(headers['content-length'])
    const limit = this.client.maxReplyBytes
    if (Number.isFinite(declared) && declared > limit) {
      this.fail(new ReplyTooLargeError(this.name, limit, 0, { requestId: this.requestId, declaredBytes: declared }))
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return
    this.received += chunk.length
    const limit = this.client.maxReplyBytes
    if (this.received > limit) {
      // Chunked bodies (or a lying content-length) are counted as they stream; nothing past the cap is kept.
      this.fail(new ReplyTooLargeError(this.name, limit, this.received, { requestId: this.requestId }))
      return
    }
    this.chunks.push(chunk)
  }

  onResponseEnd(): void {
    if (this.settled) return
    let text: string
    try {
      const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)
      text = body.toString('utf8')
    } catch (err) {
      // Why settle through fail(): decoding can throw (a body past V8's string limit when the cap is
      // raised that far), and a call marked settled before it threw would never settle at all.
      this.fail(networkError(this.name, err, this.requestId))
      return
    }
    this.chunks.length = 0
    if (this.finish()) this.resolve({ status: this.status, text })
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    if (this.settled) return
    this.fail(
      this.client.isClosed
        ? new CommandError('ABORTED', this.name, 'client closed', { cause: err, requestId: this.requestId })
        : networkError(this.name, err, this.requestId),
    )
  }

  private fail(err: CommandError): void {
    if (!this.finish()) return
    // Stops the exchange; a request still queued in the pool is never written (see onRequestStart).
    this.controller?.abort(err)
    this.reject(err)
  }

  /** On the wire (or settled): no longer waiting to be sent. */
  private onWire(): void {
    clearTimeout(this.sendTimer)
    this.sendTimer = undefined
    this.client.waiting.delete(this)
  }

  /** Marks the exchange settled; false if it already was. */
  private finish(): boolean {
    if (this.settled) return false
    this.settled = true
    clearTimeout(this.timer)
    this.onWire()
    this.signal?.removeEventListener('abort', this)
    return true
  }
}

function onExchangeTimeout(exchange: Exchange): void {
  exchange.timedOut()
}

function onSendDeadline(exchange: Exchange): void {
  exchange.notSent('deadline')
}

function networkError(name: string, err: unknown, requestId: string): CommandError {
  const code = errorCode(err)
  if (code === 'ECONNREFUSED')
    return new CommandError('CONNECTION_REFUSED', name, 'connection refused', { cause: err, requestId })
  const message = err instanceof Error ? err.message : String(err)
  return new CommandError('NETWORK', name, `network error${code ? ` (${code})` : ''}: ${message}`, {
    cause: err,
    requestId,
  })
}

/** The system error code of an error or of one of its causes (undici may wrap the socket error). */
export function errorCode(err: unknown): string | undefined {
  let first: string | undefined
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (code === 'ECONNREFUSED') return code
    if (first === undefined && typeof code === 'string') first = code
  }
  return first
}
