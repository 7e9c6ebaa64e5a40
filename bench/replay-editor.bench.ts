/**
 * Replay Editor jog bench: a DaVinci Resolve Replay Editor's wheel spun hard, through the real driver and
 * `@blackmagic-controller/core` over an in-memory device (test/surfaces/helpers/fake-bmd.ts), the real
 * engine (latest-wins jog scrub), command client and the simulator over loopback HTTP with every scrub
 * reply delayed. The row is the lag from the last jog report to the simulator holding the exact
 * integrated position.
 *
 * Baseline, measured in the same run: the naive bridge, one `replay_set_scrub_position` per jog report
 * (each report integrated the same way, every request sent at once, not awaited), as an action list per
 * jog tick does. Each run starts from the same scrub position, after the engine's re-seed rest.
 */
import { setMaxListeners } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { AppState } from '../src/api/app-state.js'
import { CommandClient } from '../src/api/client.js'
import { startSimulator } from '../src/app-kit/simulator/index.js'
import { JOG_UNITS_PER_STEP } from '../src/families/replay-editor.js'
import { setLogLevel } from '../src/log.js'
import { Engine } from '../src/mappings/engine.js'
import { formatProblem, loadConfigText } from '../src/mappings/load.js'
import type { CommandPort } from '../src/mappings/sender.js'
import { BmdDriver } from '../src/surfaces/replay-editor/driver.js'
import { MemoryBmdTransport } from '../test/surfaces/helpers/fake-bmd.js'
import { median } from './stats.js'

const QUICK = process.env.BENCH_QUICK === '1'
const RUNS = Number(process.env.BENCH_RUNS) || (QUICK ? 1 : 3)
/** The storm: jog reports a second, and for how long (as the mappings bench's jog storm). */
const REPORTS_PER_S = 2000
const STORM_SECONDS = Number(process.env.BENCH_JOG_SECONDS) || (QUICK ? 2 : 10)
/** The simulator's delay of every scrub reply. */
const SCRUB_DELAY_MS = 20
const SEED_SECONDS = 100
/** How long each side may take to reach its final position before it is reported as "> cap". */
const WAIT_CAP_MS = QUICK ? 10_000 : 60_000
const SCRUB = 'replay_set_scrub_position'

const CONFIG = `version: 1
surfaces:
  editor: { driver: replay-editor, model: davinci-resolve-replay-editor }
bindings:
  - on: editor/jog
    jog: { scrub: { step_frames: 1 } }
`

/** A hand on the wheel: a varying movement per report, mostly forward, sometimes back (as the tests'). */
const units = (i: number): number => ((i * 37) % 101) - 20

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs
  while (!cond()) {
    if (performance.now() > until) return false
    await sleep(1)
  }
  return true
}

type Mode = 'engine' | 'baseline'
interface Result {
  lagMs: number | undefined
  requests: number
  highWater: number
}

