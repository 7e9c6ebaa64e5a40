/**
 * The mapping file's editor through the remote API (issue 42 item 6), on real HTTP over loopback against a
 * daemon with the built-in simulator: read, put, delete and undo round trips with the file's bytes checked
 * (only the binding's lines change; undo restores the exact bytes); the refusals, each leaving the file
 * byte-identical (409 changed on disk, 422 refused by the check, 403 a read-only file, `listen.edit: false`
 * and a foreign Origin, 401 without the token beyond loopback, 413 an over-long body); the save logged and
 * counted; and find-by-pressing: an armed surface's press or turn selects it, sends nothing, arrives as
 * `selected` on `/api/events`, and the surface sends again once disarmed.
 */
import { chmod, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { request, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { CommandEvent } from '../../src/daemon/api.js'
import { Daemon } from '../../src/daemon/daemon.js'
import { PrometheusMetrics } from '../../src/daemon/metrics.js'
import type { LogRecord } from '../../src/log.js'
import { putBinding } from '../../src/mappings/edit/edit.js'
import { GROUP_TITLES } from '../../src/mappings/command-reference.js'
import { hashBytes } from '../../src/mappings/edit/save.js'
import { captureLogs } from '../helpers/logs.js'
import { openJsonSocket } from '../helpers/json-socket.js'
import { until } from '../helpers/until.js'
import { call, TOKEN, type Reply } from './helpers.js'

const FILE_TEXT = (listen = '{ host: 127.0.0.1, port: 0 }') => `# The desk's mapping, kept in git.
version: 1
app: { url: http://127.0.0.1:0, simulate: true }
listen: ${listen}
surfaces:
  console: { driver: web, rows: 1, columns: 4, jog: true } # the tablet
bindings:
  # Lower third in
  - on: console/key:0
    label: "Lower\\nthird"
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }

  # Lower third out
  - on: console/key:1
    press: { command: schedule, params: { action: cutout, title: "Lower Third" } }
  - on: console/jog
    jog: { scrub: { step_frames: 1 } }   # a frame a detent
`

interface Rig {
  daemon: Daemon
  file: string
  base: string
  commands: CommandEvent[]
  metrics: PrometheusMetrics
  logs: LogRecord[]
}

/** A daemon over a new file of `text`, or over `existing` (a file a test made) as it is. */
async function rig(text = FILE_TEXT(), existing?: string): Promise<Rig> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-edit-api-'))
  const state = await mkdtemp(join(tmpdir(), 'pb-edit-state-'))
  onTestFinished(async () => {
    await chmod(dir, 0o755).catch(() => undefined)
    await rm(dir, { recursive: true, force: true })
    await rm(state, { recursive: true, force: true })
  })
  const file = existing ?? join(dir, 'desk.yaml')
  if (existing === undefined) await writeFile(file, text)
  const logs = captureLogs()
  const metrics = new PrometheusMetrics({ processMetrics: false })
  const daemon = await Daemon.start({
    config: file,
    drivers: [],
    watch: false,
    metrics,
    editHistory: join(state, 'edits'),
  })
  onTestFinished(() => daemon.stop())
  const commands: CommandEvent[] = []
  onTestFinished(daemon.watchEvents((e) => e.type === 'command' && commands.push(e.command)))
  return { daemon, file, base: daemon.url, commands, metrics, logs }
}

const json = (body: unknown): [Record<string, string>, string] => [
  { 'content-type': 'application/json' },
  JSON.stringify(body),
]

async function send(
  r: Rig,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  if (body === undefined) return call(r.base, method, path, headers)
  const [h, text] = json(body)
  return call(r.base, method, path, { ...h, ...headers }, text)
}

const BINDING = '/api/surfaces/console/controls/key%3A0/binding'
const NEW_BINDING = {
  label: 'Fullscreen',
  press: { command: 'schedule', params: { action: 'cutin', title: 'Full Screen Graphic' } },
}

// Each save waits for a whole reload (the check, then the loader in its worker): slow on a busy machine.
describe('the editor through the remote API', { timeout: 60_000 }, () => {
  it('GET /api/config and …/binding read the file with its hash; a control without one is 404 NO_BINDING', async () => {
    const r = await rig()
    const bytes = await readFile(r.file)
    const config = await send(r, 'GET', '/api/config')
    expect(config.status).toBe(200)
    expect(config.json).toEqual({ path: r.file, hash: hashBytes(bytes), writable: true, enabled: true })
    const read = await send(r, 'GET', BINDING)
    expect(read.status).toBe(200)
    expect(read.json).toEqual({
      hash: hashBytes(bytes),
      file: r.file,
      line: 9,
      yaml: expect.stringContaining('- on: console/key:0'),
      binding: {
        label: 'Lower\nthird',
        press: { command: 'schedule', params: { action: 'cutin', title: 'Lower Third' } },
      },
    })
    const none = await send(r, 'GET', '/api/surfaces/console/controls/key%3A3/binding')
    expect(none.status).toBe(404)
    expect(none.json).toEqual({ error: { code: 'NO_BINDING', message: expect.any(String), hash: hashBytes(bytes) } })
  })

  it('PUT changes only that binding’s lines, as the core’s putBinding does, after the reload; undo restores the bytes', async () => {
    const r = await rig()
    const before = await readFile(r.file, 'utf8')
    const hash = hashBytes(before)
    const put = await send(r, 'PUT', BINDING, { hash, binding: NEW_BINDING })
    expect(put.status).toBe(200)
    const after = await readFile(r.file, 'utf8')
    expect(put.json).toEqual({ hash: hashBytes(after) })
    // The same bytes the core writes for the same edit: a plain HTTP request edits as the page does.
    expect(after).toBe(putBinding(before, { surface: 'console', control: 'key:0' }, NEW_BINDING, r.file).text)
    const [a, b] = [before.split('\n'), after.split('\n')]
    // Lines 1–9 (the comments, `- on: console/key:0`) and everything after its two lines are as they were.
    expect(b).toHaveLength(a.length)
    expect(b.slice(0, 9)).toEqual(a.slice(0, 9))
    expect(b.slice(11)).toEqual(a.slice(11))
    expect(b.slice(9, 11)).not.toEqual(a.slice(9, 11))
    expect(after).toContain('# Lower third in')
    // The reload had applied when the answer came: the key shows its new label.
    expect(r.daemon.controlState('console', 'key:0')).toMatchObject({ label: 'Fullscreen' })
    expect(r.logs.find((l) => l.message === 'the mapping file was edited')?.fields).toEqual(
      expect.objectContaining({ kind: 'put', bindings: ['console/key:0'], hash: hashBytes(after) }),
    )
    expect(await r.metrics.text()).toMatch(/panelbridge_config_edits_total\{kind="put"\} 1/)

    const undo = await send(r, 'POST', '/api/config/undo', { hash: hashBytes(after) })
    expect(undo.status).toBe(200)
    expect(undo.json).toEqual({ hash })
    expect(await readFile(r.file, 'utf8')).toBe(before)
    expect(r.daemon.controlState('console', 'key:0')).toMatchObject({ label: 'Lower\nthird' })
  })

  it('PUT on a control without a binding adds one; DELETE ?hash= removes it again, byte for byte', async () => {
    const r = await rig()
    const before = await readFile(r.file, 'utf8')
    const path = '/api/surfaces/console/controls/key%3A3/binding'
    const put = await send(r, 'PUT', path, { hash: hashBytes(before), binding: NEW_BINDING })
    expect(put.status).toBe(200)
    const added = await readFile(r.file, 'utf8')
    expect(added.startsWith(before.trimEnd())).toBe(true)
    expect(added).toContain('- on: console/key:3')
    const del = await send(r, 'DELETE', `${path}?hash=${hashBytes(added)}`)
    expect(del.status).toBe(200)
    expect(await readFile(r.file, 'utf8')).toBe(before)
    expect(r.daemon.controlState('console', 'key:3')).not.toMatchObject({ label: 'Fullscreen' })
  })

  it('refuses, leaving the file byte-identical: 409 changed on disk, 422 refused by the check, 400 no hash, 413 over 64 KiB', async () => {
    const r = await rig()
    const before = await readFile(r.file, 'utf8')
    const stale = hashBytes(before)
    const changed = before.replace('# the tablet', '# the tablet, by hand')
    await writeFile(r.file, changed)
    const conflict = await send(r, 'PUT', BINDING, { hash: stale, binding: NEW_BINDING })
    expect(conflict.status).toBe(409)
    expect(conflict.json).toMatchObject({ error: { code: 'CONFIG_CHANGED', hash: hashBytes(changed) } })
    expect(await readFile(r.file, 'utf8')).toBe(changed)

    const bad = await send(r, 'PUT', BINDING, {
      hash: hashBytes(changed),
      binding: { press: { command: 'schedule', params: { action: 'explode', title: 'Lower Third' } } },
    })
    expect(bad.status).toBe(422)
    expect(bad.json).toMatchObject({
      error: {
        code: 'CONFIG_REFUSED',
        problems: [expect.objectContaining({ path: expect.stringMatching(/^bindings\.0\.press/) })],
      },
    })
    expect(await readFile(r.file, 'utf8')).toBe(changed)

    expect((await send(r, 'PUT', BINDING, { binding: NEW_BINDING })).status).toBe(400)
    expect((await send(r, 'DELETE', BINDING)).status).toBe(400)
    const big = await send(r, 'PUT', BINDING, { hash: hashBytes(changed), binding: { label: 'x'.repeat(70_000) } })
    expect(big.status).toBe(413)
    expect(await readFile(r.file, 'utf8')).toBe(changed)
  })

  it("GET /api/config/choices: the catalogue grouped as the command reference, the application's names, read-only", async () => {
    const r = await rig()
    await until('the application link', () => r.daemon.status().app.state === 'connected')
    const sentBefore = r.daemon.status().commands.sent
    const choices = await send(r, 'GET', '/api/config/choices')
    expect(choices.status).toBe(200)
    const body = choices.json as {
      groups: { title: string; commands: { name: string; params: { name: string; names?: string }[] }[] }[]
      names: Record<string, { from: string; names: string[] }>
    }
    expect(body.groups.map((g) => g.title)).toEqual(Object.values(GROUP_TITLES))
    const schedule = body.groups.flatMap((g) => g.commands).find((c) => c.name === 'schedule')
    expect(schedule?.params.find((p) => p.name === 'title')?.names).toBe('title')
    expect(schedule?.params.find((p) => p.name === 'action')?.names).toBeUndefined()
    // From the simulator, which has titles the file never names; no command of the bindings was sent.
    expect(body.names.titles).toEqual({ from: 'application', names: expect.arrayContaining(['Lower Third', 'Clock']) })
    expect(body.names.videoInputs).toEqual({ from: 'application', names: expect.arrayContaining(['Camera 1']) })
    expect(r.daemon.status().commands.sent).toBe(sentBefore)
    expect((await send(r, 'POST', '/api/config/choices', {})).status).toBe(405)
  })

  it('a read-only file: GET /api/config says writable false and why; a save is 403 EDIT_DISABLED', async () => {
    const r = await rig()
    const before = await readFile(r.file, 'utf8')
    await chmod(r.file, 0o444)
    const config = await send(r, 'GET', '/api/config')
    expect(config.json).toEqual({
      path: r.file,
      hash: hashBytes(before),
      writable: false,
      reason: 'the file is read-only',
      enabled: true,
    })
    const put = await send(r, 'PUT', BINDING, { hash: hashBytes(before), binding: NEW_BINDING })
    expect(put.status).toBe(403)
    expect(put.json).toMatchObject({ error: { code: 'EDIT_DISABLED', reason: 'the file is read-only' } })
    expect(await readFile(r.file, 'utf8')).toBe(before)
  })

  it('a binding built by a merge key is read-only at that binding, with why; a save of it is 403 NOT_EDITABLE', async () => {
    const r = await rig(
      FILE_TEXT().replace(
        '  - on: console/jog',
        '  - <<: { press: { command: schedule, params: { action: cutin, title: "Lower Third" } } }\n    on: console/key:2\n  - on: console/jog',
      ),
    )
    const before = await readFile(r.file, 'utf8')
    const path = '/api/surfaces/console/controls/key%3A2/binding'
    const read = await send(r, 'GET', path)
    expect(read.status).toBe(200)
    expect(read.json).toMatchObject({ readOnly: expect.stringContaining('merge') })
    const put = await send(r, 'PUT', path, { hash: hashBytes(before), binding: NEW_BINDING })
    expect(put.status).toBe(403)
    expect(put.json).toMatchObject({ error: { code: 'NOT_EDITABLE', reason: expect.stringContaining('merge') } })
    expect(await readFile(r.file, 'utf8')).toBe(before)
  })

  it('a read-only folder, and a config that is a symbolic link (a ConfigMap), are not writable, with why', async () => {
    const r = await rig()
    const before = await readFile(r.file, 'utf8')
    await chmod(dirname(r.file), 0o555)
    expect((await send(r, 'GET', '/api/config')).json).toMatchObject({
      writable: false,
      reason: expect.stringContaining('is read-only'),
    })
    const put = await send(r, 'PUT', BINDING, { hash: hashBytes(before), binding: NEW_BINDING })
    expect(put.status).toBe(403)
    await chmod(dirname(r.file), 0o755)
    expect(await readFile(r.file, 'utf8')).toBe(before)

    const link = join(dirname(r.file), 'linked.yaml')
    await symlink(r.file, link)
    const linked = await rig(before, link)
    expect((await send(linked, 'GET', '/api/config')).json).toMatchObject({
      path: link,
      writable: false,
      reason: expect.stringContaining('symbolic link'),
    })
  })

  it('listen.edit: false switches the editor off (403 EDIT_DISABLED, writable false)', async () => {
    const r = await rig(FILE_TEXT('{ host: 127.0.0.1, port: 0, edit: false }'))
    const before = await readFile(r.file, 'utf8')
    expect((await send(r, 'GET', '/api/config')).json).toMatchObject({
      writable: false,
      reason: expect.stringContaining('listen.edit: false'),
      enabled: false,
    })
    const put = await send(r, 'PUT', BINDING, { hash: hashBytes(before), binding: NEW_BINDING })
    expect(put.status).toBe(403)
    expect(put.json).toMatchObject({ error: { code: 'EDIT_DISABLED' } })
    expect((await send(r, 'POST', '/api/config/undo', { hash: hashBytes(before) })).status).toBe(403)
    expect(await readFile(r.file, 'utf8')).toBe(before)
  })

  it('a foreign Origin is 403; beyond loopback a save without the token is 401, with it 200', async () => {
    const r = await rig(FILE_TEXT(`{ host: 0.0.0.0, port: 0, token: ${TOKEN} }`))
    const before = await readFile(r.file, 'utf8')
    const body = { hash: hashBytes(before), binding: NEW_BINDING }
    const auth = { authorization: `Bearer ${TOKEN}` }
    const foreign = await send(r, 'PUT', BINDING, body, { ...auth, origin: 'http://evil.example' })
    expect(foreign.status).toBe(403)
    expect(foreign.json).toMatchObject({ error: { code: 'FORBIDDEN_ORIGIN' } })
    expect((await send(r, 'PUT', BINDING, body)).status).toBe(401)
    expect((await send(r, 'GET', '/api/config')).status).toBe(401)
    expect(await readFile(r.file, 'utf8')).toBe(before)
    expect((await send(r, 'PUT', BINDING, body, auth)).status).toBe(200)
  })
})

/** Opens `/api/events` and collects its text. */
function events(r: Rig): Promise<{ text(): string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(r.base)
    const req = request({ host: hostname, port, path: '/api/events', agent: false }, (res: IncomingMessage) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      resolve({ text: () => text })
    })
    onTestFinished(() => void req.destroy())
    req.on('error', reject)
    req.end()
  })
}

