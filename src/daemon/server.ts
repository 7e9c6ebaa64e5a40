/**
 * The daemon's one HTTP server: it listens and dispatches. Every request and upgrade passes the checks
 * of `auth.ts` (Host, Origin, token), then goes to its room: `/api/events` to the event stream
 * (`event-stream.ts`), `/api/record` to the recording's (`record-stream.ts`), the rest of `/api`, `/metrics` and the web page to the routes (`routes.ts`),
 * WebSocket upgrades to the web page server. The routes and their answers are listed in those files.
 *
 * Errors are `{ "error": { "code", "message" } }`: 400 bad value or control id, or an over-long
 * `Authorization`, 401 token missing or wrong, 403 Host refused (a browser asking for a page gets an
 * HTML page naming `listen.allowed_hosts` instead) or a cross-site request, 404 unknown path, surface or
 * control, 405 wrong method, 409 the surface is not open or the control does not take the event (or the
 * file changed under an edit), 413 a request body (only the editor's routes take one, of at most
 * MAX_EDIT_BODY_BYTES; declared or chunked, answered before the connection closes), 422 an edit the check
 * refused, 503
 * busy (too many event streams or page sockets, or of one client's, every connection answering, or one
 * that waited its turn behind its own client's past the header time-out), always with `Retry-After`.
 *
 * Security, in this order on every request:
 * 1. **Host**, then **cross-site**: a foreign `Origin` or `Sec-Fetch-Site: cross-site` is refused (403)
 *    on everything but the page's own document, which a link from anywhere may open (`auth.ts`, rules
 *    in `src/http-guard.ts`); before the request takes an event-stream or page-socket slot.
 * 2. **Token**, only when bound to anything but loopback (`auth.ts`). Without a token such a bind
 *    refuses to start.
 * 3. **Bounds** (DAEMON_SERVER_LIMITS): header size, header and request time-outs, and fair capacity
 *    (`connections.ts`): each client (remote address) has its connections read a few at a time, the
 *    rest of a flood of them waiting behind its own, and a share of the page sockets;
 *    plain requests, event streams and page sockets each have their own budget;
 *    when plain connections run out, the oldest pending or idle one is closed for the new one; a
 *    connection's pipelined requests are answered one at a time as its peer reads; a peer that does not
 *    read is closed after `writeStallTimeoutMs`.
 *
 * Faults are logged once per server through the logger it is given (a hostile page may retry
 * endlessly); a new server, after a reload, gets a new logger and logs them afresh.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { DEFAULT_LISTEN_HOST, DEFAULT_PANELBRIDGE_PORT } from '../defaults.js'
import { REFUSED_HOST_PAGE_CSP, refusedHostPage, requestTarget, wantsHtmlRefusal } from '../http-guard.js'
import { reachableHost } from '../listen-address.js'
import { createLogger, type Logger } from '../log.js'
import type { DaemonApi } from './api.js'
import { ServerAuth } from './auth.js'
import { Connections, rawBusyReply, type ConnectionLimits } from './connections.js'
import { EventStreams, type EventStreamLimits } from './event-stream.js'
import { RecordStreams } from './record-stream.js'
import {
  closeAfterBody,
  closeAfterHead,
  HttpError,
  rawReply,
  readJsonBody,
  readNoBody,
  sendError,
  sendHtml,
  sendJson,
} from './http.js'
import { MAX_EDIT_BODY_BYTES, Routes, takesBody, type MetricsSource, type MountedWebServer } from './routes.js'

/** Bounds of the server; every one overridable through `DaemonServerOptions.limits`. */
export interface DaemonServerLimits extends EventStreamLimits, ConnectionLimits {
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
  /**
   * After a 413, or a refused request head (431), how long the rest of what the client sends is read
   * (and dropped) before the connection is cut, ms.
   */
  bodyLingerMs: number
  /** After a refused request head, how much more of it is read and dropped before the connection is cut, bytes. */
  headLingerBytes: number
}

