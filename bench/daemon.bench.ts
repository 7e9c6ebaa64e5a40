/**
 * `npm run bench daemon`: the daemon as a service sees it.
 *
 * - Start to ready: `panelbridge run` with the default config (simulator and web console, on free
 *   ports) until it prints its URL, next to `panelbridge sim` alone until it listens (the baseline).
 * - Resident memory at idle, then every 30 s of steady load for 5 minutes (a press every 100 ms and a
 *   jog turn every 20 ms through the remote API). Target: under 80 MB resident, no growth over the run
 *   (the last sample against the one after the first minute, when caches have filled).
 *
 * Targets: start to ready < 1 s, RSS < 80 MB, growth < 5 MB. `BENCH_DAEMON_SECONDS` shortens the load.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseDocument } from 'yaml'
import { median } from './stats.js'

// The built program, as an installed service runs it (no TypeScript loader in the start time).
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url))
const DEFAULT_CONFIG = fileURLToPath(new URL('../config/default.yaml', import.meta.url))
const LOAD_SECONDS = Number(process.env.BENCH_DAEMON_SECONDS ?? 300)
const SAMPLE_EVERY_S = Math.min(30, Math.max(1, Math.floor(LOAD_SECONDS / 10)))
const STARTS = 5
const TARGET_READY_MS = 1000
const TARGET_RSS_MB = 80
const TARGET_GROWTH_MB = 5

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN)
  return kb / 1024
}

async function startUntil(
  args: string[],
  re: RegExp,
): Promise<{ child: ChildProcess; ms: number; match: RegExpExecArray }> {
  const t0 = performance.now()
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, PANELBRIDGE_LOG_LEVEL: 'warn' },
  })
  const lines = createInterface({ input: child.stdout })
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`exited with ${code} before it was ready`)))
    lines.on('line', (line) => {
      const m = re.exec(line)
      if (m) resolve(m)
    })
  })
  return { child, ms: performance.now() - t0, match }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const done = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await done
}

/** The default config on free ports (so the bench never collides with a running panelbridge). */
async function freePortConfig(dir: string): Promise<string> {
  const doc = parseDocument(readFileSync(DEFAULT_CONFIG, 'utf8'))
  doc.setIn(['app', 'url'], 'http://127.0.0.1:0')
  doc.setIn(['listen', 'port'], 0)
  const file = join(dir, 'config.yaml')
  await writeFile(file, String(doc))
  return file
}

export default async function main(): Promise<void> {
  const built = spawnSync('npm', ['run', 'build'], { stdio: 'ignore' })
  if (built.status !== 0) throw new Error('npm run build failed')
  const dir = await mkdtemp(join(tmpdir(), 'pb-bench-daemon-'))
  try {
    const config = await freePortConfig(dir)
    // Start to ready, interleaved with the baseline so that load on the machine hits both alike.
    const daemonMs: number[] = []
    const simMs: number[] = []
    for (let i = 0; i < STARTS; i++) {
      const s = await startUntil(['sim', '--port', '0', '--ws-port', '0'], /listening on (http:\/\/\S+)/)
      simMs.push(s.ms)
      await stop(s.child)
      const d = await startUntil(['run', '--config', config], /panelbridge running: (http:\/\/\S+)/)
      daemonMs.push(d.ms)
      await stop(d.child)
    }

    const { child, match } = await startUntil(['run', '--config', config], /panelbridge running: (http:\/\/\S+)/)
    const base = match[1]!
    const pid = child.pid!
    await new Promise((r) => setTimeout(r, 2000))
    const idle = rssMb(pid)
    const samples: { t: number; rss: number }[] = []
    let running = true
    let presses = 0
    let turns = 0
    let failures = 0
    const post = async (path: string): Promise<void> => {
      const res = await fetch(new URL(path, base), { method: 'POST' }).catch(() => undefined)
      if (!res?.ok) failures++
      await res?.arrayBuffer()
    }
    const pressLoop = (async () => {
      while (running) {
        await post('api/surfaces/console/controls/key:3/press')
        presses++
        await new Promise((r) => setTimeout(r, 100))
      }
    })()
    const jogLoop = (async () => {
      while (running) {
        await post('api/surfaces/console/controls/jog/rotate?delta=1')
        turns++
        await new Promise((r) => setTimeout(r, 20))
      }
    })()
    const t0 = Date.now()
    while (Date.now() - t0 < LOAD_SECONDS * 1000) {
      await new Promise((r) => setTimeout(r, SAMPLE_EVERY_S * 1000))
      samples.push({ t: Math.round((Date.now() - t0) / 1000), rss: rssMb(pid) })
    }
    running = false
    await Promise.all([pressLoop, jogLoop])
    await stop(child)

    const warm = samples.find((s) => s.t >= Math.min(60, LOAD_SECONDS / 5)) ?? samples[0]!
    const last = samples.at(-1)!
    const peak = Math.max(...samples.map((s) => s.rss))
    const growth = last.rss - warm.rss
    const readyMedian = median(daemonMs)
    const f = (n: number): string => n.toFixed(1)
    console.log(
      `start to ready, median of ${STARTS} (ms): panelbridge run ${f(readyMedian)} | panelbridge sim alone ${f(median(simMs))}`,
    )
    console.log(`  runs: ${daemonMs.map(f).join(', ')} | sim: ${simMs.map(f).join(', ')}`)
    console.log(
      `load: ${LOAD_SECONDS} s, ${presses} presses, ${turns} jog turns through the remote API, ${failures} refused`,
    )
    console.log('| t (s) | RSS (MB) |')
    console.log('| ----: | -------: |')
    console.log(`| idle | ${f(idle)} |`)
    for (const s of samples) console.log(`| ${s.t} | ${f(s.rss)} |`)
    console.log(
      `targets: ready ${f(readyMedian)} ms < ${TARGET_READY_MS}: ${readyMedian < TARGET_READY_MS ? 'yes' : 'NO'}; ` +
        `peak RSS ${f(peak)} MB < ${TARGET_RSS_MB}: ${peak < TARGET_RSS_MB ? 'yes' : 'NO'}; ` +
        `growth ${f(growth)} MB (t=${warm.t}..${last.t} s) < ${TARGET_GROWTH_MB}: ${growth < TARGET_GROWTH_MB ? 'yes' : 'NO'}`,
    )
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
