/**
 * `npm run bench socket-flood` (issue 24, item 3 and "Must show"): the daemon's event loop and memory
 * while one page socket sends FLOOD_FRAMES rotate frames at once, beside a baseline of the same run (the
 * same page turning its wheel as a browser does, a frame every 16 ms). The page and a status probe run in
 * a child process, so the loop measured is the daemon's alone. Each case runs against the daemon twice:
 * - in process: the daemon in this process (the built-in simulator with it, as `app.simulate` runs it);
 * - own process: the daemon in a process of its own (`bench/own-daemon.ts`: from the build with the
 *   launcher's V8 flags when `BENCH_DIST=dist`, else from the sources under tsx), as an operator runs it,
 *   its loop measured by itself, its memory as VmRSS every 10 ms.
 *
 * For each case: the daemon's loop stall (`perf_hooks.monitorEventLoopDelay`, max and p99), resident
 * memory (start and peak), the time a fresh `GET /api/status` takes meanwhile (probes every 50 ms from
 * the child: median and max), and the turns the engine was handed (events, their total, and for the
 * flood how long after the first it had the whole total). Target: stall under STALL_TARGET_MS and
 * memory under RSS_TARGET_MB. Before this change (issue 24): the loop held for as long as the flood.
 *
 * The memory verdict is the own process's (built): this process runs the TypeScript through tsx (its
 * loader and compiled sources are resident too) and holds the bench besides the daemon, so its resident
 * memory starts above what the built daemon alone uses; the in-process rows keep their memory figures
 * (read the peak against the start) and are judged on the stall only. On a loaded machine the
 * baselines' stall shows what the machine itself adds.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Daemon } from '../src/daemon/daemon.js'
import { setLogSink } from '../src/log.js'
import {
  clientCase,
  inProcessProbe,
  inRounds,
  memoryJudged,
  ownKind,
  ROUNDS,
  startOwnDaemon,
  RSS_TARGET_MB,
  STALL_TARGET_MS,
  verdict,
  type CaseFigures,
  type DaemonProbe,
} from './own-daemon.js'

export const FLOOD_FRAMES = 100_000
const CASE_SECONDS = Number(process.env.SOCKET_FLOOD_SECONDS ?? 4)

const CONFIG = `version: 1
app: { url: http://127.0.0.1:0, simulate: true }
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  pad: { driver: web, rows: 2, columns: 4, encoders: 1 }
bindings:
  - on: pad/encoder:0
    rotate: { command: replay_set_in_point, params: { position: "{{delta}}" }, acceleration: false }
`

/**
 * The page and the probe, as a script for `node -e`: argv mode (`flood` or `browser`), port, seconds.
 * The page socket is a raw connection (the upgrade by hand, frames masked with a zero key). Prints one
 * JSON line with the status probes' times (ms; -1 for a failed one).
 */
const CLIENT = String.raw`
const net = require('node:net')
const [mode, port, seconds] = process.argv.slice(1)
const until = Date.now() + Number(seconds) * 1000
const payload = Buffer.from(JSON.stringify({ type: 'rotate', surface: 'pad', control: 'encoder:0', delta: 1 }))
const frame = Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload])
const probes = []
const page = net.connect(Number(port), '127.0.0.1', () => page.write(
  'GET /ws HTTP/1.1\r\nHost: 127.0.0.1:' + port + '\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n'))
page.on('error', () => {})
let open = false
page.on('data', () => {
  if (open) return
  open = true
  if (mode === 'flood') page.write(Buffer.concat(Array.from({ length: ${FLOOD_FRAMES} }, () => frame)))
  else { const t = setInterval(() => (Date.now() < until ? page.write(frame) : clearInterval(t)), 16) }
  setTimeout(probe, 5)
})
function probe() {
  if (Date.now() >= until) return finish()
  const started = performance.now()
  const p = net.connect(Number(port), '127.0.0.1', () => p.write('GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'))
  let ok = false
  p.on('data', (d) => { ok ||= d.toString('latin1').startsWith('HTTP/1.1 200') })
  p.on('error', () => {})
  p.on('close', () => { probes.push(ok ? performance.now() - started : -1); setTimeout(probe, 50) })
}
function finish() {
  page.destroy()
  console.log(JSON.stringify({ probes }))
  process.exit(0)
}
`

