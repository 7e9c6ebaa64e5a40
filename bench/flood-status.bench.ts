/**
 * `npm run bench flood-status` (issue 46, item 3: "status answers within 200 ms from another process
 * during the flood probes on the smallest box"): the daemon in a process of its own
 * (`bench/own-daemon.ts`), on each box `BENCH_BOX` asks for (`bench/small-box.ts`: two cores, the
 * smallest box, or both), flooded by one client process while another process asks `GET /api/status`
 * every PROBE_EVERY_MS on a fresh connection. The two clients are two hosts as the daemon sees them:
 * the flood comes from FLOOD_ADDRESS, the status checks from 127.0.0.1 (a hostile peer on the LAN and
 * the control room's own checks never share an address).
 *
 * Cases, each CASE_SECONDS:
 * - baseline: no flood, the status checks alone;
 * - requests: FLOOD_REQUESTS concurrent `GET /api/status`, each on a fresh connection, another opened
 *   as soon as one closes;
 * - sockets: FLOOD_SOCKETS page sockets (`/ws`) opened at once, read, and opened afresh every
 *   SOCKET_WAVE_MS (every wave is a page connecting FLOOD_SOCKETS times).
 *
 * For each: the status answers' median and max (PASS when the max is under STATUS_TARGET_MS and none
 * failed), the daemon's loop stall (its own `monitorEventLoopDelay`), and what the flood got (answers,
 * refusals, sockets opened).
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setLogSink } from '../src/log.js'
import { benchDist, inRounds, ownKind, ROUNDS, startOwnDaemon, underProbe, type CaseFigures } from './own-daemon.js'
import { benchBoxes } from './small-box.js'
import { median } from './stats.js'

export const FLOOD_REQUESTS = 2_000
export const FLOOD_SOCKETS = 500
/** Issue 46's target for a status answer from another process while the daemon is flooded, ms. */
export const STATUS_TARGET_MS = 200
const CASE_SECONDS = Number(process.env.FLOOD_STATUS_SECONDS ?? 4)
const PROBE_EVERY_MS = 50
const SOCKET_WAVE_MS = 1_000
/** The flooding client's address (any 127.x address is this machine's on Linux). */
const FLOOD_ADDRESS = process.env.FLOOD_ADDRESS ?? '127.0.0.2'

/** A control room's desk: a page of key faces (32 keys, two encoders) for every page socket that connects. */
const CONFIG = `version: 1
app: { url: http://127.0.0.1:0, simulate: true }
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  desk: { driver: web, rows: 4, columns: 8, encoders: 2 }
bindings:
  - on: desk/encoder:0
    rotate: { command: replay_set_in_point, params: { position: "{{delta}}" }, acceleration: false }
`

/**
 * The flood, as a script for `node -e`: argv mode, port, seconds, the address to connect from. Prints
 * one JSON line: what it got (answers 200, refusals 503, sockets upgraded, errors).
 */
const FLOOD = String.raw`
const net = require('node:net')
const [mode, port, seconds, from] = process.argv.slice(1)
const until = Date.now() + Number(seconds) * 1000
const got = { answers: 0, refused: 0, upgraded: 0, errors: 0 }
const connect = () => net.connect({ port: Number(port), host: '127.0.0.1', localAddress: from })
const count = (text) => {
  if (text.startsWith('HTTP/1.1 200')) got.answers++
  else if (text.startsWith('HTTP/1.1 101')) got.upgraded++
  else if (text.startsWith('HTTP/1.1 503')) got.refused++
}
function request() {
  if (Date.now() >= until) return
  const s = connect()
  s.on('connect', () => s.write('GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'))
  let first = true
  s.on('data', (d) => { if (first) count(d.toString('latin1', 0, 16)); first = false })
  s.on('error', () => got.errors++)
  s.on('close', request)
}
const open = new Set()
function page() {
  const s = connect()
  open.add(s)
  s.on('connect', () => s.write('GET /ws HTTP/1.1\r\nHost: 127.0.0.1:' + port + '\r\nUpgrade: websocket\r\n' +
    'Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n'))
  let first = true
  s.on('data', (d) => { if (first) count(d.toString('latin1', 0, 16)); first = false })
  s.on('error', () => got.errors++)
  s.on('close', () => open.delete(s))
}
function wave() {
  for (const s of open) s.destroy()
  if (Date.now() >= until) return
  for (let i = 0; i < ${FLOOD_SOCKETS}; i++) page()
  setTimeout(wave, ${SOCKET_WAVE_MS})
}
if (mode === 'requests') for (let i = 0; i < ${FLOOD_REQUESTS}; i++) request()
if (mode === 'sockets') wave()
setTimeout(() => {
  for (const s of open) s.destroy()
  console.log(JSON.stringify(got))
  process.exit(0)
}, Number(seconds) * 1000 + 200)
`

