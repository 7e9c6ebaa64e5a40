/**
 * The daemon in a process of its own, for the benchmarks that judge its loop and its memory (issue 24):
 * a bench process running under tsx carries tsx's loader, the compiled sources and whatever the bench
 * itself holds, so its resident memory says little about the daemon's. Shared by config-reload,
 * socket-flood and server-load.
 *
 * - `startOwnDaemon`: writes a small runner that imports the daemon (from a build, `BENCH_DIST=dist`,
 *   with the V8 flags the built CLI's launcher gives `run`; else from the sources under tsx), starts it
 *   from a config file (`Daemon.start`, as `panelbridge run` does, no hardware drivers), and answers on
 *   stdin: a line `loop-start` starts its own `monitorEventLoopDelay` afresh, a line `loop` ends it and
 *   answers one JSON line (the loop's max and p99, and the rotate turns the daemon was handed meanwhile),
 *   so a stall is the daemon's loop, not only what a client sees. SIGHUP reloads it (RELOADED when done).
 * - `rssOf(pid)`: a process's VmRSS, worker threads included; `cpuSeconds(pid)`: the CPU time it has
 *   used; `rssSampler`: a process's RSS sampled from `start()` to `end()` (start and peak).
 * - `inProcessProbe` / `OwnDaemon.probe()`: one shape for "measure the daemon's loop and memory while
 *   this runs", whichever process the daemon is in, so an attack is written once and run against both.
 * - `clientCase`: one case, the attacking clients as a `node -e` script in a child process (their work
 *   is not in the measured loop), under a probe; `inRounds`: every case ROUNDS times, merged by median.
 * - STALL_TARGET_MS, RSS_TARGET_MB: issue 24's targets, and `verdict` against them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { DaemonEvent } from '../src/daemon/api.js'
import type { Daemon } from '../src/daemon/daemon.js'
import { benchBoxes, type Box } from './small-box.js'
import { median } from './stats.js'

const MB = 2 ** 20

/** Issue 24's targets for the daemon under any input: its loop's longest stall, its resident memory. */
export const STALL_TARGET_MS = 50
export const RSS_TARGET_MB = 120

/**
 * Whether the own process's memory is judged against RSS_TARGET_MB: only when it runs from a build
 * (`BENCH_DIST`); from the sources it carries tsx's loader and the compiled sources, as this process does.
 */
export function memoryJudged(): boolean {
  return benchDist() !== undefined
}

/** How the own-process daemon runs, for the tables: built (the judged figures) or from the sources. */
export function ownKind(): string {
  return memoryJudged()
    ? 'built, launcher flags'
    : 'from the sources under tsx, its memory not judged: BENCH_DIST=dist for that'
}

/** `what`'s figures against the targets (the memory one when `memoryJudged()`), for a verdict line. */
export function verdict(what: string, f: LoopFigures): string {
  const judged = memoryJudged()
  const ok = f.stallMaxMs < STALL_TARGET_MS && (!judged || f.rssPeakMb < RSS_TARGET_MB)
  return (
    `${what} loop stall max ${f.stallMaxMs.toFixed(1)} ms, p99 ${f.stallP99Ms.toFixed(1)} ms, ` +
    `RSS peak ${f.rssPeakMb.toFixed(0)} MB${judged ? '' : ' (not judged)'}: ${ok ? 'PASS' : 'FAIL'}`
  )
}

/** The build to run the own-process daemon from (`BENCH_DIST`, or `BENCH_RELOAD_DIST` as before); none: sources. */
export function benchDist(): string | undefined {
  return process.env.BENCH_DIST || process.env.BENCH_RELOAD_DIST || undefined
}

/**
 * The node flags the CLI's launcher gives `run` (and the other long-running commands), as the installed
 * command runs: its line `//bin/true; case "$1" in run|sim|...) exec node FLAGS "$0" "$@";; esac`, read
 * from `cli` (src/cli.ts, or a build's cli.js: the same lines). A comparison run may try other flags:
 * BENCH_NODE_FLAGS="--max-semi-space-size=1 --optimize-for-size".
 */
export function launcherFlags(cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url))): string[] {
  if (process.env.BENCH_NODE_FLAGS !== undefined) return process.env.BENCH_NODE_FLAGS.split(/\s+/).filter((x) => x)
  const launcher = readFileSync(cli, 'utf8').split('\n', 3)
  for (const line of launcher) {
    const m = /^\/\/bin\/true; case "\$1" in ([\w|-]+)\) exec node (.*?) "\$0" "\$@";; esac$/.exec(line)
    if (m?.[1]!.split('|').includes('run')) return m[2]!.split(/\s+/).filter((x) => x !== '')
  }
  throw new Error(`${cli}: no launcher line giving run its flags in ${JSON.stringify(launcher)}`)
}