interface Figures extends CaseFigures {
  /** The engine had the whole flood this long after the first turn reached it, ms (the flood only). */
  handledMs?: number
}

/** One case (the page in `mode`) against the daemon `probe` measures. */
async function runCase(probe: DaemonProbe, mode: 'flood' | 'browser'): Promise<Figures> {
  const f = await clientCase<{ probes: number[] }>(probe, CLIENT, mode, CASE_SECONDS)
  const whole = mode === 'flood' && f.turns.total === FLOOD_FRAMES
  return { ...f, ...(whole ? { handledMs: f.turns.spanMs } : {}) }
}

/** Both cases against one daemon, ROUNDS rounds, rows named after `where`. */
async function cases(where: string, probe: DaemonProbe): Promise<[string, Figures][]> {
  const rows = await inRounds(['browser', 'flood'] as const, (mode) => runCase(probe, mode))
  return [
    [`${where}: baseline, a browser turning the wheel (a frame every 16 ms)`, rows.get('browser')!],
    [`${where}: ${FLOOD_FRAMES.toLocaleString('en')} rotate frames at once on one page socket`, rows.get('flood')!],
  ]
}

function print(rows: [string, Figures][]): void {
  const w = Math.max(...rows.map(([n]) => n.length))
  console.log(
    `${CASE_SECONDS} s a case, ${ROUNDS} rounds (the median of each figure; RSS peak: the highest; failed probes: all); target: stall < ${STALL_TARGET_MS} ms, RSS < ${RSS_TARGET_MB} MB (own process)`,
  )
  console.log(
    `${'case'.padEnd(w)} | stall max | stall p99 | RSS start/peak MB | status median/max ms | turns: events, total, whole after | verdict`,
  )
  for (const [name, f] of rows) {
    const memory = name.startsWith('own') && memoryJudged() ? f.rssPeakMb < RSS_TARGET_MB : true
    const pass = f.stallMaxMs < STALL_TARGET_MS && memory && f.failedProbes === 0
    const whole = f.handledMs === undefined ? '' : `, ${f.handledMs.toFixed(0)} ms`
    console.log(
      `${name.padEnd(w)} | ${f.stallMaxMs.toFixed(1).padStart(9)} | ${f.stallP99Ms.toFixed(1).padStart(9)} | ` +
        `${`${f.rssStartMb.toFixed(0)} / ${f.rssPeakMb.toFixed(0)}`.padStart(17)} | ${`${f.probeMedianMs.toFixed(1)} / ${f.probeMaxMs.toFixed(1)}`.padStart(20)} | ` +
        `${`${f.turns.events}, ${f.turns.total}${whole}`.padEnd(33)} | ${pass ? 'ok' : 'OVER'}${f.failedProbes > 0 ? ` (${f.failedProbes} probes failed)` : ''}`,
    )
  }
  console.log(
    `verdict (own process, ${ownKind()}; stall < ${STALL_TARGET_MS} ms, RSS < ${RSS_TARGET_MB} MB): ${verdict('flood', rows.at(-1)![1])}`,
  )
}

export default async function run(): Promise<void> {
  const previous = setLogSink(() => undefined)
  const dir = await mkdtemp(join(tmpdir(), 'pb-bench-flood-'))
  const file = join(dir, 'config.yaml')
  await writeFile(file, CONFIG)
  const rows: [string, Figures][] = []
  try {
    const daemon = await Daemon.start({ config: file, drivers: [], watch: false })
    try {
      rows.push(...(await cases('in process', inProcessProbe(Number(new URL(daemon.url).port), daemon))))
    } finally {
      await daemon.stop()
    }
    const own = await startOwnDaemon(file, dir)
    try {
      rows.push(...(await cases('own process', own.probe())))
    } finally {
      await own.stop()
    }
    print(rows)
  } finally {
    setLogSink(previous)
    await rm(dir, { recursive: true, force: true })
  }
}
