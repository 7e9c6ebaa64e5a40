/**
 * The daemon's one HTTP server on real sockets (port 0): every status code of the remote API, the
 * Host, Origin and token checks, the bounds, `/metrics`, and the web page mounted in it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect as netConnect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import { PrometheusMetrics } from '../../src/daemon/metrics.js'
import { AUTH, DaemonServerConfigError, readListenToken } from '../../src/daemon/auth.js'
import {
  DAEMON_SERVER_LIMITS,
  startDaemonServer,
  type DaemonServer,
  type DaemonServerOptions,
} from '../../src/daemon/server.js'
import { WebSurfaceServer } from '../../src/surfaces/web/server.js'
import { WebSurface } from '../../src/surfaces/web/web-surface.js'
import { call, fileLogs, sampleDaemon, TOKEN, type FakeDaemon } from './helpers.js'

const CONTROL = '/api/surfaces/console/controls'

const records = fileLogs()
let daemon: FakeDaemon
const servers: DaemonServer[] = []
const closers: (() => Promise<void>)[] = []

async function start(options: Partial<DaemonServerOptions> = {}): Promise<DaemonServer> {
  const server = await startDaemonServer({ api: daemon, port: 0, ...options })
  servers.push(server)
  return server
}

/** The base URL to reach a server on this machine, whatever it is bound to. */
function local(server: DaemonServer): string {
  return `http://127.0.0.1:${server.port}/`
}

beforeEach(() => {
  daemon = sampleDaemon()
})
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

function errorOf(json: unknown): { code: string; message: string } {
  const e = (json as { error?: { code: string; message: string } }).error
  if (!e) throw new Error(`not an error body: ${JSON.stringify(json)}`)
  expect(Object.keys(json as object)).toEqual(['error'])
  expect(typeof e.message).toBe('string')
  expect(e.message.length).toBeGreaterThan(0)
  return e
}

describe('remote API: 200', () => {
  it('GET /api/status answers the daemon status as JSON', async () => {
    daemon.simulated = true
    const s = await start()
    const r = await call(s.url, 'GET', '/api/status')
    expect(r.status).toBe(200)
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(r.headers['cache-control']).toBe('no-store')
    expect(r.json).toEqual(daemon.status())
    expect(r.json).toMatchObject({
      simulated: true,
      surfaces: [
        { name: 'console', driver: 'web', state: 'open' },
        { name: 'desk', driver: 'streamdeck', state: 'waiting' },
      ],
    })
  })

  it('GET a control answers its state flat, with `key:3` and `key%3A3` alike', async () => {
    const s = await start()
    const plain = await call(s.url, 'GET', `${CONTROL}/key:3`)
    const encoded = await call(s.url, 'GET', `${CONTROL}/key%3A3`)
    expect(plain.status).toBe(200)
    expect(plain.json).toEqual({
      surface: 'console',
      control: 'key:3',
      page: null,
      label: 'Cam 3',
      color: '#00ff00',
      badge: 'stale',
      detail: 'no tally yet',
    })
    expect(encoded.status).toBe(200)
    expect(encoded.json).toEqual(plain.json)
  })

  it('POST press, down, up, rotate and value inject the event and answer {"ok":true}', async () => {
    const s = await start()
    const posts = [
      `${CONTROL}/key:0/press`,
      `${CONTROL}/key%3A3/down`,
      `${CONTROL}/key:3/up`,
      `${CONTROL}/jog/rotate?delta=-3`,
      `${CONTROL}/fader:0/value?value=0.25`,
      `${CONTROL}/shuttle/value?value=-0.5`,
      `${CONTROL}/shuttle/value?value=-0`,
    ]
    for (const path of posts) {
      const r = await call(s.url, 'POST', path)
      expect(r.status, path).toBe(200)
      expect(r.json, path).toEqual({ ok: true })
    }
    expect(daemon.injections).toEqual([
      { surface: 'console', control: 'key:0', kind: 'press' },
      { surface: 'console', control: 'key:3', kind: 'down' },
      { surface: 'console', control: 'key:3', kind: 'up' },
      { surface: 'console', control: 'jog', kind: 'rotate', arg: -3 },
      { surface: 'console', control: 'fader:0', kind: 'value', arg: 0.25 },
      { surface: 'console', control: 'shuttle', kind: 'value', arg: -0.5 },
      { surface: 'console', control: 'shuttle', kind: 'value', arg: 0 },
    ])
    expect(Object.is((daemon.injections.at(-1) as { arg: number }).arg, 0)).toBe(true)
  })

  it('GET /api/errors answers the latest errors for the status strip', async () => {
    daemon.errors = [{ time: '2026-11-23T01:02:03.000Z', message: 'schedule failed: TITLE_NOT_FOUND' }]
    const s = await start()
    const r = await call(s.url, 'GET', '/api/errors')
    expect(r.status).toBe(200)
    expect(r.json).toEqual({ errors: daemon.errors })
  })

  it('HEAD answers the headers of a GET without a body', async () => {
    const s = await start()
    const r = await call(s.url, 'HEAD', '/api/status')
    expect(r.status).toBe(200)
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(daemon.status())))
    expect(r.text).toBe('')
  })
})

