/**
 * `npx tsx bench/index.ts record`: what recording (`run --record`, issue 28) costs the daemon under the
 * jog storm of `mappings.bench.ts` (JOG_RATE_PER_S deltas of +1 frame a second for JOG_SECONDS, the
 * simulator delaying every scrub reply by SCRUB_DELAY_MS, in replay mode with a buffer that never clamps).
 *
 * The daemon runs in this process (`Daemon.start`: the input door, the engine, the sender, the remote
 * API's server, and with recording the recorder writing its file), with and without `record`, the two
 * alternating run by run (which goes first swaps each run) so that load on the machine hits both alike.
 * The storm goes through the remote API's door (`daemon.inject`, what `POST .../rotate` calls, without
 * the HTTP parsing, which recording does not touch). The simulator runs in this process too (its hooks
 * time the requests), so the CPU figures include its share; it is the same in both modes.
 *
 * Reported, each the median of RUNS runs per mode:
 * - CPU: `process.cpuUsage()` (user + system, every thread, the file writes of the thread pool
 *   included) from the first delta until the final position is held, ms, and as a share of one core.
 * - Jog lag as `mappings.bench.ts` measures it: from the last delta to the simulator holding the final
 *   position (its answer to the scrub request that sets it), ms.
 * Targets (issue 28): recording adds < 10 % CPU; it changes the median jog lag by less than the run's
 * noise, taken as the spread (max - min) of the lag over the runs without recording.
 *
 * `BENCH_RUNS=N` (default 5), `BENCH_JOG_SECONDS=N` (default 5), `BENCH_QUICK=1` (1 run of 2 s).
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { CommandClient } from '../src/api/client.js'
import { Daemon } from '../src/daemon/daemon.js'
import { setLogLevel } from '../src/log.js'
import { startSimulator, type SimulatorHandle } from '../src/app-kit/simulator/index.js'
import type { CommandTransport } from '../src/app-kit/simulator/hooks.js'
import { JOG_RATE_PER_S } from './mappings.bench.js'
import { median } from './stats.js'

const QUICK = process.env.BENCH_QUICK === '1'
const RUNS = Number(process.env.BENCH_RUNS) || (QUICK ? 1 : 5)
const JOG_SECONDS = Number(process.env.BENCH_JOG_SECONDS) || (QUICK ? 2 : 5)
const SCRUB_DELAY_MS = 20
const BUFFER_SECONDS = 3600
const SEED_SECONDS = 100
/** How long the final position may take to arrive before the run counts as a miss. */
const WAIT_CAP_MS = 10_000
const SCRUB = 'replay_set_scrub_position'

const out = (line: string): void => void process.stdout.write(line + '\n')

function config(sim: SimulatorHandle): string {
  return `version: 1
app: { url: ${sim.httpUrl}, notifications: ${sim.wsUrl} }
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  console: { driver: web, rows: 1, columns: 4, jog: true }
bindings:
  - on: console/jog
    jog: { scrub: { step_frames: 1 } }
`
}

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = performance.now() + timeoutMs
  while (!cond()) {
    if (performance.now() > end) return false
    await sleep(1)
  }
  return true
}

interface RunResult {
  cpuMs: number
  wallMs: number
  lagMs: number | undefined
  correct: boolean
  /** With recording: the trace's size, and lines it dropped. */
  fileBytes?: number
}

/** Times the simulator's answers to scrub requests (its `around` wraps every HTTP command). */
function onScrubAnswered(sim: SimulatorHandle, listener: () => void): void {
  const hooks = sim.http
  const original = hooks.around.bind(hooks)
  hooks.around = <T>(name: string, params: Record<string, unknown>, transport: CommandTransport, answer: () => T) =>
    original(name, params, transport, () => {
      const result = answer()
      if (name === SCRUB) listener()
      return result
    })
}

/** One storm through a fresh daemon, recording to `traceFile` or not. */
async function storm(
  sim: SimulatorHandle,
  client: CommandClient,
  fps: number,
  configFile: string,
  traceFile: string | undefined,
  scrubs: { onAnswered: (() => void) | undefined },
): Promise<RunResult> {
  const daemon = await Daemon.start({
    config: configFile,
    drivers: [],
    watch: false,
    ...(traceFile !== undefined ? { record: { file: traceFile } } : {}),
  })
  try {
    if (!(await waitFor(() => daemon.status().app.state === 'connected', 5000))) throw new Error('link not connected')
    // From a rest (the engine seeds again after ENGINE_TUNABLES.jogReseedAfterMs), at the seed position.
    await client.call(SCRUB, { position: SEED_SECONDS })
    await sleep(1200)
    const total = Math.round(JOG_RATE_PER_S * JOG_SECONDS)
    const expected = (Math.round(SEED_SECONDS * fps) + total) / fps
    const isFinal = (): boolean => Math.abs(sim.state.replay.scrubPosition - expected) < 1e-6
    let lastDeltaAt = Number.POSITIVE_INFINITY
    let reachedAt: number | undefined
    scrubs.onAnswered = () => {
      if (isFinal()) reachedAt ??= performance.now()
      else reachedAt = undefined
    }
    sim.http.setDelay(SCRUB, SCRUB_DELAY_MS)
    const cpu0 = process.cpuUsage()
    const start = performance.now()
    let sent = 0
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const due = Math.min(Math.floor(((performance.now() - start) * JOG_RATE_PER_S) / 1000), total)
        while (sent < due) {
          daemon.inject('console', 'jog', 'rotate', 1)
          sent++
        }
        if (sent >= total) {
          lastDeltaAt = performance.now()
          clearInterval(timer)
          resolve()
        }
      }, 1)
    })
    const reached = await waitFor(() => reachedAt !== undefined && sim.http.inFlight(SCRUB) === 0, WAIT_CAP_MS)
    const end = performance.now()
    const cpu = process.cpuUsage(cpu0)
    scrubs.onAnswered = undefined
    sim.http.setDelay(SCRUB, 0)
    return {
      cpuMs: (cpu.user + cpu.system) / 1000,
      wallMs: end - start,
      lagMs: reached && reachedAt !== undefined ? reachedAt - lastDeltaAt : undefined,
      correct: isFinal(),
    }
  } finally {
    await daemon.stop()
  }
}

