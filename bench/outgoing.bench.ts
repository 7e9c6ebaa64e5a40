/**
 * `npm run bench outgoing` (issue 46, item 2): a network Stream Deck that floods keepalives and never
 * reads what it is sent. The daemon's side is the real link (`DeckLink` over a TCP socket on loopback);
 * the deck is a server in this process that writes legacy keepalives as fast as its socket takes them
 * and never reads. Reported: resident memory before, at its peak while the deck floods, and after the
 * link dropped the deck (after a collection), and how long the drop took. Target: RSS back within 5 MB
 * of before once the deck is dropped.
 *
 * Then HTTP pipelines: a daemon in this process (the simulator, a web surface, no hardware), PEERS
 * connections each writing PIPELINED `GET /api/status` requests at once and never reading. Reported:
 * the longest `/api/status` answer on a fresh connection, asked every 20 ms while they flood, and the
 * resident memory at its peak and after they are gone.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Daemon } from '../src/daemon/daemon.js'
import { createLogger, setLogSink } from '../src/log.js'
import { DeckLink, NET_DECK_LINK } from '../src/surfaces/streamdeck-net/link.js'
import { tcpTransport } from '../src/surfaces/streamdeck-net/socket.js'
import { median } from './stats.js'

const RUNS = process.env.BENCH_QUICK === '1' ? 1 : 3
const TARGET_BACK_MB = 5
/** How long the deck floods at most, ms (the link drops it long before, or the row says it did not). */
const FLOOD_MS = 8000

const PEERS = 20
const PIPELINED = 2000

const rssMb = (): number => process.memoryUsage().rss / 2 ** 20
const gc = (): void => (globalThis as { gc?: () => void }).gc?.()

async function once(): Promise<{ before: number; peak: number; after: number; dropMs: number | undefined }> {
  const server = createServer((deck: Socket) => {
    deck.pause()
    deck.on('error', () => undefined)
    const keepalive = Buffer.alloc(NET_DECK_LINK.legacyPacket)
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

/** Pipelining peers that never read, while a fresh client asks for the status. */
async function pipelines(): Promise<{ longestMs: number; peak: number; after: number; before: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-bench-outgoing-'))
  const file = join(dir, 'config.yaml')
  await writeFile(
    file,
    'version: 1\napp: { url: http://127.0.0.1:0, simulate: true }\nlisten: { host: 127.0.0.1, port: 0 }\n' +
      'surfaces:\n  desk: { driver: web, rows: 1, columns: 2 }\nbindings:\n  - on: desk/key:0\n    label: "K"\n',
  )
  const daemon = await Daemon.start({ config: file, drivers: [], watch: false })
  try {
    const { port } = new URL(daemon.url)
    gc()
    const before = rssMb()
    let peak = before
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 10)
    let longestMs = 0
    let asking = true
    const ask = (async () => {
      while (asking) {
        const t = performance.now()
        await fetch(new URL('/api/status', daemon.url)).then((r) => r.arrayBuffer())
        longestMs = Math.max(longestMs, performance.now() - t)
        await new Promise((r) => setTimeout(r, 20))
      }
    })()
    const request = `GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`.repeat(PIPELINED)
    const peers = await Promise.all(
      Array.from(
        { length: PEERS },
        () =>
          new Promise<Socket>((resolve) => {
            const socket = connect(Number(port), '127.0.0.1', () => resolve(socket))
            socket.on('error', () => undefined)
          }),
      ),
    )
    for (const p of peers) {
      p.pause()
      p.write(request)
    }
    // Until each is dropped, or for as long as the bound would have taken to act had it not.
    const end = performance.now() + 5000
    while (peers.some((p) => !p.destroyed && !p.readableEnded) && performance.now() < end) {
      await new Promise((r) => setTimeout(r, 50))
      for (const p of peers) if (p.closed) p.destroy()
    }
    for (const p of peers) p.destroy()
    asking = false
    await ask
    clearInterval(sampler)
    for (let i = 0; i < 3; i++) {
      gc()
      await new Promise((r) => setTimeout(r, 50))
    }
    return { longestMs, peak, after: rssMb(), before }
  } finally {
    await daemon.stop()
    await rm(dir, { recursive: true, force: true })
  }
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
  const pipes: Awaited<ReturnType<typeof pipelines>>[] = []
  const quiet = setLogSink(() => undefined)
  try {
    for (let i = 0; i < RUNS; i++) pipes.push(await pipelines())
  } finally {
    setLogSink(quiet)
  }
  const pm = (f: (r: (typeof pipes)[number]) => number): string => median(pipes.map(f)).toFixed(1)
  console.log(`row | longest status answer ms | RSS before MB | RSS peak MB | RSS after MB  (median of ${RUNS})`)
  console.log(
    `${PEERS} × ${PIPELINED} pipelined requests, never read | ${pm((r) => r.longestMs)} | ${pm((r) => r.before)} | ` +
      `${pm((r) => r.peak)} | ${pm((r) => r.after)}`,
  )
  const back = median(runs.map((r) => r.after - r.before))
  console.log(
    `verdict: RSS after the drop ${back.toFixed(1)} MB over before (target < ${TARGET_BACK_MB}): ` +
      `${back < TARGET_BACK_MB ? 'PASS' : 'FAIL'}`,
  )
}
