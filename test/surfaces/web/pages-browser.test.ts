/**
 * Pages on the web page, in headless Chromium, with the real engine behind the web surface (its page
 * port): the page a surface shows is on the page; with `listen.pages: per-browser` each browser turns
 * its own page and sees that page's keys, with `shared` one browser's page key turns every browser's,
 * and a read-only viewer follows the shared page.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest'
import { Engine } from '../../../src/mappings/engine.js'
import { setLogSink } from '../../../src/log.js'
import { WebSurfaceServer } from '../../../src/surfaces/web/server.js'
import { WebSurface } from '../../../src/surfaces/web/web-surface.js'
import { useChromium } from '../../helpers/browser.js'
import { freshPage, roundTrip } from './helpers.js'
import { engineHarness, loadOrThrow, pagedDesk, type EngineHarness } from '../../mappings/helpers.js'

const CONFIG = (pages: 'shared' | 'per-browser'): string => pagedDesk({ listen: pages })
const KEY0 = '[data-surface="desk"][data-control="key:0"]'
const PAGE = 'section[data-surface="desk"] header .page'

const previousSink = setLogSink(() => undefined)
afterAll(() => setLogSink(previousSink))
const requireBrowser = useChromium('the web page’s pages test')
let h: EngineHarness
let engine: Engine
let desk: WebSurface
let server: WebSurfaceServer
let url: string

beforeEach(async () => {
  // The harness gives the simulator, client and state; this engine draws into the web surface.
  h = await engineHarness(CONFIG('shared'), { link: false })
  desk = new WebSurface({ id: 'desk', rows: 1, columns: 3 })
  engine = new Engine({
    client: h.client,
    state: h.state,
    surfaces: { setFeedback: (_s, c, f) => desk.setFeedback(c, f) },
  })
  desk.events.on('input', (e) => engine.handle(e))
  engine.apply(await loadOrThrow(CONFIG('shared')))
  server = new WebSurfaceServer({ surfaces: [desk], pages: engine })
  url = await server.listen({ port: 0 })
  // Registered first, so it runs last: after the browsers a test opened are closed.
  onTestFinished(async () => {
    await server.close()
    await desk.close()
    engine.stop()
    await h.close()
  })
})

async function open(query = ''): Promise<Page> {
  const page = await freshPage(requireBrowser(), { viewport: { width: 1024, height: 768 } })
  await page.goto(url + query)
  await page.waitForSelector('#status.live')
  await page.waitForSelector(KEY0)
  return page
}

/** The page a browser shows for desk, and its key:0's label. */
async function shows(page: Page): Promise<[string | null, string | null]> {
  const label = await page.getAttribute(KEY0, 'title')
  return [await page.textContent(PAGE), label]
}

describe('the page a surface shows', () => {
  it('per browser: each browser turns its own page and sees its keys', async () => {
    engine.apply(await loadOrThrow(CONFIG('per-browser')))
    const [a, b] = [await open(), await open()]
    await expect.poll(() => shows(a)).toEqual(['page titles', 'Cameras → (hotkey 1)'])
    await expect.poll(() => shows(b)).toEqual(['page titles', 'Cameras → (hotkey 1)'])
    expect(await a.textContent('nav li .page')).toBe('page titles')

    await a.click(KEY0)
    await expect.poll(() => shows(a)).toEqual(['page cameras', '← Titles (hotkey 1)'])
    await expect
      .poll(() => a.getAttribute('[data-surface="desk"][data-control="key:2"]', 'title'))
      .toBe('Cam 1 (hotkey 3)')
    // b and the surface itself stay where they were: b has had all the server sent it by now.
    await roundTrip(b)
    expect(await shows(b)).toEqual(['page titles', 'Cameras → (hotkey 1)'])
    expect(engine.pageOf('desk')).toBe('titles')

    // b turns its own; a goes back on its own way.
    await b.click(KEY0)
    await expect.poll(() => shows(b)).toEqual(['page cameras', '← Titles (hotkey 1)'])
    await a.keyboard.press('Digit1')
    await expect.poll(() => shows(a)).toEqual(['page titles', 'Cameras → (hotkey 1)'])
    expect(await shows(b)).toEqual(['page cameras', '← Titles (hotkey 1)'])
  })

  it('shared: one browser’s page key turns the page of every browser; a reload to per-browser parts them', async () => {
    const [a, b] = [await open(), await open()]
    await expect.poll(() => shows(b)).toEqual(['page titles', 'Cameras → (hotkey 1)'])
    await a.click(KEY0)
    await expect.poll(() => shows(b)).toEqual(['page cameras', '← Titles (hotkey 1)'])
    expect(engine.pageOf('desk')).toBe('cameras')

    engine.apply(await loadOrThrow(CONFIG('per-browser')))
    await b.click(KEY0)
    await expect.poll(() => shows(b)).toEqual(['page titles', 'Cameras → (hotkey 1)'])
    await roundTrip(a)
    expect(await shows(a)).toEqual(['page cameras', '← Titles (hotkey 1)'])
  })

  it('a read-only viewer follows the shared page, per browser too', async () => {
    engine.apply(await loadOrThrow(CONFIG('per-browser')))
    const viewer = await open('?view=1')
    const browser = await open()
    await expect.poll(() => viewer.textContent(PAGE)).toBe('page titles')
    await browser.click(KEY0)
    await expect.poll(() => shows(browser)).toEqual(['page cameras', '← Titles (hotkey 1)'])
    await roundTrip(viewer)
    expect(await viewer.textContent(PAGE)).toBe('page titles')
    // The surface's own page (hardware, the remote API) turns: the viewer follows it.
    engine.handle({ type: 'down', surface: 'desk', control: 'key:0', at: performance.now() })
    engine.handle({ type: 'up', surface: 'desk', control: 'key:0', at: performance.now() })
    await expect.poll(() => viewer.textContent(PAGE)).toBe('page cameras')
    await expect.poll(() => viewer.getAttribute(KEY0, 'title')).toBe('← Titles (viewer)')
  })
})
