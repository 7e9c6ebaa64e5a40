/**
 * `npm run bench press-light`: press to light, end to end (issue 45 item 1).
 *
 * The built daemon as deployed (`BENCH_DIST`, else `npm run build` and `dist/`, with the launcher's V8
 * flags) in a process of its own, in each box `BENCH_BOX` asks for (`small-box.ts`), against the
 * application in a process of its own (`panelbridge sim --profile NAME`) for every profile of
 * `config/app-profiles/`. It is fed through the page socket as a browser page is (`/ws`: `down` then
 * `up` on a key), and a press has lit when the page is sent the key's face in a new colour: the key
 * follows a title, and a press cuts it in or out (`pressLightConfig`), so every press changes it.
 *
 * Beside each profile, in the same run: the bare round trip of the same command, with no daemon (the
 * command client's HTTP request to the simulator, until the scheduler's first signal about it on a
 * QWebChannel socket of our own), and the daemon's own trace of its presses, the median of each stage
 * of `panelbridge_press_stage_seconds` read from its `/metrics` (estimated within the buckets).
 *
 * Goals: press-to-light p95 < 10 ms on two cores, < 20 ms on the smallest box, every profile.
 * `BENCH_QUICK=1`: fewer presses. `pressToLight` and `pressLightConfig` are for other benches too.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import WebSocket from 'ws'
import { CommandClient } from '../src/api/client.js'
import { SCHEDULER_CHANNEL } from '../src/api/protocol.js'
import { QWebChannelClient } from '../src/api/qwebchannel.js'
import { benchDist, startOwnDaemon } from './own-daemon.js'
import { startSimulatorProcess } from './sim-process.js'
import { benchBoxes, type Box } from './small-box.js'
import { median, percentile } from './stats.js'

const PROFILES_DIR = fileURLToPath(new URL('../config/app-profiles/', import.meta.url))
const QUICK = process.env.BENCH_QUICK === '1'
/** Presses measured per profile and box (and bare round trips for the baseline). */
const PRESSES = QUICK ? 12 : 60

/** The goals, p95 ms, by box name (`small-box.ts`). */
export const pressLightGoals: Readonly<Record<string, number>> = { 'two cores': 10, 'smallest box': 20 }

/** The key the bench presses, and the title it cuts in and out. */
export const pressLightKey = { surface: 'console', control: 'key:0', title: 'Lower Third' } as const

/** A config of one web key that cuts the title in or out, against the application at `sim`. */
export function pressLightYaml(sim: { httpUrl: string; wsUrl: string }): string {
  const k = pressLightKey
  const schedule = (action: string): string =>
    `{ command: schedule, params: { action: ${action}, title: '${k.title}' } }`
  return [
    'version: 1',
    `app: { url: '${sim.httpUrl}', notifications: '${sim.wsUrl}' }`,
    'listen: { host: 127.0.0.1, port: 0 }',
    'surfaces:',
    `  ${k.surface}: { driver: web, rows: 1, columns: 2 }`,
    'bindings:',
    `  - on: ${k.surface}/${k.control}`,
    `    label: "{{name}}\\n{{play}}"`,
    `    toggle: { on: ${schedule('cutin')}, off: ${schedule('cutout')} }`,
    `    feedback: { title: '${k.title}' }`,
    '',
  ].join('\n')
}

/** Writes `pressLightYaml` to `dir/press-light.yaml` and gives its path. */
export async function pressLightConfig(dir: string, sim: { httpUrl: string; wsUrl: string }): Promise<string> {
  const file = join(dir, 'press-light.yaml')
  await writeFile(file, pressLightYaml(sim))
  return file
}

/** What `pressToLight` measured. */
export interface PressLight {
  /** Each lit press, ms from sending `down` to the page receiving the key's new face. */
  samples: number[]
  medianMs: number
  p95Ms: number
  /** Presses that did not light within the time-out. */
  missed: number
}

export interface PressToLightOptions {
  /** Quiet time after each light before the next press, ms (the press's reply and any re-read settle). */
  paceMs?: number
  /** A press not lit within this is missed, ms. */
  timeoutMs?: number
}

