/**
 * Configured hardware that is not plugged in, on the page (issue 22, item 10), in headless Chromium
 * against a real daemon (the simulator; the real Stream Deck driver over an in-memory transport): a
 * greyed mirror "waiting for Stream Deck XL" whose key colours are read from screenshot pixels (grey,
 * where the binding's colour is red); a surface with `rehearse: true` presses from the page and the
 * press reaches the application; one without it stays read-only; plugging the deck in replaces the
 * waiting mirror with the device's own.
 *
 * Never skipped: without Chromium at /usr/bin/chromium every test here fails with a message that
 * says how to install it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { setLogSink } from '../../../src/log.js'
import { useChromium } from '../../helpers/browser.js'
import { until } from '../../helpers/until.js'
import { deckDaemon, WAITING_CONFIG_HEAD } from '../../daemon/deck-daemon.js'
import { decodePng, pixelAt, type Rgb } from './pixels.js'

const previousSink = setLogSink(() => undefined)
afterAll(() => setLogSink(previousSink))
const requireBrowser = useChromium('the waiting-surface browser test')

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const RED = '#d02020'
const CONFIG = `${WAITING_CONFIG_HEAD}  - on: desk/key:0
    label: CUT
    color: "${RED}"
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
  - on: spare/key:0
    label: CUT
    color: "${RED}"
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
`

async function start() {
  const dir = await mkdtemp(join(tmpdir(), 'pb-waiting-page-'))
  const file = join(dir, 'config.yaml')
  await writeFile(file, CONFIG)
  const { daemon, transport, hotplug } = await deckDaemon(file)
  cleanups.push(async () => {
    await daemon.stop()
    await rm(dir, { recursive: true, force: true })
  })
  await until('the application link', () => daemon.status().app.state === 'connected')
  return { daemon, transport, hotplug }
}

async function open(url: string): Promise<Page> {
  const context = await requireBrowser().newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 })
  cleanups.push(() => context.close())
  const page = await context.newPage()
  await page.goto(url)
  await page.waitForSelector('#status.live')
  return page
}

const key = (surface: string, control = 'key:0') => `[data-surface="${surface}"][data-control="${control}"]`

/** How far a colour is from grey: the largest difference between two of its channels. */
function chroma([r, g, b]: Rgb): number {
  return Math.max(r, g, b) - Math.min(r, g, b)
}

/** The most coloured pixel of an element's box on a screenshot of the page. */
async function mostColoured(page: Page, selector: string): Promise<Rgb> {
  const box = await page.locator(selector).boundingBox()
  if (!box) throw new Error(`no box for ${selector}`)
  const shot = await decodePng(await page.screenshot({ fullPage: true }))
  let best: Rgb = [0, 0, 0]
  for (let y = box.y + 2; y < box.y + box.height - 2; y += 2) {
    for (let x = box.x + 2; x < box.x + box.width - 2; x += 2) {
      const p = pixelAt(shot, x, y)
      if (chroma(p) > chroma(best)) best = p
    }
  }
  return best
}

describe('a configured deck that is not plugged in, on the page', () => {
  it('is a greyed mirror "waiting for Stream Deck XL": its red key shows grey, and it takes no press', async () => {
    const { daemon } = await start()
    const page = await open(daemon.url)
    const desk = page.locator('section[data-surface="desk"]')
    await desk.waitFor()
    expect(await desk.getAttribute('class')).toContain('waiting')
    expect(await desk.locator('header').textContent()).toContain('waiting for Stream Deck XL')
    expect(await desk.locator('header').textContent()).toContain('read-only')
    expect(await page.locator('nav').textContent()).toContain('waiting for Stream Deck XL')
    // 32 keys: the model the config names, before any device says so.
    expect(await desk.locator('[data-control^="key:"]').count()).toBe(32)
    // The key is painted with the binding's red (the engine's feedback reaches the waiting mirror)...
    await page.waitForFunction(
      (sel) => document.querySelector(sel)?.getAttribute('title')?.includes('CUT'),
      key('desk'),
    )
    // ...and the mirror is drawn greyed: no colour left in its pixels.
    expect(chroma(await mostColoured(page, key('desk')))).toBeLessThan(12)
    expect(await page.locator(key('desk')).evaluate((n) => n.tagName)).toBe('DIV')
    // A click on it sends nothing: the rehearsing surface's click after it is the only command sent (one
    // socket, so the server reads the two in order).
    await page.locator(key('desk')).click()
    await page.locator(key('spare')).click()
    await until('the rehearsed press sent', () => daemon.status().commands.sent >= 1)
    expect(daemon.status().commands.sent).toBe(1)
  })

  it('with rehearse: true presses from the page, and the press reaches the application', async () => {
    const { daemon } = await start()
    const page = await open(daemon.url)
    const spare = page.locator('section[data-surface="spare"]')
    await spare.waitFor()
    expect(await spare.locator('header').textContent()).toContain('waiting for Stream Deck Mini')
    expect(await spare.locator('header').textContent()).toContain('rehearsal')
    expect(await page.locator(key('spare')).evaluate((n) => n.tagName)).toBe('BUTTON')
    await page.locator(key('spare')).click()
    await until('the rehearsed press sent', () => daemon.status().commands.sent === 1)
  })

  it('gives way to the device’s own mirror when the deck is plugged in, and comes back when it is pulled', async () => {
    const { daemon, transport, hotplug } = await start()
    const page = await open(daemon.url)
    await page.locator('section[data-surface="desk"].waiting').waitFor()
    transport.plug('xl' as never, '/dev/hidraw-desk')
    hotplug.fire('attach')
    await page.locator('section[data-surface="desk"]:not(.waiting)').waitFor()
    expect(await page.locator('section[data-surface="desk"] header').textContent()).not.toContain('waiting')
    // The device's mirror shows the binding's red.
    await page.waitForFunction(
      (sel) => document.querySelector(sel)?.getAttribute('title')?.includes('CUT'),
      key('desk'),
    )
    expect(chroma(await mostColoured(page, key('desk')))).toBeGreaterThan(100)
    transport.unplug('/dev/hidraw-desk')
    hotplug.fire('detach')
    await page.locator('section[data-surface="desk"].waiting').waitFor()
  })
})