export const DAEMON_SERVER_LIMITS: Readonly<DaemonServerLimits> = {
  maxBodyBytes: 1024,
  maxHeaderBytes: 8 * 1024,
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 128,
  // ASSUMED: a burst of fresh clients (2,000 status checks at once) is let in up to here, as nothing
  // tells an honest one from a slow one before it had time to send; a few kB each, 4,096 sockets stay
  // well under the 120 MB the daemon may use. The listen backlog is as deep.
  maxConnectionBurst: 4096,
  // ASSUMED: a client on the LAN sends its request head within a round trip of connecting; one that has
  // not in 100 ms is a slow or silent one, and closed first when room is needed.
  pendingGraceMs: 100,
  // ASSUMED: a control room opens a page or two per screen; 64 leaves room for every tablet on the desk.
  maxPageSockets: 64,
  // ASSUMED: one machine shows the page on a few screens and tabs; 16 is more than any desk's machine
  // opens, and a quarter of the total, so one client never takes the page sockets of the others.
  maxPageSocketsPerClient: 16,
  // ASSUMED: a browser opens at most 6 connections to a host; 16 read at once serve a page, a status
  // poller and the CLI on one machine, and the rest of a flood waits behind its own.
  maxReadingPerClient: 16,
  // ASSUMED: half the burst, so that one client's flood (2,000 status checks at once) is held, not
  // refused, and still leaves half the room to everyone else.
  maxConnectionsPerClient: 2048,
  // ASSUMED: four socket high-water marks; a status answer fits many times, a font chunk once.
  pipelineBufferBytes: 64 * 1024,
  // ASSUMED: as long as a request may take (requestTimeoutMs); a reader on a slow link moves far sooner.
  writeStallTimeoutMs: 10_000,
  // ASSUMED: nginx's lingering_timeout is 5 s; a body this server refuses is at most a few MB on a LAN.
  bodyLingerMs: 2_000,
  // ASSUMED: a client's oversized head of a few MB (a 1 MB cookie, a runaway script) is drained so it
  // reads its 431; past this it is a flood, and cut.
  headLingerBytes: 4 * 1024 * 1024,
  maxEventStreams: 8,
  maxEventStreamBufferBytes: 256 * 1024,
  eventStreamHeartbeatMs: 15_000,
}

/** How often Node looks for requests past their header or request time-out, ms (at most). */
const CHECK_INTERVAL_MS = 1_000

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
  /**
   * DNS names besides `localhost` and the machine's own that may be used in `Host` (`listen.allowed_hosts`,
   * e.g. a name the box has on the LAN's DNS).
   */
  allowedHosts?: readonly string[]
  limits?: Partial<DaemonServerLimits>
  /** This server's own logger (default: a new `daemon/server` one): each fault is logged once on it. */
  logger?: Logger
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

/** The rooms a request is dispatched to. */
interface Rooms {
  auth: ServerAuth
  streams: EventStreams
  /** `GET /api/record` (`record-stream.ts`). */
  records: RecordStreams
  routes: Routes
  connections: Connections
  limits: DaemonServerLimits
  web: MountedWebServer | undefined
  log: Logger
}