/**
 * Presses `pressLightKey` `n` times through the page socket of the daemon on `daemonPort` (a config of
 * `pressLightConfig`), as a browser page does: `down` then `up`; each press is timed until the page
 * receives a `key` message for it in another colour than before (the pending badge alone is no light).
 */
export async function pressToLight(
  daemonPort: number,
  n: number,
  options: PressToLightOptions = {},
): Promise<PressLight> {
  const paceMs = options.paceMs ?? 400
  const timeoutMs = options.timeoutMs ?? 5000
  const { surface, control } = pressLightKey
  const page = new WebSocket(`ws://127.0.0.1:${daemonPort}/ws`)
  let color: string | undefined
  let lit: ((at: number) => void) | undefined
  page.on('message', (data: Buffer) => {
    const at = performance.now()
    const m = JSON.parse(data.toString()) as {
      type: string
      surface?: string
      control?: string
      face?: { color?: string }
    }
    if (m.type !== 'key' || m.surface !== surface || m.control !== control) return
    const next = m.face?.color
    if (next === color) return
    const first = color === undefined
    color = next
    if (!first) lit?.(at)
  })
  await new Promise<void>((resolve, reject) => {
    page.once('open', () => resolve())
    page.once('error', reject)
  })
  const samples: number[] = []
  let missed = 0
  try {
    // The key's face as it is, first (the page's snapshot, then the link's first read of the titles).
    const until = Date.now() + 30_000
    while (color === undefined && Date.now() < until) await sleep(20)
    if (color === undefined) throw new Error('the page was never sent the key: is the daemon on a pressLightConfig?')
    await sleep(paceMs)
    const send = (type: 'down' | 'up'): void => page.send(JSON.stringify({ type, surface, control }))
    for (let i = 0; i < n; i++) {
      const t0 = performance.now()
      const light = new Promise<number | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), timeoutMs)
        lit = (at) => {
          clearTimeout(timer)
          resolve(at)
        }
      })
      send('down')
      send('up')
      const at = await light
      lit = undefined
      if (at === undefined) missed++
      else samples.push(at - t0)
      await sleep(paceMs)
    }
  } finally {
    page.close()
  }
  return { samples, medianMs: median(samples), p95Ms: percentile(samples, 95), missed }
}

/**
 * The bare round trip, no daemon: the command client's `schedule` (cut the title in, then out) to the
 * simulator, until the first scheduler signal on a QWebChannel socket of our own (its notification, or
 * where the profile has none, its change signal). ms per command.
 */
export async function bareRoundTrip(
  sim: { httpUrl: string; wsUrl: string },
  n: number,
  paceMs = 400,
): Promise<number[]> {
  const client = new CommandClient({ baseUrl: sim.httpUrl })
  const socket = new QWebChannelClient({ url: sim.wsUrl })
  let heard: ((at: number) => void) | undefined
  socket.on('signal', (e) => {
    if (e.object === SCHEDULER_CHANNEL.object) heard?.(performance.now())
  })
  const published = (await socket.connect()).get(SCHEDULER_CHANNEL.object)?.signals
  for (const signal of [SCHEDULER_CHANNEL.notifySignal, ...SCHEDULER_CHANNEL.changeSignals])
    if (published?.has(signal)) socket.connectSignal(SCHEDULER_CHANNEL.object, signal)
  const samples: number[] = []
  try {
    for (let i = 0; i < n; i++) {
      const action = i % 2 === 0 ? 'cutin' : 'cutout'
      const t0 = performance.now()
      const signal = new Promise<number | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), 5000)
        heard = (at) => {
          clearTimeout(timer)
          resolve(at)
        }
      })
      const reply = client.callByName('schedule', { action, title: pressLightKey.title })
      const at = await signal
      heard = undefined
      await reply
      if (at !== undefined) samples.push(at - t0)
      await sleep(paceMs)
    }
  } finally {
    socket.close()
    await client.close()
  }
  return samples
}

/** The stages of the daemon's press trace, in order (`panelbridge_press_stage_seconds{stage}`). */
const STAGES = ['sent', 'reply', 'notified', 'applied', 'drawn', 'written', 'light'] as const

/**
 * Each stage's median from `/metrics` text, ms, estimated within its histogram bucket (linearly, as
 * Prometheus's histogram_quantile does); NaN for a stage never observed.
 */
