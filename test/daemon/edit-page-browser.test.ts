/**
 * The editor on the page, in a real browser against a real daemon over the simulator (issue 42's must
 * show): an X-keys XK-24 and a Contour ShuttlePro v2, each the real library over an in-memory HID device.
 * Switch to Edit, arm find by pressing, press the X-keys key: the editor shows its binding with
 * `file:line`; change its command to `schedule` playing a title picked from the simulator's; save: the
 * file differs only in that binding's lines, every comment kept, the mapping reloaded, and the key now
 * sends the new command; undo puts back the original bytes. The same edit through the remote API as a
 * plain HTTP PUT writes the same bytes as the page's. Turning the ShuttlePro's jog while armed selects
 * it and sends nothing. A long press and hold-to-confirm set through the form's own fields are written
 * as exactly those YAML fields, a field the form does not model kept byte for byte; steps are rows of
 * command pickers. A read-only viewer (`?view=1`) has no Edit switch.
 *
 * With PANELBRIDGE_SCREENSHOTS=1 it writes the README's screenshot, docs/images/edit-on-the-panel.png
 * (1024×768, the editor open on the X-keys key with the change previewed).
 */
import { mkdirSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import type { CommandEvent } from '../../src/daemon/api.js'
import { Daemon } from '../../src/daemon/daemon.js'
import { setLogSink } from '../../src/log.js'
import { hardwareDrivers } from '../../src/surfaces/drivers.js'
import { useChromium } from '../helpers/browser.js'
import { SAFETY_MS, until } from '../helpers/until.js'
import { MemoryShuttleTransport, type FakeShuttleHid } from '../surfaces/helpers/fake-shuttle.js'
import { MemoryXkeysTransport, xk24Report, type FakeXkeysHid } from '../surfaces/helpers/fake-xkeys.js'
import { FakeHotplug } from '../surfaces/helpers/fake-hotplug.js'
import { freshPage, roundTrip } from '../surfaces/web/helpers.js'

const requireBrowser = useChromium('the editor page test')
const previousSink = setLogSink(() => undefined)
const WAIT = { timeout: SAFETY_MS }

/** A mapping written by hand: comments on its own lines and after values, flow and block styles. */
const CONFIG = `# The title desk: an X-keys for the titles, a ShuttlePro for the replay.
version: 1
app: { url: http://127.0.0.1:0, simulate: true }   # the built-in simulator
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  titles: { driver: xkeys, model: XK24 }
  wheel: { driver: shuttle, model: shuttlepro_v2 }
bindings:
  # Top row: the replay, then the titles.
  - on: titles/key:0
    press: { command: replay_enable }   # arms the replay
    label: Replay
  - on: titles/key:1   # the lower third in
    labels: { Running: ON AIR }   # what {{play}} says
    press: { command: schedule, params: { action: cutin, title: 'Lower Third' } }
    feedback: { title: 'Lower Third' }
  # The jog scrubs.
  - on: wheel/jog
    jog:
      scrub: { step_frames: 1 }
`

let daemon: Daemon
let dir: string
let file: string
let xkeys: FakeXkeysHid
let wheel: FakeShuttleHid
const commands: CommandEvent[] = []

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pb-edit-page-'))
  await mkdir(join(dir, 'config'))
  file = join(dir, 'config', 'desk.yaml')
  await writeFile(file, CONFIG)
  const xkeysTransport = new MemoryXkeysTransport()
  const shuttleTransport = new MemoryShuttleTransport()
  xkeysTransport.plug('XK24', '/dev/hidraw1', { unitId: 3 })
  shuttleTransport.plug('shuttlepro_v2', '/dev/hidraw2', 'PRO-1')
  const drivers = hardwareDrivers({ xkeys: { transport: xkeysTransport }, shuttle: { transport: shuttleTransport } })
  daemon = await Daemon.start({
    config: file,
    drivers: drivers.map((d) => d.driver),
    hotplug: new FakeHotplug(false),
    access: () => Promise.resolve('ok'),
    watch: false,
    reloadTimeoutMs: SAFETY_MS,
    editHistory: join(dir, 'state', 'edits'),
  })
  daemon.watchEvents((e) => {
    if (e.type === 'command') commands.push(e.command)
  })
  const open = (name: string) => daemon.status().surfaces.find((s) => s.name === name)?.state === 'open'
  await until('both devices open', () => open('titles') && open('wheel'))
  xkeys = xkeysTransport.lastOpened('/dev/hidraw1')!
  wheel = shuttleTransport.lastOpened('/dev/hidraw2')!
  // The jog's first report only sets where its counter stands.
  wheel.report(0, 10)
  await until('the application link', () => daemon.status().app.state === 'connected')
})
afterAll(async () => {
  await daemon?.stop()
  await rm(dir, { recursive: true, force: true })
  setLogSink(previousSink)
})

