/**
 * A reload is all or nothing (issue 24, item 6): everything the new config needs is prepared (the new
 * listener bound, the simulator started, the token file read) before anything is swapped, and a failure
 * leaves every part as it was and says why. A path that is not a regular file is refused without
 * blocking; a reload that cannot finish times out without wedging the next; the watch follows symlinked
 * configs (a Kubernetes ConfigMap's `..data` swap included); the status tells the truth after a reload.
 *
 * Real files, symlinks and a FIFO in a temporary folder; a real daemon on 127.0.0.1 port 0.
 */
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import { ConfigReloader, watchPlan } from '../../src/daemon/reload.js'
import type { Notifier } from '../../src/daemon/sd-notify.js'
import { setLogSink, type LogRecord, createLogger } from '../../src/log.js'
import type { LoadResult } from '../../src/mappings/load.js'
import { SAFETY_MS, until } from '../helpers/until.js'
import { call, freePort, saveAsEditors, takenPort } from './helpers.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  vi.useRealTimers()
  for (const c of cleanups.splice(0).reverse()) await c()
})

function config(o: { listen?: string; app?: string; columns?: number; extra?: string } = {}): string {
  return `version: 1
app: ${o.app ?? '{ url: http://127.0.0.1:0, simulate: true }'}
listen: ${o.listen ?? '{ host: 127.0.0.1, port: 0 }'}
surfaces:
  console: { driver: web, rows: 1, columns: ${o.columns ?? 4} }
bindings:
  - on: console/key:0
    label: "Cut"
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
${o.extra ?? ''}`
}

const ADDED = `  - on: console/key:1\n    label: "Added"\n`

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-reload-'))
  cleanups.push(() => rm(dir, { recursive: true, force: true }))
  return dir
}

async function start(text: string, o: { file?: string; watch?: boolean } = {}) {
  const file = o.file ?? join(await folder(), 'config.yaml')
  if (!o.file) await writeFile(file, text)
  const logs: LogRecord[] = []
  const prev = setLogSink((r) => logs.push(r))
  // A reload's own bound (RELOAD_TIMEOUT_MS) is not what these tests are about: a reload's worker starts
  // under tsx here, which a busy machine can hold past it. The test's safety net is its bound instead.
  const daemon = await Daemon.start({ config: file, drivers: [], watch: o.watch ?? false, reloadTimeoutMs: SAFETY_MS })
  cleanups.push(async () => {
    await daemon.stop()
    setLogSink(prev)
  })
  await until('the link up', () => daemon.status().app.state === 'connected')
  return { daemon, file, logs }
}

function labelOf(daemon: Daemon, control: string): string | undefined {
  const state = daemon.controlState('console', control)
  return 'label' in state ? state.label : undefined
}

function configError(daemon: Daemon): string | undefined {
  return daemon.recentErrors().find((e) => e.message.startsWith('reload failed') || e.message.startsWith('config'))
    ?.message
}