describe('remote API: 400', () => {
  it('refuses a non-canonical control id, saying why, and injects nothing', async () => {
    const s = await start()
    for (const path of [`${CONTROL}/key:03`, `${CONTROL}/key:03/press`, `${CONTROL}/KEY:3`, `${CONTROL}/key%3A03`]) {
      const r = await call(s.url, path.endsWith('press') ? 'POST' : 'GET', path)
      expect(r.status, path).toBe(400)
      expect(errorOf(r.json).code).toBe('BAD_CONTROL_ID')
    }
    const r = await call(s.url, 'GET', `${CONTROL}/key:03`)
    expect(errorOf(r.json).message).toContain('without leading zeros')
    expect(daemon.injections).toEqual([])
  })

  it('refuses an unknown control kind and a malformed percent-encoding', async () => {
    const s = await start()
    expect((await call(s.url, 'GET', `${CONTROL}/knob:1`)).status).toBe(400)
    const bad = await call(s.url, 'GET', `${CONTROL}/key%E0%A4%A`)
    expect(bad.status).toBe(400)
    expect(errorOf(bad.json).code).toBe('BAD_PATH')
  })

  it('refuses a rotate delta that is missing, not an integer, zero or too large', async () => {
    const s = await start()
    for (const q of [
      '',
      '?delta=',
      '?delta=1.5',
      '?delta=abc',
      '?delta=0x2',
      '?delta=0',
      '?delta=1e2',
      '?delta=100000',
    ]) {
      const r = await call(s.url, 'POST', `${CONTROL}/jog/rotate${q}`)
      expect(r.status, q).toBe(400)
      expect(errorOf(r.json).code).toBe('BAD_VALUE')
    }
    expect(daemon.injections).toEqual([])
    expect((await call(s.url, 'POST', `${CONTROL}/jog/rotate?delta=%2B2`)).status).toBe(200)
    expect(daemon.injections).toEqual([{ surface: 'console', control: 'jog', kind: 'rotate', arg: 2 }])
  })

  it('refuses a value that is missing, not a finite number, or outside its control’s range', async () => {
    const s = await start()
    const bad = [
      'fader:0/value',
      'fader:0/value?value=',
      'fader:0/value?value=NaN',
      'fader:0/value?value=Infinity',
      'fader:0/value?value=0x1',
      'fader:0/value?value=%201',
      'fader:0/value?value=1e400',
      'fader:0/value?value=-0.1',
      'fader:0/value?value=1.5',
      'shuttle/value?value=-1.01',
    ]
    for (const path of bad) {
      const r = await call(s.url, 'POST', `${CONTROL}/${path}`)
      expect(r.status, path).toBe(400)
      expect(errorOf(r.json).code).toBe('BAD_VALUE')
    }
    expect(daemon.injections).toEqual([])
    expect((await call(s.url, 'POST', `${CONTROL}/shuttle/value?value=-1`)).status).toBe(200)
    expect((await call(s.url, 'POST', `${CONTROL}/fader:0/value?value=1e-1`)).status).toBe(200)
    expect(daemon.injections.map((i) => i.arg)).toEqual([-1, 0.1])
  })
})

