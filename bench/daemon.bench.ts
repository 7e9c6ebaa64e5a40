/**
 * `npm run bench daemon`: the daemon as a service sees it.
 *
 * - Start to ready: `panelbridge run` with the default config (simulator and web console, on free
 *   ports) until it prints its URL, next to `panelbridge sim` alone until it listens (the baseline).
 * - Resident memory at idle with nobody looking at the page (no key message is made for it), at idle
 *   with the page open (a WebSocket client on `/ws`, as a browser; the page paints the keys, so the
 *   daemon never loads the canvas library for them), then every 30 s of steady load for 5 minutes with
 *   the page open (a press every 100 ms and a jog turn every 20 ms through the remote API; the jog
 *   label changes a key each turn). Target: under
 *   TARGET_RSS_MB resident, no growth over the run (the last sample against the one after the first minute,
 *   when caches have filled). The simulator alone is the baseline, for start time and memory.
 * - The daemon runs as installed: with the V8 flags `dist/cli.js`'s launcher gives the long-running
 *   commands (its `case` line: run, sim, surfaces, learn). The CPU it used during the load is printed
 *   too, so that a flag that trades speed for memory shows its cost.
 *
 * Targets: start to ready < 1 s, RSS < 92 MB, growth < 5 MB. `BENCH_DAEMON_SECONDS` shortens the load.
 *
 * The V8 flags the launcher gives the long-running commands, and why. `npm run bench flags` weighs them
 * as one table (idle and storm-peak memory, CPU in a jog storm, press to light, a cold XL page, on two
 * cores and on the smallest box) against Node's defaults and the middle ways (the optimising compiler
 * on with a small young generation, a larger young generation, one helper thread alone, the old
 * generation capped). Issue 45's rule: keep the flags that meet every goal, and when none does, latency
 * before memory. Weighed again for issue 45, no set met every goal on two cores; the optimising
 * compiler's sets kept press to light under 10 ms at the p95 there and a cold XL page faster, and on the
 * smallest box they answered another client's status within 200 ms under a flood of 500 page sockets,
 * where the set without it spent the box on the flood (three times the CPU a request). Latency won: the
 * optimising compiler is on, for 7–10 MB more resident memory. The short commands (check, send,
 * devices, probe) start without these flags, as nothing of this applies to them:
 * - `--max-semi-space-size=1` (MB): V8's young generation otherwise grows to 16 MB per semi-space under
 *   a steady stream of small requests, 20 MB and more of memory a daemon that allocates little per
 *   event never needs; the cost is more frequent, shorter scavenges.
 * - `--v8-pool-size=1`: one V8 helper thread (concurrent marking and compiling) rather than one per
 *   core; each keeps its own C allocator arena.
 * - `--liftoff-only`: undici parses HTTP replies with llhttp, compiled to WebAssembly on the first
 *   connection; V8's second, optimising compile of it (TurboFan) takes tens of MB of compiler memory
 *   for a moment, which the C allocator keeps afterwards, and on one slow core it shows in the press
 *   to light tail. Liftoff's code parses the application's short replies in microseconds.
 * Until issue 45 the launcher also gave `--no-opt --optimize-for-size` (no optimising compiler for
 * JavaScript, and V8's smaller-heap settings); `npm run bench flags` keeps that set as a row.
 * A cold page runs before the optimising compiler has seen the Stream Deck library's per-pixel
 * conversion, so the driver still does it by rows (`src/surfaces/streamdeck/fast-transform.ts`).
 * The bench prints the CPU, jog round trip and memory with whatever flags the launcher has, and
 * `BENCH_NODE_FLAGS` runs it with others, to compare.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { parseDocument } from 'yaml'
import { CLI, DEFAULT_CONFIG, deployedConfig, startCli, stopChild } from './deployed.js'
import { cpuSeconds, launcherFlags, rssOf, statusMb } from './own-daemon.js'
import { median } from './stats.js'

const LOAD_SECONDS = Number(process.env.BENCH_DAEMON_SECONDS ?? 300)
const SAMPLE_EVERY_S = Math.min(30, Math.max(1, Math.floor(LOAD_SECONDS / 10)))
const STARTS = 5
const TARGET_READY_MS = 1000
/** The storm peak `flags.bench.ts` restated for the launcher's flags (its GOALS.peakMb). */
const TARGET_RSS_MB = 92
const TARGET_GROWTH_MB = 5

/** `RSS (anonymous + file-backed)`: the file-backed part is mostly Node's own binary, shared and clean. */
const rssSplit = (pid: number): string =>
  `${statusMb(pid, 'VmRSS').toFixed(1)} (${statusMb(pid, 'RssAnon').toFixed(1)} + ${statusMb(pid, 'RssFile').toFixed(1)})`

/** The default config on free ports (so the bench never collides with a running panelbridge). */
async function freePortConfig(dir: string): Promise<string> {
  const doc = parseDocument(readFileSync(DEFAULT_CONFIG, 'utf8'))
  doc.setIn(['app', 'url'], 'http://127.0.0.1:0')
  doc.setIn(['listen', 'port'], 0)
  const file = join(dir, 'config.yaml')
  await writeFile(file, String(doc))
  return file
}

