/**
 * Host names (issue 22, item 7): the machine's own names pass the Host check of the daemon's server and
 * of the web page's own, `listen.allowed_hosts` adds others (validated by the loader at its
 * `file:line:col`), and a refused Host gets an HTML page that names the setting when a browser asks for a
 * page, JSON when a client asks for JSON or calls the API. Real servers on 127.0.0.1 port 0.
 */
import { writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, onTestFinished } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import { startDaemonServer, type DaemonServer } from '../../src/daemon/server.js'
import {
  ALLOWED_HOSTS_SETTING,
  ownHostNames,
  REFUSED_HOST_PAGE_CSP,
  refusedHostPage,
  servedHosts,
} from '../../src/http-guard.js'
import { setLogSink, type LogRecord } from '../../src/log.js'
import { formatProblem, loadConfigFile } from '../../src/mappings/load.js'
import { WebSurfaceServer } from '../../src/surfaces/web/server.js'
import { call, sampleDaemon } from './helpers.js'
import { testDir } from '../helpers/files.js'
import { SAFETY_MS } from '../helpers/until.js'

const records: LogRecord[] = []
const previousSink = setLogSink((r) => records.push(r))
afterAll(() => setLogSink(previousSink))

afterEach(() => {
  records.length = 0
})

/** What a browser sends when it opens a page. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

async function server(allowedHosts?: string[]): Promise<DaemonServer> {
  const s = await startDaemonServer({
    api: sampleDaemon(),
    host: '127.0.0.1',
    port: 0,
    ...(allowedHosts ? { allowedHosts } : {}),
  })
  onTestFinished(() => s.close())
  return s
}

describe("the machine's own names", () => {
  it('are its host name, the short name and <short>.local, lower-cased; none for localhost or an address', () => {
    expect(ownHostNames('GFX-Box')).toEqual(['gfx-box', 'gfx-box.local'])
    expect(ownHostNames('gfx-box.studio.example')).toEqual(['gfx-box.studio.example', 'gfx-box', 'gfx-box.local'])
    expect(ownHostNames('localhost')).toEqual([])
    expect(ownHostNames('')).toEqual([])
    expect(ownHostNames('127.0.0.1')).toEqual([])
    expect([...servedHosts(['Panel.LAN'], 'gfx-box')]).toEqual(['gfx-box', 'gfx-box.local', 'panel.lan'])
  })

  it('pass the daemon server with no setting; a foreign name is refused (403)', async () => {
    const s = await server()
    for (const name of ownHostNames()) {
      const r = await call(s.url, 'GET', '/api/status', { host: `${name}:${s.port}` })
      expect(r.status, name).toBe(200)
    }
    expect(ownHostNames().length).toBeGreaterThan(0) // the loop above checked something
    expect((await call(s.url, 'GET', '/api/status', { host: `gfx-other.lan:${s.port}` })).status).toBe(403)
  })

  it("pass the web page's own server too, and listen.allowed_hosts names reach it after setAllowedHosts", async () => {
    const web = new WebSurfaceServer()
    onTestFinished(() => web.close())
    const url = await web.listen({ host: '127.0.0.1', port: 0 })
    const port = new URL(url).port
    const page = (host: string) => call(url, 'GET', '/', { host: `${host}:${port}`, accept: BROWSER_ACCEPT })
    expect((await page(`${hostname().toLowerCase().split('.')[0]!}.local`)).status).toBe(200)
    const refused = await page('gfx-box.lan')
    expect(refused.status).toBe(403)
    expect(refused.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(refused.headers['content-security-policy']).toBe(REFUSED_HOST_PAGE_CSP)
    expect(refused.text).toContain(ALLOWED_HOSTS_SETTING)
    web.setAllowedHosts(['gfx-box.lan'])
    expect((await page('gfx-box.lan')).status).toBe(200)
    // A tool (no Accept for HTML) gets the short text answer, which names the setting as well.
    const tool = await call(url, 'GET', '/', { host: `gfx-third.lan:${port}` })
    expect([tool.status, tool.headers['content-type']]).toEqual([403, 'text/plain; charset=utf-8'])
    expect(tool.text).toContain(ALLOWED_HOSTS_SETTING)
  })
})

describe('a refused Host', () => {
  it('gets a browser an HTML page that names listen.allowed_hosts and the refused name, escaped', async () => {
    const s = await server()
    const r = await call(s.url, 'GET', '/', { host: `gfx-box.lan:${s.port}`, accept: BROWSER_ACCEPT })
    expect(r.status).toBe(403)
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(r.headers['content-security-policy']).toContain("default-src 'none'")
    expect(r.text).toContain('<code>listen.allowed_hosts</code>')
    expect(r.text).toContain('allowed_hosts: [gfx-box.lan]')
    const head = await call(s.url, 'HEAD', '/', { host: `gfx-box.lan:${s.port}`, accept: BROWSER_ACCEPT })
    expect([head.status, head.text]).toEqual([403, ''])
    expect(refusedHostPage('<script>x</script>')).not.toContain('<script>')
  })

  it('keeps JSON for a client that asks for it and on every /api/ path, the message naming the setting', async () => {
    const s = await server()
    const asked = await call(s.url, 'GET', '/', { host: `gfx-box.lan:${s.port}`, accept: 'application/json' })
    const api = await call(s.url, 'GET', '/api/status', { host: `gfx-box.lan:${s.port}`, accept: BROWSER_ACCEPT })
    const none = await call(s.url, 'GET', '/metrics', { host: `gfx-box.lan:${s.port}` })
    for (const r of [asked, api, none]) {
      expect(r.status).toBe(403)
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8')
      const error = (r.json as { error: { code: string; message: string } }).error
      expect(error.code).toBe('FORBIDDEN_HOST')
      expect(error.message).toContain(ALLOWED_HOSTS_SETTING)
      expect(error.message).toContain('"gfx-box.lan"')
    }
    const logged = records.filter((l) => l.message.includes('foreign Host'))
    expect(logged).toHaveLength(1) // once per server, however often it is refused
  })
})

describe('listen.allowed_hosts', () => {
  it('lets a running daemon serve the page and the API under a configured name, and a reload adds one', async () => {
    const dir = await testDir('hosts')
    const file = join(dir, 'config.yaml')
    const text = (hosts: string) => `version: 1
app: { url: http://127.0.0.1:0, simulate: true }
listen: { host: 127.0.0.1, port: 0, allowed_hosts: [${hosts}] }
surfaces:
  console: { driver: web, rows: 1, columns: 2 }
`
    await writeFile(file, text('GFX-Box.lan'))
    const daemon = await Daemon.start({ config: file, drivers: [], watch: false, reloadTimeoutMs: SAFETY_MS })
    onTestFinished(() => daemon.stop())
    const port = new URL(daemon.url).port
    const get = (host: string, path: string) =>
      call(daemon.url, 'GET', path, { host: `${host}:${port}`, accept: BROWSER_ACCEPT })
    expect((await get('gfx-box.lan', '/api/status')).status).toBe(200)
    expect((await get('gfx-box.lan', '/')).status).toBe(200)
    expect((await get('studio-panel.lan', '/')).status).toBe(403)
    await writeFile(file, text('gfx-box.lan, studio-panel.lan'))
    expect(await daemon.reload()).toBe(true)
    const reloaded = new URL(daemon.url).port
    const page = await call(daemon.url, 'GET', '/', { host: `studio-panel.lan:${reloaded}`, accept: BROWSER_ACCEPT })
    expect(page.status).toBe(200)
    expect(page.text).toContain('<!doctype html>')
  })

  it('is refused by the loader at file:line:col for a name with a port or scheme, and past its bounds', async () => {
    const dir = await testDir('hosts')
    const file = join(dir, 'bad.yaml')
    await writeFile(
      file,
      `version: 1
listen:
  allowed_hosts:
    - gfx-box.local
    - gfx-box.local:8088
    - http://gfx-box.local
`,
    )
    const loaded = await loadConfigFile(file)
    expect(loaded.config).toBeUndefined()
    const lines = loaded.problems.map(formatProblem)
    expect(lines).toEqual([
      expect.stringMatching(/bad\.yaml:5:7: .*host name without scheme or port/),
      expect.stringMatching(/bad\.yaml:6:7: .*host name without scheme or port/),
    ])
    const many = Array.from({ length: 33 }, (_, i) => `h${i}.lan`).join(', ')
    await writeFile(file, `version: 1\nlisten:\n  allowed_hosts: [${many}]\n`)
    const tooMany = await loadConfigFile(file)
    expect(tooMany.problems.map(formatProblem)).toEqual([expect.stringMatching(/bad\.yaml:3:\d+: .*32/)])
    // Four labels of 63 (each one within a DNS label's bound): 255 characters, past a name's 253.
    const long = ['a', 'b', 'c', 'd'].map((c) => c.repeat(63)).join('.')
    await writeFile(file, `version: 1\nlisten:\n  allowed_hosts: [${long}]\n`)
    const tooLong = await loadConfigFile(file)
    expect(tooLong.problems.map(formatProblem)).toEqual([expect.stringMatching(/bad\.yaml:3:19: .*at most 253/)])
  })
})