describe('remote API: 401 on a bind beyond loopback', () => {
  it('refuses to start without a token, saying how to fix it', async () => {
    await expect(startDaemonServer({ api: daemon, host: '0.0.0.0', port: 0 })).rejects.toThrow(DaemonServerConfigError)
    await expect(startDaemonServer({ api: daemon, host: '0.0.0.0', port: 0, token: '  ' })).rejects.toThrow(
      /0\.0\.0\.0 is not a loopback address.*listen\.token or listen\.token_file/,
    )
  })

  it('gives a URL a browser on this machine can open, and says why it cannot listen', async () => {
    const s = await start({ host: '0.0.0.0', token: TOKEN })
    expect(s.url).toBe(`http://127.0.0.1:${s.port}/`)
    await expect(startDaemonServer({ api: daemon, host: '0.0.0.0', port: s.port, token: TOKEN })).rejects.toThrow(
      `daemon server: cannot listen on 0.0.0.0:${s.port}: the port is in use`,
    )
  })

  it('needs no token on loopback', async () => {
    const s = await start({ token: TOKEN })
    expect(s.tokenRequired).toBe(false)
    expect((await call(s.url, 'GET', '/api/status')).status).toBe(200)
  })

  it('refuses a missing or wrong token on /api and /metrics, and takes the right one', async () => {
    const s = await start({ host: '0.0.0.0', token: TOKEN, metrics: new PrometheusMetrics({ processMetrics: false }) })
    expect(s.tokenRequired).toBe(true)
    const base = local(s)
    const wrong: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-of-some-length' },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}` },
      { authorization: TOKEN },
      { cookie: `${AUTH.cookieName}=nope` },
    ]
    for (const headers of wrong) {
      for (const [method, path] of [
        ['GET', '/api/status'],
        ['POST', `${CONTROL}/key:0/press`],
        ['GET', '/metrics'],
      ] as const) {
        const r = await call(base, method, path, headers)
        expect(r.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401)
        expect(errorOf(r.json).code).toBe('UNAUTHORIZED')
        expect(r.headers['www-authenticate']).toBe('Bearer realm="panelbridge"')
      }
    }
    expect(daemon.injections).toEqual([])
    const auth = { authorization: `Bearer ${TOKEN}` }
    expect((await call(base, 'GET', '/api/status', auth)).status).toBe(200)
    expect((await call(base, 'GET', '/metrics', { authorization: `bearer  ${TOKEN}` })).status).toBe(200)
    expect((await call(base, 'POST', `${CONTROL}/key:0/press`, auth)).json).toEqual({ ok: true })
    expect(daemon.injections).toHaveLength(1)
  })

  it('sets an HttpOnly SameSite=Strict cookie from a ?token= page link and drops the token from the address', async () => {
    const web = new WebSurfaceServer({ surfaces: [new WebSurface({ id: 'console', rows: 1, columns: 2 })] })
    closers.push(() => web.close())
    const s = await start({ host: '0.0.0.0', token: TOKEN, web })
    const base = local(s)
    expect((await call(base, 'GET', '/')).status).toBe(401)
    const link = await call(base, 'GET', `/?token=${encodeURIComponent(TOKEN)}&view=big`)
    expect(link.status).toBe(303)
    expect(link.headers.location).toBe('/?view=big')
    const setCookie = (link.headers['set-cookie'] as string[])[0]!
    expect(setCookie).toBe(`${AUTH.cookieName}=${TOKEN}; Path=/; HttpOnly; SameSite=Strict`)
    const cookie = setCookie.split(';')[0]!
    const page = await call(base, 'GET', '/?view=big', { cookie })
    expect(page.status).toBe(200)
    expect(page.text).toContain('id="daemon-status"')
    expect((await call(base, 'GET', '/api/status', { cookie: `other=1; ${cookie}` })).status).toBe(200)

    const bad = await call(base, 'GET', '/?token=wrong-token-of-some-length')
    expect(bad.status).toBe(401)
    expect(bad.headers['set-cookie']).toBeUndefined()
    // A path that would read as another host after the redirect stays on this one (a path of this server).
    const sneaky = await call(base, 'GET', `//evil.example/?token=${TOKEN}`)
    expect(sneaky.status).toBe(303)
    expect(sneaky.headers.location).toBe('/evil.example/')
  })

  it('refuses the page’s WebSocket without the token and opens it with the cookie', async () => {
    const web = new WebSurfaceServer({ surfaces: [new WebSurface({ id: 'console', rows: 1, columns: 2 })] })
    closers.push(() => web.close())
    const s = await start({ host: '0.0.0.0', token: TOKEN, web })
    const origin = `http://127.0.0.1:${s.port}`
    const refused = await upgradeStatus(`ws://127.0.0.1:${s.port}/ws`, { origin })
    expect(refused).toBe(401)
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/ws`, {
      headers: { origin, cookie: `${AUTH.cookieName}=${TOKEN}` },
    })
    const hello = await firstMessage(ws)
    expect(hello).toMatchObject({ type: 'hello' })
    ws.close()
  })

  it('never writes the token to the log', async () => {
    const web = new WebSurfaceServer()
    closers.push(() => web.close())
    const s = await start({ host: '0.0.0.0', token: TOKEN, web })
    const base = local(s)
    await call(base, 'GET', `/?token=${TOKEN}`)
    await call(base, 'GET', `/?token=${TOKEN}-wrong`)
    await call(base, 'GET', '/api/status', { authorization: `Bearer ${TOKEN}-wrong`, host: 'evil.example' })
    await call(base, 'POST', '/api/status', { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' })
    // A positive signal first: the refusals above were logged.
    expect(records.some((r) => r.message.includes('wrong token'))).toBe(true)
    expect(records.some((r) => r.message.includes('foreign origin'))).toBe(true)
    expect(JSON.stringify(records)).not.toContain(TOKEN)
  })
})

describe('readListenToken', () => {
  it('takes listen.token, or the trimmed contents of listen.token_file, and names the file on a problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-token-'))
    closers.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })))
    const file = join(dir, 'token')
    writeFileSync(file, `${TOKEN}\n`)
    expect(await readListenToken({})).toBeUndefined()
    expect(await readListenToken({ token: TOKEN })).toBe(TOKEN)
    expect(await readListenToken({ token_file: file })).toBe(TOKEN)
    await expect(readListenToken({ token: TOKEN, token_file: file })).rejects.toThrow('not both')
    await expect(readListenToken({ token_file: join(dir, 'absent') })).rejects.toThrow(
      `listen.token_file ${join(dir, 'absent')}: cannot read it (ENOENT)`,
    )
    const short = join(dir, 'short')
    writeFileSync(short, 'tiny-secret\n')
    const err = await readListenToken({ token_file: short }).catch((e: unknown) => e as Error)
    expect(err).toBeInstanceOf(DaemonServerConfigError)
    expect((err as Error).message).toContain('at least 16 characters')
    expect((err as Error).message).not.toContain('tiny-secret')
  })
})

describe('remote API: 403', () => {
  it('refuses a foreign Host on every route, and takes IP literals, localhost and allowed names', async () => {
    const s = await start({ allowedHosts: ['panel.lan'], metrics: new PrometheusMetrics({ processMetrics: false }) })
    for (const [method, path] of [
      ['GET', '/api/status'],
      ['GET', `${CONTROL}/key:0`],
      ['POST', `${CONTROL}/key:0/press`],
      ['GET', '/metrics'],
      ['GET', '/'],
    ] as const) {
      const r = await call(s.url, method, path, { host: `evil.example:${s.port}` })
      expect(r.status, `${method} ${path}`).toBe(403)
      expect(errorOf(r.json).code).toBe('FORBIDDEN_HOST')
    }
    expect(daemon.injections).toEqual([])
    for (const host of [`127.0.0.1:${s.port}`, `localhost:${s.port}`, `panel.lan:${s.port}`, `[::1]:${s.port}`]) {
      expect((await call(s.url, 'GET', '/api/status', { host })).status, host).toBe(200)
    }
  })

  it('refuses a POST from a foreign Origin or a cross-site fetch, and injects nothing', async () => {
    const s = await start()
    const refused: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: `http://127.0.0.1:${s.port + 1}` },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: `http://127.0.0.1:${s.port}`, 'sec-fetch-site': 'same-site' },
    ]
    for (const headers of refused) {
      const r = await call(s.url, 'POST', `${CONTROL}/key:0/press`, headers)
      expect(r.status, JSON.stringify(headers)).toBe(403)
      expect(errorOf(r.json).code).toBe('FORBIDDEN_ORIGIN')
    }
    expect(daemon.injections).toEqual([])
  })

  it('takes a POST from the page’s own Origin, or with no Origin (curl)', async () => {
    const s = await start()
    const own = { origin: `http://127.0.0.1:${s.port}`, 'sec-fetch-site': 'same-origin' }
    expect((await call(s.url, 'POST', `${CONTROL}/key:0/press`, own)).status).toBe(200)
    expect((await call(s.url, 'POST', `${CONTROL}/key:0/press`)).status).toBe(200)
    expect(daemon.injections).toHaveLength(2)
  })

  it('refuses a GET from a foreign Origin too (issue 24: a foreign page may not hold slots), with no CORS headers', async () => {
    const s = await start()
    const r = await call(s.url, 'GET', '/api/status', { origin: 'http://evil.example' })
    expect(r.status).toBe(403)
    expect(Object.keys(r.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
  })
})

