/**
 * `npm run bench flags` (issue 45, items 2 and 4): the daemon's V8 flags weighed again, as one table.
 *
 * Rows: sets of node flags for the daemon as deployed (`node FLAGS dist/cli.js run`): the set the
 * launcher gave `run` until issue 45 (no optimising compiler, a 1 MB young generation), Node's defaults,
 * and the middle ways (the optimising compiler on with a small young generation and one V8 helper
 * thread; with `--liftoff-only`, and `--optimize-for-size`; a larger young generation; one helper
 * thread alone; the old generation capped). The launcher's set now (read from `dist/cli.js`) is marked.
 *
 * Columns, for each box of `BENCH_BOX` (`small-box.ts`: two cores, the smallest box, or both):
 * - idle RSS: the default config as deployed (the application in its own process, `dist/cli.js sim`;
 *   no simulator inside), IDLE_SETTLE_MS after it is ready, no page open;
 * - storm peak RSS and daemon CPU: a page socket (from a child process, as a browser's) turns the web
 *   jog STORM.rate times a second for STORM.seconds (swinging, `STORM_SWING`; bound to a scrub, the
 *   application scrubbing: `scrubbing`), RSS sampled every
 *   10 ms, CPU from /proc (user + system, every thread) from the first turn to STORM_SETTLE_MS after
 *   the last, given per 10 s of storm;
 * - jog lag: from the storm's last turn to the application holding the exact final position (the
 *   storm's page asks the application; `pageJogStorm`), ms;
 * - press to light, median and p95: `press-light.bench.ts`'s `pressToLight` (a page presses a key that
 *   cuts a title in or out; timed until the page is sent the key's new colour), PRESSES presses a
 *   round against the same application, the daemon on `pressLightConfig`;
 * - cold XL page: `surfaces.bench.ts`'s cold XL redraw alone, in a child under the same flags in the
 *   same box, with the Stream Deck driver's pixel conversion and with the library's own (what
 *   `src/surfaces/streamdeck/fast-transform.ts` buys under those flags).
 * Each storm row is the median of ROUNDS rounds (the sets in turn within a round; the highest peak).
 * The last column lists the goals a row misses (GOALS); the rule (issue 45): keep the flags that meet
 * every goal; when none does, the latency goals win and the memory goal is restated from the figures
 * (as GOALS has it).
 *
 * Then memory as deployed with the launcher's flags: idle and storm peak with the default config and
 * with the largest example config (`config/examples`, by size; its surfaces' drivers load as they would,
 * no device plugged in; a one-key web surface with a jog is added for the storm when it has none).
 *
 * `BENCH_QUICK=1`: one round, a 3 s storm. `BENCH_JOG_SECONDS`, `BENCH_RUNS` set those; `BENCH_FLAGS`
 * picks rows by key (comma-separated); `BENCH_NO_BUILD=1` takes `dist/` as it is.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  CLI,
  DEFAULT_CONFIG,
  deployedConfig,
  pageJogStorm,
  scrubbing,
  startBuiltSim,
  startCli,
  stopChild,
  type BuiltSim,
  type JogTarget,
} from './deployed.js'
import { cpuSeconds, launcherFlags, rssOf, rssSampler } from './own-daemon.js'
import { benchBoxes, type Box } from './small-box.js'
import { median, percentile } from './stats.js'
import { pressLightConfig, pressLightGoals, pressToLight } from './press-light.bench.js'
import { coldXlPage } from './surfaces.bench.js'

const QUICK = process.env.BENCH_QUICK === '1'
const ROUNDS = Number(process.env.BENCH_RUNS) || (QUICK ? 1 : 3)
/** The jog storm of issue 45 (and `mappings.bench.ts`): deltas a second, for how long. */
const STORM = { rate: 2000, seconds: Number(process.env.BENCH_JOG_SECONDS) || (QUICK ? 3 : 10) } as const
const IDLE_SETTLE_MS = 3000
/** After the last turn, the scrubs still in flight finish: their CPU is the storm's. */
const STORM_SETTLE_MS = 300
const READY = /panelbridge running: (http:\/\/\S+)/
/** Presses a round for press to light, and the quiet time after each light. */
const PRESSES = QUICK ? 12 : 40
const PRESS_PACE_MS = 150

