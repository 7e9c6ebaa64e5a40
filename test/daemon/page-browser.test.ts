/**
 * The daemon with the bundled default config, as a newcomer runs it (the simulator on free ports), seen
 * in a real browser: a click on a title key plays the title and the key turns red and says ON AIR once
 * it holds on screen (Paused, on air). The screenshot it takes is the README's (test-output/web-surface.png; copied to docs/). On a
 * 390×844 phone and a 1024×768 tablet the page needs no sideways scroll and shows the console's keys in
 * their rows, the tablet its jog too.
 */
import { mkdirSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import { setLogSink } from '../../src/log.js'
import { useChromium } from '../helpers/browser.js'
import { startBundledDaemon, stopBundledDaemon, type BundledDaemon } from './bundled-daemon.js'

const SCREENSHOT = new URL('../../test-output/web-surface.png', import.meta.url)
const requireBrowser = useChromium('the page test')
let started: BundledDaemon | undefined
let daemon: Daemon
const previousSink = setLogSink(() => undefined)

beforeAll(async () => {
  started = await startBundledDaemon('pb-page-')
  daemon = started.daemon
})
afterAll(async () => {
  await stopBundledDaemon(started)
  setLogSink(previousSink)
})

describe('the default config in a browser', () => {
  it('plays a title from a click; the key turns red and says ON AIR; SIMULATED shows in the status strip', async () => {
    await expect.poll(() => daemon.status().app.state, { timeout: 10_000 }).toBe('connected')
    const page = await requireBrowser().newPage({ viewport: { width: 520, height: 620 } })
    await page.goto(daemon.url)
    const key = '[data-surface="console"][data-control="key:0"]'
    await page.waitForSelector(key)
    await page.click(key)
    await expect
      .poll(() => daemon.controlState('console', 'key:0'), { timeout: 10_000 })
      .toMatchObject({ label: 'Lower Third\nON AIR', color: '#c00000' })
    await expect.poll(async () => (await page.textContent('body')) ?? '', { timeout: 5000 }).toContain('SIMULATED')
    await page.mouse.move(0, 0) // off the key: a hovered key shows its hotkey
    mkdirSync(new URL('.', SCREENSHOT), { recursive: true })
    await page.screenshot({ path: SCREENSHOT.pathname })
    await page.close()
  })
})

describe('the speed fader in a browser', () => {
  it('shows the speed the shuttle set: its ? gives way to the position of that speed', async () => {
    await expect.poll(() => daemon.status().app.state, { timeout: 10_000 }).toBe('connected')
    const page = await requireBrowser().newPage({ viewport: { width: 1280, height: 800 } })
    try {
      await page.goto(daemon.url)
      const control = (c: string): string => `[data-surface="console"][data-control="${c}"]`
      await page.waitForSelector(`${control('fader:0')}.unknown`)
      // Arm replay (key:4), so the application takes a speed.
      await page.click(control('key:4'))
      await expect.poll(() => daemon.status().commands.sent, { timeout: 10_000 }).toBeGreaterThanOrEqual(2)
      const track = (await page.locator(`${control('shuttle')} .track`).boundingBox())!
      await page.mouse.move(track.x + track.width / 2, track.y + track.height / 2)
      await page.mouse.down()
      await page.mouse.move(track.x + track.width / 2 + 70, track.y + track.height / 2, { steps: 5 }) // zone 5: speed 2
      await expect
        .poll(() => daemon.controlState('console', 'fader:0'), { timeout: 10_000 })
        .toMatchObject({ value: 1 })
      await page.mouse.up()
      // Back at centre the shuttle sets speed 0: the fader's middle.
      await expect
        .poll(() => daemon.controlState('console', 'fader:0'), { timeout: 10_000 })
        .toMatchObject({ value: 0.5 })
      await page.waitForSelector(`${control('fader:0')}:not(.unknown)`)
      expect(await page.locator(`${control('fader:0')} .track`).getAttribute('aria-valuenow')).toBe('0.5')
      expect(await page.textContent(`${control('fader:0')} .label`)).toBe('Speed\n0')
    } finally {
      await page.close()
    }
  })
})

describe('keys’ names, hotkey badges and the icon', () => {
  const key = (n: number): string => `[data-surface="console"][data-control="key:${n}"]`

  it('names each key by its label, as the daemon shows it (not key:N)', async () => {
    const page = await requireBrowser().newPage({ viewport: { width: 1280, height: 800 } })
    try {
      await page.goto(daemon.url)
      await page.waitForSelector(`${key(7)}[data-painted]`)
      for (let n = 0; n < 8; n++) {
        const label = (daemon.controlState('console', `key:${n}`) as { label?: string }).label ?? ''
        const words = label.replace(/\s+/g, ' ').trim()
        expect(words, `key:${n}`).not.toBe('')
        await expect.poll(() => page.getAttribute(key(n), 'aria-label')).toBe(words)
      }
    } finally {
      await page.close()
    }
  })

  it('shows a hotkey badge on a mouse hover, none after a touch tap', async () => {
    const mouse = await requireBrowser().newPage({ viewport: { width: 1280, height: 800 } })
    const badge = (sel: string) => (p: typeof mouse) => p.$eval(sel, (e) => getComputedStyle(e, '::after').content)
    try {
      await mouse.goto(daemon.url)
      await mouse.waitForSelector(`${key(3)}[data-hotkey="4"]`)
      await mouse.hover(key(3))
      expect(await badge(key(3))(mouse)).toBe('"4"')
    } finally {
      await mouse.close()
    }
    const context = await requireBrowser().newContext({
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
    })
    try {
      const phone = await context.newPage()
      await phone.goto(daemon.url)
      await phone.waitForSelector(`${key(3)}[data-hotkey="4"]`)
      const before = daemon.status().commands.sent
      await phone.tap(key(3))
      await expect.poll(() => daemon.status().commands.sent, { timeout: 10_000 }).toBeGreaterThan(before)
      expect(await phone.getAttribute('html', 'data-pointer')).toBe('touch')
      expect(await badge(key(3))(phone)).toBe('none')
    } finally {
      await context.close()
    }
  })

  it('serves its icon as SVG, linked from the page', async () => {
    const page = await requireBrowser().newPage()
    try {
      await page.goto(daemon.url)
      const href = await page.$eval('link[rel="icon"]', (l) => (l as HTMLLinkElement).href)
      const res = await fetch(href)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('image/svg+xml')
      expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
    } finally {
      await page.close()
    }
  })
})

describe('the default config on a phone and a tablet', () => {
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1024, height: 768 },
  ]) {
    it(`${viewport.width}×${viewport.height}: no sideways scroll; the 2×4 keys keep their rows`, async () => {
      const context = await requireBrowser().newContext({ viewport })
      const page = await context.newPage()
      try {
        await page.goto(daemon.url)
        const key = (n: number): string => `[data-surface="console"][data-control="key:${n}"]`
        await page.waitForSelector(key(7))
        // The status strip has shown (it is part of what must fit).
        await expect.poll(async () => (await page.textContent('body')) ?? '', { timeout: 5000 }).toContain('SIMULATED')
        const sideways = await page.evaluate(() => {
          const s = document.scrollingElement!
          return s.scrollWidth - s.clientWidth
        })
        expect(sideways).toBeLessThanOrEqual(0)
        const boxes = await Promise.all([0, 3, 4, 7].map((n) => page.locator(key(n)).boundingBox()))
        const [k0, k3, k4, k7] = boxes.map((b) => b!)
        expect(k3!.y).toBe(k0!.y)
        expect(k7!.y).toBe(k4!.y)
        expect(k4!.y).toBeGreaterThan(k0!.y)
        expect(k3!.x + k3!.width).toBeLessThanOrEqual(viewport.width)
        expect(k0!.width).toBeGreaterThanOrEqual(64)
        for (const control of ['jog', 'shuttle', 'fader:0']) {
          const b = (await page.locator(`[data-surface="console"][data-control="${control}"]`).boundingBox())!
          expect(b.x + b.width).toBeLessThanOrEqual(viewport.width)
        }
        if (viewport.width === 1024) {
          const jog = (await page.locator('[data-surface="console"][data-control="jog"] .ring').boundingBox())!
          expect(jog.y + jog.height).toBeLessThanOrEqual(viewport.height)
        }
      } finally {
        await context.close()
      }
    })
  }
})
