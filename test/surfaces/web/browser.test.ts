/**
 * The web surface in a real browser: headless Chromium driven by playwright-core loads the page from
 * a server on port 0, clicks and turns controls, and the test reads the colour of a key from the
 * pixels of a screenshot (decoded with @napi-rs/canvas), not from the DOM.
 *
 * Never skipped: without Chromium at /usr/bin/chromium every test here fails with a message that
 * says how to install it.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { useChromium } from '../../helpers/browser.js'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { setLogSink, type LogRecord } from '../../../src/log.js'
import { KeyRenderer } from '../../../src/surfaces/render/key-renderer.js'
import type { SurfaceEvent } from '../../../src/surfaces/types.js'
import { KeyImages } from '../../../src/surfaces/web/key-images.js'
import { WebSurface } from '../../../src/surfaces/web/web-surface.js'
import { FakeRegistry, physicalDeck, recordInput, freshPage, webServerForTest, type WebServerRig } from './helpers.js'
import { decodePng, keyDifference, near, pixelAt, whitePixels, type Rgb } from './pixels.js'

const SCREENSHOT = 'test-output/web-surface.png'
const MIRROR_ID = 'CL12K1A00042'

const selector = (surface: string, control: string): string => `[data-surface="${surface}"][data-control="${control}"]`

const records: LogRecord[] = []
const previousSink = setLogSink((r) => records.push(r))
const renderer = new KeyRenderer()
const images = new KeyImages(renderer)
const requireBrowser = useChromium("the web surface's browser test")
beforeAll(() => mkdirSync('test-output', { recursive: true }))
afterAll(() => setLogSink(previousSink))

describe('web surface in headless Chromium', () => {
  let desk: WebSurface
  let registry: FakeRegistry
  let web: WebServerRig
  let input: SurfaceEvent[]
  /** Messages of any alert/confirm a page opened: an escaping bug would show here. */
  const dialogs: string[] = []

  beforeEach(async () => {
    desk = new WebSurface({ id: 'desk', rows: 2, columns: 3, encoders: 1, jog: true, images })
    input = recordInput(desk)
    registry = new FakeRegistry()
    registry.add(physicalDeck(MIRROR_ID))
    registry.feedback(MIRROR_ID, 'key:0', { color: '#00ff00', text: 'Cam 1' })
    // Registered first, so it is closed last: after the browsers a test opened are closed.
    web = await webServerForTest({ surfaces: [desk], registry, images }, () => desk.close())
    records.length = 0
    dialogs.length = 0
  })

  /** Opens the page in a fresh context and waits until its WebSocket is live. */
  async function open(): Promise<Page> {
    const page = await freshPage(requireBrowser(), { viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 })
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    await page.goto(web.url)
    await page.waitForSelector('#status.live')
    await page.waitForSelector(selector('desk', 'key:0'))
    return page
  }

  /** Waits until a key has painted the face for the label it was given. */
  async function shown(page: Page, surface: string, control: string, label: string): Promise<void> {
    await page.waitForFunction(
      ([sel, text]) => {
        const key = document.querySelector<HTMLElement>(sel!)
        return key?.getAttribute('title')?.startsWith(text!) === true && key.dataset.painted !== undefined
      },
      [selector(surface, control), label],
    )
  }

  async function keyBox(page: Page, surface: string, control: string) {
    const box = await page.locator(selector(surface, control)).boundingBox()
    if (!box) throw new Error(`no box for ${surface}/${control}`)
    return box
  }

  it('a click on a key gives down and up; pushed feedback is painted in the key as the hardware renders it', async () => {
    const page = await open()
    await page.click(selector('desk', 'key:4'))
    await expect
      .poll(() => input.map((e) => `${e.surface}/${e.control}:${e.type}`))
      .toEqual(['desk/key:4:down', 'desk/key:4:up'])

    // The keyboard works too (keys are buttons): Space on a focused key.
    await page.focus(selector('desk', 'key:5'))
    await page.keyboard.press('Space')
    await expect.poll(() => input.length).toBe(4)
    expect(input.slice(2).map((e) => `${e.control}:${e.type}`)).toEqual(['key:5:down', 'key:5:up'])

    // Off the key: a hovered key shows its hotkey in a corner.
    await page.mouse.move(0, 0)
    desk.setFeedback('key:4', { color: '#ff0000', text: 'LIVE' })
    await shown(page, 'desk', 'key:4', 'LIVE')
    const png = await page.screenshot({ fullPage: true })
    writeFileSync(SCREENSHOT, png)
    const shot = await decodePng(png)

    const box = await keyBox(page, 'desk', 'key:4')
    expect(box.width).toBe(96)
    // Background colour in the corner, well away from the label and inside the rounded edge.
    expect(pixelAt(shot, box.x + 10, box.y + 10)).toSatisfy((p: Rgb) => near(p, [255, 0, 0]))
    expect(pixelAt(shot, box.x + box.width - 10, box.y + box.height - 10)).toSatisfy((p: Rgb) => near(p, [255, 0, 0]))
    // A key without feedback stays black.
    const blank = await keyBox(page, 'desk', 'key:0')
    expect(pixelAt(shot, blank.x + 10, blank.y + 10)).toSatisfy((p: Rgb) => near(p, [0, 0, 0], 8))

    // The page paints the key as the hardware's renderer draws it: the same strokes in the same places
    // (no pixel far off), only the anti-aliasing at glyph edges shaded differently.
    const rendered = renderer.render({ color: '#ff0000', text: 'LIVE' }, { width: 96, height: 96 })
    const diff = keyDifference(shot, box.x, box.y, rendered.rgba, 96)
    expect(diff.far).toBe(0)
    expect(diff.differing).toBeLessThan(diff.compared * 0.05)
    // The label is there, in white on red.
    expect(whitePixels(shot, box.x, box.y + 8, box.x + 96, box.y + 88)).toBeGreaterThan(100)
  })

  it('turns the jog with the wheel and an encoder by dragging; presses the encoder', async () => {
    const page = await open()
    const jog = await page.locator(`${selector('desk', 'jog')} .ring`).boundingBox()
    await page.mouse.move(jog!.x + jog!.width / 2, jog!.y + jog!.height / 2)
    await page.mouse.wheel(0, 100)
    await expect.poll(() => input.at(-1)).toMatchObject({ type: 'rotate', control: 'jog', delta: 1 })
    await page.mouse.wheel(0, -200)
    await expect.poll(() => input.at(-1)).toMatchObject({ type: 'rotate', control: 'jog', delta: -2 })

    // A drag turns the ring by its angle around the centre: rightwards across the top is clockwise,
    // from 315° to 28° (73°: 4.9 of the encoder's 24 steps a turn; the rest is carried).
    const ring = await page.locator(`${selector('desk', 'encoder:0')} .ring`).boundingBox()
    const y = ring!.y + 10
    await page.mouse.move(ring!.x + 10, y)
    await page.mouse.down()
    await page.mouse.move(ring!.x + 50, y, { steps: 8 })
    await page.mouse.up()
    const turned = (): number =>
      input
        .filter((e) => e.type === 'rotate' && e.control === 'encoder:0')
        .reduce((n, e) => n + (e as { delta: number }).delta, 0)
    await expect.poll(turned).toBe(4)

    input.length = 0
    await page.click(`${selector('desk', 'encoder:0')} .press`)
    await expect.poll(() => input.map((e) => `${e.control}:${e.type}`)).toEqual(['encoder:0:down', 'encoder:0:up'])
  })

  it('mirrors a physical surface read-only, live, with the same rendering', async () => {
    const page = await open()
    const sent: string[] = []
    page.on('websocket', (ws) => ws.on('framesent', (f) => sent.push(String(f.payload))))
    const section = page.locator(`section[data-surface="${MIRROR_ID}"]`)
    expect(await section.getAttribute('data-mode')).toBe('mirror')
    expect(await section.locator('header .badge').textContent()).toBe('read-only')
    await shown(page, MIRROR_ID, 'key:0', 'Cam 1')
    expect(await page.locator(selector(MIRROR_ID, 'key:0')).evaluate((e) => e.tagName)).toBe('DIV')

    // Clicking a mirrored key sends nothing and makes no event anywhere.
    const sentBefore = sent.length
    await page.click(selector(MIRROR_ID, 'key:0'))
    await page.mouse.down()
    await page.mouse.up()
    desk.setFeedback('key:0', { color: '#101010', text: 'sync' })
    await shown(page, 'desk', 'key:0', 'sync') // a round trip after the clicks
    expect(sent.length).toBe(sentBefore)
    expect(input).toEqual([])
    expect(records.filter((r) => r.message.includes('ignored'))).toEqual([])

    const box = await keyBox(page, MIRROR_ID, 'key:0')
    expect(box.width).toBe(72)
    let shot = await decodePng(await page.screenshot())
    expect(pixelAt(shot, box.x + 8, box.y + 8)).toSatisfy((p: Rgb) => near(p, [0, 255, 0]))

    registry.feedback(MIRROR_ID, 'key:0', { color: '#0000ff', text: 'Cam 2' })
    await shown(page, MIRROR_ID, 'key:0', 'Cam 2')
    shot = await decodePng(await page.screenshot())
    expect(pixelAt(shot, box.x + 8, box.y + 8)).toSatisfy((p: Rgb) => near(p, [0, 0, 255]))

    registry.remove(MIRROR_ID)
    await section.waitFor({ state: 'detached' })
  })

  it('shows a browser that connects later the current state at once', async () => {
    desk.setFeedback('key:1', { color: '#0000ff', text: 'LATE' })
    desk.setFeedback('key:2', { color: '#ffff00', text: 'ON AIR' })
    await new Promise((resolve) => setTimeout(resolve, 20))
    const page = await open()
    await shown(page, 'desk', 'key:1', 'LATE')
    await shown(page, 'desk', 'key:2', 'ON AIR')
    const shot = await decodePng(await page.screenshot())
    const blue = await keyBox(page, 'desk', 'key:1')
    const yellow = await keyBox(page, 'desk', 'key:2')
    expect(pixelAt(shot, blue.x + 10, blue.y + 10)).toSatisfy((p: Rgb) => near(p, [0, 0, 255]))
    expect(pixelAt(shot, yellow.x + 10, yellow.y + 10)).toSatisfy((p: Rgb) => near(p, [255, 255, 0]))
  })

  it('ignores malformed WebSocket messages and keeps working', async () => {
    const page = await open()
    const wsUrl = web.url.replace('http:', 'ws:') + 'ws'
    await page.evaluate(async (target) => {
      const ws = new WebSocket(target)
      await new Promise((resolve) => ws.addEventListener('open', resolve))
      ws.send('{"type":"down"')
      ws.send('{"type":"down"')
      ws.send(new Uint8Array([0, 1, 2]))
      ws.send(JSON.stringify({ type: 'down', surface: 'desk', control: 'key:99' }))
      ws.send(JSON.stringify({ type: 'rotate', surface: 'desk', control: 'jog', delta: 'lots' }))
      ws.send(JSON.stringify({ type: 'down', surface: 'desk', control: 'key:5' }))
      ws.send(JSON.stringify({ type: 'up', surface: 'desk', control: 'key:5' }))
    }, wsUrl)
    await expect.poll(() => input.map((e) => `${e.control}:${e.type}`)).toEqual(['key:5:down', 'key:5:up'])
    expect(records.filter((r) => r.fields?.reason === 'not JSON')).toHaveLength(1)
    expect(records.map((r) => r.fields?.reason).filter(Boolean)).toEqual(['not JSON', 'binary frame', 'bad delta'])
    // The page's own connection is unaffected.
    await page.click(selector('desk', 'key:3'))
    await expect.poll(() => input.length).toBe(4)
    expect(input.at(-1)).toMatchObject({ type: 'up', control: 'key:3' })
  })

  it('draws value and detail on a key: the level bar and the second line, as the hardware renders them', async () => {
    const page = await open()
    const feedback = { color: '#0000ff', text: 'GO', detail: '2 s', value: 0.25 }
    desk.setFeedback('key:4', feedback)
    await shown(page, 'desk', 'key:4', 'GO (2 s)')
    const shot = await decodePng(await page.screenshot({ fullPage: true }))
    const box = await keyBox(page, 'desk', 'key:4')
    expect(box.width).toBe(96)

    // The level bar along the bottom edge: a quarter filled in white, the rest a light-blue track.
    expect(pixelAt(shot, box.x + 10, box.y + 93)).toSatisfy((p: Rgb) => near(p, [255, 255, 255]))
    expect(pixelAt(shot, box.x + 20, box.y + 93)).toSatisfy((p: Rgb) => near(p, [255, 255, 255]))
    expect(pixelAt(shot, box.x + 30, box.y + 93)).toSatisfy((p: Rgb) => near(p, [77, 77, 255]))
    expect(pixelAt(shot, box.x + 85, box.y + 93)).toSatisfy((p: Rgb) => near(p, [77, 77, 255]))
    // Above the bar, the background; the detail's white ink is in the band between label and bar.
    expect(pixelAt(shot, box.x + 10, box.y + 80)).toSatisfy((p: Rgb) => near(p, [0, 0, 255]))
    const whiteIn = (y0: number, y1: number): number => whitePixels(shot, box.x + 8, box.y + y0, box.x + 88, box.y + y1)
    expect(whiteIn(70, 86)).toBeGreaterThan(10)
    expect(whiteIn(8, 60)).toBeGreaterThan(100) // the label, above

    // As the hardware's renderer draws it, but for the anti-aliasing (see the first test).
    const diff = keyDifference(shot, box.x, box.y, renderer.render(feedback, { width: 96, height: 96 }).rgba, 96)
    expect(diff.far).toBe(0)
    expect(diff.differing).toBeLessThan(diff.compared * 0.05)
  })

  it('shows the PNG the daemon drew for a key with a pre-rendered image, and paints a face again after it', async () => {
    const page = await open()
    // A 2×2 image, green on top and magenta below, scaled to the key; a badge drawn over it.
    const rgba = new Uint8Array([0, 255, 0, 255, 0, 255, 0, 255, 255, 0, 255, 255, 255, 0, 255, 255])
    // (pending, not stale: a stale key's image is darkened, and the colours below are read back.)
    const feedback = { text: 'pic', image: { width: 2, height: 2, rgba }, badge: 'pending' as const }
    desk.setFeedback('key:4', feedback)
    await shown(page, 'desk', 'key:4', 'pic')
    const key = page.locator(selector('desk', 'key:4'))
    expect(await key.locator('img').isVisible()).toBe(true)
    expect(await key.locator('canvas').isVisible()).toBe(false)
    let shot = await decodePng(await page.screenshot({ fullPage: true }))
    const box = await keyBox(page, 'desk', 'key:4')
    const diff = keyDifference(shot, box.x, box.y, renderer.render(feedback, { width: 96, height: 96 }).rgba, 96)
    expect(diff.differing).toBe(0) // the daemon's own pixels, decoded from the PNG
    expect(pixelAt(shot, box.x + 10, box.y + 20)).toSatisfy((p: Rgb) => near(p, [0, 255, 0], 40))
    expect(pixelAt(shot, box.x + 10, box.y + 80)).toSatisfy((p: Rgb) => near(p, [255, 0, 255], 40))

    desk.setFeedback('key:4', { color: '#ffff00', text: 'face' })
    await shown(page, 'desk', 'key:4', 'face')
    expect(await key.locator('img').isVisible()).toBe(false)
    expect(await key.locator('canvas').isVisible()).toBe(true)
    shot = await decodePng(await page.screenshot({ fullPage: true }))
    expect(pixelAt(shot, box.x + 10, box.y + 20)).toSatisfy((p: Rgb) => near(p, [255, 255, 0]))
  })

  it("paints keys at the screen's pixel ratio: sharp on a HiDPI screen, laid out as at 1×", async () => {
    const page = await freshPage(requireBrowser(), { viewport: { width: 1280, height: 720 }, deviceScaleFactor: 2 })
    await page.goto(web.url)
    await page.waitForSelector('#status.live')
    desk.setFeedback('key:4', { color: '#ff0000', text: 'LIVE' })
    await shown(page, 'desk', 'key:4', 'LIVE')
    const canvas = page.locator(`${selector('desk', 'key:4')} canvas`)
    expect(await canvas.evaluate((c: HTMLCanvasElement) => [c.width, c.height, c.clientWidth])).toEqual([192, 192, 96])
    // Screenshot pixels are device pixels: the key is 192 of them; its label where the 1× one is, doubled.
    const shot = await decodePng(await page.screenshot({ fullPage: true }))
    const box = await keyBox(page, 'desk', 'key:4')
    const at1x = renderer.render({ color: '#ff0000', text: 'LIVE' }, { width: 96, height: 96 })
    let agree = 0
    let inked = 0
    for (let y = 8; y < 88; y++) {
      for (let x = 8; x < 88; x++) {
        const i = (y * 96 + x) * 4
        const white1x = at1x.rgba[i + 1]! > 200
        const white2x = pixelAt(shot, (box.x + x) * 2 + 1, (box.y + y) * 2 + 1)[1] > 200
        if (white1x) inked++
        if (white1x === white2x) agree++
      }
    }
    expect(inked).toBeGreaterThan(300)
    expect(agree).toBeGreaterThan(80 * 80 * 0.97)
  })

  it('draws value as an arc on an encoder ring and detail as a second label line', async () => {
    const page = await open()
    const dial = page.locator(selector('desk', 'encoder:0'))
    const centre = async (): Promise<[number, number]> => {
      const ring = (await dial.locator('.ring').boundingBox())!
      return [ring.x + ring.width / 2, ring.y + ring.height / 2]
    }
    let [cx, cy] = await centre()
    let shot = await decodePng(await page.screenshot())
    expect(pixelAt(shot, cx + 22, cy)).toSatisfy((p: Rgb) => near(p, [0x33, 0x33, 0x33]))

    desk.setFeedback('encoder:0', { text: 'Vol', detail: '-6 dB', value: 0.5 })
    await expect.poll(() => dial.locator('.label').textContent()).toBe('Vol\n-6 dB')
    // The longer label moves the dial within its row: measure again.
    ;[cx, cy] = await centre()
    shot = await decodePng(await page.screenshot())
    // Half a turn clockwise from the top: the right half is lit in the accent colour, the left is not.
    expect(pixelAt(shot, cx + 22, cy)).toSatisfy((p: Rgb) => near(p, [0x4a, 0xa3, 0xff]))
    expect(pixelAt(shot, cx + 3, cy + 24)).toSatisfy((p: Rgb) => near(p, [0x4a, 0xa3, 0xff]))
    expect(pixelAt(shot, cx - 22, cy)).toSatisfy((p: Rgb) => near(p, [0x33, 0x33, 0x33]))
    expect(pixelAt(shot, cx - 3, cy - 24)).toSatisfy((p: Rgb) => near(p, [0x33, 0x33, 0x33]))
    // The detail is its own line under the text: the label is two lines high.
    const label = (await dial.locator('.label').boundingBox())!
    expect(label.height).toBeGreaterThan(25)
  })

  it('shows hostile names as text, never as markup', async () => {
    const name = '<img src=x onerror=alert(1)>'
    const hostile = new WebSurface({ id: name, rows: 1, columns: 1, images })
    web.server.addSurface(hostile)
    const page = await open()
    const heading = page.locator('section h2').filter({ hasText: 'onerror' })
    expect(await heading.textContent()).toBe(name)
    expect(await page.locator('img[src="x"]').count()).toBe(0)
    expect(await page.locator('nav .name').allTextContents()).toContain(name)
    expect(dialogs).toEqual([])
    await hostile.close()
  })
})

