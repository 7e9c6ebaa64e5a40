/**
 * The editor's save looks the names it adds up in the live application (issue 42, build item 3), on real
 * HTTP over loopback against a daemon with the built-in simulator: a title the simulator lacks is 422 at
 * its field with the nearest name it has, the file byte-identical; one it has is saved; a name the file
 * already used before the edit is not asked about; and with the application not answering, the loader's
 * check alone decides.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import { hashBytes } from '../../src/mappings/edit/save.js'
import { captureLogs } from '../helpers/logs.js'
import { until } from '../helpers/until.js'
import { call, type Reply } from './helpers.js'

const SIMULATED = 'app: { url: http://127.0.0.1:0, simulate: true }'

const FILE_TEXT = (app: string, otherTitle = 'Lower Third') => `version: 1
${app}
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  console: { driver: web, rows: 1, columns: 4 }
bindings:
  - on: console/key:0
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
  - on: console/key:1
    press: { command: schedule, params: { action: cutout, title: "${otherTitle}" } }
`

/** A loopback port nothing listens on (one just closed). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const address = server.address()
  await new Promise<void>((done) => server.close(() => done()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

async function rig(text: string): Promise<{ daemon: Daemon; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-edit-live-'))
  const state = await mkdtemp(join(tmpdir(), 'pb-edit-live-state-'))
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true })
    await rm(state, { recursive: true, force: true })
  })
  const file = join(dir, 'desk.yaml')
  await writeFile(file, text)
  captureLogs()
  const daemon = await Daemon.start({ config: file, drivers: [], watch: false, editHistory: join(state, 'edits') })
  onTestFinished(() => daemon.stop())
  return { daemon, file }
}

const BINDING = '/api/surfaces/console/controls/key%3A0/binding'

function put(daemon: Daemon, hash: string, title: string): Promise<Reply> {
  const binding = { press: { command: 'schedule', params: { action: 'cutin', title } } }
  return call(daemon.url, 'PUT', BINDING, { 'content-type': 'application/json' }, JSON.stringify({ hash, binding }))
}

// Each save waits for a whole reload: slow on a busy machine.
describe("the editor's save and the live application's names", { timeout: 60_000 }, () => {
  it('refuses a title the application lacks at its field, with the nearest it has; saves one it has', async () => {
    const r = await rig(FILE_TEXT(SIMULATED))
    await until('the application link', () => r.daemon.status().app.state === 'connected')
    const before = await readFile(r.file)

    const refused = await put(r.daemon, hashBytes(before), 'Lower Thrid')
    expect(refused.status).toBe(422)
    expect(refused.json).toEqual({
      error: {
        code: 'CONFIG_REFUSED',
        message: expect.any(String),
        problems: [
          {
            path: 'bindings.0.press.params.title',
            message: "the application has no title 'Lower Thrid' (did you mean 'Lower Third'?)",
          },
        ],
      },
    })
    expect(await readFile(r.file)).toEqual(before)

    const saved = await put(r.daemon, hashBytes(before), 'Score Bug')
    expect(saved.status).toBe(200)
    expect(await readFile(r.file, 'utf8')).toContain('title: "Score Bug"')
  })

  it('does not refuse a name the file already used before the edit', async () => {
    // key:1 names a title the simulator lacks; an edit of key:0 that keeps it (and one that adds it) differ.
    const r = await rig(FILE_TEXT(SIMULATED, 'Gone Title'))
    await until('the application link', () => r.daemon.status().app.state === 'connected')
    const before = await readFile(r.file)
    const saved = await put(r.daemon, hashBytes(before), 'Gone Title')
    expect(saved.status).toBe(200)
    const after = await readFile(r.file)
    expect(after.toString('utf8').match(/title: "Gone Title"/g)).toHaveLength(2)
    const added = await put(r.daemon, hashBytes(after), 'Another Gone Title')
    expect(added.status).toBe(422)
    expect(await readFile(r.file)).toEqual(after)
  })

  it('saves on the loader’s check alone when the application does not answer', async () => {
    const r = await rig(FILE_TEXT(`app: { url: http://127.0.0.1:${await closedPort()} }`))
    const before = await readFile(r.file)
    const saved = await put(r.daemon, hashBytes(before), 'Lower Thrid')
    expect(saved.status).toBe(200)
    expect(await readFile(r.file, 'utf8')).toContain('Lower Thrid')
  })
})
