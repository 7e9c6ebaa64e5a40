/**
 * The web surface on tablets and phones, in headless Chromium: keys fit a 390×844 phone and a 1024×768
 * tablet without a sideways scroll (an 8×8 grid too, its jog still in view), the jog turns by angle (a
 * circle dragged round it is one turn), the hotkeys press the right control, `?view=1` presses
 * nothing (the page sends nothing, and the server refuses a viewer's socket) and `?surface=NAME`
 * shows that surface alone. The default config at these sizes is in `test/daemon/page.test.ts`.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { setLogSink, type LogRecord } from '../../../src/log.js'
import { JOG_STEPS_PER_TURN } from '../../../src/page/angle.js'
import { ROTATE_BATCH_MS } from '../../../src/page/input.js'
import type { SurfaceEvent } from '../../../src/surfaces/types.js'
import { WebSurface } from '../../../src/surfaces/web/web-surface.js'
import { useChromium } from '../../helpers/browser.js'
import { recordInput, freshPage, roundTrip, startWebServer, type WebServerRig } from './helpers.js'

const selector = (surface: string, control: string): string => `[data-surface="${surface}"][data-control="${control}"]`
export const PHONE = { width: 390, height: 844 }
export const TABLET = { width: 1024, height: 768 }

const records: LogRecord[] = []
const previousSink = setLogSink((r) => records.push(r))
const requireBrowser = useChromium("the web surface's tablet test")

let grid8: WebSurface
let desk: WebSurface
let web: WebServerRig
let input: SurfaceEvent[]

beforeAll(async () => {
  grid8 = new WebSurface({ id: 'grid8', rows: 8, columns: 8, jog: true, shuttle: true, faders: 1 })
  desk = new WebSurface({ id: 'desk', rows: 2, columns: 3, encoders: 1, jog: true })
  input = recordInput(grid8)
  desk.events.on('input', (e) => input.push(e))
  web = await startWebServer(
    { surfaces: [grid8, desk] },
    () => grid8.close(),
    () => desk.close(),
  )
})
// Each test starts with no input and no log of its own (the browsers of the last one closed before this runs).
beforeEach(() => {
  input.length = 0
  records.length = 0
})
afterAll(async () => {
  await web.close()
  setLogSink(previousSink)
})

async function open(query = '', viewport = TABLET): Promise<Page> {
  const page = await freshPage(requireBrowser(), { viewport, deviceScaleFactor: 1 })
  await page.goto(web.url + query)
  await page.waitForSelector('#status.live')
  await page.waitForSelector('section.surface', { state: 'attached' })
  return page
}

async function box(page: Page, sel: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const b = await page.locator(sel).boundingBox()
  if (!b) throw new Error(`no box for ${sel}`)
  return b
}

/** The sum of the rotate deltas of a control so far. */
function turned(control: string, surface = 'grid8'): number {
  return input
    .filter((e) => e.type === 'rotate' && e.surface === surface && e.control === control)
    .reduce((n, e) => n + (e as { delta: number }).delta, 0)
}

/**
 * Drags the mouse round a ring's centre from `from` to `to` degrees (clockwise from twelve o'clock),
 * in moves of `by` degrees, at `radius` of the ring's half width.
 */
async function circle(page: Page, ring: string, from: number, to: number, by = 5, radius = 0.7): Promise<void> {
  await page.locator(ring).scrollIntoViewIfNeeded()
  const b = await box(page, ring)
  const [cx, cy, r] = [b.x + b.width / 2, b.y + b.height / 2, (b.width / 2) * radius]
  const point = (deg: number): [number, number] => {
    const rad = (deg * Math.PI) / 180
    return [cx + r * Math.sin(rad), cy - r * Math.cos(rad)]
  }
  await page.mouse.move(...point(from))
  await page.mouse.down()
  const n = Math.ceil(Math.abs(to - from) / by)
  for (let i = 1; i <= n; i++) await page.mouse.move(...point(from + ((to - from) * i) / n))
  await page.mouse.up()
}

/** Whether the page scrolls sideways. */
function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const s = document.scrollingElement!
    return s.scrollWidth > s.clientWidth
  })
}

