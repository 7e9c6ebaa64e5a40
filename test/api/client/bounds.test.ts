/**
 * Issue 9, finding 2: the command client against hostile raw HTTP servers (node:net on port 0, bytes
 * written by hand). A reply past the size cap fails with REPLY_TOO_LARGE as soon as the cap is passed,
 * and the client stops reading (the server sees its socket closed long before it could send 600 MB);
 * time-outs fire while a body streams; deeply nested fields give the codes of their fields.
 * Cases from the former hardening-client.test.ts.
 */
import { createServer, type Socket } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { commandFailure } from '../../helpers/thrown.js'
import { CommandClient, CLIENT_DEFAULTS } from '../../../src/api/client.js'
import { parseReply } from '../../../src/api/codec.js'
import { ReplyTooLargeError, isCommandError } from '../../../src/api/errors.js'
import { deepJsonText } from '../../fuzz/harness.js'
import { clientFor, listen } from './harness.js'

const MB = 1024 * 1024
const HUGE = 600 * MB

interface Exchange {
  socket: Socket
  /** Request line, e.g. `GET /api/command/closeDesigner?requestId=... HTTP/1.1`. */
  requestLine: string
  requestId: string
  command: string
}
type Respond = (ex: Exchange) => void | Promise<void>

/** A raw HTTP/1.1 server: reads one request head per socket and lets `respond` write bytes. */
async function rawServer(respond: Respond): Promise<string> {
  const server = createServer((socket) => {
    onTestFinished(() => void socket.destroy())
    let head = ''
    socket.on('error', () => socket.destroy())
    socket.on('data', (data: Buffer) => {
      if (head.includes('\r\n\r\n')) return
      head += data.toString('latin1')
      if (!head.includes('\r\n\r\n')) return
      const requestLine = head.slice(0, head.indexOf('\r\n'))
      const url = new URL(requestLine.split(' ')[1]!, 'http://x')
      void respond({
        socket,
        requestLine,
        requestId: url.searchParams.get('requestId') ?? '',
        command: url.pathname.split('/').pop() ?? '',
      })
    })
  })
  return listen(server)
}

function client(baseUrl: string, options: { timeoutMs?: number; maxReplyBytes?: number } = {}): CommandClient {
  return clientFor(baseUrl, { timeoutMs: options.timeoutMs ?? 5000, ...options })
}

interface StreamResult {
  /** Body bytes the server managed to hand to its socket. */
  written: number
  /** True when the socket closed before the whole body was written. */
  cutShort: boolean
}

/**
 * Streams `total` body bytes as fast as the client reads them (or `chunk` bytes every `delayMs`),
 * with a content-length header or chunked. Stops when the client closes the socket.
 */
async function streamBody(
  socket: Socket,
  total: number,
  opts: { chunked: boolean; chunk?: number; delayMs?: number; declaredLength?: number },
): Promise<StreamResult> {
  const size = opts.chunk ?? 64 * 1024
  const piece = Buffer.alloc(size, 0x78)
  const framed = opts.chunked
    ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
    : piece
  let closed = false
  socket.once('close', () => (closed = true))
  socket.write(
    'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n' +
      (opts.chunked ? 'transfer-encoding: chunked\r\n' : `content-length: ${opts.declaredLength ?? total}\r\n`) +
      '\r\n',
  )
  let written = 0
  while (written < total && !closed) {
    const ok = socket.write(framed)
    written += size
    if (!ok && !closed) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          socket.off('drain', done)
          socket.off('close', done)
          resolve()
        }
        socket.on('drain', done)
        socket.on('close', done)
      })
    }
    if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs))
  }
  if (!closed && opts.chunked) socket.end('0\r\n\r\n')
  return { written, cutShort: closed && written < total }
}

/** Runs one hostile body against a client and returns the error and what the server wrote. */
async function hostileBody(
  total: number,
  opts: { chunked: boolean; chunk?: number; delayMs?: number; declaredLength?: number },
  clientOptions: { timeoutMs?: number; maxReplyBytes?: number } = {},
) {
  let streamed: Promise<StreamResult> | undefined
  const url = await rawServer((ex) => {
    streamed = streamBody(ex.socket, total, opts)
  })
  const err = await commandFailure(client(url, clientOptions).call('closeDesigner'))
  const server = await streamed!
  return { err, server }
}

