/**
 * Issue 22, items 11 and 14, on the page in headless Chromium: a CJK label is drawn in the fallback font
 * the daemon serves (fetched only once a label needs it, never for Latin labels) and has ink on the key;
 * a fader whose value is unknown is drawn as unknown (no thumb at its bottom), and as a value once one
 * comes.
 */
import type { Page } from 'playwright-core'
import { beforeEach, describe, expect, it } from 'vitest'
import { useChromium } from '../../helpers/browser.js'
import { FALLBACK_FONTS } from '../../../src/face/key-paint.js'
import { WebSurface } from '../../../src/surfaces/web/web-surface.js'
import { freshPage, webServerForTest, type WebServerRig } from './helpers.js'
import { decodePng, near, pixelAt, whitePixels, type Rgb } from './pixels.js'

const requireBrowser = useChromium("the fallback fonts' browser test")
const selector = (control: string): string => `[data-surface="desk"][data-control="${control}"]`
const cjk = FALLBACK_FONTS.find((f) => f.id === 'cjk')!
const emoji = FALLBACK_FONTS.find((f) => f.id === 'emoji')!

describe('the page draws every script, and an unknown fader as unknown', () => {
  let desk: WebSurface
  let web: WebServerRig
  let page: Page
  /** The paths the page asked the server for. */
  let requested: string[]

  beforeEach(async () => {
    desk = new WebSurface({ id: 'desk', rows: 1, columns: 3, faders: 1 })
    // Closed after the page's context, which freshPage registers later.
    web = await webServerForTest({ surfaces: [desk] }, () => desk.close())
    page = await freshPage(requireBrowser(), { viewport: { width: 900, height: 600 }, deviceScaleFactor: 1 })
    requested = []
    page.on('request', (r) => requested.push(new URL(r.url()).pathname))
    await page.goto(web.url)
    await page.waitForSelector('#status.live')
    await page.waitForSelector(selector('key:0'))
  })

  async function painted(control: string, label: string): Promise<void> {
    await page.waitForFunction(
      ([sel, text]) => {
        const key = document.querySelector<HTMLElement>(sel!)
        return key?.getAttribute('title')?.startsWith(text!) === true && key.dataset.painted !== undefined
      },
      [selector(control), label],
    )
  }

  /** White (label) pixels on a key, read from a screenshot of the page. */
  async function ink(control: string): Promise<number> {
    const box = await page.locator(`${selector(control)} canvas`).boundingBox()
    if (!box) throw new Error(`no canvas for ${control}`)
    const shot = await decodePng(await page.screenshot())
    return whitePixels(shot, box.x, box.y, box.x + box.width, box.y + box.height)
  }

  it('a Latin label fetches no fallback font; a CJK label fetches the CJK one (only) and has ink', async () => {
    desk.setFeedback('key:0', { text: 'Cam 1', color: '#000000' })
    await painted('key:0', 'Cam 1')
    expect(requested).toContain('/key-font.ttf')
    expect(requested).not.toContain(cjk.route)
    expect(requested).not.toContain(emoji.route)

    desk.setFeedback('key:1', { text: '字幕', color: '#000000' })
    await painted('key:1', '字幕')
    expect(requested.filter((p) => p === cjk.route)).toHaveLength(1)
    expect(requested).not.toContain(emoji.route)
    // Loaded under its family, for the characters of its range.
    const status = await page.evaluate(
      ([family]) => [...document.fonts].filter((f) => f.family === family).map((f) => f.status),
      [cjk.family],
    )
    expect(status).toEqual(['loaded'])
    expect(await page.evaluate(([family]) => document.fonts.check(`20px ${family}`, '字'), [cjk.family])).toBe(true)
    // Two ideographs of a 96-px key at the largest size that fits: far more ink than a blank key.
    const blank = await ink('key:2')
    const drawn = await ink('key:1')
    expect(blank).toBe(0)
    expect(drawn).toBeGreaterThan(300)

    // A second CJK label reuses the loaded font: no second fetch.
    desk.setFeedback('key:2', { text: '新闻', color: '#000000' })
    await painted('key:2', '新闻')
    expect(requested.filter((p) => p === cjk.route)).toHaveLength(1)
  })

  it('an emoji label fetches the emoji font', async () => {
    desk.setFeedback('key:0', { text: '🎬', color: '#000000' })
    await painted('key:0', '🎬')
    expect(requested).toContain(emoji.route)
    expect(requested).not.toContain(cjk.route)
  })

  it('a fader with no value yet shows no position; a value moves it; the unknown badge makes it unknown again', async () => {
    const fader = page.locator(selector('fader:0'))
    const track = fader.locator('.track')
    await expect.poll(() => fader.getAttribute('class')).toContain('unknown')
    expect(await track.getAttribute('aria-valuetext')).toBe('unknown')
    expect(await track.getAttribute('aria-valuenow')).toBeNull()
    // No thumb at all (it is not at its bottom), and a blue '?' in the hatched track.
    expect(await fader.locator('.thumb').isVisible()).toBe(false)
    const box = (await track.boundingBox())!
    const shot = await decodePng(await page.screenshot())
    let blue = 0
    for (let y = Math.round(box.y); y < box.y + box.height; y++)
      for (let x = Math.round(box.x); x < box.x + box.width; x++)
        if (near(pixelAt(shot, x, y), [0x4d, 0xa3, 0xff], 40)) blue++
    expect(blue).toBeGreaterThan(15)
    // The accent fill of a known value is absent near the bottom.
    const bottom: Rgb = pixelAt(shot, box.x + box.width / 2, box.y + box.height - 10)
    expect(near(bottom, [0x4a, 0xa3, 0xff], 30)).toBe(false)

    desk.setFeedback('fader:0', { text: 'Speed', value: 0.25 })
    await expect.poll(() => track.getAttribute('aria-valuenow')).toBe('0.25')
    expect(await fader.getAttribute('class')).not.toContain('unknown')
    expect(await fader.locator('.thumb').isVisible()).toBe(true)

    desk.setFeedback('fader:0', { text: 'Speed', badge: 'unknown' })
    await expect.poll(() => fader.getAttribute('class')).toContain('unknown')
    expect(await track.getAttribute('aria-valuenow')).toBeNull()
  })
})