describe('keys fit the screen', () => {
  for (const [name, viewport] of [
    ['a 390×844 phone', PHONE],
    ['a 1024×768 tablet', TABLET],
  ] as const) {
    for (const query of ['', '?surface=grid8']) {
      it(`an 8×8 grid with a jog, shuttle and fader on ${name}${query ? ', alone' : ''}: no sideways scroll`, async () => {
        const page = await open(query, viewport)
        await page.waitForSelector(selector('grid8', 'key:63'))
        expect(await scrollsSideways(page)).toBe(false)
        // Every key is on the screen's width, and still a key a finger can hit.
        for (const key of ['key:0', 'key:7', 'key:56', 'key:63']) {
          const b = await box(page, selector('grid8', key))
          expect(b.x).toBeGreaterThanOrEqual(0)
          expect(b.x + b.width).toBeLessThanOrEqual(viewport.width)
          expect(b.width).toBeGreaterThanOrEqual(viewport === PHONE ? 24 : 48)
          expect(b.height).toBe(b.width)
        }
        const shuttle = await box(page, `${selector('grid8', 'shuttle')} .track`)
        expect(shuttle.x + shuttle.width).toBeLessThanOrEqual(viewport.width)
        if (viewport === TABLET) {
          // The tablet shows the whole grid and the jog beside it, without scrolling at all.
          const jog = await box(page, `${selector('grid8', 'jog')} .ring`)
          expect(jog.y + jog.height).toBeLessThanOrEqual(viewport.height)
          expect(jog.x + jog.width).toBeLessThanOrEqual(viewport.width)
          const last = await box(page, selector('grid8', 'key:63'))
          expect(last.y + last.height).toBeLessThanOrEqual(viewport.height)
        }
      })
    }
  }

  it('keys are painted at the size they are shown, and again when the screen turns', async () => {
    const page = await open('?surface=desk', PHONE)
    desk.setFeedback('key:0', { color: '#ff0000', text: 'LIVE' })
    const key = selector('desk', 'key:0')
    await page.waitForFunction((sel) => document.querySelector<HTMLElement>(sel)?.dataset.painted !== undefined, key)
    const canvasWidth = (): Promise<number> => page.$eval(`${key} canvas`, (c) => (c as HTMLCanvasElement).width)
    const phoneWidth = (await box(page, key)).width
    await expect.poll(canvasWidth).toBe(Math.round(phoneWidth))
    await page.setViewportSize({ width: 300, height: 844 })
    const narrower = (await box(page, key)).width
    expect(narrower).toBeLessThan(phoneWidth)
    await expect.poll(canvasWidth).toBe(Math.round(narrower))
    expect(await scrollsSideways(page)).toBe(false)
  })
})