describe('remote API: 404', () => {
  it('answers an unknown surface, control, action or path with 404 and a code', async () => {
    const s = await start()
    const cases: [string, string, string][] = [
      ['GET', '/api/surfaces/nope/controls/key:0', 'UNKNOWN_SURFACE'],
      ['POST', '/api/surfaces/nope/controls/key:0/press', 'UNKNOWN_SURFACE'],
      ['GET', '/api/surfaces/no%20such/controls/key:0', 'UNKNOWN_SURFACE'],
      // Longer than any surface name the config accepts (128 characters).
      ['GET', `/api/surfaces/${'s'.repeat(129)}/controls/key:0`, 'UNKNOWN_SURFACE'],
      ['GET', `${CONTROL}/key:9`, 'UNKNOWN_CONTROL'],
      ['POST', `${CONTROL}/encoder:0/rotate?delta=1`, 'UNKNOWN_CONTROL'],
      ['POST', `${CONTROL}/key:0/tap`, 'NOT_FOUND'],
      ['GET', '/api/nope', 'NOT_FOUND'],
      ['GET', '/api', 'NOT_FOUND'],
      ['GET', `${CONTROL}`, 'NOT_FOUND'],
      ['GET', '/nope', 'NOT_FOUND'],
      ['GET', '/metrics', 'NOT_FOUND'],
      // A target starting with `//` is a path, not a host: neither a 500 nor `/api/status` under another name.
      ['GET', '//?view=1', 'NOT_FOUND'],
      ['GET', '//api/status', 'NOT_FOUND'],
    ]
    for (const [method, path, code] of cases) {
      const r = await call(s.url, method, path)
      expect(r.status, `${method} ${path}`).toBe(404)
      expect(errorOf(r.json).code, `${method} ${path}`).toBe(code)
    }
    expect(daemon.injections).toEqual([])
  })
})

