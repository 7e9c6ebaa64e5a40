/**
 * The daemon's one HTTP server: the web page and its WebSocket (a mounted `WebSurfaceServer`), the
 * remote API, and `/metrics`.
 *
 * Routes (`{control}` is percent-decoded, so `key:3` and `key%3A3` both work):
 * - `GET /api/status` → `DaemonApi.status()`
 * - `GET /api/errors` → `{ "errors": DaemonApi.recentErrors() }` (the page's status strip)
 * - `GET /api/surfaces/{surface}/controls/{control}` → `DaemonApi.controlState()`
 * - `POST /api/surfaces/{surface}/controls/{control}/{press|down|up|rotate|value}` (`rotate?delta=N`,
 *   `value?value=X`) → `DaemonApi.inject()` → `200 {"ok":true}`
 * - `GET /api/events` → Server-Sent Events from `DaemonApi.watchEvents()` (an extension of the pinned
 *   remote API, read-only, for `panelbridge learn`): `event: surface` with a `SurfaceStateEvent` for
 *   every surface at once and on every change, `event: input` with an `InputEvent` per control event,
 *   `: keep-alive` comments every `eventStreamHeartbeatMs`. At most `maxEventStreams` at once (503
 *   beyond); a reader that lets more than `maxEventStreamBufferBytes` pile up is dropped.
 * - `GET /metrics` → Prometheus text
 * - everything else → the web page server, else 404.
 *
 * Errors are `{ "error": { "code", "message" } }`: 400 bad value or control id, 401 token missing or
 * wrong, 403 Host or Origin refused, 404 unknown path, surface or control, 405 wrong method, 409 the
 * surface is not open or the control does not take the event, 413 a request body (no route takes one),
 * 503 too many event streams.
 *
 * Security, in this order on every request:
 * 1. **Host** (DNS rebinding) on every request, **Origin** and `Sec-Fetch-Site` on every request that is
 *    not a GET or HEAD (without it any web page could `POST .../press`); rules in `src/http-guard.ts`.
 * 2. **Token**, only when bound to anything but loopback: `Authorization: Bearer <token>`, or the
 *    cookie COOKIE_NAME that a page link `?token=<token>` sets (`HttpOnly; SameSite=Strict`, then a
 *    redirect that drops the token from the address bar). It guards everything, the page and its
 *    WebSocket included: on a LAN, the page's keys are as powerful as the API. Compared in constant
 *    time; never logged. Without a token such a bind refuses to start.
 * 3. **Bounds**: header size, header and request time-outs, concurrent connections (DAEMON_SERVER_LIMITS).
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { isIP, type AddressInfo, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { DEFAULT_LISTEN_HOST, DEFAULT_PANELBRIDGE_PORT } from '../defaults.js'
import { fetchSiteAllowed, hostAllowed, hostSet, isLoopbackAddress, originAllowed } from '../http-guard.js'
import { createLogger } from '../log.js'
import { ControlIdError, parseControlId, type ParsedControlId } from '../surfaces/control-id.js'
import { MAX_ROTATE_DELTA } from '../surfaces/web/protocol.js'
import type { DaemonApi, InjectKind, InjectRefusal } from './api.js'

/** Bounds of the server; every one overridable through `DaemonServerOptions.limits`. */
export interface DaemonServerLimits {
  /** Largest request body accepted, bytes. No route takes a body; this only tolerates empty ones. */
  maxBodyBytes: number
  /** Largest request head (request line and headers), bytes. */
  maxHeaderBytes: number
  /** Time to receive a request's headers, ms. */
  headersTimeoutMs: number
  /** Time to receive a whole request, ms. */
  requestTimeoutMs: number
  /** An idle keep-alive connection is closed after this long, ms. */
  keepAliveTimeoutMs: number
  /** Concurrent connections (browsers' WebSockets included); more are refused at accept. */
  maxConnections: number
  /** Concurrent `GET /api/events` streams; more are answered 503. */
  maxEventStreams: number
  /**
   * Bytes an event stream may have waiting to be sent (its reader is slow or gone); past this the
   * stream is dropped rather than kept growing in memory.
   */
  maxEventStreamBufferBytes: number
  /** An event stream gets a comment line this often, ms, so that a vanished reader is noticed. */
  eventStreamHeartbeatMs: number
}