const control = (surface: string, c: string): string => `[data-surface="${surface}"][data-control="${c}"]`

/** The 1-based line of the first line of `text` that contains `needle`. */
const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((l) => l.includes(needle)) + 1

/** Presses and lets go of XK-24 key `n` (the panel's own numbering: 1 is the top left). */
function pressXkeys(n: number): void {
  xkeys.input(xk24Report(3, [n]))
  xkeys.input(xk24Report(3, []))
}

async function openEditor(): Promise<Page> {
  const page = await freshPage(requireBrowser(), { viewport: { width: 1024, height: 768 }, deviceScaleFactor: 1 })
  await page.goto(daemon.url)
  await page.waitForSelector('#status.live')
  await page.waitForSelector(control('titles', 'key:0'))
  await page.click('.edit-switch')
  await page.waitForSelector('#editor:not([hidden])')
  return page
}

/** Arms find by pressing on `surface` from the page, and waits until the page shows it armed. */
async function arm(page: Page, surface: string): Promise<void> {
  await page.selectOption('#editor .find-row select', surface)
  await page.click('#editor button.find')
  await page.waitForSelector(`section.surface.find-armed[data-surface="${surface}"]`)
  expect(await page.textContent('#editor .find-state')).toContain(`Armed on ${surface}`)
}