describe('remote API: 405', () => {
  it('answers a wrong method with 405 and the Allow header', async () => {
    const s = await start({ metrics: new PrometheusMetrics({ processMetrics: false }) })
    const cases: [string, string, string][] = [
      ['GET', `${CONTROL}/key:0/press`, 'POST'],
      ['PUT', `${CONTROL}/key:0/press`, 'POST'],
      ['POST', '/api/status', 'GET, HEAD'],
      ['DELETE', '/api/errors', 'GET, HEAD'],
      ['POST', `${CONTROL}/key:0`, 'GET, HEAD'],
      ['POST', '/metrics', 'GET, HEAD'],
    ]
    for (const [method, path, allow] of cases) {
      const r = await call(s.url, method, path)
      expect(r.status, `${method} ${path}`).toBe(405)
      expect(errorOf(r.json).code).toBe('METHOD_NOT_ALLOWED')
      expect(r.headers.allow).toBe(allow)
    }
    expect(daemon.injections).toEqual([])
  })
})

describe('remote API: 409', () => {
  it('refuses an event for a surface that is not open', async () => {
    const s = await start()
    const r = await call(s.url, 'POST', '/api/surfaces/desk/controls/key:0/press')
    expect(r.status).toBe(409)
    expect(errorOf(r.json).code).toBe('SURFACE_NOT_OPEN')
    // Reading its state is still fine.
    expect((await call(s.url, 'GET', '/api/surfaces/desk/controls/key:0')).json).toMatchObject({ led: 'on' })
  })

  it('refuses an event the control does not take (rotate on a key, value on a key, press on a fader)', async () => {
    const s = await start()
    for (const path of ['key:0/rotate?delta=1', 'key:0/value?value=0.5', 'fader:0/press', 'jog/down']) {
      const r = await call(s.url, 'POST', `${CONTROL}/${path}`)
      expect(r.status, path).toBe(409)
      expect(errorOf(r.json).code).toBe('EVENT_NOT_TAKEN')
    }
    expect(daemon.injections).toEqual([])
  })
})

