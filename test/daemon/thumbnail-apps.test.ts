/**
 * A title's thumbnail in the daemon with two applications (issues 26.3 and 27): the daemon hands its
 * applications to the pictures, so a thumbnail key following `graphics2` asks graphics2 (its command
 * log gets the `getTitleControlInfo` with `icon`) and never the default application, also after a reload.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js'
import { captureLogs } from '../helpers/logs.js'
import { until } from '../helpers/until.js'
import { saveAsEditors } from './helpers.js'

const TITLE = 'Lower Third'

async function sim(): Promise<SimulatorHandle> {
  const s = await startSimulator()
  onTestFinished(() => s.close())
  return s
}

const iconCalls = (s: SimulatorHandle): number =>
  s.http.commands('getTitleControlInfo').filter((c) => c.parameters.icon === '1').length

const config = (a: SimulatorHandle, b: SimulatorHandle, feedbackApp: string) => `version: 1
apps:
  main: { url: "${a.httpUrl}", notifications: "${a.wsUrl}" }
  graphics2: { url: "${b.httpUrl}", notifications: "${b.wsUrl}" }
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  console: { driver: web, rows: 1, columns: 2 }
bindings:
  - on: console/key:1
    feedback: { app: ${feedbackApp}, title: "${TITLE}", thumbnail: true }
`

describe('a thumbnail key following another application, in the daemon', () => {
  it('asks graphics2, not main; after a reload that follows main, main is asked', { timeout: 60_000 }, async () => {
    const [a, b] = [await sim(), await sim()]
    const dir = await mkdtemp(join(tmpdir(), 'pb-thumb-apps-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const file = join(dir, 'config.yaml')
    await writeFile(file, config(a, b, 'graphics2'))
    captureLogs()
    const daemon = await Daemon.start({ config: file, drivers: [], watch: false })
    onTestFinished(() => daemon.stop())

    await until('graphics2 asked for its icons', () => iconCalls(b) > 0)
    expect(iconCalls(a)).toBe(0)
    expect(daemon.controlState('console', 'key:1')).not.toHaveProperty('detail')

    await saveAsEditors(file, config(a, b, 'main'))
    expect(await daemon.reload()).toBe(true)
    await until('main asked for its icons', () => iconCalls(a) > 0)
  })
})