describe('a reload that fails changes nothing', () => {
  it('a port in use: refused, and the old listener keeps serving', async () => {
    const { daemon, file } = await start(config())
    const url = daemon.url
    const port = await takenPort()
    await writeFile(file, config({ listen: `{ host: 127.0.0.1, port: ${port} }`, extra: ADDED }))
    expect(await daemon.reload()).toBe(false)
    expect(daemon.url).toBe(url)
    expect((await call(url, 'GET', '/api/status')).status).toBe(200)
    expect(configError(daemon)).toMatch(/in use/)
    expect(daemon.status().configState).toMatchObject({ state: 'refused' })
    expect(daemon.controlState('console', 'key:1')).not.toHaveProperty('label')
  })

  it('0.0.0.0 without a token: refused, the old listener keeps serving, the new mapping does not run', async () => {
    const { daemon, file } = await start(config())
    const url = daemon.url
    await writeFile(file, config({ listen: '{ host: 0.0.0.0, port: 0 }', extra: ADDED }))
    expect(await daemon.reload()).toBe(false)
    expect((await call(url, 'GET', '/api/status')).status).toBe(200)
    expect(configError(daemon)).toMatch(/needs a token/)
    expect(daemon.controlState('console', 'key:1')).not.toHaveProperty('label')
  })

  it('a missing token file: refused, and the new mapping does not run', async () => {
    const { daemon, file } = await start(config())
    const missing = join(await folder(), 'no-such-token')
    await writeFile(file, config({ listen: `{ host: 127.0.0.1, port: 0, token_file: ${missing} }`, extra: ADDED }))
    expect(await daemon.reload()).toBe(false)
    expect(daemon.controlState('console', 'key:1')).not.toHaveProperty('label')
    expect(configError(daemon)).toMatch(/token_file .*cannot read it \(ENOENT\)/)
  })

  it('a named pipe as the token file: refused without waiting on it, and a good file afterwards loads', async () => {
    const { daemon, file } = await start(config())
    const pipe = join(await folder(), 'token-pipe')
    execFileSync('mkfifo', [pipe])
    await writeFile(file, config({ listen: `{ host: 127.0.0.1, port: 0, token_file: ${pipe} }`, extra: ADDED }))
    expect(await daemon.reload()).toBe(false)
    expect(configError(daemon)).toMatch(/token_file .*it is a named pipe, not a regular file/)
    expect(daemon.controlState('console', 'key:1')).not.toHaveProperty('label')
    await writeFile(file, config({ extra: ADDED }))
    expect(await daemon.reload()).toBe(true)
    expect(daemon.controlState('console', 'key:1')).toMatchObject({ label: 'Added' })
  })

  it('a simulator on a port in use: refused, and the link keeps working', async () => {
    const { daemon, file } = await start(config())
    const port = await takenPort()
    await writeFile(file, config({ app: `{ url: http://127.0.0.1:${port}, simulate: true }`, extra: ADDED }))
    expect(await daemon.reload()).toBe(false)
    // In words that say what is in the way and what to change (as at a start).
    expect(configError(daemon)).toContain(
      `the built-in simulator (app.simulate) cannot listen on 127.0.0.1:${port}: the port is in use ` +
        '(is the application running here?)',
    )
    expect(daemon.status().app.state).toBe('connected')
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    await until('the press sent', () => daemon.status().commands.sent === 1)
    expect(daemon.status().commands.failed).toBe(0)
    expect(daemon.controlState('console', 'key:1')).not.toHaveProperty('label')
  })
})

describe('a reload that succeeds', () => {
  it('swaps a listener on its own port (allowed hosts changed) and keeps serving there', async () => {
    const port = await freePort()
    const { daemon, file } = await start(config({ listen: `{ host: 127.0.0.1, port: ${port} }` }))
    const url = daemon.url
    await writeFile(file, config({ listen: `{ host: 127.0.0.1, port: ${port}, allowed_hosts: [gfx.lan] }` }))
    expect(await daemon.reload()).toBe(true)
    expect(daemon.url).toBe(url)
    const reply = await call(url, 'GET', '/api/status', { Host: `gfx.lan:${port}` })
    expect(reply.status).toBe(200)
  })

  it('a simulator profile change on its own port: the new simulator runs there', async () => {
    const port = await freePort()
    const { daemon, file } = await start(config({ app: `{ url: http://127.0.0.1:${port}, simulate: true }` }))
    await writeFile(
      file,
      config({ app: `{ url: http://127.0.0.1:${port}, simulate: { profile: titler-live-2021 } }`, extra: ADDED }),
    )
    expect(await daemon.reload()).toBe(true)
    expect(daemon.appUrl).toBe(`http://127.0.0.1:${port}`)
    await until('the link up again', () => daemon.status().app.state === 'connected')
    expect(daemon.controlState('console', 'key:1')).toMatchObject({ label: 'Added' })
  })

  it('a web surface whose grid changed is open, not waiting, and takes presses', async () => {
    const { daemon, file } = await start(config())
    await writeFile(file, config({ columns: 6 }))
    expect(await daemon.reload()).toBe(true)
    expect(daemon.status().surfaces).toEqual([expect.objectContaining({ name: 'console', state: 'open' })])
    const reply = await call(daemon.url, 'GET', '/api/status')
    expect(reply.json).toMatchObject({ surfaces: [{ name: 'console', state: 'open' }] })
    expect(daemon.inject('console', 'key:5', 'press')).toBeUndefined()
  })
})