/** One memory field of a process's `/proc/PID/status`, MB (0 once it is gone). */
export function statusMb(pid: number, field: 'VmRSS' | 'RssAnon' | 'RssFile' = 'VmRSS'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024
  } catch {
    return 0
  }
}

/** A process's resident memory, MB (0 once it is gone). */
export const rssOf = (pid: number): number => statusMb(pid, 'VmRSS')

/** Clock ticks per second of /proc's CPU times. */
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100

/** CPU seconds (user + system, every thread) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the command name (which may hold spaces, hence from the last ')'): utime is 14th, stime 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
}

/** Rotate turns the daemon was handed while a probe ran: how many events, their summed delta, first to last. */
export interface Turns {
  events: number
  total: number
  spanMs: number
}

/** What a probe measured of the daemon while the work ran. */
export interface LoopFigures {
  stallMaxMs: number
  stallP99Ms: number
  rssStartMb: number
  rssPeakMb: number
  turns: Turns
}

/** Measures the daemon's loop and memory from `start()` to `end()`. */
export interface DaemonProbe {
  /** Where the daemon answers (127.0.0.1). */
  port: number
  start(): Promise<void>
  end(): Promise<LoopFigures>
}

/**
 * The daemon's loop monitor and rotate-turn counter. The runner gets this function's text (see
 * `runnerCode`), so the daemon in this process and the one in its own are measured by the same code;
 * it therefore uses nothing from outside its parameters.
 */
function loopCounter(
  watchEvents: (listener: (e: DaemonEvent) => void) => unknown,
  monitor: typeof monitorEventLoopDelay,
  now: () => number,
): { start(): void; end(): Pick<LoopFigures, 'stallMaxMs' | 'stallP99Ms' | 'turns'> } {
  let h = monitor({ resolution: 1 })
  let turns = { events: 0, total: 0, first: 0, last: 0 }
  watchEvents((e) => {
    if (e.type !== 'input' || e.input.type !== 'rotate') return
    if (turns.events++ === 0) turns.first = now()
    turns.last = now()
    turns.total += e.input.delta ?? 0
  })
  return {
    start() {
      h.disable()
      h = monitor({ resolution: 1 })
      turns = { events: 0, total: 0, first: 0, last: 0 }
      h.enable()
    },
    end() {
      h.disable()
      const { events, total, first, last } = turns
      return {
        stallMaxMs: h.max / 1e6,
        stallP99Ms: h.percentile(99) / 1e6,
        turns: { events, total, spanMs: last - first },
      }
    },
  }
}

/** Samples `rss()` every `everyMs` from `start()`; `end()` gives the start and the peak. */
export function rssSampler(
  rss: () => number,
  everyMs: number,
): { start(): void; end(): { startMb: number; peakMb: number } } {
  let startMb = 0
  let peakMb = 0
  let timer: NodeJS.Timeout | undefined
  return {
    start() {
      startMb = peakMb = rss()
      timer = setInterval(() => (peakMb = Math.max(peakMb, rss())), everyMs)
    },
    end() {
      clearInterval(timer)
      return { startMb, peakMb: Math.max(peakMb, rss()) }
    },
  }
}

/**
 * The daemon (or its server) in this process: this process's loop and resident memory (sampled every
 * 20 ms). With `daemon`, the rotate turns it is handed are counted too.
 */
export function inProcessProbe(port: number, daemon?: Daemon): DaemonProbe {
  const counter = loopCounter(daemon ? (l) => daemon.watchEvents(l) : () => undefined, monitorEventLoopDelay, () =>
    performance.now(),
  )
  const rss = rssSampler(() => process.memoryUsage().rss / MB, 20)
  return {
    port,
    start() {
      rss.start()
      counter.start()
      return Promise.resolve()
    },
    end() {
      const loop = counter.end()
      const { startMb, peakMb } = rss.end()
      return Promise.resolve({ ...loop, rssStartMb: startMb, rssPeakMb: peakMb })
    },
  }
}

/** The daemon in a process of its own (`startOwnDaemon`), started and running. */
export interface OwnDaemon {
  pid: number
  /** `http://127.0.0.1:<port>/`. */
  base: string
  port: number
  /** What it printed so far (stdout and stderr). */
  output(): string
  /** SIGHUP; resolves when it says RELOADED, throws when REFUSED. */
  reload(): Promise<void>
  probe(): DaemonProbe
  stop(): Promise<void>
}