export const DAEMON_SERVER_LIMITS: Readonly<DaemonServerLimits> = {
  maxBodyBytes: 1024,
  maxHeaderBytes: 8 * 1024,
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 128,
  maxEventStreams: 8,
  maxEventStreamBufferBytes: 256 * 1024,
  eventStreamHeartbeatMs: 15_000,
}

/** How often Node looks for requests past their header or request time-out, ms (at most). */
const CHECK_INTERVAL_MS = 1_000

/** The cookie that carries the token for the page (set from a `?token=` link). */
export const COOKIE_NAME = 'panelbridge_token'

/** Largest `|delta|` of `rotate?delta=N` (the web page's own bound). */
export const MAX_INJECT_ROTATE_DELTA = MAX_ROTATE_DELTA

/** The web page server as mounted here (`WebSurfaceServer` is one). */
export interface MountedWebServer {
  /** Returns false when the request is not the web server's (this server answers 404). */
  handleRequest(req: IncomingMessage, res: ServerResponse): boolean
  /** Returns false when the upgrade is not the web server's. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean
  /** Its path prefix (`''` at the root); `/` redirects there when it is not the root. */
  readonly basePath: string
}

/** What `/metrics` serves (`PrometheusMetrics` is one). */
export interface MetricsSource {
  text(): Promise<string>
  readonly contentType: string
}

export interface DaemonServerOptions {
  /** The running daemon, as the remote API sees it. */
  api: DaemonApi
  /** Address to bind. Default 127.0.0.1. Anything but loopback requires `token`. */
  host?: string
  /** Port; 0 picks a free one. Default 8088. */
  port?: number
  /**
   * The token (`listen.token`, or the contents of `listen.token_file`, read by the caller). Required,
   * and enforced, only when `host` is not a loopback address.
   */
  token?: string
  /** The web page and its WebSocket. Without it, only the API and metrics are served. */
  web?: MountedWebServer
  /** `/metrics`. Without it, `/metrics` is 404. */
  metrics?: MetricsSource
  /** DNS names besides `localhost` that may be used in `Host` (e.g. the box's name on a LAN). */
  allowedHosts?: string[]
  limits?: Partial<DaemonServerLimits>
}

export interface DaemonServer {
  /** `http://host:port/` with the actual port (`0.0.0.0` shown as `127.0.0.1`, `::` as `[::1]`). */
  readonly url: string
  readonly port: number
  /** Whether requests need the token (the bind is not loopback). */
  readonly tokenRequired: boolean
  /**
   * Stops listening and closes every connection, WebSockets included (close the web server first for
   * a graceful goodbye to browsers). Idempotent.
   */
  close(): Promise<void>
}

/** Why the server refused to start (e.g. a non-loopback bind without a token). */
export class DaemonServerConfigError extends Error {
  override readonly name = 'DaemonServerConfigError'
}

/** Shortest token accepted from `listen.token_file` (the schema asks the same of `listen.token`). */
export const MIN_TOKEN_LENGTH = 16

/**
 * The token of a `listen` section: `token`, or the contents of `token_file` (trimmed; a trailing
 * newline is usual). Undefined when neither is set. Errors name the file and the problem, never the
 * contents.
 */
export async function readListenToken(listen: { token?: string; token_file?: string }): Promise<string | undefined> {
  if (listen.token !== undefined && listen.token_file !== undefined) {
    throw new DaemonServerConfigError('listen: set token or token_file, not both')
  }
  if (listen.token_file === undefined) return listen.token
  let text: string
  try {
    text = await readFile(listen.token_file, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable'
    throw new DaemonServerConfigError(`listen.token_file ${listen.token_file}: cannot read it (${code})`, {
      cause: err,
    })
  }
  const token = text.trim()
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new DaemonServerConfigError(
      `listen.token_file ${listen.token_file}: the token must be at least ${MIN_TOKEN_LENGTH} characters`,
    )
  }
  return token
}

