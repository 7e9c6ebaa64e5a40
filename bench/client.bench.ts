/**
 * `npm run bench client`: the command client (undici keep-alive Pool) against a baseline that opens a
 * new connection per command (`http.get` with `agent: false`), both against the simulator, in the same run.
 * The simulator runs as its own process (`panelbridge sim`), as the real application does, so its request
 * handling and garbage collection do not land in the client's event loop and blur both modes' tails.
 * `npm run bench client -- --in-process` runs it in-process instead, for comparison.
 *
 * - Throughput: commands run back to back (one in flight, as a panel sends them), commands per second
 *   and per-call p50/p99 latency.
 * - Paced: commands started every 5 ms (200 commands/s) whatever the replies do; p99 latency.
 * - Also printed: the machine's load average, because on a shared two-core box it explains outliers.
 *
 * Each figure is the median over several rounds; client and baseline alternate in short batches
 * within a round, so that both meet the same noise on a shared machine.
 * Targets (issue 2): throughput ≥ 2× the baseline's; p99 at 200/s ≤ half the baseline's.
 */
import { get } from 'node:http'
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { CommandClient } from '../src/api/client.js'
import { startSimulator } from '../src/app-kit/simulator/index.js'
import { startSimulatorProcess } from './sim-process.js'
import { median, percentile } from './stats.js'

const ROUNDS = 7
const WARMUP = 1000
/** Back-to-back commands per round and mode, run in interleaved batches (see `burstRound`). */
const BURST = 1000
const BATCH = 100
const PACED_RATE = 200
/** Paced windows per round and mode, interleaved, and their length. */
const PACED_WINDOWS = 4
const PACED_WINDOW_SECONDS = 0.5
const COMMAND = 'replay_get_play_info'

type Mode = 'client' | 'baseline'
type Send = () => Promise<void>

interface Burst {
  perSecond: number
  p50: number
  p99: number
}

/**
 * Runs BURST back-to-back commands per mode, in batches of BATCH that alternate between the modes.
 * Why: the machine is shared; interleaving short batches puts both modes under the same noise, where
 * two long runs one after the other would each catch a different neighbour's load. Commands per second
 * is the median of the batches' rates, so that one batch stalled by a neighbour does not decide it.
 */
async function burstRound(modes: Record<Mode, Send>, first: Mode): Promise<Record<Mode, Burst>> {
  const order: Mode[] = first === 'client' ? ['client', 'baseline'] : ['baseline', 'client']
  const latencies: Record<Mode, number[]> = { client: [], baseline: [] }
  const rates: Record<Mode, number[]> = { client: [], baseline: [] }
  for (let done = 0; done < BURST; done += BATCH) {
    for (const mode of order) {
      const send = modes[mode]
      const start = performance.now()
      for (let i = 0; i < BATCH; i++) {
        const t = performance.now()
        await send()
        latencies[mode].push(performance.now() - t)
      }
      rates[mode].push((BATCH * 1000) / (performance.now() - start))
    }
  }
  const result = (mode: Mode): Burst => {
    const l = latencies[mode]
    return { perSecond: median(rates[mode]), p50: percentile(l, 50), p99: percentile(l, 99) }
  }
  return { client: result('client'), baseline: result('baseline') }
}

/** Starts one command every 1000/rate ms for `seconds` (open loop, not waiting for replies). */
async function pacedWindow(send: Send, rate: number, seconds: number, into: number[]): Promise<void> {
  const n = Math.round(rate * seconds)
  const interval = 1000 / rate
  const pending: Promise<void>[] = []
  const start = performance.now()
  for (let i = 0; i < n; i++) {
    const wait = start + i * interval - performance.now()
    if (wait > 1) await sleep(wait)
    const t = performance.now()
    pending.push(send().then(() => void into.push(performance.now() - t)))
  }
  await Promise.all(pending)
}

interface Paced {
  p50: number
  p90: number
  p99: number
}

/** Latency percentiles per mode at a paced rate, over interleaved windows. */
async function pacedRound(modes: Record<Mode, Send>, first: Mode): Promise<Record<Mode, Paced>> {
  const order: Mode[] = first === 'client' ? ['client', 'baseline'] : ['baseline', 'client']
  const latencies: Record<Mode, number[]> = { client: [], baseline: [] }
  for (let w = 0; w < PACED_WINDOWS; w++) {
    for (const mode of order) await pacedWindow(modes[mode], PACED_RATE, PACED_WINDOW_SECONDS, latencies[mode])
  }
  const result = (mode: Mode): Paced => {
    const l = latencies[mode]
    return { p50: percentile(l, 50), p90: percentile(l, 90), p99: percentile(l, 99) }
  }
  return { client: result('client'), baseline: result('baseline') }
}

