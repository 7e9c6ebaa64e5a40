/**
 * `npm run bench outgoing` (issue 46, item 2): a network Stream Deck that floods keepalives and never
 * reads what it is sent. The daemon's side is the real link (`DeckLink` over a TCP socket on loopback);
 * the deck is a server in this process that writes legacy keepalives as fast as its socket takes them
 * and never reads. Reported: resident memory before, at its peak while the deck floods, and after the
 * link dropped the deck (after a collection), and how long the drop took. Target: RSS back within 5 MB
 * of before once the deck is dropped.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { createLogger, setLogSink } from '../src/log.js'
import { DeckLink, LEGACY_PACKET } from '../src/surfaces/streamdeck-net/link.js'
import { tcpTransport } from '../src/surfaces/streamdeck-net/socket.js'
import { median } from './stats.js'

const RUNS = process.env.BENCH_QUICK === '1' ? 1 : 3
const TARGET_BACK_MB = 5
/** How long the deck floods at most, ms (the link drops it long before, or the row says it did not). */
const FLOOD_MS = 8000

const rssMb = (): number => process.memoryUsage().rss / 2 ** 20
const gc = (): void => (globalThis as { gc?: () => void }).gc?.()

async function once(): Promise<{ before: number; peak: number; after: number; dropMs: number | undefined }> {
  const server = createServer((deck: Socket) => {
    deck.pause()
    deck.on('error', () => undefined)
    const keepalive = Buffer.alloc(LEGACY_PACKET)
    keepalive.set([1, 10])
    const flood = Buffer.concat(Array.from({ length: 1024 }, () => keepalive))
    const more = (): void => {
      while (!deck.destroyed && deck.write(flood));
      if (!deck.destroyed) deck.once('drain', more)
    }
    more()
    setTimeout(() => deck.destroy(), FLOOD_MS).unref()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  gc()
  const before = rssMb()
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 10)
  const t0 = performance.now()
  let dropMs: number | undefined
  await new Promise<void>((resolve) => {
    const link = new DeckLink(tcpTransport.connect('127.0.0.1', port), '127.0.0.1', port, createLogger('bench'))
    link.once('disconnected', () => {
      dropMs = performance.now() - t0
      resolve()
    })
  })
  clearInterval(sampler)
  await new Promise<void>((resolve) => server.close(() => resolve()))
  for (let i = 0; i < 3; i++) {
    gc()
    await new Promise((r) => setTimeout(r, 50))
  }
  return { before, peak: Math.max(peak, rssMb()), after: rssMb(), dropMs }
}

export default async function bench(): Promise<void> {
  const restore = setLogSink(() => undefined)
  const runs: Awaited<ReturnType<typeof once>>[] = []
  try {
    for (let i = 0; i < RUNS; i++) runs.push(await once())
  } finally {
    setLogSink(restore)
  }
  const m = (f: (r: (typeof runs)[number]) => number): string => median(runs.map(f)).toFixed(1)
  console.log(`row | RSS before MB | RSS peak MB | RSS after drop MB | drop after ms  (median of ${RUNS})`)
  console.log(
    `network deck flooding keepalives, never reading | ${m((r) => r.before)} | ${m((r) => r.peak)} | ` +
      `${m((r) => r.after)} | ${m((r) => r.dropMs ?? NaN)}`,
  )
  const back = median(runs.map((r) => r.after - r.before))
  console.log(
    `verdict: RSS after the drop ${back.toFixed(1)} MB over before (target < ${TARGET_BACK_MB}): ` +
      `${back < TARGET_BACK_MB ? 'PASS' : 'FAIL'}`,
  )
}
