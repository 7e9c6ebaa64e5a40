/**
 * `npm run bench server-load` (issue 24, "Must show"): the daemon server's event loop and memory while a
 * peer misbehaves, each case beside a baseline of the same run (the same clients behaving). The clients
 * run in a child process, so the loop measured is the server's alone. Each case runs twice:
 * - in process: the daemon's server alone in this process (a sample API behind it, a web surface);
 * - own process: the whole daemon in a process of its own (`bench/own-daemon.ts`: from the build with the
 *   launcher's V8 flags when `BENCH_DIST=dist`, else from the sources under tsx; the simulator as
 *   `app.simulate` runs it), as an operator runs it, its loop measured by itself, its memory as VmRSS
 *   every 10 ms.
 *
 * For each case: the loop's stall (`perf_hooks.monitorEventLoopDelay`, max and p99), resident memory
 * (start and peak), and the time a fresh `GET /api/status` takes meanwhile (median and max of probes
 * every 100 ms, themselves from the child). Target: stall under STALL_TARGET_MS and memory under
 * RSS_TARGET_MB.
 *
 * Cases:
 * - auth: AUTH_CLIENTS clients, each sending request after request on its own connection for
 *   CASE_SECONDS, with `Authorization: Bearer a<7,900 blanks>b` (baseline: the right token);
 * - font: one connection pipelining FONT_REQUESTS requests for the key font (~700 KB) and never reading,
 *   for CASE_SECONDS (baseline: the same requests read as they come).
 * Both servers are bound beyond loopback (0.0.0.0) so that the token is checked; they are reached on
 * 127.0.0.1 only.
 *
 * The memory verdict is the own process's (built): this process carries tsx's loader, the compiled
 * sources and the test helpers besides the server, so its resident memory starts above what the built
 * daemon alone uses; the in-process rows keep their memory figures (the growth, not the sum, is what a
 * case costs there) and are judged on the stall only.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startDaemonServer } from '../src/daemon/server.js'
import { setLogSink } from '../src/log.js'
import { WebSurfaceServer } from '../src/surfaces/web/server.js'
import { WebSurface } from '../src/surfaces/web/web-surface.js'
import { sampleDaemon } from '../test/daemon/helpers.js'
import { clientCase, inProcessProbe, inRounds, memoryJudged, ownKind, ROUNDS, startOwnDaemon } from './own-daemon.js'
import { RSS_TARGET_MB, STALL_TARGET_MS, verdict, type CaseFigures, type DaemonProbe } from './own-daemon.js'

export const AUTH_CLIENTS = 16
export const FONT_REQUESTS = 600
const CASE_SECONDS = Number(process.env.SERVER_LOAD_SECONDS ?? 4)
const TOKEN = 'correct-horse-battery-staple-42'

/** The own-process daemon: the same surface and token as the in-process server, the simulator behind it. */
const CONFIG = `version: 1
app: { url: http://127.0.0.1:0, simulate: true }
listen: { host: 0.0.0.0, port: 0, token: ${TOKEN} }
surfaces:
  console: { driver: web, rows: 1, columns: 2 }
bindings: []
`

/**
 * The clients, as a script for `node -e`: argv mode, port, seconds. Prints one JSON line with the
 * status probes' times (ms) and how many answers the clients got.
 */
const CLIENTS = String.raw`
const net = require('node:net')
const [mode, port, seconds] = process.argv.slice(1)
const until = Date.now() + Number(seconds) * 1000
const probes = []
let answers = 0
const request = (path, extra = '') => 'GET ' + path + ' HTTP/1.1\r\nHost: 127.0.0.1\r\n' + extra + '\r\n'
function client(head) {
  const s = net.connect(Number(port), '127.0.0.1', () => s.write(head))
  s.on('data', (d) => { answers += (d.toString('latin1').match(/HTTP\/1\.1 \d{3}/g) || []).length; if (Date.now() < until) s.write(head) })
  s.on('error', () => {})
  return s
}
const sockets = []
if (mode === 'auth-bad' || mode === 'auth-good') {
  const auth = mode === 'auth-bad' ? 'Bearer a' + ' '.repeat(7900) + 'b' : 'Bearer ${TOKEN}'
  for (let i = 0; i < ${AUTH_CLIENTS}; i++) sockets.push(client(request('/api/status', 'Authorization: ' + auth + '\r\n')))
} else {
  const s = net.connect(Number(port), '127.0.0.1', () => s.write(request('/key-font.ttf', 'Authorization: Bearer ${TOKEN}\r\n').repeat(${FONT_REQUESTS})))
  s.on('error', () => {})
  if (mode === 'font-unread') s.pause()
  else s.on('data', (d) => { answers += (d.toString('latin1').match(/HTTP\/1\.1 200/g) || []).length })
  sockets.push(s)
}
function probe() {
  if (Date.now() >= until) return finish()
  const started = performance.now()
  const p = net.connect(Number(port), '127.0.0.1', () => p.write(request('/api/status', 'Authorization: Bearer ${TOKEN}\r\nConnection: close\r\n')))
  let ok = false
  p.on('data', (d) => { ok ||= d.toString('latin1').startsWith('HTTP/1.1 200') })
  p.on('error', () => {})
  p.on('close', () => { probes.push(ok ? performance.now() - started : -1); setTimeout(probe, 100) })
}
function finish() {
  for (const s of sockets) s.destroy()
  console.log(JSON.stringify({ probes, answers }))
  process.exit(0)
}
setTimeout(probe, 100)
`

