/**
 * The page's words, in a real browser against a real daemon whose application is not there (no simulator,
 * `app.url` on a port nothing listens on), as on a packaged box before the application starts: the page's
 * own link says "page connected" (never "live", which a crew reads as on air) with a tooltip; the status
 * strip says plainly that it waits for the application, at which URL, and how its command interface is
 * reached; every item of the strip has a tooltip; a legend says what the words, colours and badges mean;
 * a fader whose value is not known says so in its tooltip. Its screenshot (legend open) is
 * test-output/page-waiting.png (copied to docs/, shown in docs/install.md).
 */
import { mkdirSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import { setLogSink } from '../../src/log.js'
import { useChromium } from '../helpers/browser.js'
import { startBundledDaemon, stopBundledDaemon, type BundledDaemon } from './bundled-daemon.js'
import { freePort } from './helpers.js'

const requireBrowser = useChromium('the page words test')
let started: BundledDaemon | undefined
let daemon: Daemon
let appUrl: string
const previousSink = setLogSink(() => undefined)

beforeAll(async () => {
  appUrl = `http://127.0.0.1:${await freePort()}`
  started = await startBundledDaemon('pb-page-words-', {
    doc: (doc) => {
      doc.setIn(['app', 'url'], appUrl)
      doc.deleteIn(['app', 'simulate'])
    },
  })
  daemon = started.daemon
})
afterAll(async () => {
  await stopBundledDaemon(started)
  setLogSink(previousSink)
})

describe('the page while the application is not there', () => {
  it('says "page connected" (never live), waits for the application at its URL and says how it is reached; tooltips; a legend', async () => {
    expect(daemon.status().simulated).toBe(false)
    const page = await requireBrowser().newPage({ viewport: { width: 1280, height: 800 } })
    try {
      await page.goto(daemon.url)
      await page.waitForSelector('#status.live')
      const status = page.locator('#status')
      expect(await status.textContent()).toBe('page connected')
      expect(await status.getAttribute('title')).toMatch(/nothing about the application or what is on air/)
      expect((await page.textContent('header.top')) ?? '').not.toMatch(/\blive\b/i)

      const waiting = page.locator('#daemon-status .waiting-app')
      await waiting.waitFor()
      const words = (await waiting.textContent()) ?? ''
      expect(words).toContain(`Waiting for the application at ${appUrl}`)
      expect(words).toContain('NewBlue Captivate')
      expect(words).toContain('port 9022')
      expect(words).toContain('Generic HTML.httpPort')
      expect(words).toContain('set app.url')
      expect(words).not.toMatch(/notes|decisions|ASSUMED/)
      const link = page.locator('#daemon-status .link').first()
      expect(await link.textContent()).toBe('application: not reachable')
      expect(await link.getAttribute('title')).toMatch(/link to the graphics application/)

      // The legend: closed at first, opened from the header's link, and it says what each thing means.
      const legend = page.locator('details#legend')
      expect(await legend.count()).toBe(1)
      expect(await legend.getAttribute('open')).toBeNull()
      await page.locator('header.top #legend-link').click()
      expect(await legend.getAttribute('open')).toBe('')
      const legendText = (await legend.textContent()) ?? ''
      for (const word of [
        'page connected',
        'SIMULATED',
        'Stale',
        'Unknown',
        'Pending',
        'Failed',
        'hotkey',
        'rehearsal',
      ])
        expect(legendText).toContain(word)
      expect(legendText).toMatch(/paused: still on screen, on air/i)
      expect(await legend.locator('.sw.unknown').count()).toBe(1)

      // A key's badge is explained in its tooltip: the title key is stale while the application is away.
      expect(daemon.controlState('console', 'key:0')).toMatchObject({ badge: 'stale' })
      await expect
        .poll(() => page.getAttribute('[data-surface="console"][data-control="key:0"]', 'title'))
        .toMatch(/greyed: the application is not reachable/)

      // The fader has not moved and the application has said nothing: its blue ? says what it means.
      const track = page.locator('[data-surface="console"][data-control="fader:0"] .track')
      await page.locator('[data-surface="console"][data-control="fader:0"].unknown').waitFor()
      expect(await track.getAttribute('title')).toMatch(/not known yet/)
      mkdirSync('test-output', { recursive: true })
      await page.mouse.move(0, 0)
      await page.screenshot({ path: 'test-output/page-waiting.png', fullPage: true })
    } finally {
      await page.close()
    }
  })
})
