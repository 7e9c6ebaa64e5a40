/**
 * A Stream Deck on the browser's machine (issue 26.2), in headless Chromium against a real daemon (the
 * built-in simulator's own process stand-in, started here so its command log can be read): the page's
 * "connect a Stream Deck" button loads the deck script, the REAL @elgato-stream-deck/webhid library
 * opens a fake WebHID device (`../browser-deck/fake-webhid.ts`), and the deck becomes the configured
 * `browser-deck` surface. A key press on the fake device reaches the simulator's command log; the
 * engine's feedback reaches the device as the model's image reports (gen2: report 2, command 0x07,
 * JPEG body); closing the page unplugs the deck and the surface shows `waiting`.
 *
 * Never skipped: without Chromium at /usr/bin/chromium every test here fails with a message that
 * says how to install it.
 */
import type { Page } from 'playwright-core'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { setLogSink } from '../../../src/log.js'
import { startSimulator } from '../../../src/app-kit/simulator/index.js'
import { useChromium } from '../../helpers/browser.js'
import { testConfigFile } from '../../helpers/files.js'
import { surfaceState as stateOf } from '../../helpers/in-process-daemon.js'
import { until } from '../../helpers/until.js'
import { FAKE_DECK_SERIAL, fakeWebHidScript, type RecordedReport } from '../browser-deck/fake-webhid.js'
import { browserDeckDaemon } from '../browser-deck/daemon-rig.js'

const previousSink = setLogSink(() => undefined)
afterAll(() => setLogSink(previousSink))
const requireBrowser = useChromium('the browser deck test')

async function start() {
  const sim = await startSimulator()
  onTestFinished(() => sim.close())
  const file = await testConfigFile(
    'browser-deck',
    `version: 1
app: { url: "${sim.httpUrl}", notifications: "${sim.wsUrl}" }
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  laptop: { driver: browser-deck, model: original-mk2, serial: ${FAKE_DECK_SERIAL} }
bindings:
  - on: laptop/key:0
    label: CUT
    color: "#d02020"
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
    feedback: { title: "Lower Third" }
`,
  )
  const { daemon, driver } = await browserDeckDaemon(file)
  await until('the application link', () => daemon.status().app.state === 'connected')
  return { daemon, sim, driver }
}

async function open(url: string): Promise<Page> {
  const context = await requireBrowser().newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 })
  onTestFinished(() => context.close())
  await context.addInitScript(fakeWebHidScript())
  const page = await context.newPage()
  await page.goto(url)
  await page.waitForSelector('#status.live')
  return page
}

/** The image reports the page wrote to the fake deck for one key (gen2: report 2, command 0x07, key index). */
async function imageReports(page: Page, key: number): Promise<RecordedReport[]> {
  const reports = await page.evaluate(
    () => (window as unknown as { __fakeDeck: { reports: RecordedReport[] } }).__fakeDeck.reports,
  )
  return reports.filter((r) => r.id === 2 && r.head[0] === 0x07 && r.head[1] === key)
}

/** The parts of each image written to a key: a run of reports whose last has the "last" flag. */
function imagesIn(reports: RecordedReport[]): RecordedReport[][] {
  const images: RecordedReport[][] = []
  let current: RecordedReport[] = []
  for (const r of reports) {
    current.push(r)
    if (r.head[2] === 1) {
      images.push(current)
      current = []
    }
  }
  return images
}

describe('a Stream Deck on the browser’s machine', () => {
  it('is the configured surface: a press reaches the application, feedback reaches the deck as image reports, closing the page unplugs it', async () => {
    const { daemon, sim, driver } = await start()
    expect(stateOf(daemon, 'laptop')).toBe('waiting')
    const page = await open(daemon.url)
    // The page loaded no WebHID code yet: the deck script is fetched by the button.
    const scripts = () => page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name))
    expect((await scripts()).some((name) => name.endsWith('/browser-deck.js'))).toBe(false)

    await page.locator('#connect-deck').click()
    await until('the deck opened as laptop', () => stateOf(daemon, 'laptop') === 'open')
    expect((await scripts()).some((name) => name.endsWith('/browser-deck.js'))).toBe(true)
    expect(driver.hub.list()).toEqual([
      expect.objectContaining({ driver: 'browser-deck', modelId: 'original-mk2', serial: FAKE_DECK_SERIAL }),
    ])
    expect(daemon.status().surfaces.find((s) => s.name === 'laptop')).toMatchObject({
      driver: 'browser-deck',
      model: 'Stream Deck MK.2',
      device: FAKE_DECK_SERIAL,
    })
    await page.waitForFunction(() => document.querySelector('.deck-line')?.textContent?.includes('open'))

    // The binding's face reaches key 0 as the model's own image reports: report 2, command 0x07, key 0,
    // the body a JPEG (FF D8) in 1023-byte reports, the last flagged.
    await expect.poll(async () => imagesIn(await imageReports(page, 0)).length, { timeout: 10_000 }).toBeGreaterThan(0)
    const first = imagesIn(await imageReports(page, 0))[0]!
    expect(first[0]!.head.slice(7, 9)).toEqual([0xff, 0xd8])
    expect(first.map((r) => r.length)).toEqual(first.map(() => 1023))
    expect(first.map((r) => r.head[5])).toEqual(first.map((_, i) => i))
    const before = imagesIn(await imageReports(page, 0)).length

    // A press on the device: the library reads the input report, the page sends it, the daemon acts.
    await page.evaluate(() => {
      const fake = (window as unknown as { __fakeDeck: { device: { keys(down: number[]): void } } }).__fakeDeck
      fake.device.keys([0])
      fake.device.keys([])
    })
    await expect
      .poll(() => sim.http.log.filter((e) => e.name === 'schedule').map((e) => e.parameters), { timeout: 10_000 })
      .toEqual([expect.objectContaining({ action: 'cutin', title: 'Lower Third' })])
    // The title now plays: its new face is written to key 0 again.
    await expect
      .poll(async () => imagesIn(await imageReports(page, 0)).length, { timeout: 10_000 })
      .toBeGreaterThan(before)

    // Closing the tab is an unplug: the surface waits for its deck again.
    await page.close()
    await until('the surface waiting again', () => stateOf(daemon, 'laptop') === 'waiting')
    expect(driver.hub.list()).toEqual([])
  })
})
