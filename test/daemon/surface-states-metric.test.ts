/**
 * `panelbridge_surfaces{state}` (issue 25, item 4): every surface the daemon knows, by state, each state
 * exported from the start, so the permission-denied and failed alerts of ops/prometheus need no
 * absent-series rule and a surface that stays failed keeps its alert firing.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import { PrometheusMetrics, SURFACE_STATES } from '../../src/daemon/metrics.js'
import { setLogSink } from '../../src/log.js'
import { simulatedConfig } from '../helpers/config.js'
import { testConfigFile } from '../helpers/files.js'
import { call } from './helpers.js'
import { SAFETY_MS } from '../helpers/until.js'

/** `state → value` of every panelbridge_surfaces sample. */
function byState(text: string): Record<string, number> {
  const out: Record<string, number> = {}
  for (const m of text.matchAll(/^panelbridge_surfaces\{state="([^"]+)"\} (\S+)$/gm)) out[m[1]!] = Number(m[2])
  return out
}

describe('panelbridge_surfaces{state}', () => {
  it('exports every state at 0 before any surface is known', async () => {
    const m = new PrometheusMetrics({ processMetrics: false })
    expect(byState(await m.text())).toEqual(Object.fromEntries(SURFACE_STATES.map((s) => [s, 0])))
  })

  it('counts the surfaces by state, sets every state on each call, and ignores a state it does not know', async () => {
    const m = new PrometheusMetrics({ processMetrics: false })
    m.setSurfaceStates(['open', 'permission-denied', 'open', 'failed', 'exploded'])
    expect(byState(await m.text())).toEqual({ open: 2, closed: 0, failed: 1, 'permission-denied': 1, waiting: 0 })
    m.setSurfaceStates(['open'])
    expect(byState(await m.text())).toEqual({ open: 1, closed: 0, failed: 0, 'permission-denied': 0, waiting: 0 })
  })

  it('says on a live daemon’s /metrics that its web surface is open', async () => {
    const file = await testConfigFile('surface-states', simulatedConfig('[]'))
    const prev = setLogSink(() => undefined)
    const daemon = await Daemon.start({ config: file, drivers: [], watch: false, reloadTimeoutMs: SAFETY_MS })
    onTestFinished(async () => {
      await daemon.stop()
      setLogSink(prev)
    })
    await expect
      .poll(async () => byState((await call(daemon.url, 'GET', '/metrics')).text))
      .toMatchObject({ open: 1, failed: 0, 'permission-denied': 0 })
  })
})
