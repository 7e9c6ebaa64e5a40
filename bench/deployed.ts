/**
 * The built daemon as deployed (`dist/cli.js`, started as the installed command starts it), for the
 * benches that judge it as an operator runs it: daemon.bench and flags.bench.
 *
 * - `startCli`: `node FLAGS dist/cli.js ARGS` (by default the flags the launcher gives the command), in
 *   a box of `small-box.ts` if asked, until a line of its output matches.
 * - `stopChild`: SIGTERM, and the exit waited for.
 * - `deployedConfig`: a config file as deployed beside the application in its own process (`app.url`
 *   and `app.notifications` pointed at it, no simulator inside), on a free port.
 * - `startBuiltSim`: `dist/cli.js sim` on free ports, standing in for the application.
 * - `pageJogStorm`: a page socket (as a browser's) turning a web surface's jog at a steady rate, from
 *   a child process, so its work is not the daemon's.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseDocument } from 'yaml'
import { CommandClient } from '../src/api/client.js'
import { launcherFlags } from './own-daemon.js'
import type { Box } from './small-box.js'

/** The built program, as an installed service runs it (no TypeScript loader in its time or memory). */
export const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url))
export const DEFAULT_CONFIG = fileURLToPath(new URL('../config/default.yaml', import.meta.url))

export interface Started {
  child: ChildProcess
  /** Spawn to the matching line, ms. */
  ms: number
  match: RegExpExecArray
  /** Its stdout lines so far (and later ones as they come). */
  output: string[]
}

/**
 * Starts `dist/cli.js args` under `flags` (default: the launcher's for the command, or BENCH_NODE_FLAGS),
 * in `box` (default: the machine as it is), until a stdout line matches `ready`. Routine log lines are
 * kept out (PANELBRIDGE_LOG_LEVEL=warn). The box's wrappers exec the program, so `child.pid` is node's.
 */
export async function startCli(
  args: string[],
  ready: RegExp,
  options: { flags?: readonly string[]; box?: Box } = {},
): Promise<Started> {
  const t0 = performance.now()
  const node = [...(options.flags ?? launcherFlags(CLI)), CLI, ...args]
  const { command, args: argv } = options.box
    ? options.box.wrap(process.execPath, node)
    : { command: process.execPath, args: node }
  const child = spawn(command, argv, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PANELBRIDGE_LOG_LEVEL: 'warn' },
  })
  let errors = ''
  child.stderr.on('data', (b: Buffer) => (errors = (errors + b.toString()).slice(-2000)))
  const output: string[] = []
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`${args.join(' ')} exited with ${code} before it was ready:\n${errors}`)),
    )
    createInterface({ input: child.stdout }).on('line', (line) => {
      output.push(line)
      const m = ready.exec(line)
      if (m) resolve(m)
    })
  })
  return { child, ms: performance.now() - t0, match, output }
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const done = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await done
}

/** The application's stand-in: `dist/cli.js sim` on free ports. */
export interface BuiltSim {
  child: ChildProcess
  httpUrl: string
  wsUrl: string
}