/**
 * Issue 45's goals. Latency: press to light p95 (`pressLightGoals`, by box) and the cold XL page. Memory:
 * restated by the issue's rule. No flag set met its 65 MB idle and 70 MB storm peak; the latency goals
 * (and a status answer under a flood of page sockets, `flood-status.bench.ts`) chose the optimising
 * compiler, and these bound the launcher's set as deployed (the default config and the largest example,
 * on both boxes: idle 80–84 MB, storm peak 84–89 MB on a quiet machine) with a little room. ASSUMED.
 */
const GOALS = {
  stormCpuPer10s: 1.0,
  idleMb: 87,
  peakMb: 92,
  coldXlMs: { 'two cores': 1000 / 60, 'smallest box': 1000 / 30 } as Record<string, number>,
  /** The jog: last turn → the application holding the exact final position, ms (every box). */
  jogLagMs: 25,
} as const

/** The rows: a key (for `BENCH_FLAGS`), what the set is, its flags. */
const FLAG_SETS: readonly { key: string; name: string; flags: readonly string[] }[] = [
  {
    key: 'no-opt',
    name: 'no optimiser, 1 MB young (until issue 45)',
    flags: ['--max-semi-space-size=1', '--v8-pool-size=1', '--liftoff-only', '--no-opt', '--optimize-for-size'],
  },
  { key: 'defaults', name: "Node's defaults", flags: [] },
  { key: 'tf-young1', name: 'TurboFan, 1 MB young, 1 helper', flags: ['--max-semi-space-size=1', '--v8-pool-size=1'] },
  {
    key: 'tf-young1-liftoff',
    name: 'TurboFan, 1 MB young, 1 helper, Liftoff only',
    flags: ['--max-semi-space-size=1', '--v8-pool-size=1', '--liftoff-only'],
  },
  {
    key: 'tf-young1-size',
    name: 'TurboFan, 1 MB young, 1 helper, Liftoff only, optimise for size',
    flags: ['--max-semi-space-size=1', '--v8-pool-size=1', '--liftoff-only', '--optimize-for-size'],
  },
  { key: 'tf-young4', name: 'TurboFan, 4 MB young, 1 helper', flags: ['--max-semi-space-size=4', '--v8-pool-size=1'] },
  { key: 'pool1', name: '1 helper alone', flags: ['--v8-pool-size=1'] },
  {
    key: 'old48',
    name: 'TurboFan, 1 MB young, 1 helper, old space 48 MB',
    flags: ['--max-semi-space-size=1', '--v8-pool-size=1', '--max-old-space-size=48'],
  },
]

interface Storm {
  idleMb: number
  peakMb: number
  cpuPer10s: number
  /** Last turn → the application at the exact final position, ms; NaN when it never got there. */
  lagMs: number
}

/** One run of `config` under `flags` in `box`: idle, then the storm. */
async function stormOnce(flags: readonly string[], box: Box, target: JogTarget, app: string): Promise<Storm> {
  const daemon = await startCli(['run', '--config', target.file], READY, { flags, box })
  try {
    const pid = daemon.child.pid!
    await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS))
    const idleMb = rssOf(pid)
    const rss = rssSampler(() => rssOf(pid), 10)
    rss.start()
    const cpu0 = cpuSeconds(pid)
    const port = Number(new URL(daemon.match[1]!).port)
    const storm = await pageJogStorm(port, target, STORM.rate, STORM.seconds, { app })
    if (storm.sent !== Math.round(STORM.rate * STORM.seconds)) throw new Error(`the storm sent ${storm.sent} turns`)
    await new Promise((r) => setTimeout(r, STORM_SETTLE_MS))
    const cpu = cpuSeconds(pid) - cpu0
    const { peakMb } = rss.end()
    return { idleMb, peakMb, cpuPer10s: (cpu * 10) / STORM.seconds, lagMs: storm.lagMs ?? NaN }
  } finally {
    await stopChild(daemon.child)
  }
}