describe('the editor on the page', () => {
  it('find by pressing an X-keys key, change its command on the page, save, press it, undo; the API writes the same bytes', async () => {
    const original = await readFile(file)
    const page = await openEditor()
    try {
      await arm(page, 'titles')
      const sentBefore = daemon.status().commands.sent
      pressXkeys(1)
      await page.waitForSelector('#editor .binding h3')
      expect(await page.textContent('#editor .binding h3')).toBe('titles/key:0')
      expect(await page.textContent('#editor .binding .where')).toBe(`${file}:${lineOf(CONFIG, 'on: titles/key:0')}`)
      expect(await page.textContent('#editor .binding .yaml pre')).toContain('press: { command: replay_enable }')
      // The selection sent nothing.
      await roundTrip(page)
      expect(daemon.status().commands.sent).toBe(sentBefore)

      // Another title than the file's, from the simulator: the picker is filled from the live application.
      const titles = await page.$$eval('#editor-names-titles option', (os) =>
        os.map((o) => (o as HTMLOptionElement).value),
      )
      expect(titles).toContain('Score Bug')
      const group = await page.$eval(
        '#editor .command select option[value="schedule"]',
        (o) => (o.parentElement as HTMLOptGroupElement).label,
      )
      expect(group).toBe('Playing titles')
      await page.selectOption('#editor .command select', 'schedule')
      await page.selectOption('#editor [data-path="press.params.action"] select', 'cutin')
      await page.fill('#editor [data-path="press.params.title"] input', 'Score Bug')
      // The change shows on the page's copy of the key, sent nowhere.
      await page.waitForSelector(`${control('titles', 'key:0')}.previewing`)
      // At 1024×768 the editor sits beside the surfaces: nothing under it, no sideways scroll.
      const layout = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth - window.innerWidth,
        surfacesRight: document.querySelector('#surfaces')!.getBoundingClientRect().right,
        editorLeft: document.querySelector('#editor')!.getBoundingClientRect().left,
      }))
      expect(layout.scroll).toBeLessThanOrEqual(0)
      expect(layout.surfacesRight).toBeLessThanOrEqual(layout.editorLeft)
      if (process.env.PANELBRIDGE_SCREENSHOTS === '1') {
        mkdirSync('docs/images', { recursive: true })
        await page.screenshot({ path: 'docs/images/edit-on-the-panel.png' })
      }
      const loadedBefore = daemon.status().configState?.lastGoodLoad

      await page.click('#editor button.save')
      await page.waitForSelector('#editor .message.ok')
      expect(await page.textContent('#editor .message')).toContain('Saved')
      const saved = await readFile(file, 'utf8')
      const before = CONFIG.split('\n')
      const after = saved.split('\n')
      expect(after).toHaveLength(before.length)
      const changed = before.flatMap((l, i) => (l === after[i] ? [] : [i + 1]))
      const press = lineOf(CONFIG, 'command: replay_enable')
      expect(changed).toEqual([press])
      expect(after[press - 1]).toBe(
        "    press: { command: schedule, params: { action: cutin, title: 'Score Bug' } }   # arms the replay",
      )
      // Every comment kept, the edited line's own included.
      const comments = (lines: string[]): string[] =>
        lines.flatMap((l) => (l.includes('#') ? [l.slice(l.indexOf('#'))] : []))
      expect(comments(after)).toEqual(comments(before))
      // The reload happened: the mapping that runs is the new one.
      expect(daemon.status().configState?.lastGoodLoad).not.toBe(loadedBefore)
      expect(await page.textContent('#editor .binding .yaml pre')).toContain("title: 'Score Bug'")

      // Escape disarms; the hardware key now plays the title it was given.
      await page.keyboard.press('Escape')
      await page.waitForSelector('section.surface.find-armed', { state: 'detached' })
      pressXkeys(1)
      await until('the key sent', () => commands.some((c) => c.origin === 'titles/key:0'))
      expect(commands.filter((c) => c.origin === 'titles/key:0').map((c) => [c.command, c.params])).toEqual([
        ['schedule', { action: 'cutin', title: 'Score Bug' }],
      ])

      // Undo on the page puts back the original bytes.
      await page.click('#editor button.undo')
      await page.waitForFunction(() => document.querySelector('#editor .message')?.textContent?.includes('undone'))
      expect(await readFile(file)).toEqual(original)

      // The same edit through the remote API, as curl would make it, writes the page's bytes.
      const binding = new URL('api/surfaces/titles/controls/key%3A0/binding', daemon.url)
      const read = (await (await fetch(binding)).json()) as { hash: string }
      const put = await fetch(binding, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          hash: read.hash,
          binding: {
            press: { command: 'schedule', params: { action: 'cutin', title: 'Score Bug' } },
            label: 'Replay',
          },
        }),
      })
      expect(put.status).toBe(200)
      expect(await readFile(file, 'utf8')).toBe(saved)
      const { hash } = (await put.json()) as { hash: string }
      const undo = await fetch(new URL('api/config/undo', daemon.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ hash }),
      })
      expect(undo.status).toBe(200)
      expect(await readFile(file)).toEqual(original)
    } finally {
      await page.close()
    }
  })

  it('turning the ShuttlePro jog while armed selects it in the editor and sends nothing', async () => {
    const page = await openEditor()
    try {
      await arm(page, 'wheel')
      const sentBefore = daemon.status().commands.sent
      wheel.report(0, 11)
      await page.waitForFunction(() => document.querySelector('#editor .binding h3')?.textContent === 'wheel/jog')
      expect(await page.textContent('#editor .binding .where')).toBe(`${file}:${lineOf(CONFIG, 'on: wheel/jog')}`)
      expect(await page.textContent('#editor .binding .note')).toContain('not a single command')
      await roundTrip(page)
      expect(daemon.status().commands.sent).toBe(sentBefore)
      expect(commands.filter((c) => c.origin === 'wheel/jog')).toEqual([])
      // Closing the switch disarms.
      await page.click('.edit-switch')
      await page.waitForSelector('section.surface.find-armed', { state: 'detached' })
    } finally {
      await page.close()
    }
  })

  it('refusals on the page leave the file byte-identical: the check at its field (422), a file changed on disk (409)', async () => {
    const original = await readFile(file)
    const page = await openEditor()
    try {
      await arm(page, 'titles')
      pressXkeys(1)
      await page.waitForSelector('#editor .binding h3')
      // schedule without its action: the check refuses it, at the command's field.
      await page.selectOption('#editor .command select', 'schedule')
      await page.fill('#editor [data-path="press.params.title"] input', 'Score Bug')
      await page.click('#editor button.save')
      await page.waitForSelector('#editor [data-path="press.command"].bad')
      expect(await page.textContent('#editor [data-path="press.command"] .problem')).toContain('action')
      expect(await page.textContent('#editor .message')).toContain('refused')
      expect(await readFile(file)).toEqual(original)

      // A hand edit on disk after the form was read: the save is refused and the change shown.
      const handEdited = CONFIG.replace('label: Replay', 'label: Replay key')
      await writeFile(file, handEdited)
      await page.selectOption('#editor [data-path="press.params.action"] select', 'cutin')
      await page.click('#editor button.save')
      await page.waitForSelector('#editor .message .diff')
      expect(await page.textContent('#editor .message')).toContain('changed on disk')
      expect(await page.textContent('#editor .message .diff')).toContain('+     label: Replay key')
      expect(await readFile(file, 'utf8')).toBe(handEdited)
      await page.click('#editor .message button.reload')
      await page.waitForFunction(() => document.querySelector('#editor .yaml pre')?.textContent?.includes('Replay key'))
    } finally {
      await page.close()
      await writeFile(file, original)
    }
  })

  it("Copy to another control adds its binding after the surface's last; Delete removes one; undo puts back each", async () => {
    const original = await readFile(file, 'utf8')
    const page = await openEditor()
    try {
      await arm(page, 'titles')
      pressXkeys(1)
      await page.waitForSelector('#editor .binding h3')
      await page.fill('#editor .copy-to', 'titles/key:2')
      await page.click('#editor button.copy')
      await page.waitForFunction(() => document.querySelector('#editor .message')?.textContent?.includes('Copied'))
      const copied = (await readFile(file, 'utf8')).split('\n')
      const at = copied.indexOf('  - on: titles/key:2')
      // After the titles' last binding (key:1), before the comment that opens the jog's.
      expect(copied.slice(at - 2, at)).toEqual([
        "    press: { command: schedule, params: { action: cutin, title: 'Lower Third' } }",
        "    feedback: { title: 'Lower Third' }",
      ])
      expect(copied.slice(at + 1, at + 3)).toEqual(['    press: { command: replay_enable }', '    label: Replay'])
      expect([...copied.slice(0, at), ...copied.slice(at + 3)].join('\n')).toBe(original)
      await page.click('#editor button.undo')
      await page.waitForFunction(() => document.querySelector('#editor .message')?.textContent?.includes('undone'))
      expect(await readFile(file, 'utf8')).toBe(original)

      await page.click('#editor button.delete')
      await page.waitForFunction(() => document.querySelector('#editor .message')?.textContent?.includes('Deleted'))
      const deleted = await readFile(file, 'utf8')
      expect(deleted).not.toContain('titles/key:0')
      expect(deleted).toContain('# Top row: the replay, then the titles.')
      // The control has no binding now: the editor offers a new one.
      expect(await page.textContent('#editor .binding .where')).toContain('no binding yet')
      await page.click('#editor button.undo')
      await page.waitForFunction(() => document.querySelector('#editor .message')?.textContent?.includes('undone'))
      expect(await readFile(file, 'utf8')).toBe(original)
    } finally {
      await page.close()
    }
  })

  it('a long press and a hold-to-confirm set in the form are written as those YAML fields; a field the form does not show survives', async () => {
    const original = await readFile(file, 'utf8')
    const page = await openEditor()
    try {
      await arm(page, 'titles')
      pressXkeys(7) // key:1: the panel numbers its keys down the columns
      await page.waitForFunction(() => document.querySelector('#editor .binding h3')?.textContent === 'titles/key:1')
      // `labels` is not one of the form's fields: it is under Other fields, as written.
      expect(JSON.parse(await page.inputValue('#editor [data-path="other"] textarea'))).toEqual({
        labels: { Running: 'ON AIR' },
      })
      await page.fill('#editor [data-path="confirm_ms"] input', '1200')
      await page.selectOption('#editor [data-path="hold.command"] select', 'schedule')
      await page.selectOption('#editor [data-path="hold.params.action"] select', 'cutout')
      await page.fill('#editor [data-path="hold.params.title"] input', 'Lower Third')
      await page.fill('#editor [data-path="hold.after_ms"] input', '600')
      // A play-state colour shows on the page's copy of the key; taken back, it is not written.
      await page.fill('#editor [data-state="Off"] input[type="color"]', '#20c040')
      const key = control('titles', 'key:1')
      await page.waitForSelector(`${key}.previewing`)
      expect(await page.$eval(key, (n) => (n as HTMLElement).style.getPropertyValue('--preview-color'))).toBe('#20c040')
      await page.uncheck('#editor [data-state="Off"] input[type="checkbox"]')

      await page.click('#editor button.save')
      await page.waitForSelector('#editor .message.ok')
      const saved = await readFile(file, 'utf8')
      const doc = parse(saved) as { bindings: Record<string, unknown>[] }
      expect(doc.bindings.find((b) => b.on === 'titles/key:1')).toEqual({
        on: 'titles/key:1',
        labels: { Running: 'ON AIR' },
        press: { command: 'schedule', params: { action: 'cutin', title: 'Lower Third' } },
        feedback: { title: 'Lower Third' },
        confirm_ms: 1200,
        hold: { command: 'schedule', params: { action: 'cutout', title: 'Lower Third' }, after_ms: 600 },
      })
      // The field the form does not show is byte for byte as it was, its comment too; lines before untouched.
      const labels = '    labels: { Running: ON AIR }   # what {{play}} says'
      expect(saved.split('\n')).toContain(labels)
      const upTo = original.indexOf(labels) + labels.length
      expect(saved.slice(0, upTo)).toBe(original.slice(0, upTo))
      // The form reads the saved binding back into its fields.
      expect(await page.inputValue('#editor [data-path="confirm_ms"] input')).toBe('1200')
      expect(await page.inputValue('#editor [data-path="hold.command"] select')).toBe('schedule')
      await page.click('#editor button.undo')
      await page.waitForFunction(() => document.querySelector('#editor .message')?.textContent?.includes('undone'))
      expect(await readFile(file, 'utf8')).toBe(original)
    } finally {
      await page.close()
    }
  })

  it('steps are a list of command pickers: rows added and removed on the form, written as `steps:`', async () => {
    const original = await readFile(file, 'utf8')
    const page = await openEditor()
    try {
      await arm(page, 'titles')
      pressXkeys(19) // key:3, without a binding
      await page.waitForFunction(() => document.querySelector('#editor .binding h3')?.textContent === 'titles/key:3')
      for (let i = 0; i < 3; i++) await page.click('#editor .add-step')
      for (const [i, action] of [
        [0, 'cutin'],
        [1, 'cutout'],
      ] as const) {
        await page.selectOption(`#editor [data-path="steps.${i}.command"] select`, 'schedule')
        await page.selectOption(`#editor [data-path="steps.${i}.params.action"] select`, action)
        await page.fill(`#editor [data-path="steps.${i}.params.title"] input`, 'Clock')
      }
      // The third row goes; the two above keep what was typed in them.
      await page.click('#editor [data-path="steps.2.command"] ~ .remove-step')
      expect(await page.locator('#editor .steps .step').count()).toBe(2)
      expect(await page.inputValue('#editor [data-path="steps.1.params.title"] input')).toBe('Clock')
      await page.click('#editor button.save')
      await page.waitForSelector('#editor .message.ok')
      const doc = parse(await readFile(file, 'utf8')) as { bindings: Record<string, unknown>[] }
      expect(doc.bindings.find((b) => b.on === 'titles/key:3')).toEqual({
        on: 'titles/key:3',
        steps: [
          { command: 'schedule', params: { action: 'cutin', title: 'Clock' } },
          { command: 'schedule', params: { action: 'cutout', title: 'Clock' } },
        ],
      })
      await page.click('#editor button.undo')
      await page.waitForFunction(() => document.querySelector('#editor .message')?.textContent?.includes('undone'))
      expect(await readFile(file, 'utf8')).toBe(original)
    } finally {
      await page.close()
    }
  })

  it("a control without a binding gets a new one from the form, after the surface's last binding", async () => {
    const original = await readFile(file, 'utf8')
    const page = await openEditor()
    try {
      await arm(page, 'titles')
      pressXkeys(19) // the top row's last key: the panel numbers its keys down the columns
      await page.waitForFunction(() => document.querySelector('#editor .binding h3')?.textContent === 'titles/key:3')
      expect(await page.textContent('#editor .binding .where')).toContain('no binding yet')
      await page.selectOption('#editor .command select', 'schedule')
      await page.selectOption('#editor [data-path="press.params.action"] select', 'cutout')
      await page.fill('#editor [data-path="press.params.title"] input', 'Clock')
      await page.fill('#editor [data-path="label"] input', 'Clock out')
      await page.click('#editor button.save')
      await page.waitForSelector('#editor .message.ok')
      const added = (await readFile(file, 'utf8')).split('\n')
      const at = added.indexOf('  - on: titles/key:3')
      expect(added[at - 1]).toBe("    feedback: { title: 'Lower Third' }")
      expect(added.slice(at + 1, at + 3)).toEqual([
        "    press: { command: schedule, params: { action: cutout, title: 'Clock' } }",
        '    label: Clock out',
      ])
      expect([...added.slice(0, at), ...added.slice(at + 3)].join('\n')).toBe(original)
      expect(await page.textContent('#editor .binding .where')).toBe(`${file}:${at + 1}`)
      await page.click('#editor button.undo')
      await page.waitForFunction(() => document.querySelector('#editor .message')?.textContent?.includes('undone'))
      expect(await readFile(file, 'utf8')).toBe(original)
    } finally {
      await page.close()
    }
  })

  it(
    'a read-only viewer (?view=1) has no Edit switch',
    async () => {
      const page = await freshPage(requireBrowser(), { viewport: { width: 1024, height: 768 } })
      try {
        await page.goto(`${daemon.url}?view=1`)
        await page.waitForSelector('#status.live')
        await page.waitForSelector(control('titles', 'key:0'))
        // The page asked the daemon nothing: no switch is built on a viewer, and no editor panel.
        await roundTrip(page)
        expect(await page.locator('.edit-switch').count()).toBe(0)
        expect(await page.locator('#editor').count()).toBe(0)
        expect(await page.getAttribute('body', 'data-editor')).toBeNull()
      } finally {
        await page.close()
      }
    },
    WAIT.timeout,
  )
})