type Figures = CaseFigures & { answers: number }

/** One row; `judgeMemory`: the memory target applies (the own process's rows, built). */
function row(name: string, f: Figures, judgeMemory: boolean): string {
  const memory = !judgeMemory || f.rssPeakMb < RSS_TARGET_MB
  const pass = f.stallMaxMs < STALL_TARGET_MS && memory && f.failedProbes === 0
  return [
    name.padEnd(NAME_WIDTH),
    f.stallMaxMs.toFixed(1).padStart(9),
    f.stallP99Ms.toFixed(1).padStart(9),
    `${f.rssStartMb.toFixed(0)}→${f.rssPeakMb.toFixed(0)}`.padStart(10),
    `${f.probeMedianMs.toFixed(1)}/${f.probeMaxMs.toFixed(1)}`.padStart(13),
    String(f.failedProbes).padStart(7),
    String(f.answers).padStart(8),
    pass ? '  ok' : '  OVER',
  ].join(' ')
}

const CASES: [string, string][] = [
  [`auth baseline: ${AUTH_CLIENTS} clients, right token`, 'auth-good'],
  [`auth: ${AUTH_CLIENTS} clients, Bearer a<7,900 blanks>b`, 'auth-bad'],
  [`font baseline: ${FONT_REQUESTS} pipelined, read`, 'font-read'],
  [`font: ${FONT_REQUESTS} pipelined, never read`, 'font-unread'],
]

const NAME_WIDTH = Math.max(...CASES.map(([name]) => name.length))

/** Every case against one daemon, ROUNDS rounds; prints its rows and returns them by mode. */
async function cases(probe: DaemonProbe, judgeMemory: boolean): Promise<Map<string, Figures>> {
  const figures = await inRounds(
    CASES.map(([, mode]) => mode),
    (mode) => clientCase<{ probes: number[]; answers: number }>(probe, CLIENTS, mode, CASE_SECONDS),
  )
  for (const [name, mode] of CASES) console.log(row(name, figures.get(mode)!, judgeMemory))
  return figures
}

/** The server alone in this process, as before: a sample API behind it, one web surface. */
async function inProcess(): Promise<void> {
  const surface = new WebSurface({ id: 'console', rows: 1, columns: 2 })
  const web = new WebSurfaceServer({ surfaces: [surface] })
  const server = await startDaemonServer({ api: sampleDaemon(), host: '0.0.0.0', port: 0, token: TOKEN, web })
  try {
    console.log('in process (the server alone, under tsx) ⁽¹⁾')
    await cases(inProcessProbe(server.port), false)
  } finally {
    await web.close()
    await surface.close()
    await server.close()
  }
}

/** The whole daemon in its own process; prints the verdict line for its attack rows. */
async function ownProcess(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-bench-server-load-'))
  const file = join(dir, 'config.yaml')
  await writeFile(file, CONFIG)
  const own = await startOwnDaemon(file, dir)
  try {
    console.log(`own process (the daemon, ${ownKind()})`)
    const figures = await cases(own.probe(), memoryJudged())
    console.log(
      `\nverdict (own process; stall < ${STALL_TARGET_MS} ms, RSS < ${RSS_TARGET_MB} MB): ` +
        `${verdict('auth', figures.get('auth-bad')!)}; ${verdict('font', figures.get('font-unread')!)}`,
    )
  } finally {
    await own.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

export default async function run(): Promise<void> {
  const previous = setLogSink(() => undefined)
  console.log(
    `targets: stall < ${STALL_TARGET_MS} ms, RSS < ${RSS_TARGET_MB} MB (own process), every status probe answered; ${CASE_SECONDS} s a case, ${ROUNDS} rounds (the median of each figure; RSS peak: the highest; failed probes: all)\n`,
  )
  console.log('case'.padEnd(NAME_WIDTH) + ' stall max  stall p99  RSS MB ⁽²⁾  probe med/max  failed  answers')
  try {
    await inProcess()
    await ownProcess()
    console.log(
      '\n⁽¹⁾ judged on the stall only: this process carries tsx and the test helpers besides the server (see the\n' +
        "    head of bench/server-load.bench.ts); the memory verdict is the own process's.\n" +
        '⁽²⁾ the process at the case start → its peak. On a loaded machine the baselines show the stall that\n' +
        '    scheduling alone causes: read each case beside its baseline.',
    )
  } finally {
    setLogSink(previous)
  }
}
