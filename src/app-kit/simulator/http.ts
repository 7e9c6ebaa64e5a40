/**
 * The simulator's HTTP command interface:
 *
 * - `GET /api/command/<name>?<params>` — the contract's form;
 * - `POST /api/command/<name>?<params>` with the title variables as the JSON body (protocol notes 1.1);
 * - `POST /api` and `POST /api/` with `{command, parameters, variables}`, or `{action, input, title,
 *   variables}` for a scheduleAction (protocol notes 1.1).
 *
 * Every command answers HTTP 200 with JSON, errors included. Only a request that is not a command at
 * all (another path or method, an oversized body) gets a 4xx.
 */
import { HttpHooks } from './hooks.js'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { APP_ERRORS } from '../../api/protocol.js'
import { fetchSiteAllowed, hostAllowed, hostSet, isLoopbackAddress, originAllowed } from '../../http-guard.js'
import { createLogger } from '../../log.js'
import { isRecord } from '../../wire.js'
import type { RawParams } from './params.js'
import { httpReplyBody, shapeReply } from './profile-shapes.js'
import type { SimulatorState } from './state.js'
import { envelope, type Reply } from './types.js'
import { SIM_LIMITS } from './limits.js'

const log = createLogger('simulator/http')

/** Largest request line (query string included) plus headers, bytes; bigger is answered 431. */
const MAX_HEADER_BYTES = 64 * 1024
/** An idle keep-alive socket is closed after this. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000
const COMMAND_PATH = '/api/command/'

export interface HttpServerOptions {
  /**
   * Apply the Host rule of `src/http-guard.ts`. Default: on when bound to a loopback address; bound
   * elsewhere by choice, DNS names are expected. The Origin rules always apply.
   */
  checkHost?: boolean
  /** DNS names besides `localhost` accepted in `Host`. */
  allowedHosts?: string[]
  /** Default SIM_LIMITS.headersTimeoutMs. */
  headersTimeoutMs?: number
  /** Default SIM_LIMITS.requestTimeoutMs. */
  requestTimeoutMs?: number
  /** Test hooks: reply delays, in-flight counts, the command log. */
  hooks?: HttpHooks
}

export interface HttpServerHandle {
  server: Server
  hooks: HttpHooks
  url: string
  port: number
  close(): Promise<void>
}

/** A request that is not a command at all; `status` is the HTTP status it is answered with. */
export class HttpError extends Error {
  override readonly name = 'HttpError'
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/**
 * The body as text, at most SIM_LIMITS.maxBodyBytes. Past the cap, reading stops (nothing more is buffered)
 * and the promise rejects with a 413, which the caller sends before the socket is closed.
 */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const declared = Number(req.headers['content-length'])
    const tooLarge = (): void => {
      req.off('data', onData)
      req.pause()
      reject(new HttpError(413, 'request body too large'))
    }
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size > SIM_LIMITS.maxBodyBytes) tooLarge()
      else chunks.push(chunk)
    }
    // A declared length past the cap is refused before a byte of the body is read.
    if (Number.isFinite(declared) && declared > SIM_LIMITS.maxBodyBytes) return tooLarge()
    req.on('data', onData)
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

/** JSON body → object; an empty body is `{}`; anything else than a JSON object is undefined. */
function parseBody(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {}
  try {
    const value = JSON.parse(text) as unknown
    return isRecord(value) ? value : undefined
  } catch {
    return undefined // the caller answers 'bad request'
  }
}

/** Query parameters in an object without a prototype: a `__proto__` or `constructor` key is just a name. */
function queryParams(url: URL): RawParams {
  const params: RawParams = Object.create(null) as RawParams
  for (const [k, v] of url.searchParams) params[k] = v
  return params
}

function objectOr(value: unknown): RawParams {
  return isRecord(value) ? value : {}
}

/** A body that is not a command, answered as the profile answers every reply (`profile-shapes.ts`). */
function badRequest(state: SimulatorState, command: string, requestId?: unknown): Reply {
  return shapeReply(
    command,
    { result: { ...envelope(command, requestId), error: APP_ERRORS.badRequest } },
    state.profile.facts,
  )
}

/** Handles `POST /api`: a command, or a scheduleAction-shaped body. */
function dispatchApiBody(state: SimulatorState, body: Record<string, unknown>): Reply {
  const requestId = body.requestId
  if (typeof body.command === 'string') {
    const params = { ...objectOr(body.parameters) }
    if (typeof requestId === 'string' && params.requestId === undefined) params.requestId = requestId
    return state.dispatch(body.command, params, body.variables)
  }
  if (typeof body.action === 'string') {
    const params: RawParams = { action: body.action }
    if (typeof body.input === 'string' && body.input !== '') params.input = body.input
    if (typeof body.title === 'string' && body.title !== '') params.title = body.title
    if (typeof requestId === 'string') params.requestId = requestId
    return state.dispatch('schedule', params, body.variables)
  }
  return badRequest(state, '', requestId)
}

/** What a request line names: a command (`/api/command/<name>` and its query), `/api`, or nothing known. */
export type RequestTarget = { kind: 'command'; command: string; params: RawParams } | { kind: 'api' }

