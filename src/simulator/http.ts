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
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { APP_ERRORS } from '../api/protocol.js'
import { createLogger } from '../log.js'
import { isRecord } from '../wire.js'
import type { RawParams } from './params.js'
import type { SimulatorState } from './state.js'
import { envelope, type Reply } from './types.js'

const log = createLogger('simulator/http')

/** Largest request body accepted, bytes. */
const MAX_BODY_BYTES = 1024 * 1024
const COMMAND_PATH = '/api/command/'

export interface HttpServerHandle {
  server: Server
  url: string
  port: number
  close(): Promise<void>
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, 'request body too large'))
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
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

function queryParams(url: URL): RawParams {
  const params: RawParams = {}
  for (const [k, v] of url.searchParams) params[k] = v
  return params
}

function objectOr(value: unknown): RawParams {
  return isRecord(value) ? value : {}
}

function badRequest(command: string, requestId?: unknown): Reply {
  return { result: { ...envelope(command, requestId), error: APP_ERRORS.badRequest } }
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
  return badRequest('', requestId)
}

async function route(state: SimulatorState, req: IncomingMessage): Promise<Reply> {
  const url = new URL(req.url ?? '/', 'http://simulator')
  const method = req.method ?? 'GET'
  if (url.pathname.startsWith(COMMAND_PATH)) {
    let command: string
    try {
      command = decodeURIComponent(url.pathname.slice(COMMAND_PATH.length))
    } catch {
      throw new HttpError(400, 'malformed command name') // a stray '%' in the path
    }
    const params = queryParams(url)
    if (method === 'GET') return state.dispatch(command, params)
    if (method !== 'POST') throw new HttpError(405, 'method not allowed')
    const body = parseBody(await readBody(req))
    if (!body) return badRequest(command, params.requestId)
    // The body holds the variables, either bare or under `variables` (with `parameters` beside them).
    const merged = { ...objectOr(body.parameters), ...params }
    return state.dispatch(command, merged, 'variables' in body || 'parameters' in body ? body.variables : body)
  }
  if (url.pathname === '/api' || url.pathname === '/api/') {
    if (method !== 'POST') throw new HttpError(405, 'method not allowed')
    const body = parseBody(await readBody(req))
    return body ? dispatchApiBody(state, body) : badRequest('')
  }
  throw new HttpError(404, 'not found')
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}

export async function startHttpServer(state: SimulatorState, port: number, host: string): Promise<HttpServerHandle> {
  const server = createServer((req, res) => {
    route(state, req).then(
      (reply) => send(res, 200, reply),
      (err: unknown) => {
        if (err instanceof HttpError) {
          send(res, err.status, { error: err.message })
          return
        }
        log.error('request failed', { url: req.url, message: err instanceof Error ? err.message : String(err) })
        send(res, 500, { error: 'internal error' })
      },
    )
  })
  server.on('clientError', (_err, socket) => socket.destroy())
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