/** The status checks, as a script for `node -e`: argv port, seconds. Prints `{ probes }` (ms; -1 failed). */
const STATUS = String.raw`
const net = require('node:net')
const [port, seconds] = process.argv.slice(1)
const until = Date.now() + Number(seconds) * 1000
const probes = []
function probe() {
  if (Date.now() >= until) { console.log(JSON.stringify({ probes })); process.exit(0) }
  const started = performance.now()
  const p = net.connect({ port: Number(port), host: '127.0.0.1', localAddress: '127.0.0.1' })
  p.on('connect', () => p.write('GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'))
  let ok = false
  p.on('data', (d) => { ok ||= d.toString('latin1', 0, 16).startsWith('HTTP/1.1 200') })
  p.on('error', () => {})
  p.on('close', () => { probes.push(ok ? performance.now() - started : -1); setTimeout(probe, ${PROBE_EVERY_MS}) })
}
setTimeout(probe, 20)
`

type Mode = 'baseline' | 'requests' | 'sockets'
interface Got {
  answers: number
  refused: number
  upgraded: number
  errors: number
}
type Figures = CaseFigures & Got

/** Runs `script` with `node -e` and its arguments; resolves to the JSON line it prints. */
async function child<T>(script: string, args: string[]): Promise<T> {
  const c = spawn(process.execPath, ['-e', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  c.stdout.on('data', (d: Buffer) => (out += d.toString()))
  const code = await new Promise((resolve) => c.once('exit', resolve))
  if (code !== 0) throw new Error(`a bench client exited ${String(code)}: ${out}`)
  return JSON.parse(out) as T
}

async function runCase(probe: ReturnType<Awaited<ReturnType<typeof startOwnDaemon>>['probe']>, mode: Mode) {
  const port = String(probe.port)
  const seconds = String(CASE_SECONDS)
  const [[status, got], loop] = await underProbe(probe, () =>
    Promise.all([
      child<{ probes: number[] }>(STATUS, [port, seconds]),
      mode === 'baseline'
        ? Promise.resolve({ answers: 0, refused: 0, upgraded: 0, errors: 0 })
        : child<Got>(FLOOD, [mode, port, seconds, FLOOD_ADDRESS]),
    ]),
  )
  const ok = status.probes.filter((p) => p >= 0)
  const figures: Figures = {
    ...loop,
    ...got,
    probeMedianMs: median(ok),
    probeMaxMs: ok.length > 0 ? Math.max(...ok) : NaN,
    failedProbes: status.probes.length - ok.length,
  }
  return figures
}

const CASES: [Mode, string][] = [
  ['baseline', 'baseline: status checks alone'],
  ['requests', `${FLOOD_REQUESTS.toLocaleString('en')} concurrent requests`],
  ['sockets', `${FLOOD_SOCKETS} page sockets at once, every ${SOCKET_WAVE_MS / 1000} s`],
]

export default async function run(): Promise<void> {
  const previous = setLogSink(() => undefined)
  const dir = await mkdtemp(join(tmpdir(), 'pb-bench-flood-status-'))
  const file = join(dir, 'config.yaml')
  await writeFile(file, CONFIG)
  const verdicts: string[] = []
  try {
    console.log(
      `the daemon ${ownKind()}; the flood from ${FLOOD_ADDRESS}, status checks from 127.0.0.1 every ${PROBE_EVERY_MS} ms; ` +
        `${CASE_SECONDS} s a case, ${ROUNDS} rounds (medians; failed probes: all); target: status max < ${STATUS_TARGET_MS} ms`,
    )
    const w = Math.max(...CASES.map(([, name]) => name.length)) + 16
    console.log(
      `${'box: case'.padEnd(w)} | status median/max ms | failed | stall max ms | flood: answers, 503s, sockets, errors | verdict`,
    )
    for (const box of benchBoxes()) {
      const own = await startOwnDaemon(file, dir, benchDist(), box)
      try {
        const rows = await inRounds(
          CASES.map(([mode]) => mode),
          (mode) => runCase(own.probe(), mode),
        )
        for (const [mode, name] of CASES) {
          const f = rows.get(mode)!
          const pass = f.probeMaxMs < STATUS_TARGET_MS && f.failedProbes === 0
          console.log(
            `${`${box.name}: ${name}`.padEnd(w)} | ${`${f.probeMedianMs.toFixed(1)} / ${f.probeMaxMs.toFixed(1)}`.padStart(20)} | ` +
              `${String(f.failedProbes).padStart(6)} | ${f.stallMaxMs.toFixed(1).padStart(12)} | ` +
              `${`${f.answers}, ${f.refused}, ${f.upgraded}, ${f.errors}`.padEnd(37)} | ${pass ? 'PASS' : 'FAIL'}`,
          )
          if (mode !== 'baseline') verdicts.push(`${box.name}, ${name}: ${pass ? 'PASS' : 'FAIL'}`)
        }
        console.log(`  (${box.name}: ${box.how})`)
      } finally {
        await own.stop()
      }
    }
    console.log(`verdict (status max < ${STATUS_TARGET_MS} ms): ${verdicts.join('; ')}`)
  } finally {
    setLogSink(previous)
    await rm(dir, { recursive: true, force: true })
  }
}
