/**
 * The page's status strip in headless Chromium (playwright-core), served by the daemon's server over
 * a fake daemon: the application link, SIMULATED, the latest errors, the replay's line, live updates, the token link on a
 * bind beyond loopback, and a hidden strip when the page runs without a daemon.
 *
 * Never skipped: without Chromium at /usr/bin/chromium every test here fails saying how to install it.
 */
import type { Page } from 'playwright-core'
import { useChromium } from '../helpers/browser.js'
import { AppState } from '../../src/api/app-state.js'
import { replayStatus } from '../../src/mappings/playhead.js'
import { afterAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest'
import { startDaemonServer } from '../../src/daemon/server.js'
import { setLogSink } from '../../src/log.js'
import { STATUS_POLL_MS } from '../../src/page/strip-state.js'
import { WebSurfaceServer } from '../../src/surfaces/web/server.js'
import { WebSurface } from '../../src/surfaces/web/web-surface.js'
import { sampleDaemon, type FakeDaemon } from './helpers.js'

const TOKEN = 'strip-test-token-0123456789'

const previousSink = setLogSink(() => undefined)
const requireBrowser = useChromium("the status strip's browser test")
afterAll(() => setLogSink(previousSink))

let daemon: FakeDaemon
let surface: WebSurface
let web: WebSurfaceServer

// Finished last registered first: each page, then the daemon's server, then the web server and its surface.
beforeEach(() => {
  daemon = sampleDaemon()
  surface = new WebSurface({ id: 'console', rows: 1, columns: 2 })
  onTestFinished(() => surface.close())
  web = new WebSurfaceServer({ surfaces: [surface] })
  onTestFinished(() => web.close())
})

/** Opens the page with a fake clock (the strip's poll timer is then moved on by the test). */
async function open(url: string): Promise<Page> {
  const context = await requireBrowser().newContext()
  const page = await context.newPage()
  onTestFinished(() => context.close())
  await page.clock.install()
  await page.goto(url)
  await page.waitForSelector('#status.live')
  return page
}

const strip = (page: Page): Promise<string> => page.locator('#daemon-status').innerText()

describe('the status strip', () => {
  it('shows the link, SIMULATED and the latest errors, and follows the daemon’s status', async () => {
    daemon.simulated = true
    daemon.link = { state: 'stale', since: '2026-11-23T01:00:00.000Z', error: 'connect ECONNREFUSED 127.0.0.1:9023' }
    daemon.errors = [
      { time: '2026-11-23T01:02:03.000Z', message: 'schedule failed: TITLE_NOT_FOUND' },
      { time: '2026-11-23T01:02:02.000Z', message: '<b>not markup</b>' },
    ]
    const s = await startDaemonServer({ api: daemon, port: 0, web })
    onTestFinished(() => s.close())
    const page = await open(s.url)
    await page.waitForSelector('#daemon-status:not([hidden]) .simulated')
    const text = await strip(page)
    expect(text).toContain('application: not reachable')
    expect(text).toContain('connect ECONNREFUSED 127.0.0.1:9023')
    expect(text).toContain('SIMULATED')
    expect(text).toContain('schedule failed: TITLE_NOT_FOUND')
    expect(text).toContain('<b>not markup</b>')
    expect(await page.locator('#daemon-status b').count()).toBe(0)

    daemon.simulated = false
    daemon.link = { state: 'connected', since: '2026-11-23T01:05:00.000Z' }
    daemon.errors = []
    await page.clock.fastForward(STATUS_POLL_MS)
    await page.waitForSelector('#daemon-status .link.connected')
    const after = await strip(page)
    expect(after).toContain('application: connected')
    expect(after).not.toContain('SIMULATED')
    expect(after).not.toContain('TITLE_NOT_FOUND')
    expect(await page.locator('#daemon-status .replay').count()).toBe(0)

    // The replay on, its in and out marked (issue 43): the strip shows the playhead, in, out and the clip,
    // from the status the daemon projects of what it knows of the replay.
    const replay = new AppState()
    replay.setReplay({ state: 'playback', position: 12, inPoint: 7.5, outPoint: 12, speed: 0.5 })
    const base = daemon.status.bind(daemon)
    daemon.status = () => ({ ...base(), replay: replayStatus(replay) })
    await page.clock.fastForward(STATUS_POLL_MS)
    await page.waitForSelector('#daemon-status .replay')
    const line = page.locator('#daemon-status .replay')
    expect(await line.innerText()).toBe('Replay ▶ 12.0 s  in 7.5  out 12.0  clip 4.5 s')
    expect(await line.getAttribute('title')).toContain('speed 0.5')

    // Off again: the line goes.
    replay.setReplay({ state: 'disabled' })
    await page.clock.fastForward(STATUS_POLL_MS)
    await page.waitForSelector('#daemon-status .replay', { state: 'detached' })
    expect(await strip(page)).toContain('application: connected')
  })

  it('works beyond loopback through the ?token= link: the cookie carries the page, its WebSocket and the strip', async () => {
    daemon.simulated = true
    const s = await startDaemonServer({ api: daemon, host: '0.0.0.0', port: 0, token: TOKEN, web })
    onTestFinished(() => s.close())
    const page = await open(`http://127.0.0.1:${s.port}/?token=${TOKEN}`)
    expect(page.url()).toBe(`http://127.0.0.1:${s.port}/`)
    await page.waitForSelector('#daemon-status:not([hidden]) .simulated')
    expect(await strip(page)).toContain('application: connected')
  })

  it('stays hidden when the page is served without a daemon', async () => {
    const url = await web.listen({ port: 0 })
    const context = await requireBrowser().newContext()
    onTestFinished(() => context.close())
    const page = await context.newPage()
    // A positive signal first: the strip asked for the status and got its 404.
    const asked = page.waitForResponse((r) => r.url().endsWith('/api/status'))
    await page.goto(url)
    expect((await asked).status()).toBe(404)
    await page.waitForSelector('#status.live')
    expect(await page.locator('#daemon-status').isHidden()).toBe(true)
    expect(await strip(page)).toBe('')
  })
})
