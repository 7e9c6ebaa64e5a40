/**
 * The simulator's HTTP side under hostile clients (issue 9, findings 6 and 7): raw sockets on port 0,
 * so that what the server writes before it closes is seen byte for byte.
 * Cases from the former http-hardening.test.ts.
 */
import { connect } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { startHttpServer } from '../../../../src/app-kit/simulator/http.js'
import { SIM_LIMITS } from '../../../../src/app-kit/simulator/limits.js'
import { type SimulatorHandle } from '../../../../src/app-kit/simulator/index.js'
import { simulatorForTest } from '../helpers.js'

const sim = (): Promise<SimulatorHandle> => simulatorForTest(10)

interface Exchange {
  /** Everything the server wrote before the socket closed. */
  text: string
  status: string
  body: string
}

/** Writes `parts` on a raw socket and collects what comes back until the server closes it. */
function exchange(port: number, parts: (string | Buffer)[]): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    onTestFinished(() => void socket.destroy())
    const chunks: Buffer[] = []
    socket.on('data', (d: Buffer) => chunks.push(d))
    const done = (): void => {
      const text = Buffer.concat(chunks).toString('latin1')
      const cut = text.indexOf('\r\n\r\n')
      resolve({ text, status: text.split('\r\n')[0] ?? '', body: cut >= 0 ? text.slice(cut + 4) : '' })
    }
    socket.on('close', done)
    // The server may reset the socket while a large body is still being written; what it wrote first counts.
    socket.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' || err.code === 'EPIPE' ? done() : reject(err),
    )
    for (const p of parts) socket.write(p)
  })
}

async function stillServes(s: SimulatorHandle): Promise<void> {
  const reply = (await (await fetch(`${s.httpUrl}/api/command/getVideoFormat`)).json()) as { result: object }
  expect(reply.result).toHaveProperty('width')
}