describe('the shuttle ring and faders in headless Chromium', () => {
  let console_: WebSurface
  let web: WebServerRig
  let input: SurfaceEvent[]

  beforeEach(async () => {
    console_ = new WebSurface({ id: 'console', rows: 1, columns: 2, jog: true, shuttle: true, faders: 2, images })
    input = recordInput(console_)
    web = await webServerForTest({ surfaces: [console_], images }, () => console_.close())
  })

  async function open(): Promise<Page> {
    const page = await freshPage(requireBrowser(), { viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 })
    await page.goto(web.url)
    await page.waitForSelector('#status.live')
    await page.waitForSelector(selector('console', 'fader:1'))
    return page
  }

  /** The value events of one control, without their timestamps. */
  const valuesOf = (control: string): { value: number; raw?: number }[] =>
    input
      .filter((e) => e.type === 'value' && e.control === control)
      .map((e) => {
        const { value, raw } = e as { value: number; raw?: number }
        return raw === undefined ? { value } : { value, raw }
      })

  async function boxOf(page: Page, css: string) {
    const box = await page.locator(css).boundingBox()
    if (!box) throw new Error(`no box for ${css}`)
    return box
  }

  const round = (v: number): number => Math.round(v * 1000) / 1000

  it('drags the shuttle right: values rise while the thumb follows, and release springs it back to 0', async () => {
    const page = await open()
    const track = await boxOf(page, `${selector('console', 'shuttle')} .track`)
    const cx = track.x + track.width / 2
    const cy = track.y + track.height / 2
    let shot = await decodePng(await page.screenshot())
    // At rest the thumb sits at the centre.
    expect(pixelAt(shot, cx, cy)).toSatisfy((p: Rgb) => near(p, [0xdd, 0xdd, 0xdd]))

    await page.mouse.move(cx, cy)
    await page.mouse.down()
    for (const dx of [20, 40, 60, 80]) {
      await page.mouse.move(cx + dx, cy)
      await expect.poll(() => valuesOf('shuttle').at(-1)?.value).toBe(round(dx / 105))
    }
    expect(valuesOf('shuttle')).toEqual([
      { value: 0.19, raw: 1 },
      { value: 0.381, raw: 3 },
      { value: 0.571, raw: 4 },
      { value: 0.762, raw: 5 },
    ])
    // While held, the thumb is under the pointer and the zone is shown.
    const shuttle = page.locator(selector('console', 'shuttle'))
    expect(await shuttle.getAttribute('data-zone')).toBe('5')
    expect(await shuttle.locator('.zone').textContent()).toBe('▶ 5')
    const thumb = await boxOf(page, `${selector('console', 'shuttle')} .thumb`)
    expect(thumb.x + thumb.width / 2).toBeCloseTo(cx + 80, 0)
    shot = await decodePng(await page.screenshot())
    expect(pixelAt(shot, cx + 80, cy)).toSatisfy((p: Rgb) => near(p, [0xdd, 0xdd, 0xdd]))
    expect(pixelAt(shot, cx, cy)).not.toSatisfy((p: Rgb) => near(p, [0xdd, 0xdd, 0xdd], 40))

    await page.mouse.up()
    await expect.poll(() => valuesOf('shuttle').length).toBe(5)
    expect(valuesOf('shuttle').at(-1)).toEqual({ value: 0, raw: 0 })
    expect(await shuttle.getAttribute('data-zone')).toBe('0')
    // The thumb springs back to the centre (after a short transition).
    await expect
      .poll(async () => {
        const t = await boxOf(page, `${selector('console', 'shuttle')} .thumb`)
        return Math.round(t.x + t.width / 2 - cx)
      })
      .toBe(0)
    expect(input.every((e) => e.type === 'value' && e.control === 'shuttle')).toBe(true)
  })

  it('drags a fader from bottom to top: every value within 0..1, rising, ending at 1', async () => {
    const page = await open()
    const track = await boxOf(page, `${selector('console', 'fader:0')} .track`)
    const x = track.x + track.width / 2
    await page.mouse.move(x, track.y + track.height - 12)
    await page.mouse.down()
    for (let y = track.y + track.height - 12; y > track.y - 40; y -= 25) {
      await page.mouse.move(x, y)
      await page.waitForTimeout(20)
    }
    await page.mouse.up()
    await expect.poll(() => valuesOf('fader:0').at(-1)?.value).toBe(1)
    const values = valuesOf('fader:0').map((e) => e.value)
    expect(values.length).toBeGreaterThan(3)
    expect(values.every((v) => v >= 0 && v <= 1)).toBe(true)
    expect(values[0]).toBeLessThan(0.05)
    expect([...values].sort((a, b) => a - b)).toEqual(values)
    expect(valuesOf('fader:0').every((e) => !('raw' in e))).toBe(true)
    expect(valuesOf('fader:1')).toEqual([])
  })

  it('moves a fader thumb to the value fed back, unless the user holds it; shows text and detail', async () => {
    const page = await open()
    const fader = page.locator(selector('console', 'fader:0'))
    console_.setFeedback('fader:0', { text: 'Speed', detail: '0.5×', value: 0.25 })
    await expect.poll(() => fader.locator('.label').textContent()).toBe('Speed\n0.5×')
    const track = await boxOf(page, `${selector('console', 'fader:0')} .track`)
    // Inside the 4 px border: 152 px high, a 16 px thumb, so 136 px of travel.
    const innerBottom = track.y + track.height - 4
    const thumbCentre = innerBottom - 8 - 0.25 * 136
    const thumb = await boxOf(page, `${selector('console', 'fader:0')} .thumb`)
    expect(thumb.y + thumb.height / 2).toBeCloseTo(thumbCentre, 0)
    const x = track.x + track.width / 2
    const shot = await decodePng(await page.screenshot())
    expect(pixelAt(shot, x, thumbCentre)).toSatisfy((p: Rgb) => near(p, [0xdd, 0xdd, 0xdd]))
    // Filled in the accent colour below the thumb, the bare track above it.
    expect(pixelAt(shot, x, innerBottom - 20)).toSatisfy((p: Rgb) => near(p, [0x4a, 0xa3, 0xff]))
    expect(pixelAt(shot, x, thumbCentre - 30)).toSatisfy((p: Rgb) => near(p, [0x33, 0x33, 0x33]))
    expect(await fader.locator('.track').getAttribute('aria-valuenow')).toBe('0.25')

    // Held at the bottom, feedback does not pull the thumb from under the hand.
    await page.mouse.move(x, innerBottom - 8)
    await page.mouse.down()
    await expect.poll(() => valuesOf('fader:0').at(-1)?.value).toBe(0)
    console_.setFeedback('fader:0', { text: 'held', value: 0.9 })
    await expect.poll(() => fader.locator('.label').textContent()).toBe('held')
    expect(await fader.locator('.track').getAttribute('aria-valuenow')).toBe('0')
    await page.mouse.up()
    // Let go, the next feedback moves it.
    console_.setFeedback('fader:0', { text: 'free', value: 0.9 })
    await expect.poll(() => fader.locator('.track').getAttribute('aria-valuenow')).toBe('0.9')
    const moved = await boxOf(page, `${selector('console', 'fader:0')} .thumb`)
    expect(moved.y + moved.height / 2).toBeCloseTo(innerBottom - 8 - 0.9 * 136, 0)
  })

  it('moves a focused shuttle and fader with the keyboard; the shuttle springs back when the key is let go', async () => {
    const page = await open()
    await page.focus(`${selector('console', 'shuttle')} .track`)
    await page.keyboard.down('ArrowLeft')
    await expect.poll(() => valuesOf('shuttle')).toEqual([{ value: -0.143, raw: -1 }])
    await page.keyboard.down('ArrowLeft') // a key repeat turns it a zone further
    await expect.poll(() => valuesOf('shuttle').at(-1)).toEqual({ value: -0.286, raw: -2 })
    await page.keyboard.up('ArrowLeft')
    await expect.poll(() => valuesOf('shuttle').at(-1)).toEqual({ value: 0, raw: 0 })

    await page.focus(`${selector('console', 'fader:1')} .track`)
    await page.keyboard.press('End')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowDown')
    await expect.poll(() => valuesOf('fader:1').map((e) => e.value)).toEqual([1, 0.95, 0.9])
  })

  it('works by touch: the shuttle follows a finger and springs back when it lifts; a fader follows too', async () => {
    const page = await freshPage(requireBrowser(), {
      viewport: { width: 1280, height: 720 },
      deviceScaleFactor: 1,
      hasTouch: true,
    })
    const context = page.context()
    await page.goto(web.url)
    await page.waitForSelector('#status.live')
    const cdp = await context.newCDPSession(page)
    const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', x = 0, y = 0) =>
      cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] })

    const track = await boxOf(page, `${selector('console', 'shuttle')} .track`)
    const cx = track.x + track.width / 2
    const cy = track.y + track.height / 2
    await touch('touchStart', cx, cy)
    for (const dx of [30, 60]) {
      await touch('touchMove', cx + dx, cy)
      await expect.poll(() => valuesOf('shuttle').at(-1)?.value).toBe(round(dx / 105))
    }
    await touch('touchEnd')
    await expect
      .poll(() => valuesOf('shuttle'))
      .toEqual([
        { value: round(30 / 105), raw: 2 },
        { value: round(60 / 105), raw: 4 },
        { value: 0, raw: 0 },
      ])

    const fader = await boxOf(page, `${selector('console', 'fader:1')} .track`)
    const x = fader.x + fader.width / 2
    const innerBottom = fader.y + fader.height - 4
    await touch('touchStart', x, innerBottom - 8)
    await touch('touchMove', x, innerBottom - 8 - 68)
    await touch('touchEnd')
    await expect.poll(() => valuesOf('fader:1').at(-1)?.value).toBe(0.5)
    expect(valuesOf('fader:1').every((e) => e.value >= 0 && e.value <= 0.5)).toBe(true)
  })

  it('sends a fader position again when another page moved the fader since', async () => {
    const [a, b] = [await open(), await open()]
    const track = await boxOf(a, `${selector('console', 'fader:0')} .track`)
    const bottom = { x: track.x + track.width / 2, y: track.y + track.height - 12 }
    await a.mouse.click(bottom.x, bottom.y)
    await expect.poll(() => valuesOf('fader:0').map((e) => e.value)).toEqual([0])
    await b.focus(`${selector('console', 'fader:0')} .track`)
    await b.keyboard.press('End')
    await expect.poll(() => valuesOf('fader:0').map((e) => e.value)).toEqual([0, 1])
    // The same spot on the first page: the same value it sent before, but no longer the fader's.
    await a.mouse.click(bottom.x, bottom.y)
    await expect.poll(() => valuesOf('fader:0').map((e) => e.value)).toEqual([0, 1, 0])
  })

  it('springs the shuttle back when the page holding it goes away', async () => {
    const page = await open()
    const track = await boxOf(page, `${selector('console', 'shuttle')} .track`)
    const cy = track.y + track.height / 2
    await page.mouse.move(track.x + track.width / 2, cy)
    await page.mouse.down()
    await page.mouse.move(track.x + track.width / 2 - 50, cy)
    await expect.poll(() => valuesOf('shuttle').at(-1)?.value).toBe(round(-50 / 105))
    await page.close() // with the button still down
    await expect.poll(() => valuesOf('shuttle').at(-1)).toEqual({ value: 0, raw: 0 })
  })
})
