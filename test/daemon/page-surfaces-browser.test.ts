/**
 * Hardware surfaces on the page before their devices are plugged in, in a real browser against a real
 * daemon (the simulator): a ShuttlePro v2 drawn as the device looks (its buttons around the ring, the jog
 * in the ring's middle), and a MIDI controller with the generic profile, whose controls are not known
 * before its port opens, drawn with the controls its bindings name (a pad for a note, a fader for a CC)
 * instead of an empty box; both rehearse (`rehearse: true`), so a click on the MIDI pad is that note's
 * press in the daemon and sends its binding's command.
 *
 * Its screenshots, with the legend open, are the README's: test-output/page-desktop.png (1280×800) and
 * test-output/page-phone.png (390×844), copied to docs/.
 */
import { mkdirSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import { setLogSink } from '../../src/log.js'
import { useChromium } from '../helpers/browser.js'
import { startBundledDaemon, stopBundledDaemon, type BundledDaemon } from './bundled-daemon.js'
import { MidiDriver } from '../../src/surfaces/midi/driver.js'
import { FakeHotplug } from '../surfaces/helpers/fake-hotplug.js'
import { FakeMidiBackend } from '../surfaces/helpers/fake-midi.js'
import { SAFETY_MS } from '../helpers/until.js'

const requireBrowser = useChromium('the page surfaces test')
let started: BundledDaemon | undefined
let daemon: Daemon
let dir: string
const previousSink = setLogSink(() => undefined)

const HARDWARE = `
  replay: { driver: shuttle, model: shuttlepro_v2, rehearse: true }
  pads: { driver: midi, input: 'Launch Pads', rehearse: true }
`
const BINDINGS = `
  - on: pads/note:1:36
    label: Lower third
    press: { command: schedule, params: { action: cutin, title: 'Lower Third' } }
    feedback: { title: 'Lower Third' }
  - on: pads/note:1:37
    label: Clear
    press: { command: schedule, params: { action: cutout, title: 'Lower Third' } }
  - on: pads/cc:1:7
    label: "Speed\\n{{value}}"
    value: { command: replay_set_replay_speed, param: speed, range: [0, 2] }
  - on: replay/button:0
    label: Arm
    press: [{ command: replay_arm_inputs, params: { inputs: ['Camera 1'] } }, { command: replay_enable }]
  - on: replay/button:4
    label: Cut in
    press: { command: schedule, params: { action: cutin, title: 'Lower Third' } }
  - on: replay/jog
    label: "Scrub\\n{{position}}"
    jog: { scrub: { step_frames: 1 } }
  - on: replay/shuttle
    label: "Shuttle {{speed}}"
    shuttle: { speeds: [0, 0.1, 0.25, 0.5, 1, 2, 4, 8] }
`

beforeAll(async () => {
  // The bundled config, with a ShuttlePro and a MIDI controller configured beside its web console.
  started = await startBundledDaemon('pb-page-surfaces-', {
    text: (text) =>
      text.replace(/^surfaces:\n/m, `surfaces:${HARDWARE}`).replace(/^bindings:\n/m, `bindings:${BINDINGS}`),
  })
  ;({ daemon, dir } = started)
})
afterAll(async () => {
  await stopBundledDaemon(started)
  setLogSink(previousSink)
})

const control = (surface: string, c: string): string => `[data-surface="${surface}"][data-control="${c}"]`

async function open(viewport: { width: number; height: number }): Promise<Page> {
  const page = await requireBrowser().newPage({ viewport, deviceScaleFactor: 1 })
  await page.goto(daemon.url)
  await page.waitForSelector('#status.live')
  await page.waitForSelector(control('pads', 'cc:1:7'))
  await page.waitForSelector(control('replay', 'button:14'))
  return page
}

describe('hardware surfaces on the page before they are plugged in', () => {
  it("a generic MIDI controller shows its bound pads and fader, and a click on a pad is that note's press", async () => {
    await expect.poll(() => daemon.status().app.state, { timeout: 10_000 }).toBe('connected')
    const page = await open({ width: 1280, height: 800 })
    try {
      const pads = page.locator('section[data-surface="pads"]')
      expect(await pads.locator('header').textContent()).toContain('waiting for MIDI port "Launch Pads"')
      expect(await pads.locator('header').textContent()).toContain('rehearsal')
      expect(await pads.locator('.pad').count()).toBe(2)
      expect(await pads.locator(`${control('pads', 'cc:1:7')}.slider.fader`).count()).toBe(1)
      await page.waitForFunction(
        (sel) => document.querySelector(sel)?.getAttribute('aria-label') === 'Lower third',
        control('pads', 'note:1:36'),
      )
      expect(await page.getAttribute(control('pads', 'note:1:36'), 'role')).toBe('button')

      const before = daemon.status().commands.sent
      await page.click(control('pads', 'note:1:36'))
      await expect.poll(() => daemon.status().commands.sent, { timeout: 10_000 }).toBeGreaterThan(before)
      // The note's press went in as the device's would: its binding played the title.
      await expect
        .poll(() => daemon.controlState('pads', 'note:1:36'), { timeout: 10_000 })
        .toMatchObject({ led: 'on' })
      // The fader rehearses too: a press on its track is a value, sent as the speed, and then known.
      expect(daemon.controlState('pads', 'cc:1:7')).toMatchObject({ badge: 'unknown' })
      const track = (await page.locator(`${control('pads', 'cc:1:7')} .track`).boundingBox())!
      await page.mouse.click(track.x + track.width / 2, track.y + track.height / 2)
      await expect
        .poll(() => daemon.controlState('pads', 'cc:1:7'), { timeout: 10_000 })
        .toMatchObject({ value: expect.closeTo(0.5, 1) as number })
    } finally {
      await page.close()
    }
  })

  it('a ShuttlePro v2 shows its real layout; the screenshots at 1280×800 and 390×844 with the legend', async () => {
    mkdirSync('test-output', { recursive: true })
    for (const [viewport, file] of [
      [{ width: 1280, height: 800 }, 'test-output/page-desktop.png'],
      [{ width: 390, height: 844 }, 'test-output/page-phone.png'],
    ] as const) {
      const page = await open(viewport)
      try {
        const replay = page.locator('section[data-surface="replay"]')
        expect(await replay.locator('.face .pad').count()).toBe(15)
        const box = async (c: string) => (await page.locator(`${control('replay', c)}`).boundingBox())!
        const [jog, ring, top, side] = [
          await box('jog'),
          await box('shuttle'),
          await box('button:1'),
          await box('button:13'),
        ]
        expect(Math.abs(jog.x + jog.width / 2 - (ring.x + ring.width / 2))).toBeLessThan(1)
        expect(top.y + top.height).toBeLessThan(ring.y)
        expect(side.x + side.width).toBeLessThan(ring.x)
        // The jog takes the pointer in the middle, the ring around it (measured with the face in view).
        await page.locator(control('replay', 'shuttle')).scrollIntoViewIfNeeded()
        const [j, r] = [await box('jog'), await box('shuttle')]
        const under = (x: number, y: number) =>
          page.evaluate(
            ([px, py]) => document.elementFromPoint(px!, py!)?.closest<HTMLElement>('[data-control]')?.dataset.control,
            [x, y],
          )
        expect(await under(j.x + j.width / 2, j.y + j.height / 2)).toBe('jog')
        expect(await under(r.x + r.width / 2, r.y + 12)).toBe('shuttle')
        const sideways = await page.evaluate(
          () => document.scrollingElement!.scrollWidth - document.scrollingElement!.clientWidth,
        )
        expect(sideways).toBeLessThanOrEqual(0)
        await page.locator('header.top #legend-link').click()
        await page.mouse.move(0, 0)
        await page.screenshot({ path: file, fullPage: true })
      } finally {
        await page.close()
      }
    }
  })
})

describe('a generic MIDI controller plugged in', () => {
  it('its mirror shows the controls its bindings name, read-only, with their labels', async () => {
    const port = 'Launch Pads MIDI 1 20:0'
    const file = join(dir, 'plugged.yaml')
    const padBindings = BINDINGS.split(/\n(?= {2}- on: )/)
      .filter((b) => b.includes('on: pads/'))
      .join('\n')
    await writeFile(
      file,
      `version: 1\napp: { url: 'http://127.0.0.1:0', simulate: true }\nlisten: { host: 127.0.0.1, port: 0 }\n` +
        `surfaces:\n  pads: { driver: midi, input: 'Launch Pads' }\nbindings:\n${padBindings}\n`,
    )
    const plugged = await Daemon.start({
      reloadTimeoutMs: SAFETY_MS,
      config: file,
      drivers: [new MidiDriver({ backend: new FakeMidiBackend({ inputs: [port], outputs: [port] }) })],
      hotplug: new FakeHotplug(true),
      access: () => Promise.resolve('ok'),
      watch: false,
    })
    const page = await requireBrowser().newPage({ viewport: { width: 1280, height: 800 } })
    try {
      await expect
        .poll(() => plugged.status().surfaces.find((x) => x.name === 'pads')?.state, { timeout: 10_000 })
        .toBe('open')
      await page.goto(plugged.url)
      const pads = page.locator('section[data-surface="pads"]:not(.waiting)')
      await pads.waitFor()
      expect(await pads.locator('header').textContent()).toContain('read-only')
      expect(await pads.locator('.pad').count()).toBe(2)
      expect(await pads.locator(`${control('pads', 'cc:1:7')}.slider.fader`).count()).toBe(1)
      await page.waitForFunction(
        (sel) => document.querySelector(sel)?.textContent === 'Lower third',
        control('pads', 'note:1:36'),
      )
      expect(await page.getAttribute(control('pads', 'note:1:36'), 'role')).toBeNull()
    } finally {
      await page.close()
      await plugged.stop()
    }
  })
})