/**
 * The runner: the daemon as `panelbridge run` makes it (`Daemon.start`), its reload time-out lifted (on
 * a busy machine a big reload from the sources takes longer than RELOAD_TIMEOUT_MS, and a timed-out
 * reload measures nothing), the loop monitor on stdin, and gone when stdin closes (the bench ended).
 */
function runnerCode(daemonUrl: string, config: string, reloadTimeoutMs = 600_000): string {
  return [
    `import { monitorEventLoopDelay, performance } from 'node:perf_hooks'`,
    `import { createInterface } from 'node:readline'`,
    `const { Daemon } = await import(${JSON.stringify(daemonUrl)})`,
    `const daemon = await Daemon.start({ config: ${JSON.stringify(config)}, drivers: [], watch: false, reloadTimeoutMs: ${reloadTimeoutMs} })`,
    // tsx (esbuild, keeping names) wraps named functions in `__name(fn, name)`: an identity here.
    `const __name = (f) => f`,
    `const counter = (${loopCounter.toString()})((l) => daemon.watchEvents(l), monitorEventLoopDelay, () => performance.now())`,
    `console.log('panelbridge running: ' + daemon.url)`,
    `process.on('SIGHUP', () => void daemon.reload().then((ok) => console.log(ok ? 'RELOADED' : 'REFUSED')))`,
    `const stop = () => void daemon.stop().then(() => process.exit(0))`,
    `process.on('SIGTERM', stop)`,
    `createInterface({ input: process.stdin })`,
    `  .on('line', (line) => {`,
    `    if (line === 'loop-start') { counter.start(); console.log('LOOP-STARTED') }`,
    `    else if (line === 'loop') console.log('LOOP ' + JSON.stringify(counter.end()))`,
    `  })`,
    `  .on('close', stop)`,
  ].join('\n')
}

function spawnRunner(
  config: string,
  runner: string,
  dist: string | undefined,
  box: Box | undefined,
  reloadTimeoutMs: number | undefined,
): ChildProcess {
  const daemon = dist
    ? pathToFileURL(join(dist, 'daemon/daemon.js')).href
    : new URL('../src/daemon/daemon.ts', import.meta.url).href
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  const flags = dist ? launcherFlags() : ['--import', tsx]
  // A file, not `-e`: a worker thread inherits the process's flags, and `--input-type` would refuse it.
  writeFileSync(runner, runnerCode(daemon, config, reloadTimeoutMs))
  const { command, args } = (box ?? benchBoxes()[0]!).wrap(process.execPath, [...flags, runner])
  return spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] })
}

/**
 * Starts the daemon of `config` in its own process (see the head of this file); `dir` holds the runner.
 * `box`: where it runs (`small-box.ts`); default the first box `BENCH_BOX` asks for. `reloadTimeoutMs`:
 * the daemon's reload bound (default lifted, see `runnerCode`; a row that judges the reload's own bound
 * passes RELOAD_TIMEOUT_MS).
 */
export async function startOwnDaemon(
  config: string,
  dir: string,
  dist = benchDist(),
  box?: Box,
  reloadTimeoutMs?: number,
): Promise<OwnDaemon> {
  const child = spawnRunner(config, join(dir, 'daemon.mjs'), dist, box, reloadTimeoutMs)
  const pid = child.pid!
  let out = ''
  const lines: string[] = []
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()))
  createInterface({ input: child.stdout! }).on('line', (line) => {
    out += `${line}\n`
    lines.push(line)
  })
  const waitFor = async <T>(found: () => T | undefined): Promise<T> => {
    const end = Date.now() + 300_000
    for (let v = found(); ; v = found()) {
      if (v !== undefined) return v
      if (Date.now() > end || child.exitCode !== null)
        throw new Error(`the daemon did not get there:\n${out.slice(-2000)}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  /** The first line from index `from` on that starts with `prefix`. */
  const line = (prefix: string, from: number) => () => lines.slice(from).find((l) => l.startsWith(prefix))
  const url = await waitFor(line('panelbridge running: ', 0))
  const port = Number(new URL(url.slice('panelbridge running: '.length)).port)
  const ask = async (request: string, answer: string): Promise<string> => {
    const from = lines.length
    child.stdin!.write(`${request}\n`)
    return (await waitFor(line(answer, from))).slice(answer.length)
  }
  const rss = rssSampler(() => rssOf(pid), 10)
  return {
    pid,
    base: `http://127.0.0.1:${port}/`,
    port,
    output: () => out,
    async reload() {
      const from = lines.length
      process.kill(pid, 'SIGHUP')
      const said = await waitFor(() => lines.slice(from).find((l) => l === 'RELOADED' || l === 'REFUSED'))
      if (said === 'REFUSED') throw new Error(`the reload was refused:\n${out.slice(-2000)}`)
    },
    probe: () => ({
      port,
      async start() {
        await ask('loop-start', 'LOOP-STARTED')
        rss.start()
      },
      async end() {
        const loop = JSON.parse(await ask('loop', 'LOOP ')) as Pick<LoopFigures, 'stallMaxMs' | 'stallP99Ms' | 'turns'>
        const { startMb, peakMb } = rss.end()
        return { ...loop, rssStartMb: startMb, rssPeakMb: peakMb }
      },
    }),
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
    },
  }
}