/** Press to light under `flags` in `box`, the daemon on `config` (a `pressLightConfig`): each lit press, ms, and the missed. */
async function pressOnce(
  flags: readonly string[],
  box: Box,
  config: string,
): Promise<{ samples: number[]; missed: number }> {
  const daemon = await startCli(['run', '--config', config], READY, { flags, box })
  try {
    const port = Number(new URL(daemon.match[1]!).port)
    const { samples, missed } = await pressToLight(port, PRESSES, { paceMs: PRESS_PACE_MS })
    return { samples, missed }
  } finally {
    await stopChild(daemon.child)
  }
}

/** Rounds merged: medians, but the highest peak (one the daemon reached). */
function merged(runs: readonly Storm[]): Storm {
  return {
    idleMb: median(runs.map((r) => r.idleMb)),
    peakMb: Math.max(...runs.map((r) => r.peakMb)),
    cpuPer10s: median(runs.map((r) => r.cpuPer10s)),
    // A run that never reached the final position makes the row's lag n/a (a miss), not a median.
    lagMs: runs.some((r) => Number.isNaN(r.lagMs)) ? NaN : median(runs.map((r) => r.lagMs)),
  }
}

/** The largest example config, by size. */
function largestExample(): string {
  const dir = fileURLToPath(new URL('../config/examples/', import.meta.url))
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(dir, f))
  return files.reduce((a, b) => (statSync(b).size > statSync(a).size ? b : a))
}

const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : 'n/a')
const f2 = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : 'n/a')

function misses(box: Box, s: Storm, coldMs: number, press: { p95: number; missed: number }): string[] {
  const out: string[] = []
  const pressGoal = pressLightGoals[box.name]
  if (press.missed > 0 || (pressGoal !== undefined && !(press.p95 < pressGoal))) out.push('press')
  if (box.name === 'two cores' && !(s.cpuPer10s < GOALS.stormCpuPer10s)) out.push('CPU')
  if (!(s.lagMs < GOALS.jogLagMs)) out.push('jog lag')
  if (!(s.idleMb < GOALS.idleMb)) out.push('idle')
  if (!(s.peakMb < GOALS.peakMb)) out.push('peak')
  const cold = GOALS.coldXlMs[box.name]
  if (cold !== undefined && !(coldMs < cold)) out.push('cold XL')
  return out
}