describe('bounds', () => {
  it('refuses a request body over the cap with 413 and injects nothing', async () => {
    const s = await start()
    const big = 'x'.repeat(DAEMON_SERVER_LIMITS.maxBodyBytes + 1)
    const r = await call(s.url, 'POST', `${CONTROL}/key:0/press`, {}, big)
    expect(r.status).toBe(413)
    expect(errorOf(r.json).code).toBe('BODY_TOO_LARGE')
    const chunked = await call(s.url, 'POST', `${CONTROL}/key:0/press`, { 'transfer-encoding': 'chunked' }, big)
    expect(chunked.status).toBe(413)
    expect(daemon.injections).toEqual([])
    // A small body is tolerated (and ignored).
    expect((await call(s.url, 'POST', `${CONTROL}/key:0/press`, {}, '{}')).status).toBe(200)
  })

  it('makes room past the cap by closing the oldest idle connection, not the new one (issue 24)', async () => {
    const s = await start({ limits: { maxConnections: 2 } })
    const held = await Promise.all([openSocket(s.port), openSocket(s.port)])
    // Wait until the server has counted both: an answered request on each.
    for (const socket of held)
      expect(await rawRequest(socket, 'GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 200/)
    const third = await openSocket(s.port)
    expect(await rawRequest(third, 'GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 200/)
    await vi.waitFor(() => expect(held[0].destroyed).toBe(true))
    for (const socket of [...held, third]) socket.destroy()
  })

  it('closes a connection that never finishes its headers', async () => {
    const s = await start({ limits: { headersTimeoutMs: 200, requestTimeoutMs: 200 } })
    const socket = await openSocket(s.port)
    let answer = ''
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')))
    socket.write('GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n')
    await vi.waitFor(() => expect(socket.destroyed || socket.readableEnded).toBe(true), { timeout: 5000 })
    expect(answer).toMatch(/^HTTP\/1\.1 408/)
  })

  it('refuses a request head over the cap with 431', async () => {
    const s = await start()
    const r = await call(s.url, 'GET', '/api/status', { 'x-filler': 'x'.repeat(DAEMON_SERVER_LIMITS.maxHeaderBytes) })
    expect(r.status).toBe(431)
    expect((await call(s.url, 'GET', '/api/status', { 'x-filler': 'x'.repeat(1000) })).status).toBe(200)
  })

  it('answers an oversized request head with 431, not a reset; what comes past its drain bound is cut (issue 46 item 3)', async () => {
    const MB = 1024 * 1024
    // A head this large is still being sent when refused, even over loopback: a close then would reset it.
    const s = await start({ limits: { headLingerBytes: 32 * MB } })
    const send = async (bytes: number): Promise<{ answer: string; failure?: Error }> => {
      const socket = await openSocket(s.port)
      let answer = ''
      let failure: Error | undefined
      socket.on('data', (d: Buffer) => (answer += d.toString('latin1')))
      socket.on('error', (err) => (failure = err))
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
      socket.write(`GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ${'x'.repeat(bytes)}\r\n\r\n`)
      await closed
      return { answer, ...(failure ? { failure } : {}) }
    }
    for (const mb of [1, 16]) {
      const { answer, failure } = await send(mb * MB)
      expect(failure).toBeUndefined()
      expect(answer).toMatch(/^HTTP\/1\.1 431 /)
    }
    // Past the bound the rest is no longer drained: the connection is cut (the answer may be lost).
    const capped = await start({ limits: { headLingerBytes: 64 * 1024 } })
    const socket = await openSocket(capped.port)
    socket.on('error', () => undefined)
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    socket.write(`GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ${'x'.repeat(16 * MB)}\r\n\r\n`)
    await closed
    expect(socket.destroyed).toBe(true)
  })
})

describe('/metrics', () => {
  it('serves Prometheus text with every named metric and reflects what the daemon reports', async () => {
    const metrics = new PrometheusMetrics()
    const s = await start({ metrics })
    metrics.eventToRequest(3)
    metrics.commandDone('schedule', 'ok', 12)
    metrics.commandDone('schedule', 'TITLE_NOT_FOUND', 40)
    metrics.commandDone('replay_set_speed', 'ok', 5)
    metrics.notificationToFeedback(1.5)
    metrics.reconnect()
    metrics.reconnect()
    metrics.surfaceOpened()
    metrics.surfaceFailed()
    metrics.setOpenSurfaces(3)
    metrics.setLinkUp(true)
    const r = await call(s.url, 'GET', '/metrics')
    expect(r.status).toBe(200)
    expect(r.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = r.text
    for (const name of [
      'panelbridge_event_to_request_seconds',
      'panelbridge_command_duration_seconds',
      'panelbridge_notification_to_feedback_seconds',
      'panelbridge_commands_total',
      'panelbridge_command_errors_total',
      'panelbridge_app_reconnects_total',
      'panelbridge_surface_opens_total',
      'panelbridge_surface_failures_total',
      'panelbridge_surfaces_open',
      'panelbridge_app_link_up',
      'panelbridge_process_resident_memory_bytes',
    ]) {
      expect(text, name).toMatch(new RegExp(`^# HELP ${name} \\S`, 'm'))
      expect(text, name).toMatch(new RegExp(`^# TYPE ${name} (counter|gauge|histogram)$`, 'm'))
    }
    // The counts and gauges, each checked by name.
    const counts: [string, number][] = [
      ['panelbridge_commands_total{command="schedule",outcome="ok"}', 1],
      ['panelbridge_commands_total{command="schedule",outcome="error"}', 1],
      ['panelbridge_command_errors_total{code="TITLE_NOT_FOUND"}', 1],
      ['panelbridge_command_duration_seconds_count{command="schedule"}', 2],
      ['panelbridge_command_duration_seconds_bucket{le="0.025",command="schedule"}', 1],
      ['panelbridge_notification_to_feedback_seconds_count', 1],
      ['panelbridge_app_reconnects_total', 2],
      ['panelbridge_surface_opens_total', 1],
      ['panelbridge_surface_failures_total', 1],
      ['panelbridge_surfaces_open', 3],
      ['panelbridge_app_link_up', 1],
    ]
    for (const [series, count] of counts) expect(sample(text, series), series).toBe(count)
    expect(sample(text, 'panelbridge_command_duration_seconds_sum{command="schedule"}')).toBeCloseTo(0.052)
    expect(sample(text, 'panelbridge_event_to_request_seconds_sum')).toBeCloseTo(0.003)
    metrics.setLinkUp(false)
    expect(sample((await call(s.url, 'GET', '/metrics')).text, 'panelbridge_app_link_up')).toBe(0)
  })
})

describe('the web page mounted in the daemon server', () => {
  async function withWeb(): Promise<{ s: DaemonServer; surface: WebSurface }> {
    const surface = new WebSurface({ id: 'console', rows: 1, columns: 2 })
    const web = new WebSurfaceServer({ surfaces: [surface] })
    closers.push(async () => {
      await web.close()
      await surface.close()
    })
    return { s: await start({ web }), surface }
  }

  it('serves the page with its status strip, its style and its script', async () => {
    const { s } = await withWeb()
    const page = await call(s.url, 'GET', '/')
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.text).toContain('<div id="daemon-status" class="daemon-status" role="status" hidden></div>')
    expect(page.text).toContain('console')
    expect((await call(s.url, 'GET', '/style.css')).text).toContain('.daemon-status .simulated')
    const script = await call(s.url, 'GET', '/client.js')
    expect(script.status).toBe(200)
    expect(script.text).toContain('/api/status')
  })

  it('opens the page’s WebSocket from the page’s own Origin, and a press on it reaches the surface', async () => {
    const { s, surface } = await withWeb()
    const events: string[] = []
    surface.events.on('input', (e) => events.push(`${e.type} ${e.control}`))
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/ws`, { headers: { origin: `http://127.0.0.1:${s.port}` } })
    expect(await firstMessage(ws)).toMatchObject({ type: 'hello' })
    ws.send(JSON.stringify({ type: 'down', surface: 'console', control: 'key:1' }))
    await vi.waitFor(() => expect(events).toEqual(['down key:1']))
    ws.close()
  })

  it('refuses a WebSocket from a foreign Origin or Host, and an upgrade on another path', async () => {
    const { s } = await withWeb()
    const url = `ws://127.0.0.1:${s.port}`
    expect(await upgradeStatus(`${url}/ws`, { origin: 'http://evil.example' })).toBe(403)
    expect(await upgradeStatus(`${url}/ws`, { host: 'evil.example' })).toBe(403)
    expect(await upgradeStatus(`${url}/api/status`, { origin: `http://127.0.0.1:${s.port}` })).toBe(404)
  })

  it('closes with a browser still connected, once however often it is called', async () => {
    const { s } = await withWeb()
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/ws`, { headers: { origin: `http://127.0.0.1:${s.port}` } })
    await firstMessage(ws)
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()))
    await Promise.all([s.close(), s.close()])
    await closed
    await expect(call(s.url, 'GET', '/api/status')).rejects.toThrow(/ECONNREFUSED/)
  })
})

/** The value of one sample line (`name{labels} value`) of Prometheus text. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  if (line === undefined) throw new Error(`no sample ${series}`)
  return Number(line.slice(series.length + 1))
}

function firstMessage(ws: WebSocket): Promise<unknown> {
  return new Promise((resolve, reject) => {
    ws.once('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8'))))
    ws.once('error', reject)
  })
}

/** The HTTP status a refused WebSocket upgrade gets. */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0)
      ws.terminate()
    })
    ws.once('open', () => reject(new Error('the upgrade was accepted')))
    ws.once('error', (err) => reject(err))
  })
}

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(port, '127.0.0.1', () => resolve(socket))
    socket.once('error', reject)
  })
}

/** Writes a raw request and resolves with the first chunk of the answer. */
function rawRequest(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve) => {
    socket.once('data', (d: Buffer) => resolve(d.toString('latin1')))
    socket.write(text)
  })
}