/** A case's figures: the daemon's (`LoopFigures`) and the status probes' (ms). */
export interface CaseFigures extends LoopFigures {
  probeMedianMs: number
  probeMaxMs: number
  failedProbes: number
}

/**
 * One case: the clients `script` run with `node -e` (argv: `mode`, the daemon's port, `seconds`) in a
 * child process (their work is not in the measured loop) while `probe` measures the daemon. The script
 * prints one JSON line at its end: `probes`, the times of its `GET /api/status` probes (ms, -1 for a
 * failed one), and whatever else it counts (returned as it is).
 */
export async function clientCase<T extends { probes: number[] }>(
  probe: DaemonProbe,
  script: string,
  mode: string,
  seconds: number,
): Promise<CaseFigures & Omit<T, 'probes'>> {
  const [{ probes, ...rest }, loop] = await underProbe(probe, async () => {
    const child = spawn(process.execPath, ['-e', script, mode, String(probe.port), String(seconds)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    await new Promise((resolve) => child.once('exit', resolve))
    return JSON.parse(out) as T
  })
  const ok = probes.filter((p) => p >= 0)
  return {
    ...rest,
    ...loop,
    probeMedianMs: median(ok),
    probeMaxMs: Math.max(...ok),
    failedProbes: probes.length - ok.length,
  }
}

/** Runs `work` under `probe` (the daemon's loop and memory) and returns both results. */
export async function underProbe<T>(probe: DaemonProbe, work: () => Promise<T>): Promise<[T, LoopFigures]> {
  await probe.start()
  const result = await work()
  // A stall is recorded when the monitor's timer fires late: let it fire once after the work.
  await new Promise((resolve) => setTimeout(resolve, 20))
  return [result, await probe.end()]
}

/**
 * Rounds of every case (`BENCH_QUICK=1`: one): on a shared machine one spike of another process can
 * decide a single run's longest stall, so a row gives the median of its rounds.
 */
export const ROUNDS = process.env.BENCH_QUICK === '1' ? 1 : 3

/**
 * One row from its rounds: the median of each figure, but the highest RSS peak (a peak of any round is
 * one the daemon reached) and every failed probe.
 */
export function mergeRounds<F extends CaseFigures>(runs: readonly F[]): F {
  const mid = (values: (number | undefined)[]): number | undefined => {
    const seen = values.filter((v): v is number => v !== undefined)
    return seen.length > 0 ? median(seen) : undefined
  }
  const merged: Record<string, unknown> = { ...runs[0] }
  for (const [key, value] of Object.entries(runs[0] ?? {}))
    if (typeof value === 'number') merged[key] = mid(runs.map((r) => (r as Record<string, unknown>)[key] as number))
  const turns = (pick: (t: Turns) => number): number => median(runs.map((r) => pick(r.turns)))
  return {
    ...(merged as F),
    rssPeakMb: Math.max(...runs.map((r) => r.rssPeakMb)),
    failedProbes: runs.reduce((sum, r) => sum + r.failedProbes, 0),
    turns: { events: turns((t) => t.events), total: turns((t) => t.total), spanMs: turns((t) => t.spanMs) },
  }
}

/**
 * Runs every case ROUNDS times, the cases in turn within a round (so a baseline runs beside its attack
 * under the same load of the machine), and gives each case's merged row, in the cases' order.
 */
export async function inRounds<K, F extends CaseFigures>(
  keys: readonly K[],
  once: (key: K) => Promise<F>,
): Promise<Map<K, F>> {
  const runs = new Map<K, F[]>(keys.map((k) => [k, []]))
  for (let round = 0; round < ROUNDS; round++) for (const key of keys) runs.get(key)!.push(await once(key))
  return new Map(keys.map((k) => [k, mergeRounds(runs.get(k)!)]))
}
