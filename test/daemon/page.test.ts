/**
 * The daemon with the bundled default config, as a newcomer runs it (the simulator on free ports), seen
 * in a real browser: a click on a title key plays the title and the key turns amber once it holds on
 * screen. The screenshot it takes is the README's (test-output/web-surface.png; copied to docs/).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseDocument } from 'yaml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BUNDLED_CONFIG, Daemon } from '../../src/daemon/daemon.js'
import { setLogSink } from '../../src/log.js'
import { useChromium } from '../helpers/browser.js'

const SCREENSHOT = new URL('../../test-output/web-surface.png', import.meta.url)
const requireBrowser = useChromium('the page test')
let daemon: Daemon
let dir: string
const previousSink = setLogSink(() => undefined)

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pb-page-'))
  const doc = parseDocument(await readFile(BUNDLED_CONFIG, 'utf8'))
  doc.setIn(['app', 'url'], 'http://127.0.0.1:0')
  doc.setIn(['listen', 'port'], 0)
  const config = join(dir, 'config.yaml')
  await writeFile(config, String(doc))
  daemon = await Daemon.start({ config, drivers: [], watch: false })
})
afterAll(async () => {
  await daemon?.stop()
  await rm(dir, { recursive: true, force: true })
  setLogSink(previousSink)
})

describe('the default config in a browser', () => {
  it('plays a title from a click; the key turns amber; SIMULATED shows in the status strip', async () => {
    await expect.poll(() => daemon.status().app.state, { timeout: 10_000 }).toBe('connected')
    const page = await requireBrowser().newPage({ viewport: { width: 520, height: 620 } })
    await page.goto(daemon.url)
    const key = '[data-surface="console"][data-control="key:0"]'
    await page.waitForSelector(key)
    await page.click(key)
    await expect
      .poll(() => daemon.controlState('console', 'key:0'), { timeout: 10_000 })
      .toMatchObject({ label: 'Lower Third\nPaused', color: '#d08000' })
    await expect.poll(async () => (await page.textContent('body')) ?? '', { timeout: 5000 }).toContain('SIMULATED')
    mkdirSync(new URL('.', SCREENSHOT), { recursive: true })
    await page.screenshot({ path: SCREENSHOT.pathname })
    await page.close()
  })
})