/** An HTTP error reply: status, stable code, message for people. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

const log = createLogger('daemon/server')
let nextInstance = 1

const INJECT_KINDS: readonly InjectKind[] = ['press', 'down', 'up', 'rotate', 'value']
/** `{surface}` as the config spells names; anything else cannot be configured. */
const SURFACE_NAME = /^[A-Za-z0-9_-]+$/
/** A decimal number as a person writes it (no hex, no blanks, no `Infinity`). */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/
const INTEGER = /^[+-]?\d+$/
/** `value` ranges by control kind (the table in `src/surfaces/types.ts`): the shuttle is centred. */
const CENTRED_KINDS: ReadonlySet<string> = new Set(['shuttle'])

const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

/** SHA-256 of a token, so that comparing needs no length check (which would leak the length). */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/** The value of one cookie from a `Cookie` header. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim())
      } catch {
        return undefined // not a cookie this server set
      }
    }
  }
  return undefined
}

/** The `Bearer` credential of an `Authorization` header (scheme case-insensitive). */
function bearer(header: string | undefined): string | undefined {
  const m = header === undefined ? null : /^Bearer[ \t]+(.*?)[ \t]*$/i.exec(header)
  return m?.[1]
}

/** Starts the server; resolves once it listens. Throws `DaemonServerConfigError` on a bad setup. */
export async function startDaemonServer(options: DaemonServerOptions): Promise<DaemonServer> {
  const limits: DaemonServerLimits = { ...DAEMON_SERVER_LIMITS, ...options.limits }
  const host = options.host ?? DEFAULT_LISTEN_HOST
  const tokenRequired = !isLoopbackAddress(host)
  if (tokenRequired && (options.token === undefined || options.token.trim() === '')) {
    throw new DaemonServerConfigError(
      `listen: ${host} is not a loopback address, so the API needs a token: set listen.token or listen.token_file ` +
        '(or bind 127.0.0.1)',
    )
  }
  const tokenDigest = tokenRequired ? digest(options.token!.trim()) : undefined
  const allowedHosts = hostSet(options.allowedHosts)
  const { api, web, metrics } = options
  // Faults are logged once per server (a hostile page may retry endlessly); a new server, after a
  // reload, logs them afresh.
  const instance = nextInstance++
  const onceKeys = new Set<string>()
  const once = (what: string, level: 'warn' | 'error', message: string, fields?: Record<string, unknown>): void => {
    const key = `server${instance}:${what}`
    onceKeys.add(key)
    log.once(key, level, message, fields)
  }

  const tokenMatches = (candidate: string | undefined): boolean =>
    candidate !== undefined && tokenDigest !== undefined && timingSafeEqual(digest(candidate), tokenDigest)

  const authorized = (req: IncomingMessage): boolean =>
    tokenMatches(bearer(req.headers.authorization)) || tokenMatches(cookieValue(req.headers.cookie, COOKIE_NAME))

  /** Host, Origin and token; throws the refusal. */
  const guard = (req: IncomingMessage): void => {
    if (!hostAllowed(req, allowedHosts)) {
      once('refused-host', 'warn', 'refused a request for a foreign Host (DNS rebinding?)', {
        host: req.headers.host,
      })
      throw new HttpError(403, 'FORBIDDEN_HOST', 'this Host is not served here')
    }
    const safe = req.method === 'GET' || req.method === 'HEAD'
    if (!safe && (!originAllowed(req) || !fetchSiteAllowed(req))) {
      once('refused-origin', 'warn', 'refused a request from a foreign origin', { origin: req.headers.origin })
      throw new HttpError(403, 'FORBIDDEN_ORIGIN', 'requests from other origins are refused')
    }
  }

  const requireToken = (req: IncomingMessage): void => {
    if (tokenRequired && !authorized(req)) {
      once('refused-token', 'warn', 'refused a request without a valid token')
      throw new HttpError(
        401,
        'UNAUTHORIZED',
        'a valid token is required (Authorization: Bearer, or open the page link with ?token=)',
        {
          'www-authenticate': 'Bearer realm="panelbridge"',
        },
      )
    }
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const head = req.method === 'HEAD'
    try {
      await readNoBody(req, limits.maxBodyBytes)
      guard(req)
      const url = new URL(req.url ?? '/', 'http://localhost')
      const path = url.pathname
      if (path === '/api' || path.startsWith('/api/')) {
        requireToken(req)
        if (path === '/api/events') return openEventStream(req, res, head)
        return sendJson(res, 200, routeApi(req.method ?? 'GET', path, url.searchParams), head)
      }
      if (path === '/metrics') {
        requireToken(req)
        allow(req, ['GET', 'HEAD'])
        if (!metrics) throw new HttpError(404, 'NOT_FOUND', 'metrics are not enabled')
        const text = await metrics.text()
        res.writeHead(200, {
          ...COMMON_HEADERS,
          'content-type': metrics.contentType,
          'content-length': Buffer.byteLength(text),
        })
        res.end(head ? undefined : text)
        return
      }
      if (tokenRequired && url.searchParams.has('token') && (req.method === 'GET' || head)) {
        return tokenLink(res, url)
      }
      requireToken(req)
      if (web && path === '/' && web.basePath !== '') {
        res.writeHead(302, { ...COMMON_HEADERS, location: `${web.basePath}/` }).end()
        return
      }
      if (web?.handleRequest(req, res)) return
      throw new HttpError(404, 'NOT_FOUND', 'no such page')
    } catch (err) {
      if (!(err instanceof HttpError)) throw err
      sendError(res, err, head)
    }
  }

  /** `?token=` on a page link: set the cookie and send the browser to the same page without it. */
  const tokenLink = (res: ServerResponse, url: URL): void => {
    const given = url.searchParams.get('token') ?? undefined
    if (!tokenMatches(given)) {
      once('bad-token-link', 'warn', 'refused a page link with a wrong token')
      throw new HttpError(401, 'UNAUTHORIZED', 'the token in this link is wrong')
    }
    url.searchParams.delete('token')
    res.writeHead(303, {
      ...COMMON_HEADERS,
      // The cookie holds the token itself: the server keeps no session state to lose on restart.
      'set-cookie': `${COOKIE_NAME}=${encodeURIComponent(given!)}; Path=/; HttpOnly; SameSite=Strict`,
      // One leading slash: `//host` would send the browser to another site.
      location: '/' + url.pathname.replace(/^\/+/, '') + url.search,
    })
    res.end()
  }

  /** Open `GET /api/events` streams, each with the function that stops it. */
  const streams = new Map<ServerResponse, () => void>()
  let heartbeat: NodeJS.Timeout | undefined

  /** Writes to an event stream; a reader that lets too much pile up is dropped. */
  const streamWrite = (res: ServerResponse, text: string): void => {
    if (res.destroyed) return
    res.write(text)
    if (res.writableLength > limits.maxEventStreamBufferBytes) {
      once('slow-event-stream', 'warn', 'dropped an event stream whose reader fell behind', {
        limitBytes: limits.maxEventStreamBufferBytes,
      })
      res.destroy()
    }
  }

  const openEventStream = (req: IncomingMessage, res: ServerResponse, head: boolean): void => {
    allow(req, ['GET', 'HEAD'])
    const watch = api.watchEvents?.bind(api)
    if (!watch) throw new HttpError(404, 'NOT_FOUND', 'this daemon offers no event stream')
    if (streams.size >= limits.maxEventStreams) {
      once('too-many-event-streams', 'warn', 'refused an event stream: too many open', {
        limit: limits.maxEventStreams,
      })
      throw new HttpError(503, 'TOO_MANY_STREAMS', `at most ${limits.maxEventStreams} event streams at once`)
    }
    res.writeHead(200, {
      ...COMMON_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      // A reverse proxy in front must pass events on as they come, not collect them.
      'x-accel-buffering': 'no',
    })
    if (head) {
      res.end()
      return
    }
    res.flushHeaders()
    const stop = watch((e) =>
      streamWrite(res, `event: ${e.type}\ndata: ${JSON.stringify(e.type === 'input' ? e.input : e.surface)}\n\n`),
    )
    const forget = (): void => {
      streams.delete(res)
      stop()
      if (streams.size === 0 && heartbeat) {
        clearInterval(heartbeat)
        heartbeat = undefined
      }
    }
    streams.set(res, forget)
    // The snapshot alone may have overrun a reader that never reads.
    if (res.destroyed) return forget()
    res.once('close', forget)
    heartbeat ??= setInterval(() => {
      for (const r of streams.keys()) streamWrite(r, ': keep-alive\n\n')
    }, limits.eventStreamHeartbeatMs).unref()
  }

  const routeApi = (method: string, path: string, query: URLSearchParams): unknown => {
    const segments = path.split('/').slice(2) // '' and 'api'
    if (segments.length === 1 && (segments[0] === 'status' || segments[0] === 'errors')) {
      allowMethod(method, ['GET', 'HEAD'])
      return segments[0] === 'status' ? api.status() : { errors: api.recentErrors() }
    }
    if (segments.length >= 4 && segments.length <= 5 && segments[0] === 'surfaces' && segments[2] === 'controls') {
      const action = segments[4]
      if (action !== undefined && !(INJECT_KINDS as readonly string[]).includes(action)) {
        throw new HttpError(
          404,
          'NOT_FOUND',
          `no such action ${JSON.stringify(action)}; use ${INJECT_KINDS.join(', ')}`,
        )
      }
      allowMethod(method, action === undefined ? ['GET', 'HEAD'] : ['POST'])
      const surface = decodeSegment(segments[1]!)
      const control = decodeSegment(segments[3]!)
      if (!SURFACE_NAME.test(surface)) {
        throw new HttpError(404, 'UNKNOWN_SURFACE', `no surface named ${JSON.stringify(surface)}`)
      }
      const parsed = parseControl(control)
      if (action === undefined) {
        const state = api.controlState(surface, control)
        if ('status' in state) throw refusal(state)
        return state
      }
      const kind = action as InjectKind
      const refused = api.inject(surface, control, kind, injectArgument(kind, parsed, query))
      if (refused) throw refusal(refused)
      return { ok: true }
    }
    throw new HttpError(404, 'NOT_FOUND', 'no such API route')
  }

  const server: Server = createServer(
    {
      maxHeaderSize: limits.maxHeaderBytes,
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node checks the two time-outs above every this often (30 s by default, too lax for them).
      connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, limits.headersTimeoutMs),
    },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        once('handler-error', 'error', 'the daemon server failed to answer a request', { err })
        if (!res.headersSent) sendError(res, new HttpError(500, 'INTERNAL', 'internal error'), req.method === 'HEAD')
        else res.destroy()
      })
    },
  )
  server.maxConnections = limits.maxConnections

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    try {
      guard(req)
      requireToken(req)
    } catch (err) {
      const status = (err as HttpError).status
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
      return
    }
    if (!web?.handleUpgrade(req, socket, head)) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
    }
  })
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    once('client-error', 'warn', 'bad HTTP request on the daemon port', { code: err.code })
    // As Node answers when nobody listens: 408 for a time-out, 431 for oversized headers, else 400.
    const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400
    if (socket.writable && socket.bytesWritten === 0) {
      socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
    }
    socket.destroy()
  })

  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })

  const port = options.port ?? DEFAULT_PANELBRIDGE_PORT
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  }).catch((err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message
    const why = code === 'EADDRINUSE' ? 'the port is in use' : code === 'EACCES' ? 'permission denied' : code
    throw new Error(`daemon server: cannot listen on ${host}:${port}: ${why}`, { cause: err })
  })
  server.on('error', (err) => log.error('daemon server error', { err }))
  const address = server.address() as AddressInfo
  const url = `http://${reachableHost(host)}:${address.port}/`
  log.info('daemon server listening', { url, tokenRequired })

  let closing: Promise<void> | undefined
  return {
    url,
    port: address.port,
    tokenRequired,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const key of onceKeys) log.clear(key)
        for (const forget of [...streams.values()]) forget()
        server.close(() => resolve())
        server.closeAllConnections()
        // Upgraded sockets (WebSockets) are no longer the HTTP server's to close.
        for (const socket of sockets) socket.destroy()
      })
      return closing
    },
  }
}

