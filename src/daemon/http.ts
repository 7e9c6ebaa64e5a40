/**
 * What the daemon server's parts share to answer: the error reply (`{ "error": { "code", "message" } }`
 * with a stable code; every 503 asks to come back after RETRY_AFTER_SECONDS), JSON replies, the method
 * check and the request-body guard.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'

/** An HTTP error reply: status, stable code, message for people. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    /** More fields of the error object (the editor's `hash`, `problems`, `reason`). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message)
  }
}

/**
 * Seconds a client told 503 (busy) is asked to wait (`Retry-After`). ASSUMED: one second, as the page's
 * fallback fonts already say; long enough for a slot to free, short enough for a status check.
 */
export const RETRY_AFTER_SECONDS = 1

/** Headers on every answer of the daemon's own (the web page server sets its own). */
export const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

/** 405 unless `method` is one of `methods`. */
export function allowMethod(method: string, methods: readonly string[]): void {
  if (!methods.includes(method)) {
    throw new HttpError(405, 'METHOD_NOT_ALLOWED', `use ${methods.filter((m) => m !== 'HEAD').join(' or ')}`, {
      allow: methods.join(', '),
    })
  }
}

export function allow(req: IncomingMessage, methods: readonly string[]): void {
  allowMethod(req.method ?? 'GET', methods)
}

export function sendJson(
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

export function sendError(res: ServerResponse, err: HttpError, headOnly: boolean): void {
  const headers = err.status === 503 ? { 'retry-after': String(RETRY_AFTER_SECONDS), ...err.headers } : err.headers
  sendJson(res, err.status, { error: { code: err.code, message: err.message, ...err.details } }, headOnly, headers)
}

/**
 * After a refused body (413): the rest of it is read and dropped, then the connection is closed. Closing
 * with bytes unread would reset the connection, and a peer still sending may lose the answer with it
 * (RFC 9112 §9.6, "lingering close"); a body that does not end within `ms` is cut then.
 */
export function closeAfterBody(req: IncomingMessage, res: ServerResponse, ms: number): void {
  const socket = req.socket
  const cut = setTimeout(() => socket.destroy(), ms)
  cut.unref()
  let ended = req.complete
  let sent = res.writableFinished
  const close = (): void => {
    if (!ended || !sent) return
    clearTimeout(cut)
    socket.end()
  }
  socket.once('close', () => clearTimeout(cut))
  req.once('end', () => {
    ended = true
    close()
  })
  res.once('finish', () => {
    sent = true
    close()
  })
  req.resume()
  close()
}

/**
 * After a refused request head (431, 400, 408, on a socket Node no longer reads as HTTP): the answer is
 * written and the connection half-closed, and what the client still sends is read and dropped for at
 * most `ms` and `maxBytes`, so that a client still sending its oversized head reads the answer instead
 * of a reset (the lingering close of `closeAfterBody`). Past either bound the connection is cut.
 */
export function closeAfterHead(socket: Duplex, reply: string, ms: number, maxBytes: number): void {
  const cut = setTimeout(() => socket.destroy(), ms)
  cut.unref()
  socket.once('close', () => clearTimeout(cut))
  let left = maxBytes
  socket.on('data', (chunk: Buffer) => {
    left -= chunk.length
    if (left < 0) socket.destroy()
  })
  socket.end(reply)
  socket.resume()
}

/** An HTML page of the daemon's own (a refusal a browser reads), under the policy `csp`. */
export function sendHtml(res: ServerResponse, status: number, html: string, headOnly: boolean, csp: string): void {
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'content-security-policy': csp,
  })
  res.end(headOnly ? undefined : html)
}

/** A bare answer written on a socket that is no longer an HTTP exchange (a refused upgrade, a bad request). */
export function rawReply(status: number): string {
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`
}

/**
 * Reads a request body as it arrives, handing each chunk to `keep`, and refuses it with `tooLarge` once
 * more than `max` bytes came (the socket paused, nothing more read). The one reader under both kinds of
 * route: those that take no body and those that take JSON.
 */
function readBody(
  req: IncomingMessage,
  max: number,
  tooLarge: () => HttpError,
  keep?: (chunk: Buffer) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let received = 0
    const onData = (chunk: Buffer): void => {
      received += chunk.length
      if (received > max) {
        cleanup()
        req.pause()
        reject(tooLarge())
        return
      }
      keep?.(chunk)
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

/**
 * Reads (and drops) a request body, refusing one larger than `max` bytes with 413. Requests without a
 * body (the usual case) resolve at once.
 */
export function readNoBody(req: IncomingMessage, max: number): Promise<void> {
  const length = req.headers['content-length']
  const chunked = req.headers['transfer-encoding'] !== undefined
  if (!chunked && (length === undefined || length === '0')) return Promise.resolve()
  const tooLarge = (): HttpError =>
    new HttpError(413, 'BODY_TOO_LARGE', `no route takes a request body (at most ${max} bytes)`)
  if (length !== undefined && Number(length) > max) return Promise.reject(tooLarge())
  return readBody(req, max, tooLarge)
}

/**
 * Reads a JSON request body of at most `max` bytes (413 beyond, declared or as it arrives; 400 when it is
 * not JSON, 415 when it is declared as anything else). An empty body is undefined.
 */
export async function readJsonBody(req: IncomingMessage, max: number): Promise<unknown> {
  const tooLarge = (): HttpError =>
    new HttpError(413, 'BODY_TOO_LARGE', `the request body is over ${max} bytes, the most this route takes`)
  const length = req.headers['content-length']
  if (length !== undefined && Number(length) > max) throw tooLarge()
  const type = req.headers['content-type']
  if (type !== undefined && !/^application\/json\s*(;|$)/i.test(type))
    throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json')
  const chunks: Buffer[] = []
  await readBody(req, max, tooLarge, (chunk) => chunks.push(chunk))
  const text = Buffer.concat(chunks).toString('utf8')
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new HttpError(400, 'BAD_JSON', 'the request body is not JSON')
  }
}
