/**
 * Hardware mirrors in a real browser: a ShuttlePro v2, an XK-24 and a Behringer X-Touch Mini (the real
 * drivers over in-memory devices, under a real SurfaceManager) drawn by the page in headless Chromium
 * with their layout (wheels, a key grid, knobs), and feedback arriving live: colours are read from the
 * pixels of screenshots, not from the DOM. The screenshot it takes is the README's
 * (test-output/web-mirrors.png; copied to docs/web-mirrors.png).
 *
 * Never skipped: without Chromium at /usr/bin/chromium every test here fails with a message that
 * says how to install it.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { setLogSink } from '../../../src/log.js'
import { KeyRenderer } from '../../../src/surfaces/render/key-renderer.js'
import { KeyImages } from '../../../src/surfaces/web/key-images.js'
import { XKEYS_BLUE, XKEYS_BLUE_AND_RED, XKEYS_RED } from '../../../src/families/xkeys-lights.js'
import { useChromium } from '../../helpers/browser.js'
import { HARDWARE, hardwareMirrors, freshPage, webServerForTest } from './helpers.js'
import type { HardwareMirrors, WebServerRig } from './helpers.js'
import { decodePng, near, pixelAt, rgbOf, type Rgb } from './pixels.js'

const SCREENSHOT = 'test-output/web-mirrors.png'
/** The page's accent colour, which fills a knob's ring up to its value. */
const ACCENT: Rgb = [0x4a, 0xa3, 0xff]
/** An empty ring. */
const RING_BACKGROUND: Rgb = [0x33, 0x33, 0x33]

const previousSink = setLogSink(() => undefined)
const requireBrowser = useChromium('the hardware mirrors browser test')
beforeAll(() => mkdirSync('test-output', { recursive: true }))
afterAll(() => setLogSink(previousSink))

const selector = (surface: string, control: string): string => `[data-surface="${surface}"][data-control="${control}"]`

