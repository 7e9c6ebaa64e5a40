/**
 * The page's editor where the daemon may not edit, in a real browser: with `listen.edit: false` there is
 * no Edit switch and a save through the API is refused (403) with the file untouched; with a config the
 * daemon cannot write (a symbolic link, as a Kubernetes ConfigMap mounts it) the editor opens read-only
 * and says why. A key of the page's own web surface, pressed while armed, is selected and sends nothing.
 */
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import { setLogSink } from '../../src/log.js'
import { useChromium } from '../helpers/browser.js'
import { SAFETY_MS } from '../helpers/until.js'
import { freshPage, roundTrip } from '../surfaces/web/helpers.js'

const requireBrowser = useChromium('the editor refusals page test')
const previousSink = setLogSink(() => undefined)
afterAll(() => void setLogSink(previousSink))

const config = (listen: string): string => `version: 1
app: { url: http://127.0.0.1:0, simulate: true }
listen: ${listen}
surfaces:
  console: { driver: web, rows: 1, columns: 2 }
bindings:
  - on: console/key:0   # plays the lower third
    press: { command: schedule, params: { action: cutin, title: 'Lower Third' } }
`

/** A daemon over `text`, its file reached through `link` when given (a symbolic link to it). */
async function start(text: string, link = false): Promise<{ daemon: Daemon; file: string; real: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-edit-off-'))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  await mkdir(join(dir, 'config'))
  const real = join(dir, 'config', 'desk.yaml')
  await writeFile(real, text)
  const file = link ? join(dir, 'config', 'mounted.yaml') : real
  if (link) await symlink(real, file)
  const daemon = await Daemon.start({
    config: file,
    drivers: [],
    watch: false,
    reloadTimeoutMs: SAFETY_MS,
    editHistory: join(dir, 'state', 'edits'),
  })
  onTestFinished(() => daemon.stop())
  return { daemon, file, real }
}

describe('the editor on the page where editing is not allowed', () => {
  it('listen.edit: false: no Edit switch, and a save through the API is refused with the file untouched', async () => {
    const text = config('{ host: 127.0.0.1, port: 0, edit: false }')
    const { daemon, file } = await start(text)
    const page = await freshPage(requireBrowser(), { viewport: { width: 1024, height: 768 } })
    await page.goto(daemon.url)
    // The page has read the answer (it marks the body): the switch stays hidden.
    await page.waitForSelector('body[data-editor="off"]', { state: 'attached' })
    expect(await page.locator('.edit-switch').isHidden()).toBe(true)
    const info = (await (await fetch(new URL('api/config', daemon.url))).json()) as { enabled: boolean }
    expect(info.enabled).toBe(false)
    const binding = new URL('api/surfaces/console/controls/key%3A0/binding', daemon.url)
    const { hash } = (await (await fetch(binding)).json()) as { hash: string }
    const put = await fetch(binding, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hash, binding: { press: { command: 'schedule', params: { action: 'cutout' } } } }),
    })
    expect(put.status).toBe(403)
    expect(((await put.json()) as { error: { code: string } }).error.code).toBe('EDIT_DISABLED')
    expect(await readFile(file, 'utf8')).toBe(text)
  })

  it('a config behind a symbolic link: the editor opens read-only and says why; the page key pressed while armed sends nothing', async () => {
    const text = config('{ host: 127.0.0.1, port: 0 }')
    const { daemon, real } = await start(text, true)
    await expect.poll(() => daemon.status().app.state, { timeout: SAFETY_MS }).toBe('connected')
    const page = await freshPage(requireBrowser(), { viewport: { width: 1024, height: 768 } })
    await page.goto(daemon.url)
    await page.waitForSelector('#status.live')
    await page.click('.edit-switch')
    await page.waitForFunction(() =>
      document.querySelector('#editor .read-only-note')?.textContent?.includes('symbolic'),
    )
    await page.click('#editor button.find')
    await page.waitForSelector('section.surface.find-armed[data-surface="console"]')
    const sent = daemon.status().commands.sent
    await page.click('[data-surface="console"][data-control="key:0"]')
    await page.waitForFunction(() => document.querySelector('#editor .binding h3')?.textContent === 'console/key:0')
    expect(await page.textContent('#editor .binding .read-only-note')).toContain('symbolic link')
    expect(await page.locator('#editor button.save').isDisabled()).toBe(true)
    await roundTrip(page)
    expect(daemon.status().commands.sent).toBe(sent)
    expect(await readFile(real, 'utf8')).toBe(text)
  })
})
