/**
 * The daemon in-process: start from a config file (the simulator on port 0), reload on a file change
 * and on request, keep the last good mapping when a file is refused, stop idempotently.
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { Daemon, DaemonConfigError, defaultConfigPath, BUNDLED_CONFIG } from '../../src/daemon/daemon.js'
import { SYSTEM_CONFIG } from '../../src/defaults.js'
import { simulatedConfig } from '../helpers/config.js'
import { captureLogs } from '../helpers/logs.js'
import { SAFETY_MS } from '../helpers/until.js'

const WAIT = { timeout: SAFETY_MS, interval: 10 }

const BASE = simulatedConfig(
  `  - on: console/key:0
    label: "{{name}}"
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
    feedback: { title: "Lower Third" }
`,
  4,
)

async function start(text = BASE) {
  const dir = await mkdtemp(join(tmpdir(), 'pb-daemon-'))
  const file = join(dir, 'config.yaml')
  await writeFile(file, text)
  // Finished in reverse: the daemon stops, then the sink comes back, then the folder goes.
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  const logs = captureLogs()
  const daemon = await Daemon.start({ config: file, drivers: [], reloadTimeoutMs: SAFETY_MS })
  onTestFinished(() => daemon.stop())
  return { daemon, file, dir, logs }
}

/** Replaces the file the way editors do: write a new file, rename it over the old one. */
async function save(file: string, text: string): Promise<void> {
  await writeFile(`${file}.tmp`, text)
  await rename(`${file}.tmp`, file)
}

describe('the daemon', () => {
  it('starts the simulator, the link and the web surface from the config; status says SIMULATED', async () => {
    const { daemon } = await start()
    await expect.poll(() => daemon.status().app.state, WAIT).toBe('connected')
    const s = daemon.status()
    expect(s).toMatchObject({ simulated: true, commands: { sent: 0, failed: 0 } })
    expect(s.surfaces).toEqual([{ name: 'console', driver: 'web', state: 'open', model: 'Web surface' }])
    await expect
      .poll(() => daemon.controlState('console', 'key:0'), WAIT)
      .toMatchObject({ label: 'Lower Third', color: '#202020' })
    expect(daemon.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
  })

  it('injects a press that reaches the application, and refuses what a control does not take', async () => {
    const { daemon } = await start()
    await expect.poll(() => daemon.status().app.state, WAIT).toBe('connected')
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    await expect.poll(() => daemon.status().commands.sent, WAIT).toBe(1)
    await expect.poll(() => daemon.controlState('console', 'key:0'), WAIT).toMatchObject({ color: '#d08000' })
    expect(daemon.inject('console', 'key:0', 'rotate', 1)).toMatchObject({ status: 409, code: 'EVENT_NOT_TAKEN' })
    expect(daemon.inject('console', 'key:9', 'press')).toMatchObject({ status: 404, code: 'UNKNOWN_CONTROL' })
    expect(daemon.inject('desk', 'key:0', 'press')).toMatchObject({ status: 404, code: 'UNKNOWN_SURFACE' })
  })

  it('reloads on a saved file: a broken one keeps the old bindings (logged once with every error), a good one adds a binding', async () => {
    const { daemon, file, logs } = await start()
    await expect.poll(() => daemon.controlState('console', 'key:0'), WAIT).toMatchObject({ label: 'Lower Third' })
    await save(file, BASE.replace('columns: 4', 'columns: 4, bogus: 1').replace('action: cutin', 'action: fly'))
    await expect.poll(() => logs.filter((l) => l.message.startsWith('config refused')).length, WAIT).toBe(1)
    const refused = logs.find((l) => l.message.startsWith('config refused'))!.message
    expect(refused).toContain('config.yaml:5:48: surfaces.console: unknown key bogus')
    expect(refused, refused).toMatch(
      /config\.yaml:9:51: bindings\[0\]\.press: schedule: parameter action must be one of /,
    )
    expect(daemon.controlState('console', 'key:0')).toMatchObject({ label: 'Lower Third' })
    await save(file, BASE + `  - on: console/key:1\n    label: "Added"\n`)
    await expect.poll(() => daemon.controlState('console', 'key:1'), WAIT).toMatchObject({ label: 'Added' })
    expect(daemon.controlState('console', 'key:0')).toMatchObject({ label: 'Lower Third' })
    expect(daemon.recentErrors()[0]!.message).toMatch(/^config refused: /)
  })

  it('a reload changes listen and surfaces without dropping what did not change', async () => {
    const { daemon, file } = await start()
    const url = daemon.url
    await save(
      file,
      BASE.replace(
        '  console: { driver: web, rows: 1, columns: 4 }',
        '  console: { driver: web, rows: 1, columns: 4 }\n  extra: { driver: web, rows: 1, columns: 1 }',
      ),
    )
    await expect
      .poll(
        () =>
          daemon
            .status()
            .surfaces.map((s) => s.name)
            .sort(),
        WAIT,
      )
      .toEqual(['console', 'extra'])
    expect(daemon.url).toBe(url)
    expect(await daemon.reload()).toBe(true)
  })

  it('refuses to start on a config with errors, with every error located', async () => {
    const err = await start(BASE.replace('rows: 1', 'rows: 99')).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(DaemonConfigError)
    expect((err as DaemonConfigError).errors).toEqual([
      expect.stringMatching(/config\.yaml:5:\d+: surfaces\.console\.rows: /),
    ])
  })

  it('stop is idempotent', async () => {
    const { daemon } = await start()
    await Promise.all([daemon.stop(), daemon.stop()])
    await daemon.stop()
    expect(await daemon.reload()).toBe(false)
  })

  it('uses the system config when it exists, else the bundled default', () => {
    expect(defaultConfigPath(() => true)).toEqual({ path: SYSTEM_CONFIG, why: 'the system config' })
    expect(defaultConfigPath(() => false).path).toBe(BUNDLED_CONFIG)
  })
})
