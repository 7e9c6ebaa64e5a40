/**
 * Notification link benchmark (issue 3):
 *
 * 1. Latency from a notification leaving the simulator to the store's `title` event, at 500
 *    notifications/s for ~5 s, against a baseline measured in the same run: the same notifications
 *    seen by a bare QWebChannel client (transport only). Target: p99 under 5 ms, and no growth in
 *    pending work (store batches, pending calls, heap) between start and end.
 * 2. Time from the simulator's return to a resynchronised store, after a 10 s outage. Target: < 2 s.
 *
 * Each figure is the median over RUNS runs. `BENCH_QUICK=1` shortens everything (for a smoke test).
 */
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { AppState } from '../src/api/app-state.js'
import { NotificationLink } from '../src/api/notifications.js'
import { QWebChannelClient } from '../src/api/qwebchannel.js'
import { setLogLevel } from '../src/log.js'
import { startSimulator, type SimulatorHandle } from '../src/app-kit/simulator/index.js'
import { median, percentile } from './stats.js'

const QUICK = process.env.BENCH_QUICK === '1'
const RUNS = QUICK ? 1 : 3
const RATE_PER_S = 500
const LOAD_MS = QUICK ? 1000 : 5000
const OUTAGE_MS = QUICK ? 1000 : 10_000

const out = (line: string): void => void process.stdout.write(line + '\n')

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > until) throw new Error('bench: timed out')
    await sleep(1)
  }
}

// A collection before each heap reading, so that start and end compare live memory, not garbage.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as (() => void) | undefined

function heapMb(): number {
  gc?.()
  return process.memoryUsage().heapUsed / 1024 / 1024
}

interface LoadResult {
  storeP50: number
  storeP99: number
  rawP50: number
  rawP99: number
  sent: number
  events: number
  pendingStart: string
  pendingEnd: string
  heapStart: number
  heapEnd: number
}

async function connectedLink(sim: SimulatorHandle): Promise<{ store: AppState; link: NotificationLink }> {
  const store = new AppState()
  const link = new NotificationLink({ url: sim.wsUrl, state: store })
  link.start()
  await waitFor(() => store.link.status === 'connected', 5000)
  return { store, link }
}

async function loadRun(): Promise<LoadResult> {
  const sim = await startSimulator()
  const { store, link } = await connectedLink(sim)
  const raw = new QWebChannelClient({ url: sim.wsUrl })
  await raw.connect()
  raw.connectSignal('scheduler', 'onNotify')
  await raw.invoke('scheduler', 'notifyClientConnected', ['bench', '1', {}])

  const ids = store.titles().map((t) => t.id)
  const sentAt = new Map<number, number>()
  /** Per title, sequence numbers sent and not yet seen in a store event. */
  const open = new Map<string, number[]>()
  const storeLat: number[] = []
  const rawLat: number[] = []
  let events = 0

  raw.on('signal', (e) => {
    const now = performance.now()
    const n = JSON.parse(e.args[0] as string) as { variables: { value: string }[] }
    const seq = Number(n.variables[0]!.value)
    const t = sentAt.get(seq)
    if (t !== undefined) rawLat.push(now - t)
  })
  store.on('title', (e) => {
    const now = performance.now()
    events++
    const v = e.changes.variables?.Seq
    if (v === undefined) return
    const seq = Number(v)
    // A batched event stands for every earlier notification of that title it superseded.
    const waiting = open.get(e.id) ?? []
    while (waiting.length > 0 && waiting[0]! <= seq) {
      const s = waiting.shift()!
      storeLat.push(now - sentAt.get(s)!)
      sentAt.delete(s)
    }
  })

  const pending = () => `store ${store.pendingCount}, calls ${link.pendingCalls}, unseen ${sentAt.size}`
  // Warm up (JIT, sockets), then measure.
  let seq = 0
  const emit = () => {
    const id = ids[seq % ids.length]!
    const s = seq++
    ;(open.get(id) ?? open.set(id, []).get(id)!).push(s)
    sentAt.set(s, performance.now())
    sim.state.notifications.emit('notify', { event: 'data', id, variables: [{ name: 'Seq', value: String(s) }] })
  }
  for (let i = 0; i < 200; i++) {
    emit()
    await sleep(1)
  }
  await sleep(50)
  storeLat.length = 0
  rawLat.length = 0
  events = 0
  const pendingStart = pending()
  const heapStart = heapMb()
  const first = seq

  const start = performance.now()
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = performance.now() - start
      const due = Math.min(Math.floor((elapsed * RATE_PER_S) / 1000), (LOAD_MS * RATE_PER_S) / 1000)
      while (seq - first < due) emit()
      if (elapsed >= LOAD_MS) {
        clearInterval(timer)
        resolve()
      }
    }, 1)
  })
  await sleep(100)
  const result: LoadResult = {
    storeP50: percentile(storeLat, 50),
    storeP99: percentile(storeLat, 99),
    rawP50: percentile(rawLat, 50),
    rawP99: percentile(rawLat, 99),
    sent: seq - first,
    events,
    pendingStart,
    pendingEnd: pending(),
    heapStart,
    heapEnd: heapMb(),
  }
  raw.close()
  link.stop()
  await sim.close()
  return result
}