/** Starts the server; resolves once it listens. Throws `DaemonServerConfigError` on a bad setup. */
export async function startDaemonServer(options: DaemonServerOptions): Promise<DaemonServer> {
  const limits: DaemonServerLimits = { ...DAEMON_SERVER_LIMITS, ...options.limits }
  const host = options.host ?? DEFAULT_LISTEN_HOST
  const log = options.logger ?? createLogger('daemon/server')
  const { api, web } = options
  const auth = new ServerAuth({
    host,
    ...(options.token !== undefined ? { token: options.token } : {}),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    log,
  })
  const rooms: Rooms = {
    auth,
    streams: new EventStreams({ api, limits, log }),
    records: new RecordStreams({ api, limits, log }),
    routes: new Routes({ api, ...(options.metrics ? { metrics: options.metrics } : {}), ...(web ? { web } : {}) }),
    connections: new Connections(limits, log),
    limits,
    web,
    log,
  }
  const server = createHttpServer(rooms, log)
  // Every socket is accepted paused: `connections.accept` reads it when its client has room (one client's
  // flood waits behind itself, not in front of the others). Node's net.Server reads this property at each
  // accept (the `pauseOnConnect` option, which http.createServer does not pass on).
  ;(server as Server & { pauseOnConnect: boolean }).pauseOnConnect = true
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => upgrade(rooms, req, socket, head))
  server.on('connection', (socket: Socket) => rooms.connections.accept(socket))
  const port = options.port ?? DEFAULT_PANELBRIDGE_PORT
  await listen(server, host, port, limits.maxConnectionBurst)
  server.on('error', (err) => log.error('daemon server error', { err }))
  const address = server.address() as AddressInfo
  const url = `http://${reachableHost(host)}:${address.port}/`
  log.info('daemon server listening', { url, tokenRequired: auth.tokenRequired })

  let closing: Promise<void> | undefined
  return {
    url,
    port: address.port,
    tokenRequired: auth.tokenRequired,
    close() {
      closing ??= new Promise<void>((resolve) => {
        rooms.streams.close()
        rooms.records.close()
        rooms.connections.close()
        server.close(() => resolve())
        server.closeAllConnections()
        // Upgraded sockets (WebSockets) are no longer the HTTP server's to close.
        for (const socket of [...rooms.connections.sockets()]) socket.destroy()
      })
      return closing
    },
  }
}

/** The HTTP server with its bounds, answering through `dispatch`, and bad requests answered as Node does. */
function createHttpServer(rooms: Rooms, log: Logger): Server {
  const { limits } = rooms
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
      // In the connection's turn: a pipelined request waits until the answer before it has gone out.
      rooms.connections.request(req, res, () => {
        dispatch(rooms, req, res).catch((err: unknown) => {
          log.once('handler-error', 'error', 'the daemon server failed to answer a request', { err })
          if (!res.headersSent) sendError(res, new HttpError(500, 'INTERNAL', 'internal error'), req.method === 'HEAD')
          else res.destroy()
        })
      })
    },
  )
  // Node may report one broken connection more than once (its parser sees each later chunk fail too).
  const answered = new WeakSet<Socket>()
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (answered.has(socket)) return
    answered.add(socket)
    log.once('client-error', 'warn', 'bad HTTP request on the daemon port', { code: err.code })
    if (!socket.writable || socket.bytesWritten > 0) return void socket.destroy()
    // A connection still waiting its turn behind its own client's timed out here, not at its sender: busy.
    if (rooms.connections.isWaiting(socket)) {
      return closeAfterHead(socket, rawBusyReply(), limits.bodyLingerMs, limits.headLingerBytes)
    }
    // As Node answers when nobody listens: 408 for a time-out, 431 for oversized headers, else 400.
    const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400
    closeAfterHead(socket, rawReply(status), limits.bodyLingerMs, limits.headLingerBytes)
  })
  return server
}

