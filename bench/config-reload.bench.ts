/**
 * `npm run bench config-reload` (issue 24, item 3, the reload's part): a daemon in this process (the
 * simulator, a web surface, no hardware) reloads a valid 4,092-binding file (about 460 KB), RUNS times.
 * Reported per row: the event loop's longest stall and its 99th percentile over the row
 * (`perf_hooks.monitorEventLoopDelay`, 1 ms resolution), the wall time, and the resident memory at its
 * peak (sampled every 10 ms, worker threads included: they live in this process) and after.
 *
 * Rows, all in the same run:
 * - baseline: the daemon idle for as long as one reload took (the machine's own noise);
 * - before: the loader on the daemon's loop (`loadConfigFile`, as reloads ran before this change);
 * - reload: `Daemon.reload()` of the file (read without blocking, parsed and checked in a worker thread,
 *   the bindings rebuilt a slice a turn, then applied), alternating with a small file so each is a change.
 *
 * Targets: a reload's longest stall under TARGET_STALL_MS, resident memory under TARGET_RSS_MB.
 * What is left on the loop is the daemon's own apply: the engine compiling 4,092 bindings
 * (`Engine.apply`), the link's filter resync for the titles they follow, the garbage of the old mapping.
 * Run from the sources (tsx): the worker registers tsx's loader first, so its start is slower than from
 * dist/, and the resident memory carries tsx's own; the loop figures are what the change is about.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { Daemon } from '../src/daemon/daemon.js'
import { setLogSink } from '../src/log.js'
import { loadConfigFile } from '../src/mappings/load.js'
import { median } from './stats.js'

const RUNS = process.env.BENCH_QUICK === '1' ? 2 : 5
export const TARGET_STALL_MS = 50
export const TARGET_RSS_MB = 120
const BINDINGS = 4092

/** A valid file of `count` bindings: one 8×8 web surface over 64 pages. */
export function bigConfig(count = BINDINGS): string {
  const pages = Array.from({ length: 64 }, (_, i) => `p${i}`)
  const lines = [
    'version: 1',
    'app: { url: http://127.0.0.1:0, simulate: true }',
    'listen: { host: 127.0.0.1, port: 0 }',
    'surfaces:',
    '  desk: { driver: web, rows: 8, columns: 8 }',
    'pages:',
    `  desk: [${pages.join(', ')}]`,
    'bindings:',
  ]
  for (let n = 0; n < count; n++) {
    const page = pages[Math.floor(n / 64)]!
    lines.push(`  - on: desk/key:${n % 64}`, `    page: ${page}`, `    label: "T${n}"`)
    lines.push(`    press: { command: schedule, params: { action: cutin, title: "Title ${n}" } }`)
  }
  return `${lines.join('\n')}\n`
}

const SMALL = bigConfig(1)

interface Row {
  name: string
  wallMs: number[]
  maxMs: number[]
  p99Ms: number[]
  peakMb: number[]
  afterMb: number[]
}

const rssMb = (): number => process.memoryUsage().rss / 2 ** 20

/** Runs `work` under the loop monitor and a 10 ms resident-memory sampler. */
async function measure(row: Row, work: () => Promise<unknown>): Promise<void> {
  ;(globalThis as { gc?: () => void }).gc?.()
  const h = monitorEventLoopDelay({ resolution: 1 })
  let peak = rssMb()
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 10)
  h.enable()
  const t0 = performance.now()
  await work()
  row.wallMs.push(performance.now() - t0)
  // A stall is recorded when the monitor's timer fires late: let it fire once after the work.
  await new Promise((resolve) => setTimeout(resolve, 20))
  h.disable()
  clearInterval(sampler)
  row.maxMs.push(h.max / 1e6)
  row.p99Ms.push(h.percentile(99) / 1e6)
  row.peakMb.push(Math.max(peak, rssMb()))
  row.afterMb.push(rssMb())
}

const newRow = (name: string): Row => ({ name, wallMs: [], maxMs: [], p99Ms: [], peakMb: [], afterMb: [] })

function print(rows: Row[]): void {
  const f = (v: number[]): string => `${median(v).toFixed(0)} (max ${Math.max(...v).toFixed(0)})`
  console.log('row | wall ms | loop stall max ms | loop p99 ms | RSS peak MB | RSS after MB  (median (max) of runs)')
  for (const r of rows)
    console.log(`${r.name} | ${f(r.wallMs)} | ${f(r.maxMs)} | ${f(r.p99Ms)} | ${f(r.peakMb)} | ${f(r.afterMb)}`)
}

export default async function bench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-bench-reload-'))
  const file = join(dir, 'config.yaml')
  const big = bigConfig()
  console.log(`${BINDINGS} bindings, ${(Buffer.byteLength(big) / 1024).toFixed(0)} KB; ${RUNS} runs`)
  await writeFile(file, SMALL)
  const restore = setLogSink(() => undefined)
  // A reload here takes seconds on a busy machine (the worker boots tsx); the time-out must not cut it.
  const daemon = await Daemon.start({ config: file, drivers: [], watch: false, reloadTimeoutMs: 120_000 })
  const [baseline, before, reload] = [
    newRow('baseline (idle)'),
    newRow('before (loader on the loop)'),
    newRow('reload'),
  ]
  try {
    for (let i = 0; i < RUNS; i++) {
      await writeFile(file, big)
      await measure(reload, async () => {
        if (!(await daemon.reload())) throw new Error('the reload was refused')
      })
      await writeFile(file, SMALL)
      if (!(await daemon.reload())) throw new Error('the reload was refused')
      const idleMs = reload.wallMs.at(-1)!
      await measure(baseline, () => new Promise((resolve) => setTimeout(resolve, idleMs)))
      await writeFile(file, big)
      await measure(before, () => loadConfigFile(file))
    }
  } finally {
    await daemon.stop()
    setLogSink(restore)
    await rm(dir, { recursive: true, force: true })
  }
  print([baseline, before, reload])
  const stall = median(reload.maxMs)
  const peak = Math.max(...reload.peakMb)
  console.log(
    `verdict: reload loop stall (median of max) ${stall.toFixed(0)} ms (target < ${TARGET_STALL_MS}): ` +
      `${stall < TARGET_STALL_MS ? 'PASS' : 'FAIL'}; RSS peak ${peak.toFixed(0)} MB (target < ${TARGET_RSS_MB}): ` +
      `${peak < TARGET_RSS_MB ? 'PASS' : 'FAIL'}`,
  )
}