export function stageMedians(metricsText: string): Map<string, number> {
  const buckets = new Map<string, { le: number; count: number }[]>()
  const re = /^panelbridge_press_stage_seconds_bucket\{([^}]*)\} (\S+)$/gm
  for (const m of metricsText.matchAll(re)) {
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]))
    const stage = labels.stage
    if (stage === undefined || labels.le === undefined) continue
    const list = buckets.get(stage) ?? []
    list.push({ le: labels.le === '+Inf' ? Infinity : Number(labels.le), count: Number(m[2]) })
    buckets.set(stage, list)
  }
  const out = new Map<string, number>()
  for (const [stage, list] of buckets) {
    list.sort((a, b) => a.le - b.le)
    const total = list.at(-1)?.count ?? 0
    if (total === 0) {
      out.set(stage, NaN)
      continue
    }
    const half = total / 2
    let lower = 0
    let below = 0
    for (const b of list) {
      if (b.count >= half) {
        const upper = Number.isFinite(b.le) ? b.le : lower
        const within = b.count - below
        out.set(stage, (lower + (within > 0 ? ((half - below) / within) * (upper - lower) : 0)) * 1000)
        break
      }
      lower = b.le
      below = b.count
    }
  }
  return out
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function profileNames(): string[] {
  return readdirSync(PROFILES_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
    .sort()
}

/** The build to run: `BENCH_DIST`, else a fresh `npm run build`'s `dist`. */
function deployedBuild(): string {
  const given = benchDist()
  if (given !== undefined) return given
  const built = spawnSync('npm', ['run', 'build'], { stdio: 'ignore' })
  if (built.status !== 0) throw new Error('npm run build failed')
  return fileURLToPath(new URL('../dist', import.meta.url))
}

interface Row {
  box: Box
  profile: string
  light: PressLight
  bare: number[]
  stages: Map<string, number>
}

export default async function main(): Promise<void> {
  const dist = deployedBuild()
  const dir = await mkdtemp(join(tmpdir(), 'pb-bench-press-light-'))
  const rows: Row[] = []
  try {
    for (const box of benchBoxes()) {
      for (const profile of profileNames()) {
        const sim = await startSimulatorProcess({ profile })
        try {
          const daemon = await startOwnDaemon(await pressLightConfig(dir, sim), dir, dist, box)
          try {
            const light = await pressToLight(daemon.port, PRESSES)
            const stages = stageMedians(await (await fetch(new URL('metrics', daemon.base))).text())
            // The bare round trip beside it, the daemon stopped: the same simulator, the same command.
            await daemon.stop()
            const bare = await bareRoundTrip(sim, PRESSES)
            rows.push({ box, profile, light, bare, stages })
          } finally {
            await daemon.stop()
          }
        } finally {
          await sim.close()
        }
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  const f = (ms: number): string => (Number.isFinite(ms) ? ms.toFixed(1) : '-')
  console.log(`press to light through the page socket, ms; ${PRESSES} presses a profile; the daemon built (${dist})`)
  for (const box of new Set(rows.map((r) => r.box))) console.log(`  ${box.name}: ${box.how}`)
  console.log(
    '| box | profile | press→light median | p95 | missed | bare round trip median | p95 | goal p95 | verdict |',
  )
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |')
  for (const r of rows) {
    const goal = pressLightGoals[r.box.name] ?? NaN
    const ok = r.light.missed === 0 && r.light.p95Ms < goal
    console.log(
      `| ${r.box.name} | ${r.profile} | ${f(r.light.medianMs)} | ${f(r.light.p95Ms)} | ${r.light.missed} | ` +
        `${f(median(r.bare))} | ${f(percentile(r.bare, 95))} | < ${goal} | ${ok ? 'PASS' : 'FAIL'} |`,
    )
  }
  console.log("\nthe daemon's press trace, median of each stage (ms, within its buckets; `light` is press → written):")
  console.log(`| box | profile | ${STAGES.join(' | ')} |`)
  console.log(`| --- | --- | ${STAGES.map(() => '---:').join(' | ')} |`)
  for (const r of rows)
    console.log(`| ${r.box.name} | ${r.profile} | ${STAGES.map((s) => f(r.stages.get(s) ?? NaN)).join(' | ')} |`)
}