describe('the jog turns by angle', () => {
  const ring = `${selector('grid8', 'jog')} .ring`

  it('a clockwise circle dragged round it is one turn forward; anticlockwise one back', async () => {
    const page = await open('?surface=grid8')
    await circle(page, ring, 0, 360)
    // Every step of the circle sent and taken (the page's batch included), then counted.
    await roundTrip(page, ROTATE_BATCH_MS)
    // Within 10 % of a turn's steps (the page gives exactly one turn's).
    expect(Math.abs(turned('jog') - JOG_STEPS_PER_TURN)).toBeLessThanOrEqual(0.1 * JOG_STEPS_PER_TURN)
    input.length = 0
    await circle(page, ring, 90, 90 - 360, 8, 0.9)
    await roundTrip(page, ROTATE_BATCH_MS)
    expect(Math.abs(turned('jog') + JOG_STEPS_PER_TURN)).toBeLessThanOrEqual(0.1 * JOG_STEPS_PER_TURN)
  })

  it('a quarter turn clockwise is a quarter forward (whole steps; the rest carried on)', async () => {
    const page = await open('?surface=grid8', PHONE)
    await circle(page, ring, 200, 290)
    // 2.5 steps: two sent.
    await expect.poll(() => turned('jog')).toBe(2)
    // The same quarter dragged from anywhere else, in one drag with a second quarter: five in all.
    input.length = 0
    await circle(page, ring, 30, 210)
    await expect.poll(() => turned('jog')).toBe(5)
    // The wheel still turns it: a notch a step.
    input.length = 0
    const b = await box(page, ring)
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2)
    await page.mouse.wheel(0, 300)
    await expect.poll(() => turned('jog')).toBe(3)
  })

  it('a finger dragged round it turns it too', async () => {
    const page = await freshPage(requireBrowser(), { viewport: PHONE, hasTouch: true, isMobile: true })
    const context = page.context()
    await page.goto(web.url + '?surface=grid8')
    await page.waitForSelector('#status.live')
    await page.locator(ring).scrollIntoViewIfNeeded()
    const b = await box(page, ring)
    const [cx, cy, r] = [b.x + b.width / 2, b.y + b.height / 2, b.width * 0.35]
    const cdp = await context.newCDPSession(page)
    const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', deg?: number): Promise<unknown> => {
      const rad = ((deg ?? 0) * Math.PI) / 180
      const points = deg === undefined ? [] : [{ x: cx + r * Math.sin(rad), y: cy - r * Math.cos(rad) }]
      return cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points })
    }
    await touch('touchStart', 0)
    for (let deg = 10; deg <= 180; deg += 10) await touch('touchMove', deg)
    await touch('touchEnd')
    await expect.poll(() => turned('jog')).toBe(JOG_STEPS_PER_TURN / 2)
  })
})

describe('hotkeys', () => {
  it('the keyboard rows press the grid keys by position; the arrows turn the jog; Shift+digit takes a dial', async () => {
    const page = await open()
    const keys = (): string[] => input.filter((e) => e.type !== 'rotate').map((e) => `${e.control}:${e.type}`)
    await page.keyboard.press('Digit1')
    await page.keyboard.press('KeyQ')
    await page.keyboard.press('KeyZ')
    await expect.poll(keys).toEqual(['key:0:down', 'key:0:up', 'key:8:down', 'key:8:up', 'key:24:down', 'key:24:up'])
    // Held while held.
    input.length = 0
    await page.keyboard.down('KeyW')
    await expect.poll(keys).toEqual(['key:9:down'])
    await page.keyboard.down('KeyW') // a key repeat is not a second press
    await page.keyboard.up('KeyW')
    await expect.poll(keys).toEqual(['key:9:down', 'key:9:up'])
    expect(input.every((e) => e.surface === 'grid8')).toBe(true)

    input.length = 0
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowLeft')
    await page.keyboard.press('ArrowRight')
    await expect.poll(() => turned('jog')).toBe(2)

    // Shift+3: the third dial or slider (jog, shuttle, fader), whose arrows then move it.
    await page.keyboard.press('Shift+Digit3')
    expect(
      await page.evaluate(() => document.activeElement?.closest('[data-control]')?.getAttribute('data-control')),
    ).toBe('fader:0')
    await page.keyboard.press('ArrowUp')
    await expect.poll(() => input.find((e) => e.type === 'value')).toMatchObject({ control: 'fader:0', value: 0.05 })
    // Ctrl with a hotkey is the browser's, not the surface's.
    input.length = 0
    await page.keyboard.press('Escape')
    await page.keyboard.press('Control+KeyQ')
    await roundTrip(page, ROTATE_BATCH_MS)
    expect(input).toEqual([])
  })

  it('each control shows its hotkey when hovered; ?surface=NAME gives that surface the hotkeys', async () => {
    const page = await open()
    const key8 = selector('grid8', 'key:8')
    expect(await page.getAttribute(key8, 'title')).toContain('(hotkey Q)')
    await page.hover(key8)
    expect(await page.$eval(key8, (e) => getComputedStyle(e, '::after').content)).toBe('"Q"')
    await page.hover(selector('grid8', 'jog'))
    expect(await page.$eval(selector('grid8', 'jog'), (e) => getComputedStyle(e, '::after').content)).toBe(
      '"← → · Shift+1"',
    )
    // Only one surface has them: desk's keys show none here.
    expect(await page.getAttribute(selector('desk', 'key:0'), 'data-hotkey')).toBeNull()

    const alone = await open('?surface=desk')
    await alone.keyboard.press('Digit2')
    await expect
      .poll(() => input.map((e) => `${e.surface}/${e.control}:${e.type}`))
      .toEqual(['desk/key:1:down', 'desk/key:1:up'])
    expect(await alone.getAttribute(selector('desk', 'key:3'), 'title')).toContain('(hotkey Q)')
  })
})