const f = (n: number | undefined, digits = 1): string => (n === undefined ? 'miss' : n.toFixed(digits))

export default async function main(): Promise<void> {
  setLogLevel('warn')
  const dir = await mkdtemp(join(tmpdir(), 'pb-bench-record-'))
  const sim = await startSimulator()
  const scrubs: { onAnswered: (() => void) | undefined } = { onAnswered: undefined }
  onScrubAnswered(sim, () => scrubs.onAnswered?.())
  const client = new CommandClient({ baseUrl: sim.httpUrl, timeoutMs: 4000 })
  try {
    await client.call('replay_arm_inputs', { inputs: ['Camera 1'] })
    await client.call('replay_enable')
    await client.call('replay_set_settings', { settings: { bufferLength: BUFFER_SECONDS } })
    await client.call('replay_enable_scrubbing', { enable: true })
    const fps = (await client.call('replay_get_play_info')).frameRate
    const configFile = join(dir, 'bench.yaml')
    await writeFile(configFile, config(sim))

    const off: RunResult[] = []
    const on: RunResult[] = []
    for (let i = 0; i < RUNS; i++) {
      const trace = join(dir, `run${i}.jsonl`)
      const recorded = async (): Promise<void> => {
        const r = await storm(sim, client, fps, configFile, trace, scrubs)
        on.push({ ...r, fileBytes: (await stat(trace)).size })
      }
      const plain = async (): Promise<void> =>
        void off.push(await storm(sim, client, fps, configFile, undefined, scrubs))
      // Which goes first swaps each run: a drift of the machine's load hits both alike.
      if (i % 2 === 0) {
        await plain()
        await recorded()
      } else {
        await recorded()
        await plain()
      }
      sim.http.reset()
    }
    report(off, on)
  } finally {
    await client.close()
    await sim.close()
    await rm(dir, { recursive: true, force: true })
  }
}

function report(off: RunResult[], on: RunResult[]): void {
  const total = Math.round(JOG_RATE_PER_S * JOG_SECONDS)
  const cpu = (rs: RunResult[]): number => median(rs.map((r) => r.cpuMs))
  const share = (rs: RunResult[]): number => median(rs.map((r) => r.cpuMs / r.wallMs)) * 100
  const lag = (rs: RunResult[]): number | undefined => {
    const m = median(rs.map((r) => r.lagMs ?? Number.POSITIVE_INFINITY))
    return Number.isFinite(m) ? m : undefined
  }
  const lagsOff = off.map((r) => r.lagMs).filter((l): l is number => l !== undefined)
  const noise = lagsOff.length > 0 ? Math.max(...lagsOff) - Math.min(...lagsOff) : Number.NaN
  const cpuAdded = ((cpu(on) - cpu(off)) / cpu(off)) * 100
  const lagOff = lag(off)
  const lagOn = lag(on)
  const lagChange = lagOff !== undefined && lagOn !== undefined ? lagOn - lagOff : Number.NaN
  const correct = (rs: RunResult[]): string => `${rs.filter((r) => r.correct).length}/${rs.length}`
  out(
    `jog storm through the daemon: ${total} deltas of +1 frame (${JOG_RATE_PER_S}/s for ${JOG_SECONDS} s) by the remote API's door,`,
  )
  out(`scrub replies delayed ${SCRUB_DELAY_MS} ms; median of ${RUNS} runs per mode, the modes alternating`)
  out('| mode                     | CPU (ms) | CPU (% of a core) | jog lag (ms) | final position | trace (MB) |')
  out('| ------------------------ | -------: | ----------------: | -----------: | -------------: | ---------: |')
  out(
    `| baseline: not recording  | ${f(cpu(off)).padStart(8)} | ${f(share(off)).padStart(17)} | ${f(lagOff).padStart(12)} | ${correct(off).padStart(14)} | ${'-'.padStart(10)} |`,
  )
  const mb = median(on.map((r) => r.fileBytes ?? 0)) / 1024 / 1024
  out(
    `| run --record             | ${f(cpu(on)).padStart(8)} | ${f(share(on)).padStart(17)} | ${f(lagOn).padStart(12)} | ${correct(on).padStart(14)} | ${f(mb, 2).padStart(10)} |`,
  )
  const pass = (ok: boolean): string => (ok ? 'PASS' : 'FAIL')
  out(
    `recording adds ${f(cpuAdded)} % CPU (target < 10 %): ${pass(cpuAdded < 10)}; ` +
      `jog lag changes by ${f(lagChange)} ms, the runs' noise (baseline lag max - min) ${f(noise)} ms: ${pass(Math.abs(lagChange) < noise)}`,
  )
  out('per run (CPU ms / lag ms), baseline | recording:')
  for (let i = 0; i < off.length; i++) {
    out(`  run ${i + 1}: ${f(off[i]!.cpuMs, 0)} / ${f(off[i]!.lagMs)} | ${f(on[i]?.cpuMs, 0)} / ${f(on[i]?.lagMs)}`)
  }
}