/** Opens the page's WebSocket as a browser does; resolves once it is open. */
async function openPage(base: string): Promise<WebSocket & { received: () => number }> {
  const page = new WebSocket(new URL('ws', base.replace(/^http/, 'ws')))
  let n = 0
  page.on('message', () => n++)
  await new Promise<void>((resolve, reject) => {
    page.once('open', () => resolve())
    page.once('error', reject)
  })
  return Object.assign(page, { received: () => n })
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
      const s = await startCli(['sim', '--port', '0', '--ws-port', '0'], /listening on (http:\/\/\S+)/)
      simMs.push(s.ms)
      await stopChild(s.child)
      const d = await startCli(['run', '--config', config], /panelbridge running: (http:\/\/\S+)/)
      daemonMs.push(d.ms)
      await stopChild(d.child)
    }

    // The simulator alone (the baseline), then the daemon as deployed, driving it from another process.
    const sim = await startCli(['sim', '--port', '0', '--ws-port', '0'], /listening on (http:\/\/\S+)/)
    await new Promise((r) => setTimeout(r, 2000))
    const simIdle = rssSplit(sim.child.pid!)
    // Why a pause is enough: the simulator prints both addresses together, and 2 s have passed.
    const wsUrl = sim.output.map((l) => /QWebChannel WebSocket on (ws:\/\/\S+)/.exec(l)?.[1]).find((u) => u)
    if (wsUrl === undefined) throw new Error('panelbridge sim did not print its WebSocket address')
    const deployed = await startCli(
      ['run', '--config', (await deployedConfig(dir, DEFAULT_CONFIG, { httpUrl: sim.match[1]!, wsUrl })).file],
      /panelbridge running: (http:\/\/\S+)/,
    )
    await new Promise((r) => setTimeout(r, 2000))
    const deployedHeadless = rssSplit(deployed.child.pid!)
    const deployedPage = await openPage(deployed.match[1]!)
    await new Promise((r) => setTimeout(r, 2000))
    const deployedOpen = rssSplit(deployed.child.pid!)
    deployedPage.close()
    await stopChild(deployed.child)
    await stopChild(sim.child)

    const { child, match } = await startCli(['run', '--config', config], /panelbridge running: (http:\/\/\S+)/)
    const base = match[1]!
    const pid = child.pid!
    await new Promise((r) => setTimeout(r, 2000))
    const idleHeadless = rssSplit(pid)
    // The page open: a browser's WebSocket, receiving every key image and state the daemon sends.
    const page = await openPage(base)
    await new Promise((r) => setTimeout(r, 2000))
    const idle = rssOf(pid)
    const idlePage = rssSplit(pid)
    const samples: { t: number; rss: number }[] = []
    let running = true
    let presses = 0
    let turns = 0
    let failures = 0
    /** Jog requests' round trips through the remote API, ms: what a turn costs the daemon under load. */
    const jogMs: number[] = []
    const post = async (path: string, times?: number[]): Promise<void> => {
      const t = performance.now()
      const res = await fetch(new URL(path, base), { method: 'POST' }).catch(() => undefined)
      if (!res?.ok) failures++
      await res?.arrayBuffer()
      times?.push(performance.now() - t)
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
        await post('api/surfaces/console/controls/jog/rotate?delta=1', jogMs)
        turns++
        await new Promise((r) => setTimeout(r, 20))
      }
    })()
    const t0 = Date.now()
    const cpu0 = cpuSeconds(pid)
    while (Date.now() - t0 < LOAD_SECONDS * 1000) {
      await new Promise((r) => setTimeout(r, SAMPLE_EVERY_S * 1000))
      samples.push({ t: Math.round((Date.now() - t0) / 1000), rss: rssOf(pid) })
    }
    const cpuShare = (cpuSeconds(pid) - cpu0) / ((Date.now() - t0) / 1000)
    running = false
    await Promise.all([pressLoop, jogLoop])
    page.close()
    await stopChild(child)

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
      `load: ${LOAD_SECONDS} s, ${presses} presses, ${turns} jog turns through the remote API, ${failures} refused; ` +
        `the daemon (simulator inside) used ${(cpuShare * 100).toFixed(1)} % of one core`,
    )
    const sorted = [...jogMs].sort((a, b) => a - b)
    console.log(
      `jog turn through the remote API, round trip (ms): median ${f(median(jogMs))}, p99 ${f(sorted[Math.floor(sorted.length * 0.99)] ?? NaN)} (node flags: ${launcherFlags(CLI).join(' ')})`,
    )
    console.log(`resident memory, MB (anonymous + file-backed): simulator alone idle ${simIdle}`)
    console.log(
      `  panelbridge run (default config, simulator inside) idle, page closed ${idleHeadless}; page open ${idlePage}`,
    )
    console.log(
      `  panelbridge run as deployed (application in its own process) idle, page closed ${deployedHeadless}; page open ${deployedOpen}`,
    )
    console.log(`load with the page open (${page.received()} messages to the page):`)
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