describe('?view=1, a read-only viewer', () => {
  it('presses nothing: clicks, drags and hotkeys send nothing, and the server refuses its socket', async () => {
    const page = await open('?view=1')
    expect(await page.textContent(`section[data-surface="grid8"] .badge`)).toBe('viewer')
    expect(await page.locator('section button, section [tabindex]').count()).toBe(0)
    await page.click(selector('grid8', 'key:0'))
    await page.keyboard.press('Digit1')
    await page.keyboard.press('ArrowRight')
    await circle(page, `${selector('grid8', 'jog')} .ring`, 0, 180)
    // All the viewer page sent (a batch of turns included) has been handled by the server: none of it was input.
    await roundTrip(page, ROTATE_BATCH_MS)
    expect(input).toEqual([])
    expect(records.map((r) => r.message)).not.toContain('ignored input from a read-only viewer')
    // The surface list keeps the viewer a viewer.
    expect(await page.getAttribute('nav a:has(.name:text-is("desk"))', 'href')).toBe('?surface=desk&view=1')

    // The server's side: a press on a viewer's socket is refused, the same press on another socket is not.
    const press = (query: string): Promise<void> =>
      page.evaluate(async (q) => {
        const ws = new WebSocket(new URL('ws' + q, location.href.replace(/^http/, 'ws')).href)
        await new Promise((resolve) => ws.addEventListener('open', resolve))
        ws.send(JSON.stringify({ type: 'down', surface: 'grid8', control: 'key:5' }))
        ws.send(JSON.stringify({ type: 'up', surface: 'grid8', control: 'key:5' }))
        // A deck the server refuses (it takes none here) on the same socket: its answer comes once the
        // server has handled the press before it.
        const answered = new Promise((resolve) =>
          ws.addEventListener('message', (e) => {
            if (typeof e.data === 'string' && (JSON.parse(e.data) as { type: string }).type === 'deck-state') resolve(e)
          }),
        )
        ws.send(JSON.stringify({ type: 'deck-add', deck: 0, model: 'test-barrier', serial: 'barrier' }))
        await answered
        ws.close()
      }, query)
    await press('?view=1')
    expect(input).toEqual([])
    expect(records.map((r) => r.message)).toContain('ignored input from a read-only viewer')
    await press('')
    await expect.poll(() => input.map((e) => `${e.control}:${e.type}`)).toEqual(['key:5:down', 'key:5:up'])
  })
})

describe('?surface=NAME', () => {
  it('shows that surface alone; the list links to each; an unknown name says so', async () => {
    const page = await open()
    expect(await page.locator('section.surface:visible').count()).toBe(2)
    expect(await page.isVisible('#all-surfaces')).toBe(false)
    await page.click('nav a:has(.name:text-is("desk"))')
    await page.waitForURL(/\?surface=desk$/)
    await page.waitForSelector('#status.live')
    await page.waitForSelector(selector('desk', 'key:0'))
    expect(await page.locator('section.surface:visible').count()).toBe(1)
    expect(await page.isVisible('section[data-surface="desk"]')).toBe(true)
    expect(await page.isVisible('nav')).toBe(false)
    expect(await page.isVisible('#missing')).toBe(false)
    await page.click('#all-surfaces')
    await page.waitForSelector('section[data-surface="grid8"]:visible')

    const missing = await open('?surface=nobody')
    expect(await missing.textContent('#missing')).toBe('No surface named "nobody" (yet).')
    expect(await missing.isVisible('#missing')).toBe(true)
    expect(await missing.locator('section.surface:visible').count()).toBe(0)
  })
})