export default async function main(): Promise<void> {
  if (process.env.BENCH_NO_BUILD !== '1') {
    const built = spawnSync('npm', ['run', 'build'], { stdio: 'ignore' })
    if (built.status !== 0) throw new Error('npm run build failed')
  }
  const wanted = process.env.BENCH_FLAGS?.split(',').map((k) => k.trim())
  const sets = FLAG_SETS.filter((s) => !wanted || wanted.includes(s.key))
  const launcher = launcherFlags(CLI).join(' ')
  const boxes = benchBoxes()
  const dir = await mkdtemp(join(tmpdir(), 'pb-bench-flags-'))
  let sim: BuiltSim | undefined
  try {
    sim = await startBuiltSim()
    await scrubbing(sim)
    const byDefault = await deployedConfig(dir, DEFAULT_CONFIG, sim, 'default.yaml')
    const example = largestExample()
    const byExample = await deployedConfig(dir, example, sim, 'example.yaml')
    const pressConfig = await pressLightConfig(dir, sim)

    console.log(
      `the daemon as deployed (node FLAGS dist/cli.js run), the default config, the application in its own process;` +
        ` storm: a page socket turning ${byDefault.surface}/jog ${STORM.rate}/s for ${STORM.seconds} s; ${ROUNDS} round(s)`,
    )
    console.log(`(* the launcher's flags now: ${launcher})`)
    for (const box of boxes) {
      console.log(`\n${box.name} (${box.how}):`)
      const runs = new Map<string, Storm[]>(sets.map((s) => [s.key, []]))
      const presses = new Map<string, { samples: number[]; missed: number }>(
        sets.map((s) => [s.key, { samples: [], missed: 0 }]),
      )
      for (let round = 0; round < ROUNDS; round++) {
        for (const set of sets) {
          runs.get(set.key)!.push(await stormOnce(set.flags, box, byDefault, sim.httpUrl))
          const p = await pressOnce(set.flags, box, pressConfig)
          presses.get(set.key)!.samples.push(...p.samples)
          presses.get(set.key)!.missed += p.missed
        }
      }
      console.log(
        '| flags | idle RSS MB | storm peak RSS MB | storm CPU s / 10 s | jog lag ms | press→light ms median / p95 | cold XL page ms (driver / library conversion) | misses |',
      )
      console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |')
      const meeting: string[] = []
      for (const set of sets) {
        const s = merged(runs.get(set.key)!)
        const cold = coldXlPage(set.flags, box)
        const pressed = presses.get(set.key)!
        const press = { median: median(pressed.samples), p95: percentile(pressed.samples, 95), missed: pressed.missed }
        const missed = misses(box, s, cold.fast, press)
        if (missed.length === 0) meeting.push(set.key)
        const mark = set.flags.join(' ') === launcher ? '* ' : ''
        console.log(
          `| ${mark}${set.name}: \`${set.flags.join(' ') || '(none)'}\` | ${f1(s.idleMb)} | ${f1(s.peakMb)} | ` +
            `${f2(s.cpuPer10s)} | ${f1(s.lagMs)} | ${f1(press.median)} / ${f1(press.p95)}${press.missed ? ` (${press.missed} missed)` : ''} | ` +
            `${f1(cold.fast)} / ${f1(cold.library)} | ${missed.join(', ') || 'none'} |`,
        )
      }
      console.log(
        `goals: storm CPU < ${GOALS.stormCpuPer10s} s per 10 s (two cores), jog lag < ${GOALS.jogLagMs} ms, idle < ${GOALS.idleMb} MB, peak < ${GOALS.peakMb} MB, ` +
          `press→light p95 < ${pressLightGoals[box.name] ?? 'n/a'} ms, cold XL page < ${f1(GOALS.coldXlMs[box.name] ?? NaN)} ms. ` +
          `Meeting every goal here: ${meeting.join(', ') || 'none (then latency wins)'}`,
      )
    }

    console.log(`\nmemory as deployed, the launcher's flags (${launcher}):`)
    console.log('| box | config | idle RSS MB | storm peak RSS MB | storm CPU s / 10 s | jog lag ms |')
    console.log('| --- | --- | ---: | ---: | ---: | ---: |')
    for (const box of boxes) {
      for (const [name, target] of [
        ['default.yaml', byDefault],
        [`examples/${example.split('/').pop()!}${byExample.added ? ' + a web jog' : ''}`, byExample],
      ] as const) {
        const runs: Storm[] = []
        for (let round = 0; round < ROUNDS; round++)
          runs.push(await stormOnce(launcherFlags(CLI), box, target, sim.httpUrl))
        const s = merged(runs)
        console.log(
          `| ${box.name} | ${name} | ${f1(s.idleMb)} | ${f1(s.peakMb)} | ${f2(s.cpuPer10s)} | ${f1(s.lagMs)} |`,
        )
      }
    }
  } finally {
    if (sim) await stopChild(sim.child)
    await rm(dir, { recursive: true, force: true })
  }
}
