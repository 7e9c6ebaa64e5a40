/**
 * `npm run bench server-load` (issue 24, "Must show"): the daemon server's event loop and memory while a
 * peer misbehaves, each case beside a baseline of the same run (the same clients behaving). The server
 * runs in this process; the clients run in a child process, so the loop measured is the server's alone.
 *
 * For each case: the loop's stall (`perf_hooks.monitorEventLoopDelay`, max and p99), resident memory
 * (its peak, sampled every 20 ms), and the time a fresh `GET /api/status` takes meanwhile (median and
 * max of probes every 100 ms, themselves from the child). Target: stall under STALL_TARGET_MS and
 * memory under RSS_TARGET_MB.
 *
 * Cases:
 * - auth: AUTH_CLIENTS clients, each sending request after request on its own connection for
 *   CASE_SECONDS, with `Authorization: Bearer a<7,900 blanks>b` (baseline: the right token);
 * - font: one connection pipelining FONT_REQUESTS requests for the key font (~700 KB) and never reading,
 *   for CASE_SECONDS (baseline: the same requests read as they come).
 */
import { spawn } from 'node:child_process'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { startDaemonServer } from '../src/daemon/server.js'
import { setLogSink } from '../src/log.js'
import { WebSurfaceServer } from '../src/surfaces/web/server.js'
import { WebSurface } from '../src/surfaces/web/web-surface.js'
import { sampleDaemon } from '../test/daemon/helpers.js'
import { median } from './stats.js'

export const STALL_TARGET_MS = 50
export const RSS_TARGET_MB = 120
export const AUTH_CLIENTS = 16
export const FONT_REQUESTS = 600
const CASE_SECONDS = Number(process.env.SERVER_LOAD_SECONDS ?? 4)
const TOKEN = 'correct-horse-battery-staple-42'
const MB = 1024 * 1024

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

interface Figures {
  stallMaxMs: number
  stallP99Ms: number
  rssStartMb: number
  rssPeakMb: number
  probeMedianMs: number
  probeMaxMs: number
  failedProbes: number
  answers: number
}

/** Runs the clients in `mode` against `port` while measuring this process. */
async function measure(mode: string, port: number): Promise<Figures> {
  const loop = monitorEventLoopDelay({ resolution: 10 })
  const rssStart = process.memoryUsage().rss
  let rssPeak = rssStart
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20)
  loop.enable()
  const child = spawn(process.execPath, ['-e', CLIENTS, mode, String(port), String(CASE_SECONDS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  await new Promise((resolve) => child.once('exit', resolve))
  loop.disable()
  clearInterval(sampler)
  const { probes, answers } = JSON.parse(out) as { probes: number[]; answers: number }
  const good = probes.filter((p) => p >= 0)
  return {
    stallMaxMs: loop.max / 1e6,
    stallP99Ms: loop.percentile(99) / 1e6,
    rssStartMb: rssStart / MB,
    rssPeakMb: rssPeak / MB,
    probeMedianMs: median(good),
    probeMaxMs: Math.max(...good),
    failedProbes: probes.length - good.length,
    answers,
  }
}

function row(name: string, f: Figures): string {
  const pass = f.stallMaxMs < STALL_TARGET_MS && f.rssPeakMb < RSS_TARGET_MB && f.failedProbes === 0
  return [
    name.padEnd(34),
    f.stallMaxMs.toFixed(1).padStart(9),
    f.stallP99Ms.toFixed(1).padStart(9),
    `${f.rssStartMb.toFixed(0)}→${f.rssPeakMb.toFixed(0)}`.padStart(10),
    `${f.probeMedianMs.toFixed(1)}/${f.probeMaxMs.toFixed(1)}`.padStart(13),
    String(f.failedProbes).padStart(7),
    String(f.answers).padStart(8),
    pass ? '  ok' : '  OVER',
  ].join(' ')
}

export default async function run(): Promise<void> {
  const previous = setLogSink(() => undefined)
  const surface = new WebSurface({ id: 'console', rows: 1, columns: 2 })
  const web = new WebSurfaceServer({ surfaces: [surface] })
  // Bound beyond loopback so that the token is checked (the Authorization case); reached on 127.0.0.1.
  const server = await startDaemonServer({ api: sampleDaemon(), host: '0.0.0.0', port: 0, token: TOKEN, web })
  console.log(
    `targets: stall < ${STALL_TARGET_MS} ms, RSS < ${RSS_TARGET_MB} MB, every status probe answered; ${CASE_SECONDS} s a case\n`,
  )
  console.log('case'.padEnd(34) + ' stall max  stall p99  RSS MB ⁽¹⁾  probe med/max  failed  answers')
  const cases: [string, string][] = [
    [`auth baseline: ${AUTH_CLIENTS} clients, right token`, 'auth-good'],
    [`auth: ${AUTH_CLIENTS} clients, Bearer a<7,900 blanks>b`, 'auth-bad'],
    [`font baseline: ${FONT_REQUESTS} pipelined, read`, 'font-read'],
    [`font: ${FONT_REQUESTS} pipelined, never read`, 'font-unread'],
  ]
  try {
    for (const [name, mode] of cases) console.log(row(name, await measure(mode, server.port)))
    console.log(
      '\n⁽¹⁾ this process at the case start → its peak; it carries tsx and the test helpers besides the server, so\n' +
        '    the growth, not the sum, is what the case costs. On a loaded machine the baselines show the stall that\n' +
        '    scheduling alone causes: read each case beside its baseline.',
    )
  } finally {
    await web.close()
    await surface.close()
    await server.close()
    setLogSink(previous)
  }
}