describe('what is at the config path', () => {
  it('a named pipe is refused without blocking, and a good file afterwards loads', async () => {
    const { daemon, file } = await start(config())
    await rm(file)
    execFileSync('mkfifo', [file])
    expect(await daemon.reload()).toBe(false)
    expect(configError(daemon)).toMatch(/a named pipe, not a regular file/)
    await rm(file)
    await writeFile(file, config({ extra: ADDED }))
    expect(await daemon.reload()).toBe(true)
    expect(daemon.controlState('console', 'key:1')).toMatchObject({ label: 'Added' })
  })

  it('a folder is refused', async () => {
    const { daemon, file } = await start(config())
    await rm(file)
    await mkdir(file)
    expect(await daemon.reload()).toBe(false)
    expect(configError(daemon)).toMatch(/a folder, not a regular file/)
  })
})

describe('a reload that cannot finish', () => {
  it('times out, is reported, and the next reload runs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const dir = await folder()
    const file = join(dir, 'config.yaml')
    const errors: string[] = []
    let calls = 0
    const good: LoadResult = { problems: [] }
    const reloader = new ConfigReloader({
      file,
      // The first load never answers (a worker that hangs); the second refuses, which is an answer.
      load: () => (++calls === 1 ? new Promise<LoadResult>(() => undefined) : Promise.resolve(good)),
      apply: () => Promise.resolve(),
      notifier: { reloading: () => undefined, ready: () => undefined } as unknown as Notifier,
      statusLine: () => 'ok',
      recordError: (message) => errors.push(message),
      timeoutMs: 10_000,
      log: createLogger('test'),
    })
    const first = reloader.reload()
    await vi.advanceTimersByTimeAsync(10_000)
    expect(await first).toBe(false)
    expect(errors).toEqual(['reload failed: it did not finish within 10000 ms'])
    expect(await reloader.reload()).toBe(false)
    expect(calls).toBe(2)
    expect(errors[1]).toBe('config refused: unreadable')
    reloader.close()
  })
})

describe('the watch follows symlinked configs', () => {
  it('a link to a file in another folder: an edit of the target is noticed', async () => {
    const [links, real] = [await folder(), await folder()]
    const target = join(real, 'panelbridge.yaml')
    await writeFile(target, config())
    const file = join(links, 'config.yaml')
    await symlink(target, file)
    const { daemon } = await start('', { file, watch: true })
    await saveAsEditors(target, config({ extra: ADDED }))
    await until('the edit applied', () => labelOf(daemon, 'key:1') === 'Added')
  })

  it('a Kubernetes ConfigMap update (..data swapped to a new folder) is noticed', async () => {
    const dir = await folder()
    await mkdir(join(dir, '..2026_11_26_01'))
    await writeFile(join(dir, '..2026_11_26_01', 'config.yaml'), config())
    await symlink('..2026_11_26_01', join(dir, '..data'))
    await symlink('..data/config.yaml', join(dir, 'config.yaml'))
    const file = join(dir, 'config.yaml')
    expect([...(await watchPlan(file)).keys()]).toContain(dir)
    const { daemon } = await start('', { file, watch: true })
    // What the kubelet does: a new timestamped folder, a new link beside, renamed over `..data`.
    await mkdir(join(dir, '..2026_11_26_02'))
    await writeFile(join(dir, '..2026_11_26_02', 'config.yaml'), config({ extra: ADDED }))
    await symlink('..2026_11_26_02', join(dir, '..data_tmp'))
    await rename(join(dir, '..data_tmp'), join(dir, '..data'))
    await rm(join(dir, '..2026_11_26_01'), { recursive: true })
    await until('the update applied', () => labelOf(daemon, 'key:1') === 'Added')
    // And the next update too: the watch moved to the new folder.
    await mkdir(join(dir, '..2026_11_26_03'))
    await writeFile(join(dir, '..2026_11_26_03', 'config.yaml'), config({ extra: ADDED.replace('Added', 'Again') }))
    await symlink('..2026_11_26_03', join(dir, '..data_tmp'))
    await rename(join(dir, '..data_tmp'), join(dir, '..data'))
    await until('the second update', () => labelOf(daemon, 'key:1') === 'Again')
  })
})