function baselineSender(httpUrl: string): Send {
  const { hostname, port } = new URL(httpUrl)
  let seq = 0
  return () =>
    new Promise<void>((resolve, reject) => {
      const req = get(
        { host: hostname, port, path: `/api/command/${COMMAND}?requestId=base-${++seq}`, agent: false },
        (res) => {
          let body = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => (body += chunk))
          res.on('end', () => {
            try {
              const json = JSON.parse(body) as { result?: unknown }
              if (res.statusCode !== 200 || json.result === undefined) reject(new Error(`bad reply ${body}`))
              else resolve()
            } catch (err) {
              reject(err instanceof Error ? err : new Error(String(err)))
            }
          })
          res.on('error', reject)
        },
      )
      req.on('error', reject)
    })
}

function fmt(n: number, digits = 2): string {
  return n.toFixed(digits)
}
/** Table cells: commands/s, then latencies in ms. */
function cells(row: number[]): string {
  return [fmt(row[0]!, 0).padStart(10), ...row.slice(1).map((v) => fmt(v, 3).padStart(6))].join(' | ')
}

export default async function (): Promise<void> {
  const started = performance.now()
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
  const inProcess = process.argv.includes('--in-process')
  const sim = inProcess ? await startSimulator({ httpPort: 0, host: '127.0.0.1' }) : await startSimulatorProcess()
  console.log(`simulator: ${inProcess ? 'in-process' : 'separate process'} at ${sim.httpUrl}`)
  const client = new CommandClient({ baseUrl: sim.httpUrl })
  try {
    const modes: Record<Mode, Send> = {
      client: async () => {
        await client.call(COMMAND)
      },
      baseline: baselineSender(sim.httpUrl),
    }
    for (const send of Object.values(modes)) for (let i = 0; i < WARMUP; i++) await send()

    const bursts: Record<Mode, Burst[]> = { client: [], baseline: [] }
    const pacedRuns: Record<Mode, Paced[]> = { client: [], baseline: [] }
    for (let round = 0; round < ROUNDS; round++) {
      const first: Mode = round % 2 === 0 ? 'client' : 'baseline'
      const b = await burstRound(modes, first)
      const p = await pacedRound(modes, first)
      for (const mode of ['client', 'baseline'] as const) {
        bursts[mode].push(b[mode])
        pacedRuns[mode].push(p[mode])
      }
    }

    const row = (mode: Mode): number[] => [
      median(bursts[mode].map((b) => b.perSecond)),
      median(bursts[mode].map((b) => b.p50)),
      median(bursts[mode].map((b) => b.p99)),
      median(pacedRuns[mode].map((p) => p.p50)),
      median(pacedRuns[mode].map((p) => p.p90)),
      median(pacedRuns[mode].map((p) => p.p99)),
    ]
    const c = row('client')
    const b = row('baseline')
    const lines = [
      `command ${COMMAND} against the simulator; medians of ${ROUNDS} rounds`,
      `(${BURST} back-to-back commands per round and mode in interleaved batches of ${BATCH}, commands/s = median batch rate;`,
      ` paced: ${PACED_RATE}/s in ${PACED_WINDOWS} interleaved windows of ${PACED_WINDOW_SECONDS} s per round and mode)`,
      '',
      '|                                  | back to back                  | paced at 200/s           |',
      '| mode                             | commands/s | p50 ms | p99 ms | p50 ms | p90 ms | p99 ms |',
      '| -------------------------------- | ---------: | -----: | -----: | -----: | -----: | -----: |',
      `| client (undici keep-alive Pool)  | ${cells(c)} |`,
      `| baseline (http.get, agent:false) | ${cells(b)} |`,
      '',
      `throughput client/baseline: ${fmt(c[0]! / b[0]!)}× (target ≥ 2×)`,
      `p99 @200/s client/baseline: ${fmt(c[5]! / b[5]!)} (target ≤ 0.5); p90: ${fmt(c[4]! / b[4]!)}; p50: ${fmt(c[3]! / b[3]!)}`,
      `total bench time: ${fmt((performance.now() - started) / 1000, 1)} s; load average at start ${load}`,
    ]
    process.stdout.write(lines.join('\n') + '\n')
  } finally {
    await client.close()
    await sim.close()
  }
}