/** How a browser on this machine reaches a bind address: an unspecified one answers on loopback too. */
function reachableHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1'
  if (host === '::') return '[::1]'
  return isIP(host) === 6 ? `[${host}]` : host
}

function allow(req: IncomingMessage, methods: readonly string[]): void {
  allowMethod(req.method ?? 'GET', methods)
}

function allowMethod(method: string, methods: readonly string[]): void {
  if (!methods.includes(method)) {
    throw new HttpError(405, 'METHOD_NOT_ALLOWED', `use ${methods.filter((m) => m !== 'HEAD').join(' or ')}`, {
      allow: methods.join(', '),
    })
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    throw new HttpError(400, 'BAD_PATH', 'the path has a malformed percent-encoding')
  }
}

function parseControl(control: string): ParsedControlId {
  try {
    return parseControlId(control)
  } catch (err) {
    if (err instanceof ControlIdError) throw new HttpError(400, 'BAD_CONTROL_ID', err.message)
    throw err
  }
}

/** The number an event carries: `rotate?delta=N` (a non-zero integer), `value?value=X` (in the kind's range). */
function injectArgument(kind: InjectKind, control: ParsedControlId, query: URLSearchParams): number | undefined {
  if (kind === 'rotate') {
    const text = query.get('delta')
    const delta = text !== null && INTEGER.test(text) ? Number(text) : NaN
    if (!Number.isSafeInteger(delta) || delta === 0 || Math.abs(delta) > MAX_INJECT_ROTATE_DELTA) {
      throw new HttpError(
        400,
        'BAD_VALUE',
        `rotate needs ?delta=N, a non-zero integer from -${MAX_INJECT_ROTATE_DELTA} to ${MAX_INJECT_ROTATE_DELTA}`,
      )
    }
    return delta
  }
  if (kind === 'value') {
    const [min, max] = CENTRED_KINDS.has(control.kind) ? [-1, 1] : [0, 1]
    const text = query.get('value')
    const value = text !== null && DECIMAL.test(text) ? Number(text) : NaN
    if (!Number.isFinite(value) || value < min || value > max) {
      throw new HttpError(400, 'BAD_VALUE', `value needs ?value=X, a number from ${min} to ${max} for ${control.kind}`)
    }
    return value + 0 // -0 → 0
  }
  return undefined
}

