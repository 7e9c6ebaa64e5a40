/**
 * A title's thumbnail in the daemon with two applications (issues 26.3 and 27): the daemon hands its
 * applications to the pictures, so a thumbnail key following `graphics2` asks graphics2 (its command
 * log gets the `getTitleControlInfo` with `icon`) and never the default application, also after a reload.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import type { SimulatorHandle } from '../../src/app-kit/simulator/index.js'
import { captureLogs } from '../helpers/logs.js'
import { until, SAFETY_MS } from '../helpers/until.js'
import { appsHead, configFile, ownSimulator } from './apps-rig.js'
import { saveAsEditors } from './helpers.js'

const TITLE = 'Lower Third'

const iconCalls = (s: SimulatorHandle): number =>
  s.http.commands('getTitleControlInfo').filter((c) => c.parameters.icon === '1').length

const config = (
  a: SimulatorHandle,
  b: SimulatorHandle,
  feedbackApp: string,
) => `${appsHead({ main: a, graphics2: b })}surfaces:
  console: { driver: web, rows: 1, columns: 2 }
bindings:
  - on: console/key:1
    feedback: { app: ${feedbackApp}, title: "${TITLE}", thumbnail: true }
`

describe('a thumbnail key following another application, in the daemon', () => {
  it('asks graphics2, not main; after a reload that follows main, main is asked', async () => {
    const [a, b] = [await ownSimulator(), await ownSimulator()]
    const file = await configFile('pb-thumb-apps-', config(a, b, 'graphics2'))
    captureLogs()
    const daemon = await Daemon.start({ config: file, drivers: [], watch: false, reloadTimeoutMs: SAFETY_MS })
    onTestFinished(() => daemon.stop())

    await until('graphics2 asked for its icons', () => iconCalls(b) > 0)
    expect(iconCalls(a)).toBe(0)
    expect(daemon.controlState('console', 'key:1')).not.toHaveProperty('detail')

    await saveAsEditors(file, config(a, b, 'main'))
    expect(await daemon.reload()).toBe(true)
    await until('main asked for its icons', () => iconCalls(a) > 0)
  })
})