describe('simulator HTTP: oversized requests get a real reply (finding 7)', () => {
  it('a body declared past the cap is answered 413 before the socket closes', async () => {
    const s = await sim()
    const size = SIM_LIMITS.maxBodyBytes * 2
    const r = await exchange(s.httpPort, [
      `POST /api/command/schedule?action=update HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      Buffer.alloc(SIM_LIMITS.maxBodyBytes + 64 * 1024, 0x20),
    ])
    expect(r.status).toBe('HTTP/1.1 413 Payload Too Large')
    expect(JSON.parse(r.body)).toEqual({ error: 'request body too large' })
    await stillServes(s)
  })

  it('a chunked body that grows past the cap is answered 413', async () => {
    const s = await sim()
    const chunk = Buffer.alloc(256 * 1024, 0x20)
    const parts: (string | Buffer)[] = [
      'POST /api HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    ]
    for (let sent = 0; sent <= SIM_LIMITS.maxBodyBytes; sent += chunk.length)
      parts.push(`${chunk.length.toString(16)}\r\n`, chunk, '\r\n')
    const r = await exchange(s.httpPort, parts)
    expect(r.status).toBe('HTTP/1.1 413 Payload Too Large')
    await stillServes(s)
  })

  it('a query string past the header cap is answered 431', async () => {
    const s = await sim()
    const r = await exchange(s.httpPort, [
      `GET /api/command/readTitle?title=${'a'.repeat(128 * 1024)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    ])
    expect(r.status).toBe('HTTP/1.1 431 Request Header Fields Too Large')
    await stillServes(s)
  })

  it('a request whose headers never end is answered 408 and cut (the server sets its own time-out)', async () => {
    const s = await sim()
    const http = await startHttpServer(s.state, 0, '127.0.0.1', { headersTimeoutMs: 200 })
    onTestFinished(() => http.close())
    const r = await exchange(http.port, ['GET /api/command/getVideoFormat HTTP/1.1\r\nHost: 127.0.0.1\r\n'])
    expect(r.status).toBe('HTTP/1.1 408 Request Timeout')
  })

  it('the default time-outs are the named constants', async () => {
    const s = await sim()
    const http = await startHttpServer(s.state, 0, '127.0.0.1')
    onTestFinished(() => http.close())
    expect(http.server.headersTimeout).toBe(SIM_LIMITS.headersTimeoutMs)
    expect(http.server.requestTimeout).toBe(SIM_LIMITS.requestTimeoutMs)
  })
})

describe('simulator HTTP: foreign pages are refused (finding 6)', () => {
  const get = (port: number, headers: string[]): Promise<Exchange> =>
    exchange(port, [`GET /api/command/getVideoFormat HTTP/1.1\r\n${headers.join('\r\n')}\r\nConnection: close\r\n\r\n`])

  it('a DNS Host other than localhost (DNS rebinding) is refused with 403', async () => {
    const s = await sim()
    const r = await get(s.httpPort, [`Host: evil.example:${s.httpPort}`])
    expect(r.status).toBe('HTTP/1.1 403 Forbidden')
    expect(JSON.parse(r.body)).toEqual({ error: 'forbidden host' })
    expect((await get(s.httpPort, [`Host: localhost:${s.httpPort}`])).status).toBe('HTTP/1.1 200 OK')
    expect((await get(s.httpPort, [`Host: 127.0.0.1:${s.httpPort}`])).status).toBe('HTTP/1.1 200 OK')
  })

  it('a foreign Origin, or a cross-site request a page made (an <img>), is refused with 403', async () => {
    const s = await sim()
    const host = `Host: 127.0.0.1:${s.httpPort}`
    const foreign = await get(s.httpPort, [host, 'Origin: http://evil.example'])
    expect(foreign.status).toBe('HTTP/1.1 403 Forbidden')
    expect(JSON.parse(foreign.body)).toEqual({ error: 'forbidden origin' })
    expect((await get(s.httpPort, [host, 'Sec-Fetch-Site: cross-site'])).status).toBe('HTTP/1.1 403 Forbidden')
    expect((await get(s.httpPort, [host, `Origin: http://127.0.0.1:${s.httpPort}`])).status).toBe('HTTP/1.1 200 OK')
    expect((await get(s.httpPort, [host, 'Sec-Fetch-Site: same-origin'])).status).toBe('HTTP/1.1 200 OK')
  })

  it('the WebSocket side refuses a foreign Origin as well', async () => {
    const s = await sim()
    const r = await exchange(s.wsPort, [
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:${s.wsPort}\r\nOrigin: http://evil.example\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    ])
    expect(r.status).toBe('HTTP/1.1 403 Forbidden')
  })

  it('bound elsewhere by choice (checkHost off), DNS hosts are served; foreign origins still are not', async () => {
    const s = await sim()
    const http = await startHttpServer(s.state, 0, '127.0.0.1', { checkHost: false })
    onTestFinished(() => http.close())
    expect((await get(http.port, ['Host: studio-box.lan'])).status).toBe('HTTP/1.1 200 OK')
    expect((await get(http.port, ['Host: studio-box.lan', 'Origin: http://evil.example'])).status).toBe(
      'HTTP/1.1 403 Forbidden',
    )
  })

  it('allowedHosts admits a named DNS host', async () => {
    const s = await sim()
    const http = await startHttpServer(s.state, 0, '127.0.0.1', { allowedHosts: ['Studio-Box.lan'] })
    onTestFinished(() => http.close())
    expect((await get(http.port, ['Host: studio-box.lan'])).status).toBe('HTTP/1.1 200 OK')
  })
})

describe('simulator HTTP: client-keyed names are names (finding 3, HTTP side)', () => {
  it('query keys such as __proto__ and constructor neither crash nor stand in for parameters', async () => {
    const s = await sim()
    const r = (await (
      await fetch(`${s.httpUrl}/api/command/readTitle?__proto__=x&constructor=y&toString=z&hasOwnProperty=1`)
    ).json()) as { result: { titles: unknown[]; error?: string } }
    expect(r.result.error).toBeUndefined()
    expect(r.result.titles.length).toBe(s.state.titles.length)
    const body = { command: 'readTitle', parameters: { __proto__: { title: 'x' }, constructor: { a: 1 } } }
    const res = await fetch(`${s.httpUrl}/api`, { method: 'POST', body: JSON.stringify(body) })
    expect(((await res.json()) as { result: { titles: unknown[] } }).result.titles.length).toBe(s.state.titles.length)
  })

  it('a parameter nested too deep to write as text is "invalid params", not an internal error', async () => {
    const s = await sim()
    const deep = '['.repeat(20_000) + ']'.repeat(20_000)
    const res = await fetch(`${s.httpUrl}/api`, {
      method: 'POST',
      body: `{"command":"getPlayStatus","parameters":{"id":${deep}}}`,
    })
    expect(((await res.json()) as { result: { error: string } }).result.error).toBe('invalid params')
  })
})