describe('reply size cap', () => {
  it('CLIENT_DEFAULTS.maxReplyBytes is a few MB', () => {
    expect(CLIENT_DEFAULTS.maxReplyBytes).toBeGreaterThanOrEqual(1 * MB)
    expect(CLIENT_DEFAULTS.maxReplyBytes).toBeLessThanOrEqual(16 * MB)
  })

  it('refuses a 600 MB chunked body streamed quickly with REPLY_TOO_LARGE, and stops reading it', async () => {
    const { err, server } = await hostileBody(HUGE, { chunked: true }, { timeoutMs: 10_000 })
    expect(err.code).toBe('REPLY_TOO_LARGE')
    expect(err).toBeInstanceOf(ReplyTooLargeError)
    expect((err as ReplyTooLargeError).limitBytes).toBe(CLIENT_DEFAULTS.maxReplyBytes)
    // The client closed the socket: the server could not hand over more than the cap plus socket buffers.
    expect(server.cutShort).toBe(true)
    expect(server.written).toBeLessThan(CLIENT_DEFAULTS.maxReplyBytes + 32 * MB)
  })

  it('refuses a 600 MB chunked body streamed slowly as soon as the cap is passed, well within the time-out', async () => {
    const { err, server } = await hostileBody(
      HUGE,
      { chunked: true, chunk: 256 * 1024, delayMs: 5 },
      { timeoutMs: 20_000, maxReplyBytes: 2 * MB },
    )
    // REPLY_TOO_LARGE, not TIMEOUT: the cap was met before the time-out, whatever the machine's speed.
    expect(err.code).toBe('REPLY_TOO_LARGE')
    expect(server.cutShort).toBe(true)
    expect(server.written).toBeLessThan(2 * MB + 32 * MB)
  })

  it('refuses a body whose content-length passes the cap before reading any of it', async () => {
    const { err, server } = await hostileBody(HUGE, { chunked: false }, { timeoutMs: 10_000 })
    expect(err.code).toBe('REPLY_TOO_LARGE')
    expect((err as ReplyTooLargeError).receivedBytes).toBe(0)
    expect(server.cutShort).toBe(true)
    expect(server.written).toBeLessThan(32 * MB)
  })

  it('refuses a body longer than its content-length, keeping nothing past the cap', async () => {
    // Declares a small length, as a broken server might; undici refuses the excess, and nothing past
    // the cap is ever kept.
    const { err, server } = await hostileBody(
      8 * MB,
      { chunked: false, declaredLength: 100 },
      { maxReplyBytes: 1 * MB },
    )
    expect(['NETWORK', 'BAD_JSON']).toContain(err.code)
    expect(server.written).toBeLessThan(8 * MB + 1)
  })

  it('honours a per-client maxReplyBytes: a reply under it passes, one byte over fails', async () => {
    const url = await rawServer((ex) => {
      const body = JSON.stringify({
        result: { command: ex.command, reply: ex.command, success: true, requestId: ex.requestId, time: '12:00' },
      })
      ex.socket.end(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      )
    })
    const generous = client(url, { maxReplyBytes: 10_000 })
    expect((await generous.request('closeDesigner')).raw).toMatchObject({ time: '12:00' })
    const tight = client(url, { maxReplyBytes: 50 })
    expect((await commandFailure(tight.call('closeDesigner'))).code).toBe('REPLY_TOO_LARGE')
  })
})

describe('time-outs while a body streams', () => {
  it('fires TIMEOUT while a small body trickles in, and closes the socket', async () => {
    const { err, server } = await hostileBody(
      100 * 1024,
      { chunked: true, chunk: 100, delayMs: 20 },
      { timeoutMs: 300 },
    )
    expect(err.code).toBe('TIMEOUT')
    // Cut short: the time-out ended it before the body had all come.
    expect(server.cutShort).toBe(true)
  })
})

describe('deeply nested replies', () => {
  const envelope = (ex: Exchange, result: string): string => {
    const body = `{"result":{${result}}}`
    return `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  }

  it('a requestId nested 100,000 deep gives REQUEST_ID_MISMATCH', async () => {
    const url = await rawServer((ex) => {
      ex.socket.end(envelope(ex, `"command":"closeDesigner","requestId":${deepJsonText(100_000)}`))
    })
    expect((await commandFailure(client(url).call('closeDesigner'))).code).toBe('REQUEST_ID_MISMATCH')
  })

  it('a command nested 100,000 deep gives BAD_ENVELOPE', async () => {
    const url = await rawServer((ex) => {
      ex.socket.end(envelope(ex, `"requestId":"${ex.requestId}","command":${deepJsonText(100_000)}`))
    })
    expect((await commandFailure(client(url).call('closeDesigner'))).code).toBe('BAD_ENVELOPE')
  })

  it('an error or another field nested 100,000 deep gives BAD_ENVELOPE, not NETWORK', async () => {
    const url = await rawServer((ex) => {
      const field = ex.requestId.endsWith('1') ? 'error' : 'time'
      ex.socket.end(
        envelope(ex, `"requestId":"${ex.requestId}","command":"closeDesigner","${field}":${deepJsonText(100_000)}`),
      )
    })
    const c = client(url)
    expect((await commandFailure(c.call('closeDesigner'))).code).toBe('BAD_ENVELOPE')
    expect((await commandFailure(c.call('closeDesigner'))).code).toBe('BAD_ENVELOPE')
  })

  it('parseReply, the pure reply parser, gives the same codes', () => {
    const deep = deepJsonText(100_000)
    const code = (body: string, status = 200): string | undefined => {
      try {
        parseReply('closeDesigner', status, body, 'id-1')
        return undefined
      } catch (err) {
        return isCommandError(err) ? err.code : `not typed: ${String(err)}`
      }
    }
    expect(code(`{"result":{"requestId":${deep}}}`)).toBe('REQUEST_ID_MISMATCH')
    expect(code(`{"result":{"command":${deep}}}`)).toBe('BAD_ENVELOPE')
    expect(code(`{"result":{"time":"x","nested":${deep}}}`)).toBe('BAD_ENVELOPE')
    expect(code(deep)).toBe('BAD_ENVELOPE')
    expect(code('{"result":{"time":"12:00","requestId":"id-1"}}')).toBeUndefined()
    expect(code('nope')).toBe('BAD_JSON')
    expect(code('x', 500)).toBe('HTTP_STATUS')
  })
})