async function outageRun(): Promise<number> {
  const sim = await startSimulator()
  const { store, link } = await connectedLink(sim)
  await sim.ws.stop()
  await waitFor(() => store.link.status === 'stale', 5000)
  await sleep(OUTAGE_MS)
  // The application comes back with its methods in another order, and one title changed meanwhile.
  await fetch(`${sim.httpUrl}/api/command/schedule?action=cutin&title=Lower%20Third`)
  sim.ws.setShuffle(true)
  const t0 = performance.now()
  await sim.ws.start()
  await waitFor(() => store.link.status === 'connected', 10_000)
  const took = performance.now() - t0
  if (store.titleByName('Lower Third')?.play !== 'Paused') throw new Error('bench: store not resynchronised')
  link.stop()
  await sim.close()
  return took
}

export default async function (): Promise<void> {
  setLogLevel('error')
  const loads: LoadResult[] = []
  for (let i = 0; i < RUNS; i++) loads.push(await loadRun())
  const outages: number[] = []
  for (let i = 0; i < RUNS; i++) outages.push(await outageRun())

  const m = (f: (r: LoadResult) => number) => median(loads.map(f)).toFixed(2)
  out(`notification latency at ${RATE_PER_S}/s for ${LOAD_MS / 1000} s, median of ${RUNS} runs`)
  out('| measure                                   | p50 ms | p99 ms | target        |')
  out('| ----------------------------------------- | ------ | ------ | ------------- |')
  out(
    `| baseline: bare QWebChannel client signal  | ${m((r) => r.rawP50).padStart(6)} | ${m((r) => r.rawP99).padStart(6)} |               |`,
  )
  out(
    `| notification -> store 'title' event       | ${m((r) => r.storeP50).padStart(6)} | ${m((r) => r.storeP99).padStart(6)} | p99 < 5 ms    |`,
  )
  out('')
  out(
    '| run | sent | store events | pending at start               | pending at end                 | heap MB start -> end |',
  )
  out(
    '| --- | ---- | ------------ | ------------------------------ | ------------------------------ | -------------------- |',
  )
  loads.forEach((r, i) =>
    out(
      `| ${i + 1}   | ${String(r.sent).padStart(4)} | ${String(r.events).padStart(12)} | ${r.pendingStart.padEnd(30)} | ${r.pendingEnd.padEnd(30)} | ${r.heapStart.toFixed(1)} -> ${r.heapEnd.toFixed(1)} |`,
    ),
  )
  out('')
  out(`resynchronised store after a ${OUTAGE_MS / 1000} s outage (simulator back, methods shuffled)`)
  out('| measure                                   | median ms | runs (ms)              | target  |')
  out('| ----------------------------------------- | --------- | ---------------------- | ------- |')
  out(
    `| simulator back -> store connected         | ${median(outages).toFixed(0).padStart(9)} | ${outages
      .map((x) => x.toFixed(0))
      .join(', ')
      .padEnd(22)} | < 2000  |`,
  )
}