/**
 * Decodes a request's URL (path and query). Returns the target or throws HttpError (400 for a URL that
 * does not decode, 404 for another path), whatever the client sent.
 */
export function decodeRequestUrl(rawUrl: string): RequestTarget {
  let url: URL
  try {
    url = new URL(rawUrl, 'http://simulator')
  } catch {
    throw new HttpError(400, 'malformed URL')
  }
  if (url.pathname.startsWith(COMMAND_PATH)) {
    let command: string
    try {
      command = decodeURIComponent(url.pathname.slice(COMMAND_PATH.length))
    } catch {
      throw new HttpError(400, 'malformed command name') // a stray '%' in the path
    }
    return { kind: 'command', command, params: queryParams(url) }
  }
  if (url.pathname === '/api' || url.pathname === '/api/') return { kind: 'api' }
  throw new HttpError(404, 'not found')
}

async function route(state: SimulatorState, req: IncomingMessage, hooks: HttpHooks): Promise<Reply> {
  const target = decodeRequestUrl(req.url ?? '/')
  const method = req.method ?? 'GET'
  if (target.kind === 'command') {
    const { command, params } = target
    if (method === 'GET') return hooks.around(command, params, 'get', () => state.dispatch(command, params))
    if (method !== 'POST') throw new HttpError(405, 'method not allowed')
    const body = parseBody(await readBody(req))
    if (!body) return badRequest(state, command, params.requestId)
    // The body holds the variables, either bare or under `variables` (with `parameters` beside them).
    const merged = { ...objectOr(body.parameters), ...params }
    const variables = 'variables' in body || 'parameters' in body ? body.variables : body
    return hooks.around(command, merged, 'post', () => state.dispatch(command, merged, variables))
  }
  if (method !== 'POST') throw new HttpError(405, 'method not allowed')
  const body = parseBody(await readBody(req))
  if (!body) return badRequest(state, '')
  const name = typeof body.command === 'string' ? body.command : typeof body.action === 'string' ? 'schedule' : ''
  const logged = typeof body.command === 'string' ? objectOr(body.parameters) : { ...body }
  return hooks.around(name, logged, 'api', () => dispatchApiBody(state, body))
}

function send(res: ServerResponse, status: number, body: unknown, close = false): void {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    // Node ends the socket once this reply has been written (the rest of a body is not read).
    ...(close ? { connection: 'close' } : {}),
  })
  res.end(text)
}

/** What `clientError` answers before it closes the socket: the parser's verdict as a status line. */
function clientErrorReply(err: NodeJS.ErrnoException): string {
  const [status, text] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'HPE_HEADERS_TIMEOUT'
        ? [408, 'Request Timeout']
        : [400, 'Bad Request']
  const body = JSON.stringify({ error: text.toLowerCase() })
  return (
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}

/**
 * A `clientError` handler: the parser's verdict (431, 408, 400) is written before the socket closes,
 * so that the client learns why, instead of a bare reset.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if ((socket as Socket).writable && !(socket as Socket).writableEnded) socket.end(clientErrorReply(err))
  else socket.destroy()
}

/** The Host/Origin rules of `src/http-guard.ts`; a refusal names the rule. */
function refusal(req: IncomingMessage, checkHost: boolean, allowedHosts: ReadonlySet<string>): string | undefined {
  if (checkHost && !hostAllowed(req, allowedHosts)) return 'forbidden host'
  if (!originAllowed(req) || !fetchSiteAllowed(req)) return 'forbidden origin'
  return undefined
}

export async function startHttpServer(
  state: SimulatorState,
  port: number,
  host: string,
  options: HttpServerOptions = {},
): Promise<HttpServerHandle> {
  const checkHost = options.checkHost ?? isLoopbackAddress(host)
  const hooks = options.hooks ?? new HttpHooks()
  const allowedHosts = hostSet(options.allowedHosts)
  const headersTimeout = options.headersTimeoutMs ?? SIM_LIMITS.headersTimeoutMs
  const serverOptions = {
    maxHeaderSize: MAX_HEADER_BYTES,
    connectionsCheckingInterval: Math.min(SIM_LIMITS.connectionsCheckMs, headersTimeout),
  }
  const server = createServer(serverOptions, (req, res) => {
    const refused = refusal(req, checkHost, allowedHosts)
    if (refused) {
      log.once('refused-request', 'warn', 'refused a request from a foreign page', { reason: refused })
      send(res, 403, { error: refused })
      return
    }
    route(state, req, hooks).then(
      (reply) => send(res, 200, httpReplyBody(reply, state.profile.facts)),
      (err: unknown) => {
        if (err instanceof HttpError) {
          send(res, err.status, { error: err.message }, err.status === 413)
          return
        }
        log.error('request failed', { url: req.url, message: err instanceof Error ? err.message : String(err) })
        send(res, 500, { error: 'internal error' })
      },
    )
  })
  // Slow-loris sockets are cut by the server's own clock, not left to the system's.
  server.headersTimeout = headersTimeout
  server.requestTimeout = options.requestTimeoutMs ?? SIM_LIMITS.requestTimeoutMs
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS
  server.on('clientError', answerClientError)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  let closing: Promise<void> | undefined
  return {
    server,
    hooks,
    port: address.port,
    url: `http://${urlHost}:${address.port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      return closing
    },
  }
}
