/**
 * `app.simulate: {profile: NAME}` (issue 20): the loader takes `true`/`false` as before and a shipped
 * profile's name, refuses an unknown name at its line and column with the known names, and the daemon
 * starts its simulator in that profile.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { Daemon } from '../../../src/daemon/daemon.js'
import type { LogRecord } from '../../../src/log.js'
import { captureLogs } from '../../helpers/logs.js'
import { loadConfigText } from '../../../src/mappings/load.js'
import { appProfileNames } from '../../../src/mappings/schema.js'
import { profileNames } from '../../../src/app-kit/simulator/profile.js'
import { SAFETY_MS } from '../../helpers/until.js'

const config = (simulate: string): string => `version: 1
app:
  url: http://127.0.0.1:0
  simulate: ${simulate}
listen: { host: 127.0.0.1, port: 0 }
`

describe('app.simulate in the mapping file', () => {
  it('knows the profiles the simulator ships (the same folder, read without the simulator)', () => {
    expect(appProfileNames()).toEqual([...profileNames()].sort())
    expect(appProfileNames()).toContain('strict-unknowns')
  })

  it.each([
    ['true', true],
    ['false', false],
    ['{ profile: strict-unknowns }', { profile: 'strict-unknowns' }],
    ['\n    profile: titler-live-2021', { profile: 'titler-live-2021' }],
  ])('takes %s', async (text, expected) => {
    const { config: loaded, problems } = await loadConfigText(config(text), 'c.yaml')
    expect(problems).toEqual([])
    expect(loaded?.app.simulate).toEqual(expected)
  })

  it('refuses an unknown profile at its line and column, naming the known ones', async () => {
    const { config: loaded, problems } = await loadConfigText(config('\n    profile: titler-live-1999'), 'c.yaml')
    expect(loaded).toBeUndefined()
    expect(problems).toEqual([
      {
        file: 'c.yaml',
        line: 5,
        col: 14,
        severity: 'error',
        message: `app.simulate.profile: no application profile named titler-live-1999 (known: ${appProfileNames().join(', ')})`,
      },
    ])
  })

  it.each([
    // The loader words a wrong type inside a union as missing (load.ts reads the value at the union's
    // inner path from the file's root); the key is named all the same.
    ['{ profile: 1 }', 'app.simulate: profile'],
    ['{ profile: captivate, colour: red }', 'app.simulate: unknown key colour'],
    ['{}', 'app.simulate: profile is required'],
    ['yes please', 'app.simulate'],
  ])('refuses %s', async (text, message) => {
    const { config: loaded, problems } = await loadConfigText(config(text), 'c.yaml')
    expect(loaded).toBeUndefined()
    expect(problems.map((p) => p.message).join('\n')).toContain(message)
  })
})

describe('the daemon with app.simulate: {profile}', () => {
  async function start(simulate: string): Promise<{ daemon: Daemon; logs: LogRecord[] }> {
    const dir = await mkdtemp(join(tmpdir(), 'pb-sim-profile-'))
    const file = join(dir, 'config.yaml')
    await writeFile(file, config(simulate))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const logs = captureLogs()
    const daemon = await Daemon.start({ config: file, drivers: [], reloadTimeoutMs: SAFETY_MS })
    onTestFinished(() => daemon.stop())
    return { daemon, logs }
  }
  const simulated = (logs: LogRecord[]): Record<string, unknown> | undefined =>
    logs.find((l) => l.message.startsWith('SIMULATED'))?.fields

  it('starts the simulator in the named profile', async () => {
    const { daemon, logs } = await start('{ profile: strict-unknowns }')
    expect(daemon.status().simulated).toBe(true)
    const fields = simulated(logs)!
    expect(fields.profile).toBe('strict-unknowns')
    // strict-unknowns answers every value as text: the simulator the daemon started really plays it.
    const body = (await (await fetch(`${String(fields.url)}/api/command/getOutputDevice`)).json()) as {
      result: { success: unknown }
    }
    expect(body.result.success).toBe('true')
  })

  it('true plays the default profile', async () => {
    const { logs } = await start('true')
    expect(simulated(logs)?.profile).toBe('captivate')
  })
})
