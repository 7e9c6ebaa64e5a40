/**
 * The page's status strip in headless Chromium over a fake daemon (issue 22, item 17): "reconnected"
 * and "config reloaded" after the events, "config refused" while an older mapping runs, cleared errors
 * dropped, and "application not reachable" where the link said `socket closed (1006)`. The page's
 * clock is a fake one, moved on by the test.
 *
 * Never skipped: without Chromium at /usr/bin/chromium every test here fails saying how to install it.
 */
import type { Page } from 'playwright-core'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { ConfigStateStatus, DaemonStatus } from '../../src/daemon/api.js'
import { startDaemonServer, type DaemonServer } from '../../src/daemon/server.js'
import { setLogSink } from '../../src/log.js'
import { STATUS_POLL_MS, STRIP_NOTICE_MS } from '../../src/page/strip-state.js'
import { WebSurfaceServer } from '../../src/surfaces/web/server.js'
import { WebSurface } from '../../src/surfaces/web/web-surface.js'
import { useChromium } from '../helpers/browser.js'
import { FakeDaemon } from './helpers.js'

const previousSink = setLogSink(() => undefined)
const requireBrowser = useChromium("the status strip's notices")
afterAll(() => setLogSink(previousSink))

/** The fake daemon with the config state of `/api/status`. */
class ConfigDaemon extends FakeDaemon {
  config: ConfigStateStatus = { state: 'ok', lastGoodLoad: '2026-11-26T08:00:00.000Z' }
  override status(): DaemonStatus {
    return { ...super.status(), configState: this.config }
  }
}

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

async function open(daemon: FakeDaemon): Promise<Page> {
  const surface = new WebSurface({ id: 'console', rows: 1, columns: 2 })
  const web = new WebSurfaceServer({ surfaces: [surface] })
  const server: DaemonServer = await startDaemonServer({ api: daemon, port: 0, web })
  const context = await requireBrowser().newContext()
  closers.push(async () => {
    await context.close()
    await web.close()
    await server.close()
    await surface.close()
  })
  const page = await context.newPage()
  await page.clock.install()
  await page.goto(server.url)
  await page.waitForSelector('#daemon-status:not([hidden])')
  return page
}

const strip = (page: Page): Promise<string> => page.locator('#daemon-status').innerText()

/** Moves the page's clock on (a poll by default): the strip asks the daemon again. */
async function poll(page: Page, ms = STATUS_POLL_MS): Promise<void> {
  await page.clock.fastForward(ms)
}

/**
 * The daemon's one error is cleared at `at`: after the page's next poll the strip shows a notice;
 * returns the strip's text then.
 */
async function clearedError(page: Page, daemon: ConfigDaemon, at: string): Promise<string> {
  daemon.errors = [{ ...daemon.errors[0]!, cleared: at }]
  await poll(page)
  await page.waitForSelector('#daemon-status .notice')
  return strip(page)
}

describe('the status strip', () => {
  it('says "application not reachable", not socket closed (1006), then "reconnected" for a while', async () => {
    const daemon = new ConfigDaemon()
    daemon.link = { state: 'stale', since: '2026-11-26T08:59:00.000Z', error: 'socket closed (1006)' }
    daemon.errors = [{ time: '2026-11-26T08:59:00.000Z', message: 'application link: socket closed (1006)' }]
    const page = await open(daemon)
    await page.waitForSelector('#daemon-status .link.stale')
    const down = await strip(page)
    expect(down).toContain('application: not reachable')
    expect(down).toContain('application not reachable')
    expect(down).not.toContain('1006')
    expect(await page.locator('#daemon-status .link').getAttribute('title')).toContain('socket closed (1006)')

    daemon.link = { state: 'connected', since: '2026-11-26T09:00:00.000Z' }
    const back = await clearedError(page, daemon, '2026-11-26T09:00:00.000Z')
    expect(back).toContain('application: connected')
    expect(back).toContain('reconnected')
    // The cleared error is gone from the strip.
    expect(back).not.toContain('not reachable')

    await poll(page, STRIP_NOTICE_MS + STATUS_POLL_MS)
    await expect.poll(() => page.locator('#daemon-status .notice').count()).toBe(0)
    expect(await strip(page)).toContain('application: connected')
  })

  it('says "config refused" while an older mapping runs, then "config reloaded"', async () => {
    const daemon = new ConfigDaemon()
    const page = await open(daemon)
    await page.waitForSelector('#daemon-status .link.connected')
    daemon.config = {
      state: 'refused',
      lastGoodLoad: '2026-11-26T08:00:00.000Z',
      refusedAt: '2026-11-26T09:00:00.000Z',
      error: 'config refused: config.yaml:5:3: unknown key bogus',
    }
    daemon.errors = [{ time: '2026-11-26T09:00:00.000Z', message: daemon.config.error! }]
    await poll(page)
    await page.waitForSelector('#daemon-status .config.refused')
    expect(await strip(page)).toContain('config refused: an older mapping runs')

    daemon.config = { state: 'ok', lastGoodLoad: '2026-11-26T09:01:00.000Z' }
    const text = await clearedError(page, daemon, '2026-11-26T09:01:00.000Z')
    expect(text).toContain('config reloaded')
    expect(text).not.toContain('refused')
  })
})