/** One request: the checks, then its room. A refusal (HttpError) is answered; anything else rejects. */
async function dispatch(rooms: Rooms, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { auth, routes } = rooms
  const head = req.method === 'HEAD'
  try {
    const url = requestTarget(req.url) ?? new URL('http://localhost/')
    const path = url.pathname
    auth.guard(req, isPageDocument(req, path, rooms.web))
    const method = req.method ?? 'GET'
    // The editor's writes and find take a JSON body, read once the token is checked; nothing else takes one.
    const withBody = takesBody(method, path)
    if (!withBody) await readNoBody(req, rooms.limits.maxBodyBytes)
    if (path === '/api' || path.startsWith('/api/')) {
      auth.requireToken(req)
      if (path === '/api/events') return openStream(rooms, req, res, head)
      if (path === '/api/record') return openRecordStream(rooms, req, res, head)
      const body = withBody ? await readJsonBody(req, MAX_EDIT_BODY_BYTES) : undefined
      return sendJson(res, 200, await routes.api(method, path, url.searchParams, body), head)
    }
    if (path === '/metrics') {
      auth.requireToken(req)
      return await routes.metrics(req, res, head)
    }
    if (auth.isTokenLink(req, url)) return auth.tokenLink(res, url)
    auth.requireToken(req)
    routes.page(req, res, path)
  } catch (err) {
    if (!(err instanceof HttpError)) throw err
    // A browser sent here under a name the box does not serve reads why, and the setting to change.
    if (err.code === 'FORBIDDEN_HOST' && wantsHtmlRefusal(req)) {
      return sendHtml(res, err.status, refusedHostPage(req.headers.host ?? ''), head, REFUSED_HOST_PAGE_CSP)
    }
    sendError(res, err, head)
    if (err.status === 413) closeAfterBody(req, res, rooms.limits.bodyLingerMs)
  }
}

/** `GET /api/events`: a stream that opens moves its connection to the event streams' own budget. */
function openStream(rooms: Rooms, req: IncomingMessage, res: ServerResponse, head: boolean): void {
  rooms.streams.open(req, res, head)
  if (!head && res.statusCode === 200 && !res.writableEnded) rooms.connections.streaming(req.socket)
}

/** `GET /api/record`: likewise, among the streams' budget. */
function openRecordStream(rooms: Rooms, req: IncomingMessage, res: ServerResponse, head: boolean): void {
  rooms.records.open(req, res, head)
  if (!head && res.statusCode === 200 && !res.writableEnded) rooms.connections.streaming(req.socket)
}

/**
 * The page's own document (`/`, its base path, `index.html`), which a link from any site may open: the
 * one thing a cross-site request may ask for. Its parts (script, style, fonts) come from the page itself.
 */
function isPageDocument(req: IncomingMessage, path: string, web: MountedWebServer | undefined): boolean {
  if (web === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return false
  const base = web.basePath
  return path === '/' || path === base || path === `${base}/` || path === `${base}/index.html`
}

/** A WebSocket upgrade: the same checks, room among the page sockets, then the web page server's, else 404. */
function upgrade(rooms: Rooms, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  // Node's HTTP server has let go of the socket and its error listener: a peer that resets the socket
  // of a refused upgrade must not end the daemon (the WebSocket server adds its own to those it takes).
  socket.on('error', () => socket.destroy())
  try {
    rooms.auth.guard(req, false)
    rooms.auth.requireToken(req)
  } catch (err) {
    socket.end(rawReply((err as HttpError).status))
    return
  }
  // Counted among the page sockets from here (a refused or unknown one closes, and leaves the count).
  const refused = rooms.connections.upgrade(req.socket)
  if (refused !== undefined) {
    const ofClient = refused === 'too-many-of-client'
    rooms.log.once(refused, 'warn', `refused a page socket: too many open${ofClient ? ' from one client' : ''}`, {
      limit: ofClient ? rooms.limits.maxPageSocketsPerClient : rooms.limits.maxPageSockets,
    })
    socket.end(rawBusyReply())
    return
  }
  if (!rooms.web?.handleUpgrade(req, socket, head)) socket.end(rawReply(404))
}

async function listen(server: Server, host: string, port: number, backlog: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    // A burst of clients waits in the kernel's queue rather than having its connections dropped.
    server.listen({ port, host, backlog }, () => {
      server.off('error', reject)
      resolve()
    })
  }).catch((err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message
    const why = code === 'EADDRINUSE' ? 'the port is in use' : code === 'EACCES' ? 'permission denied' : code
    throw new Error(`daemon server: cannot listen on ${host}:${port}: ${why}`, { cause: err })
  })
}