function refusal(r: InjectRefusal): HttpError {
  return new HttpError(r.status, r.code, r.message)
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headOnly: boolean,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    ...COMMON_HEADERS,
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  })
  res.end(headOnly ? undefined : text)
}

function sendError(res: ServerResponse, err: HttpError, headOnly: boolean): void {
  // A refused body is left unread: close the connection rather than read on.
  if (err.status === 413) res.setHeader('connection', 'close')
  sendJson(res, err.status, { error: { code: err.code, message: err.message } }, headOnly, err.headers)
}

/**
 * Reads (and drops) a request body, refusing one larger than `max` bytes with 413. Requests without a
 * body (the usual case) resolve at once.
 */
function readNoBody(req: IncomingMessage, max: number): Promise<void> {
  const length = req.headers['content-length']
  const chunked = req.headers['transfer-encoding'] !== undefined
  if (!chunked && (length === undefined || length === '0')) return Promise.resolve()
  if (length !== undefined && Number(length) > max) {
    return Promise.reject(new HttpError(413, 'BODY_TOO_LARGE', `no route takes a request body (at most ${max} bytes)`))
  }
  return new Promise<void>((resolve, reject) => {
    let received = 0
    const onData = (chunk: Buffer): void => {
      received += chunk.length
      if (received > max) {
        cleanup()
        req.pause()
        reject(new HttpError(413, 'BODY_TOO_LARGE', `no route takes a request body (at most ${max} bytes)`))
      }
    }
    const onEnd = (): void => {
      cleanup()
      resolve()
    }
    const onError = (err: Error): void => {
      cleanup()
      reject(err)
    }
    const cleanup = (): void => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
  })
}