export async function startBuiltSim(): Promise<BuiltSim> {
  const sim = await startCli(['sim', '--port', '0', '--ws-port', '0'], /listening on (http:\/\/\S+)/)
  // The simulator prints its WebSocket address beside its HTTP one; wait for that line too.
  const wsLine = (): string | undefined =>
    sim.output.map((l) => /QWebChannel WebSocket on (ws:\/\/\S+)/.exec(l)?.[1]).find((u) => u)
  const until = Date.now() + 30_000
  while (wsLine() === undefined) {
    if (Date.now() > until || sim.child.exitCode !== null) {
      await stopChild(sim.child)
      throw new Error('panelbridge sim did not print its WebSocket address')
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  return { child: sim.child, httpUrl: sim.match[1]!, wsUrl: wsLine()! }
}

/**
 * Puts the stand-in's replay where a replay operator scrubs: Camera 1 armed, replay on, a 60 s buffer,
 * scrubbing, the position in the middle (so the storm's swing scrubs both ways without an end stop).
 * Without it every scrub is refused and the storm measures refusals, not scrubbing.
 */
export async function scrubbing(app: Pick<BuiltSim, 'httpUrl'>): Promise<void> {
  const client = new CommandClient({ baseUrl: app.httpUrl, timeoutMs: 4000 })
  try {
    await client.call('replay_arm_inputs', { inputs: ['Camera 1'] })
    await client.call('replay_enable')
    await client.call('replay_set_settings', { settings: { bufferLength: 60 } })
    await client.call('replay_enable_scrubbing', { enable: true })
    const fps = Number((await client.call('replay_get_play_info')).frameRate) || 30
    await client.call('replay_set_scrub_position', { position: Math.round(30 * fps) / fps })
  } finally {
    await client.close()
  }
}

/** A web surface's jog the page socket can turn, and the file that holds it. */
export interface JogTarget {
  file: string
  surface: string
  control: string
  /** Whether the bench added that surface (the config had no web jog of its own). */
  added: boolean
}

/**
 * `source` as deployed beside the application `app` (its HTTP and notification addresses, no simulator
 * inside), listening on a free port, written to `dir/name`. The jog storm needs a web surface's jog
 * bound to a scrub: the config's own when it has one, else a one-key web surface `benchjog` is added
 * with that binding (said in `added`).
 */
export async function deployedConfig(
  dir: string,
  source: string,
  app: { httpUrl: string; wsUrl: string },
  name = 'deployed.yaml',
): Promise<JogTarget> {
  const doc = parseDocument(readFileSync(source, 'utf8'))
  doc.setIn(['app', 'url'], app.httpUrl)
  doc.setIn(['app', 'notifications'], app.wsUrl)
  doc.deleteIn(['app', 'simulate'])
  doc.setIn(['listen', 'host'], '127.0.0.1')
  doc.setIn(['listen', 'port'], 0)
  const plain = doc.toJS() as {
    surfaces?: Record<string, { driver?: string; jog?: boolean }>
    bindings?: { on?: string; jog?: unknown }[]
  }
  const webJogs = Object.entries(plain.surfaces ?? {})
    .filter(([, s]) => s.driver === 'web' && s.jog === true)
    .map(([id]) => id)
  const bound = webJogs.find((id) => (plain.bindings ?? []).some((b) => b.on === `${id}/jog` && b.jog !== undefined))
  let surface = bound
  if (surface === undefined) {
    surface = 'benchjog'
    doc.setIn(['surfaces', surface], doc.createNode({ driver: 'web', rows: 1, columns: 1, jog: true }))
    doc.addIn(['bindings'], doc.createNode({ on: `${surface}/jog`, jog: { scrub: { step_frames: 1 } } }))
  }
  const file = join(dir, name)
  await writeFile(file, String(doc))
  return { file, surface, control: 'jog', added: bound === undefined }
}

/**
 * How the storm's hand moves: this many turns back (-1 each), then as many forth, and again. The
 * application's replay position starts at the live end of its buffer, so turns only forth would be held
 * at that end and send nothing; a hand that swings scrubs the whole storm long. 200 frames at a step of
 * one frame: about 3 s of a 60p buffer each way.
 */
export const STORM_SWING = 200

/**
 * The page socket's client, as a script for `node -e`: argv port, surface, control, deltas a second,
 * seconds, swing, and the application's address (or ''). The upgrade is done by hand (a raw connection;
 * frames masked with a zero key); the turns swing (STORM_SWING); the turns due are written each
 * millisecond. Given the application, it reads the play position before the first turn and, after the
 * last, asks for it again and again until it is the exact position the turns add up to (the jog seeds
 * at the nearest whole frame, one frame a turn). Prints one JSON line: `sent`, `ms` from the first turn
 * to the last, and `lagMs` from the last turn to the application holding the final position (null
 * when it never did within 3 s).
 */
const STORM_CLIENT = String.raw`
const net = require('node:net')
const http = require('node:http')
const [port, surface, control, rate, seconds, swing, app] = process.argv.slice(1)
const frameOf = (delta) => {
  const payload = Buffer.from(JSON.stringify({ type: 'rotate', surface, control, delta }))
  if (payload.length > 125) throw new Error('turn frame too long for the short form')
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload])
}
const back = frameOf(-1)
const forth = frameOf(1)
const backward = (i) => Math.floor(i / Number(swing)) % 2 === 0
const frame = (i) => (backward(i) ? back : forth)
const total = Math.round(Number(rate) * Number(seconds))
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const playInfo = () => new Promise((resolve, reject) => {
  http.get(app + '/api/command/replay_get_play_info', { agent }, (res) => {
    let body = ''
    res.on('data', (d) => (body += d))
    res.on('end', () => { try { resolve(JSON.parse(body).result) } catch (e) { reject(e) } })
  }).on('error', reject)
})
async function lag(startInfo, lastAt) {
  // The jog seeds its cursor at the whole frame nearest the position; every turn moves it one frame.
  let net = 0
  for (let i = 0; i < total; i++) net += backward(i) ? -1 : 1
  const fps = startInfo.frameRate
  const expected = (Math.round(startInfo.replayTime * fps) + net) / fps
  for (;;) {
    const info = await playInfo()
    const now = performance.now()
    if (Math.abs(info.replayTime - expected) < 1e-6) return now - lastAt
    if (now - lastAt > 3000) return null
  }
}
async function main() {
  const startInfo = app ? await playInfo() : undefined
  const page = net.connect(Number(port), '127.0.0.1', () => page.write(
    'GET /ws HTTP/1.1\r\nHost: 127.0.0.1:' + port + '\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n'))
  page.on('error', (e) => { console.error(String(e)); process.exit(1) })
  let open = false
  page.on('data', (d) => {
    if (open) return
    if (!d.toString('latin1').startsWith('HTTP/1.1 101')) { console.error('upgrade refused'); process.exit(1) }
    open = true
    const start = performance.now()
    let sent = 0
    const t = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * Number(rate)) / 1000))
      if (due > sent) page.write(Buffer.concat(Array.from({ length: due - sent }, (_, k) => frame(sent + k))))
      sent = due
      if (sent < total) return
      clearInterval(t)
      const lastAt = performance.now()
      const ms = lastAt - start
      const lagMs = startInfo ? lag(startInfo, lastAt) : Promise.resolve(undefined)
      lagMs.then((lagMs) => page.end(() => console.log(JSON.stringify({ sent, ms, lagMs }))))
    }, 1)
  })
}
main().catch((e) => { console.error(String(e)); process.exit(1) })
`

/** What a storm did: turns sent, ms from the first to the last, and the jog's lag (STORM_CLIENT). */
export interface StormResult {
  sent: number
  ms: number
  /** Last turn → the application holding the exact final position, ms; null: never within 3 s; absent: no `app` given. */
  lagMs?: number | null
}

/**
 * Turns `target`'s jog `rate` times a second for `seconds` through a page socket to `port`; resolves when
 * sent, or with `app` (the application's HTTP address) when the application holds the final position.
 */
export async function pageJogStorm(
  port: number,
  target: Pick<JogTarget, 'surface' | 'control'>,
  rate: number,
  seconds: number,
  options: { swing?: number; app?: string } = {},
): Promise<StormResult> {
  const args = [port, target.surface, target.control, rate, seconds, options.swing ?? STORM_SWING, options.app ?? '']
  const child = spawn(process.execPath, ['-e', STORM_CLIENT, ...args.map(String)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  const code = await new Promise((resolve) => child.once('exit', resolve))
  if (code !== 0) throw new Error(`the jog storm's page failed (${String(code)}): ${err.slice(-500)}`)
  return JSON.parse(out) as StormResult
}