describe('hardware mirrors in headless Chromium', () => {
  let hw: HardwareMirrors
  let web: WebServerRig

  beforeEach(async () => {
    hw = await hardwareMirrors()
    const images = new KeyImages(new KeyRenderer())
    // Registered first, so it is closed last: after the browsers a test opened are closed.
    web = await webServerForTest({ registry: hw.manager, images }, () => hw.manager.stop())
  })

  async function open(): Promise<Page> {
    const page = await freshPage(requireBrowser(), { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 })
    await page.goto(web.url)
    await page.waitForSelector('#status.live')
    for (const name of Object.values(HARDWARE)) await page.waitForSelector(`section[data-surface="${name}"]`)
    return page
  }

  async function box(page: Page, surface: string, control: string, part = '') {
    const b = await page.locator(`${selector(surface, control)}${part}`).boundingBox()
    if (!b) throw new Error(`no box for ${surface}/${control}${part}`)
    return b
  }

  /** Waits until a pad's backlight shows `hex` (as the page styles it), then reads its pixels. */
  async function padPixel(page: Page, surface: string, control: string, hex: string): Promise<Rgb> {
    const [r, g, b] = rgbOf(hex)
    await page.waitForFunction(
      ([sel, want]) => {
        const pad = document.querySelector<HTMLElement>(sel!)
        return pad !== null && getComputedStyle(pad).backgroundColor === want
      },
      [selector(surface, control), `rgb(${r}, ${g}, ${b})`],
    )
    const at = await box(page, surface, control)
    const shot = await decodePng(await page.screenshot({ fullPage: true }))
    return pixelAt(shot, at.x + 6, at.y + 6)
  }

  it("draws the Shuttle's buttons, jog wheel and ring, the XK-24's key grid and the X-Touch Mini's knobs", async () => {
    const page = await open()
    const count = (sel: string): Promise<number> => page.locator(sel).count()
    const { shuttle, xkeys, midi } = HARDWARE

    // The ShuttlePro v2 as the device is laid out (not a grid): 15 buttons on its face, four across the
    // top and five under them, the jog in the middle of the shuttle ring, a button either side of the
    // ring, four at the bottom (the inner pair higher).
    expect(await count(`section[data-surface="${shuttle}"] .face .pad`)).toBe(15)
    expect(await count(`section[data-surface="${shuttle}"] .grid, section[data-surface="${shuttle}"] .pads`)).toBe(0)
    const b = await Promise.all(Array.from({ length: 15 }, (_, i) => box(page, shuttle, `button:${i}`)))
    const mid = (r: { x: number; y: number; width: number; height: number }) => [r.x + r.width / 2, r.y + r.height / 2]
    const [top0, top1, top2, top3, row0, , row2, , row4, outerL, outerR, innerL, innerR, sideL, sideR] = b.map(mid)
    expect(top1![1]).toBe(top2![1])
    expect(top0![0]).toBeLessThan(top1![0]!)
    expect(top2![0]).toBeLessThan(top3![0]!)
    expect(row2![1]).toBeGreaterThan(top1![1]!) // the five under the four
    expect(row0![0]).toBeLessThan(top0![0]!) // the second row is wider
    expect(row4![0]).toBeGreaterThan(top3![0]!)
    const jog = mid(await box(page, shuttle, 'jog', ' .ring'))
    const ringBox = await box(page, shuttle, 'shuttle', ' .track')
    const ring = mid(ringBox)
    expect(Math.abs(jog[0]! - ring[0]!)).toBeLessThan(1) // the jog in the ring's middle
    expect(Math.abs(jog[1]! - ring[1]!)).toBeLessThan(1)
    expect((await box(page, shuttle, 'jog', ' .ring')).width).toBeLessThan(ringBox.width * 0.6)
    expect(ring[1]).toBeGreaterThan(row2![1]!) // the ring under the buttons
    expect(sideL![0]).toBeLessThan(ringBox.x) // one button either side of the ring
    expect(sideR![0]).toBeGreaterThan(ringBox.x + ringBox.width)
    expect(sideL![1]).toBe(sideR![1])
    for (const bottom of [outerL, outerR, innerL, innerR])
      expect(bottom![1]).toBeGreaterThan(ringBox.y + ringBox.height)
    expect(innerL![1]).toBeLessThan(outerL![1]!) // the inner pair set higher
    expect(outerL![0]).toBeLessThan(innerL![0]!)
    expect(innerR![0]).toBeLessThan(outerR![0]!)
    expect(await page.getAttribute(`${selector(shuttle, 'shuttle')} .track`, 'aria-readonly')).toBe('true')

    // The XK-24: 6 rows of 4 keys, key:N row-major from the top left.
    expect(await count(`section[data-surface="${xkeys}"] .grid .pad`)).toBe(24)
    const k0 = await box(page, xkeys, 'key:0')
    const k1 = await box(page, xkeys, 'key:1')
    const k4 = await box(page, xkeys, 'key:4')
    const k23 = await box(page, xkeys, 'key:23')
    expect([k1.y, k4.x]).toEqual([k0.y, k0.x])
    expect(k1.x).toBeGreaterThan(k0.x)
    expect(k4.y).toBeGreaterThan(k0.y)
    expect(k23.x).toBe(k0.x + 3 * (k1.x - k0.x))
    expect(k23.y).toBe(k0.y + 5 * (k4.y - k0.y))

    // The X-Touch Mini: 8 knobs, 16 buttons in 2 rows of 8, the fader.
    expect(await count(`section[data-surface="${midi}"] .dial.knob`)).toBe(8)
    expect(await count(`section[data-surface="${midi}"] .grid .pad`)).toBe(16)
    expect((await box(page, midi, 'note:11:23')).y).toBeGreaterThan((await box(page, midi, 'note:11:8')).y)
    expect(await count(`${selector(midi, 'cc:11:9')}.slider.fader`)).toBe(1)
    // Read-only: no control of a mirror can be focused or pressed.
    expect(await count('section[data-mode="mirror"] button, section[data-mode="mirror"] [tabindex]')).toBe(0)
  })

  it('a backlight colour change arrives live, in the XK-24’s own colours; a flashing key blinks', async () => {
    const page = await open()
    const { xkeys } = HARDWARE
    const dark = await padPixel(page, xkeys, 'key:5', '#2b2d31')
    expect(dark).toSatisfy((p: Rgb) => near(p, rgbOf('#2b2d31')))

    hw.manager.setFeedback(xkeys, 'key:5', { color: '#ff0000', text: 'PGM' })
    expect(await padPixel(page, xkeys, 'key:5', XKEYS_RED)).toSatisfy((p: Rgb) => near(p, rgbOf(XKEYS_RED)))
    hw.manager.setFeedback(xkeys, 'key:5', { color: '#0000ff', text: 'PVW' })
    expect(await padPixel(page, xkeys, 'key:5', XKEYS_BLUE)).toSatisfy((p: Rgb) => near(p, rgbOf(XKEYS_BLUE)))
    expect(await page.textContent(selector(xkeys, 'key:5'))).toBe('PVW')

    hw.manager.setFeedback(xkeys, 'key:6', { color: '#ffffff', led: 'blink' })
    await page.waitForSelector(`${selector(xkeys, 'key:6')}.blink`)
    expect(await page.$eval(selector(xkeys, 'key:6'), (e) => getComputedStyle(e).animationName)).toBe('pad-blink')
    expect(await page.$eval(selector(xkeys, 'key:5'), (e) => getComputedStyle(e).animationName)).toBe('none')
    // The device got the same feedback: key:6's blue and red LEDs flash (state 2).
    await expect.poll(() => hw.panel().writes.map((w) => w.slice(0, 14))).toContain('00 b5 11 02 01')
    expect(XKEYS_BLUE_AND_RED).not.toBe(XKEYS_BLUE)
  })

  it("a knob's LED ring shows its value live; the screenshot of the three mirrors", async () => {
    const page = await open()
    const { shuttle, xkeys, midi } = HARDWARE
    hw.manager.setFeedback(midi, 'cc:11:1', { value: 0.25, text: 'speed' })
    await page.waitForSelector(`${selector(midi, 'cc:11:1')} .ring.has-value`)
    const ring = await box(page, midi, 'cc:11:1', ' .ring')
    const shot = await decodePng(await page.screenshot({ fullPage: true }))
    const cx = ring.x + ring.width / 2
    const cy = ring.y + ring.height / 2
    const r = ring.width / 4
    // A quarter turn clockwise from the top is lit; the rest of the ring is not.
    expect(pixelAt(shot, cx + r, cy - r)).toSatisfy((p: Rgb) => near(p, ACCENT))
    expect(pixelAt(shot, cx - r, cy + r)).toSatisfy((p: Rgb) => near(p, RING_BACKGROUND))
    expect(await page.textContent(`${selector(midi, 'cc:11:1')} .label`)).toBe('speed')

    // A plausible desk for the README's picture.
    const titles: [string, string, string][] = [
      ['key:0', '#ff0000', 'Lower third'],
      ['key:1', '#0000ff', 'Full name'],
      ['key:2', '#ff0000', 'Score'],
      ['key:4', '#0000ff', 'Clock'],
      ['key:5', '#ffffff', 'Logo'],
    ]
    for (const [key, color, text] of titles) hw.manager.setFeedback(xkeys, key, { color, text })
    for (const [i, value] of [0.25, 0.6, 0.9, 0.1, 0.5, 0.75, 0.3, 1].entries()) {
      hw.manager.setFeedback(midi, `cc:11:${i + 1}`, { value })
    }
    hw.manager.setFeedback(midi, 'note:11:8', { led: 'on', text: 'Play' })
    hw.manager.setFeedback(midi, 'note:11:9', { led: 'off', text: 'Pause' })
    hw.manager.setFeedback(midi, 'cc:11:9', { value: 0.4, text: 'Speed 40 %' })
    hw.manager.setFeedback(shuttle, 'jog', { text: 'scrub' })
    hw.manager.setFeedback(shuttle, 'button:0', { text: 'In' })
    hw.manager.setFeedback(shuttle, 'button:1', { text: 'Out' })
    await page.waitForFunction(
      (sel) => document.querySelector(sel)?.textContent === 'Speed 40 %',
      `${selector(midi, 'cc:11:9')} .label`,
    )
    await padPixel(page, xkeys, 'key:5', XKEYS_BLUE_AND_RED)
    writeFileSync(SCREENSHOT, await page.screenshot({ fullPage: true }))
  })
})