describe('find by pressing through the remote API', () => {
  it('an armed surface’s press selects its control and sends nothing; selected on /api/events; disarmed, it sends again', async () => {
    const r = await rig()
    const stream = await events(r)
    const armed = await send(r, 'POST', '/api/find', { surfaces: ['console'] })
    expect(armed.status).toBe(200)
    expect(armed.json).toEqual({ ok: true, surfaces: ['console'], timeoutMs: 60_000 })
    expect((await send(r, 'POST', '/api/surfaces/console/controls/key%3A0/press')).status).toBe(200)
    await until('selected on the stream', () => stream.text().includes('event: selected'))
    expect(stream.text()).toContain('event: selected\ndata: {"surface":"console","control":"key:0","page":null}\n')

    expect((await send(r, 'DELETE', '/api/find')).status).toBe(200)
    // Disarmed: key:1 sends; key:0's press above never did (the engine sends in order).
    await send(r, 'POST', '/api/surfaces/console/controls/key%3A1/press')
    await until('key:1 sent', () => r.commands.length > 0)
    expect(r.commands.map((c) => c.params)).toEqual([expect.objectContaining({ action: 'cutout' })])
  })

  it('a jog that selects is not also sent', async () => {
    const r = await rig()
    const selected: unknown[] = []
    onTestFinished(r.daemon.watchEvents((e) => e.type === 'selected' && selected.push(e.selected)))
    await send(r, 'POST', '/api/find', {})
    await send(r, 'POST', '/api/surfaces/console/controls/jog/rotate?delta=3')
    await send(r, 'POST', '/api/surfaces/console/controls/jog/rotate?delta=2')
    expect(selected).toEqual([{ surface: 'console', control: 'jog', page: null }])
    await send(r, 'DELETE', '/api/find')
    await send(r, 'POST', '/api/surfaces/console/controls/key%3A1/press')
    await until('key:1 sent', () => r.commands.length > 0)
    expect(r.commands.map((c) => c.command)).toEqual(['schedule'])
  })

  it('refuses an unknown surface (404) and a body that is not JSON (400)', async () => {
    const r = await rig()
    expect((await send(r, 'POST', '/api/find', { surfaces: ['nowhere'] })).status).toBe(404)
    const notJson = await call(r.base, 'POST', '/api/find', { 'content-type': 'application/json' }, '{')
    expect(notJson.status).toBe(400)
  })

  it('through the page protocol: find arms, selected comes back to the page, its socket closing disarms; a viewer is refused', async () => {
    const r = await rig()
    const { port } = new URL(r.base)
    const origin = { origin: `http://127.0.0.1:${port}` }
    type M = { type: string; [k: string]: unknown }
    const viewer = await openJsonSocket<M>(`ws://127.0.0.1:${port}/ws?view=1`, origin)
    onTestFinished(() => viewer.ws.terminate())
    viewer.ws.send(JSON.stringify({ type: 'find' }))
    // The viewer's find armed nothing: key:1 still sends.
    await send(r, 'POST', '/api/surfaces/console/controls/key%3A1/press')
    await until('key:1 sent', () => r.commands.length === 1)
    expect(viewer.messages.some((m) => m.type === 'find-state')).toBe(false)
    const page = await openJsonSocket<M>(`ws://127.0.0.1:${port}/ws`, origin)
    onTestFinished(() => page.ws.terminate())
    page.ws.send(JSON.stringify({ type: 'find', surfaces: ['console'] }))
    await until('armed', () => page.messages.some((m) => m.type === 'find-state' && m.armed === true))
    await send(r, 'POST', '/api/surfaces/console/controls/key%3A0/press')
    await until('selected', () => page.messages.some((m) => m.type === 'selected'))
    expect(page.messages.find((m) => m.type === 'selected')).toEqual({
      type: 'selected',
      surface: 'console',
      control: 'key:0',
      page: null,
    })
    page.ws.close()
    await until('disarmed', () => viewer.messages.some((m) => m.type === 'find-state' && m.armed === false))
    await send(r, 'POST', '/api/surfaces/console/controls/key%3A0/press')
    await until('key:0 sent', () => r.commands.length === 2)
    expect(r.commands.map((c) => c.params)).toEqual([
      expect.objectContaining({ action: 'cutout' }),
      expect.objectContaining({ action: 'cutin' }),
    ])
    // Armed through the remote API, every page is told too (the viewer shows it, and cannot end it).
    await send(r, 'POST', '/api/find', {})
    await until('told', () => viewer.messages.some((m) => m.type === 'find-state' && m.surfaces === 'all'))
    await send(r, 'DELETE', '/api/find')
  })
})