export default async function (): Promise<void> {
  setLogLevel('error')
  const sim = await startSimulator()
  const client = new CommandClient({ baseUrl: sim.httpUrl, timeoutMs: WAIT_CAP_MS + 30_000 })
  const state = new AppState()
  let engineScrubs = 0
  const port: CommandPort = {
    callByName: (name, params, options) => {
      if (name === SCRUB) engineScrubs++
      return client.callByName(name, params, options)
    },
  }
  const engine = new Engine({ client: port, state, surfaces: { setFeedback: () => undefined } })
  const loaded = await loadConfigText(CONFIG, 'bench.yaml')
  if (!loaded.config) throw new Error(loaded.problems.map(formatProblem).join('\n'))
  engine.apply(loaded.config)
  const transport = new MemoryBmdTransport()
  transport.plug('davinci-resolve-replay-editor', '/dev/bench-editor', 'BENCH-RE')
  const driver = new BmdDriver({ transport })
  const surface = await driver.open((await driver.detect())[0]!)
  surface.events.on('input', (e) => engine.handle({ ...e, surface: 'editor' }))
  const hid = transport.lastOpened('/dev/bench-editor')!
  await client.call('replay_arm_inputs', { inputs: ['Camera 1'] })
  await client.call('replay_enable')
  await client.call('replay_set_settings', { settings: { bufferLength: 3600 } })
  await client.call('replay_enable_scrubbing', { enable: true })
  const fps = Number((await client.call('replay_get_play_info')).frameRate)

  async function storm(mode: Mode): Promise<Result> {
    await client.call(SCRUB, { position: SEED_SECONDS })
    await sleep(1200) // the engine's re-seed rest: it reads the position again
    sim.http.reset()
    sim.http.setDelay(SCRUB, SCRUB_DELAY_MS)
    const total = REPORTS_PER_S * STORM_SECONDS
    const seedFrame = Math.round(SEED_SECONDS * fps)
    let sum = 0
    let requests = 0
    const engineBefore = engineScrubs
    const abort = new AbortController()
    setMaxListeners(total + 100, abort.signal)
    const report =
      mode === 'engine'
        ? (u: number) => hid.jog(u)
        : (u: number) => {
            // The naive bridge: the same whole steps, one request per report.
            requests++
            const position = (seedFrame + Math.floor((sum + u) / JOG_UNITS_PER_STEP)) / fps
            client.callByName(SCRUB, { position }, { signal: abort.signal }).catch(() => undefined)
          }
    let sent = 0
    const start = performance.now()
    let lastAt = 0
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const due = Math.min(Math.floor(((performance.now() - start) * REPORTS_PER_S) / 1000), total)
        while (sent < due) {
          const u = units(sent++)
          report(u)
          sum += u
        }
        if (sent >= total) {
          lastAt = performance.now()
          clearInterval(timer)
          resolve()
        }
      }, 1)
    })
    const expected = (seedFrame + Math.floor(sum / JOG_UNITS_PER_STEP)) / fps
    const done = () => Math.abs(sim.state.replay.scrubPosition - expected) < 1e-9 && sim.http.inFlight(SCRUB) === 0
    const reached = await waitFor(done, WAIT_CAP_MS)
    const lagMs = reached ? performance.now() - lastAt : undefined
    const highWater = sim.http.highWater(SCRUB)
    if (mode === 'engine') requests = engineScrubs - engineBefore
    abort.abort()
    await waitFor(() => sim.http.inFlight(SCRUB) === 0, 30_000)
    sim.http.setDelay(SCRUB, 0)
    return { lagMs, requests, highWater }
  }

  const runs: Record<Mode, Result>[] = []
  try {
    for (let i = 0; i < RUNS; i++) {
      const order: Mode[] = i % 2 ? ['baseline', 'engine'] : ['engine', 'baseline']
      const run = {} as Record<Mode, Result>
      for (const mode of order) run[mode] = await storm(mode)
      runs.push(run)
    }
  } finally {
    engine.stop()
    await surface.close()
    await client.close()
    await sim.close()
  }
  const lag = (mode: Mode): string => {
    const lags = runs.map((r) => r[mode].lagMs)
    if (lags.some((l) => l === undefined))
      return `> ${WAIT_CAP_MS} ms (not reached in ${lags.filter((l) => l === undefined).length} of ${lags.length})`
    return `${median(lags as number[]).toFixed(1)} ms`
  }
  const med = (mode: Mode, key: 'requests' | 'highWater'): number => median(runs.map((r) => r[mode][key]))
  const total = REPORTS_PER_S * STORM_SECONDS
  console.log(
    `replay-editor jog: ${total} velocity reports (${REPORTS_PER_S}/s for ${STORM_SECONDS} s) through the library, scrub replies delayed ${SCRUB_DELAY_MS} ms; median of ${RUNS} run(s)`,
  )
  console.log('| path | lag after the last report | scrub requests | most in flight |')
  console.log('| --- | --- | --- | --- |')
  console.log(
    `| baseline: one request per report | ${lag('baseline')} | ${med('baseline', 'requests')} | ${med('baseline', 'highWater')} |`,
  )
  console.log(
    `| replay-editor jog: integrated, latest-wins scrub | ${lag('engine')} | ${med('engine', 'requests')} | ${med('engine', 'highWater')} |`,
  )
}
