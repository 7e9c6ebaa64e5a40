/**
 * `npm run bench config-reload` (issue 24, item 3, the reload's part): a daemon in this process (the
 * simulator, a web surface, no hardware) reloads a valid file of 2,000 bindings, the most a file may
 * have, in about 257 KB (just under the 256 KiB bound), RUNS times.
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
 * Then the daemon in a process of its own (`bench/own-daemon.ts`: `Daemon.start` as `panelbridge run`
 * makes it, from the sources under tsx, or from a build, `BENCH_DIST=dist` (or `BENCH_RELOAD_DIST`),
 * with the V8 flags of the built CLI's launcher), reloaded by SIGHUP alternately with the big file and
 * the small one:
 * - own process idle: the same wait with nothing reloading (the baseline);
 * - own process reload: the big file's reload.
 * Its figures: the longest answer to `GET /api/status` asked every 10 ms (what a client sees of the
 * loop; a request's own cost is in the baseline), its 99th percentile, and its resident memory (VmRSS
 * sampled every 10 ms, worker threads included, peak and after); and on a line of its own, the
 * daemon's own loop stall (its `monitorEventLoopDelay`, max and p99) against the idle runs'.
 *
 * Targets: a reload's longest stall under TARGET_STALL_MS, resident memory under TARGET_RSS_MB.
 * The engine's part of a reload (building 2,000 bindings' runtime, retiring the old ones, redrawing)
 * runs in slices of at most COMPILE_SLICE_MS a turn (`src/mappings/compile-slices.ts`); what is left
 * are the garbage collector's pauses and the machine's own load (the baseline rows).
 * In this process the resident memory carries tsx's own, in both threads (the worker registers tsx's
 * loader first); the own-process rows are the daemon's.
 */
import { writeFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { Daemon } from '../src/daemon/daemon.js'
import { setLogSink } from '../src/log.js'
import { loadConfigFile } from '../src/mappings/load.js'
import {
  rssOf,
  startOwnDaemon,
  underProbe,
  type LoopFigures,
  type OwnDaemon,
  RSS_TARGET_MB as TARGET_RSS_MB,
  STALL_TARGET_MS as TARGET_STALL_MS,
} from './own-daemon.js'
import { median } from './stats.js'

const RUNS = process.env.BENCH_QUICK === '1' ? 2 : 5
const BINDINGS = 2000

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
    lines.push(`    press: { command: schedule, params: { action: cutin, title: "T${n}" } }`)
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
  const own = await ownProcess(big)
  print([baseline, before, reload, ...own.rows])
  const stall = median(reload.maxMs)
  const peak = Math.max(...reload.peakMb)
  // This process carries tsx in both threads (the worker registers its loader): its memory is not judged;
  // the daemon's own process below is.
  console.log(
    `verdict: reload loop stall (median of max) ${stall.toFixed(0)} ms (target < ${TARGET_STALL_MS}): ` +
      `${stall < TARGET_STALL_MS ? 'PASS' : 'FAIL'}; RSS peak ${peak.toFixed(0)} MB (tsx in both threads: ` +
      `the target is the own process's, below)`,
  )
  const [ownIdle, ownReload] = own.rows
  console.log(
    `own process: reload's longest status answer (median) ${median(ownReload.maxMs).toFixed(0)} ms against ` +
      `${median(ownIdle.maxMs).toFixed(0)} ms idle; RSS peak ${Math.max(...ownReload.peakMb).toFixed(0)} MB ` +
      `(target < ${TARGET_RSS_MB}): ${Math.max(...ownReload.peakMb) < TARGET_RSS_MB ? 'PASS' : 'FAIL'}`,
  )
  const loopOf = (runs: LoopFigures[]): [number, number] => [
    median(runs.map((r) => r.stallMaxMs)),
    median(runs.map((r) => r.stallP99Ms)),
  ]
  const [idleMax, idleP99] = loopOf(own.loops[0])
  const [reloadMax, reloadP99] = loopOf(own.loops[1])
  // Each run's own figure beside the status answers' (a slow answer with a quiet loop is the client's).
  const perRun = own.loops[1].map((r, i) => `${r.stallMaxMs.toFixed(0)}/${ownReload.maxMs[i]!.toFixed(0)}`)
  console.log(
    `own process: the daemon's own loop during the reload (median of runs) max ${reloadMax.toFixed(0)} ms, ` +
      `p99 ${reloadP99.toFixed(0)} ms against ${idleMax.toFixed(0)} / ${idleP99.toFixed(0)} ms idle ` +
      `(target < ${TARGET_STALL_MS}): ${reloadMax < TARGET_STALL_MS ? 'PASS' : 'FAIL'}; ` +
      `each run, loop max / longest status answer: ${perRun.join(', ')} ms`,
  )
}

/**
 * Polls `GET /api/status` every 10 ms while `work` runs, under the daemon's own loop monitor and a
 * 10 ms sampler of its RSS (`bench/own-daemon.ts`).
 */
async function watchProcess(
  row: Row,
  loops: LoopFigures[],
  own: OwnDaemon,
  work: () => Promise<unknown>,
): Promise<void> {
  const answers: number[] = []
  let running = true
  const poll = async (): Promise<void> => {
    while (running) {
      const t = performance.now()
      // A kept-alive connection the server closed as idle resets; the next request opens a new one.
      const ok = await fetch(`${own.base}api/status`).then(
        (r) => r.arrayBuffer().then(() => true),
        () => false,
      )
      if (ok) answers.push(performance.now() - t)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  let wallMs = 0
  const [, loop] = await underProbe(own.probe(), async () => {
    const polling = poll()
    const t0 = performance.now()
    try {
      await work()
    } finally {
      running = false
      await polling
    }
    wallMs = performance.now() - t0
  })
  row.wallMs.push(wallMs)
  answers.sort((a, b) => a - b)
  row.maxMs.push(answers.at(-1) ?? 0)
  row.p99Ms.push(answers[Math.min(answers.length - 1, Math.floor(answers.length * 0.99))] ?? 0)
  row.peakMb.push(loop.rssPeakMb)
  row.afterMb.push(rssOf(own.pid))
  loops.push(loop)
}

interface OwnRows {
  rows: [Row, Row]
  /** The daemon's own loop (its `monitorEventLoopDelay`) in each run: idle, reload. */
  loops: [LoopFigures[], LoopFigures[]]
}

/** The daemon in its own process, reloaded by SIGHUP (see the head of this file). */
async function ownProcess(big: string): Promise<OwnRows> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-bench-reload-own-'))
  const file = join(dir, 'config.yaml')
  await writeFile(file, SMALL)
  const own = await startOwnDaemon(file, dir)
  const result: OwnRows = { rows: [newRow('own process idle'), newRow('own process reload')], loops: [[], []] }
  const [idle, reload] = result.rows
  try {
    const sighup = async (text: string): Promise<void> => {
      writeFileSync(file, text)
      await own.reload()
    }
    for (let i = 0; i < RUNS; i++) {
      await watchProcess(reload, result.loops[1], own, () => sighup(big))
      await sighup(SMALL)
      const idleMs = reload.wallMs.at(-1)!
      await watchProcess(idle, result.loops[0], own, () => new Promise((resolve) => setTimeout(resolve, idleMs)))
    }
  } finally {
    await own.stop()
    await rm(dir, { recursive: true, force: true })
  }
  return result
}
