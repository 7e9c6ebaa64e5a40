/**
 * Surfaces bench: key rendering and Stream Deck write coalescing, over the real
 * `@elgato-stream-deck/core` with an in-memory HID device (the library's real JPEG encoder).
 *
 * Baselines, measured in the same run: the bare canvas cost of the same size (fill + read back pixels)
 * for rendering; for the Stream Deck rows, the path before issue 29 (each key drawn, encoded and written
 * one after another through the library's fillKeyBuffer / fillLcdRegion, nothing cached); for the jog,
 * the same jog with no paging.
 *
 * Every row runs twice: with the machine's cores, then in a child pinned to one core (`taskset -c 0`),
 * so a cost that only hurts a small box shows. Both runs are children started with the daemon's own V8
 * flags (its launcher line in `src/cli.ts`, as `own-daemon.ts` reads it): the daemon draws its keys
 * under them, and they change what a cold page costs (the optimising compiler and its helper threads,
 * the young generation's size). `npm run bench flags` runs the cold XL page under other flag sets.
 *
 * The Stream Decks draw their cold keys on the event loop and encode them with the library's
 * asynchronous encoder, as the daemon's do. Key worker threads did it off the loop until issue 41, when
 * this bench on one core and on two favoured the loop (the figures are in that change's commit).
 */
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { DEVICE_MODELS2, DeviceModelId, type StreamDeck } from '@elgato-stream-deck/core'
import { encodeJPEG } from '@elgato-stream-deck/node-lib'
import { createCanvas } from '@napi-rs/canvas'
import { KeyRenderer } from '../src/surfaces/render/key-renderer.js'
import { DeviceBytesCache } from '../src/surfaces/streamdeck/device-bytes.js'
import { installFastTransform, uninstallFastTransform } from '../src/surfaces/streamdeck/fast-transform.js'
import { StreamDeckDriver } from '../src/surfaces/streamdeck/driver.js'
import type { StreamDeckSurface } from '../src/surfaces/streamdeck/surface.js'
import type { Feedback } from '../src/face/feedback.js'
import {
  encoderRotateReport,
  MemoryStreamDeckTransport,
  type FakeHidDevice,
} from '../test/surfaces/helpers/fake-hid.js'
import { launcherFlags } from './own-daemon.js'
import type { Box } from './small-box.js'
import { median, percentile } from './stats.js'

type Row = [string, string, string]
/** Set in the children that measure (`all` cores or `one`): print the rows as JSON for the parent to merge. */
const CHILD = process.env['BENCH_SURFACES_RUN']
/** Set in a child of `coldXlPage`: it measures that alone. */
const ONLY_COLD_XL = process.env['BENCH_SURFACES_ONLY'] === 'xl-cold'
const ROWS_MARK = 'BENCH_ROWS_JSON '

const fmt = (ms: number): string => (Math.abs(ms) < 0.01 ? `${(ms * 1000).toFixed(2)} µs` : `${ms.toFixed(3)} ms`)

function timeEach(n: number, fn: (i: number) => void): number[] {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    fn(i)
    out.push(performance.now() - t)
  }
  return out
}

const labels = ['Lower third', 'Replay', 'Stream', 'Cam 1', 'Title with a rather long name', 'GO']
const colors = ['#c00000', '#00a000', '#0050ff', '#ffb000', '#202020', '#ffffff']
const feedbackFor = (i: number): Feedback => ({
  color: colors[i % colors.length],
  text: `${labels[i % labels.length]} ${i}`,
  ...(i % 3 === 0 ? { badge: 'pending' as const } : {}),
})

async function openDeck(
  model: DeviceModelId,
  frameMs?: number,
  deviceBytes = new DeviceBytesCache(),
): Promise<{ surface: StreamDeckSurface; hid: FakeHidDevice }> {
  const transport = new MemoryStreamDeckTransport()
  // A device keeps nothing it is sent (see FakeHidDevice.record): no copy of every page in the bench's heap.
  transport.onOpen = (dev) => (dev.record = false)
  transport.plug(model, `/dev/bench-${model}`, `BENCH-${model}`)
  const driver = new StreamDeckDriver({
    transport,
    deviceBytes,
    ...(frameMs !== undefined ? { frameMs } : {}),
  })
  const surface = await driver.open((await driver.detect())[0]!)
  return { surface, hid: transport.lastOpened(`/dev/bench-${model}`)! }
}

/**
 * `run` with the library's own pixel conversion, as before issue 29: the Stream Deck driver puts the
 * fast one in its place in the loop's thread too (src/surfaces/streamdeck/fast-transform.ts).
 */
function asBefore<A extends unknown[]>(run: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    uninstallFastTransform()
    try {
      await run(...args)
    } finally {
      installFastTransform()
    }
  }
}

/** The library's deck alone over an in-memory device, with the driver's encoder: the path before issue 29. */
async function openBareDeck(model: DeviceModelId): Promise<StreamDeck> {
  const transport = new MemoryStreamDeckTransport()
  transport.onOpen = (dev) => (dev.record = false)
  transport.plug(model, `/dev/bare-${model}`)
  const hid = await transport.open(`/dev/bare-${model}`)
  return DEVICE_MODELS2[model].factory(hid, { encodeJPEG: (b, w, h) => encodeJPEG(b, w, h, { quality: 95 }) })
}

export default async function (): Promise<void> {
  if (CHILD) {
    const rows = ONLY_COLD_XL ? await coldXlRows() : await measure()
    console.log(ROWS_MARK + JSON.stringify(rows))
    return
  }
  const flags = launcherFlags()
  console.log(`(each run in a child under the daemon's V8 flags: ${flags.join(' ')})`)
  const all = measureInChild('all', flags)
  if (!all) return
  const one = measureInChild('one', flags)
  printRows(
    all.map(([a, b, c]) => {
      const pinned = one?.find((r) => r[0] === a)
      return [a, `${b} | ${pinned?.[1] ?? 'n/a'}`, pinned ? `${c} ‖ 1 core: ${pinned[2]}` : c]
    }),
  )
}

/**
 * This bench's rows measured in a child under `flags`, with every core or pinned to core 0 (or in
 * `box`); undefined (said why) when the child fails. The child runs this file alone through the runner.
 */
function measureInChild(
  run: 'all' | 'one',
  flags: readonly string[],
  options: { box?: Box; env?: Record<string, string> } = {},
): Row[] | undefined {
  const node = [process.execPath, ...flags, ...process.execArgv, process.argv[1]!, 'surfaces.bench']
  const [command, ...args] = options.box
    ? (({ command, args }) => [command, ...args])(options.box.wrap(node[0]!, node.slice(1)))
    : run === 'one'
      ? ['taskset', '-c', '0', ...node]
      : node
  const child = spawnSync(command!, args, {
    env: { ...process.env, ...options.env, BENCH_SURFACES_RUN: run },
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  })
  const line = (child.stdout ?? '').split('\n').find((l) => l.startsWith(ROWS_MARK))
  if (child.status !== 0 || !line) {
    console.log(
      `(${run === 'one' ? 'one-core' : 'all-core'} run failed: ${child.error?.message ?? child.stderr?.slice(-500) ?? child.status})`,
    )
    return undefined
  }
  return JSON.parse(line.slice(ROWS_MARK.length)) as Row[]
}

function printRows(rows: Row[]): void {
  const w0 = Math.max(...rows.map((r) => r[0].length))
  const w1 = Math.max(...rows.map((r) => r[1].length), 'all cores | 1 core'.length)
  console.log(`${'case'.padEnd(w0)} | ${'all cores | 1 core'.padEnd(w1)} | note (medians)`)
  console.log(`${'-'.repeat(w0)}-|-${'-'.repeat(w1)}-|-----`)
  for (const [a, b, c] of rows) console.log(`${a.padEnd(w0)} | ${b.padEnd(w1)} | ${c}`)
}

async function measure(): Promise<Row[]> {
  const rows: Row[] = []
  const N = 300

  for (const size of [72, 96]) {
    const dims = { width: size, height: size }
    const baseline = median(
      timeEach(N, () => {
        const c = createCanvas(size, size)
        const ctx = c.getContext('2d')
        ctx.fillStyle = '#123456'
        ctx.fillRect(0, 0, size, size)
        ctx.getImageData(0, 0, size, size)
      }),
    )
    const renderer = new KeyRenderer({ cacheSize: 4 * N })
    renderer.render(feedbackFor(-1), dims) // warm the font
    const first = median(timeEach(N, (i) => renderer.render(feedbackFor(i), dims)))
    const fb = feedbackFor(7)
    renderer.render(fb, dims)
    const cached = median(timeEach(N, () => renderer.render(fb, dims)))
    rows.push([
      `render ${size}×${size}, first`,
      fmt(first),
      `${(first / baseline).toFixed(1)}× canvas baseline (${fmt(baseline)})`,
    ])
    rows.push([`render ${size}×${size}, cached`, fmt(cached), `${(first / cached).toFixed(0)}× faster than first`])
  }

  rows.push(...(await xlRows()))
  rows.push(...(await jogRows()))
  rows.push(await lcdStripRow())
  rows.push(await neoLcdRow())
  rows.push(await encodeRow())

  // 200 feedback updates/s over 15 keys for 5 s, at the default 60 fps pacing: first evenly spread, then the
  // same average rate in bursts of 40 every 200 ms (where coalescing has work to do).
  for (const pattern of ['even', 'bursts of 40'] as const) {
    const { surface } = await openDeck(DeviceModelId.ORIGINALMK2)
    const frameMs = 1000 / 60
    const start = performance.now()
    const durationMs = 5000
    // Per frame and key, the last image asked for (states cycle through 5 labels, so many repeat).
    const finalPerFrame = new Map<string, string>()
    let updates = 0
    const send = (): void => {
      const key = updates % 15
      const state = Math.floor(updates / 15) % 5
      const fb = { color: colors[state % colors.length], text: `${labels[state]}` }
      surface.setFeedback(`key:${key}`, fb)
      finalPerFrame.set(`${Math.floor((performance.now() - start) / frameMs)}:${key}`, JSON.stringify(fb))
      updates++
    }
    await new Promise<void>((resolve) => {
      const timer = setInterval(
        () => {
          const now = performance.now()
          if (now - start >= durationMs) {
            clearInterval(timer)
            resolve()
            return
          }
          // setInterval drifts: send however many updates are due so the average stays at 200/s.
          const due =
            pattern === 'even' ? Math.floor(((now - start) / 1000) * 200) - updates : Math.min(40, 1000 - updates)
          for (let i = 0; i < due; i++) send()
        },
        pattern === 'even' ? 5 : 200,
      )
    })
    await surface.drain()
    // The target's bound: for every key, frames whose final image differs from the key's previous one.
    let bound = 0
    for (let key = 0; key < 15; key++) {
      let prev = ''
      const frames = [...finalPerFrame.keys()]
        .filter((k) => k.endsWith(`:${key}`))
        .map((k) => Number(k.split(':')[0]))
        .sort((a, b) => a - b)
      for (const f of frames) {
        const img = finalPerFrame.get(`${f}:${key}`)!
        if (img !== prev) bound++
        prev = img
      }
    }
    const { writes, skipped } = surface.stats
    rows.push([
      `200 updates/s × 15 keys × 5 s, ${pattern}`,
      `${writes} writes`,
      `${updates} updates; bound ${bound} (distinct final images per key per frame); ${skipped} skipped as unchanged; ${writes <= bound ? 'MET' : 'MISSED'}`,
    ])
    await surface.close()
  }

  return rows
}

async function rounds(n: number, fn: (round: number) => Promise<void>): Promise<number> {
  const times: number[] = []
  for (let round = 0; round < n; round++) {
    const t = performance.now()
    await fn(round)
    times.push(performance.now() - t)
  }
  return median(times)
}

const XL_KEY = { width: 96, height: 96 }

/** Runs two cases in turn, `n` rounds each, one round of each after the other; their medians. */
async function alternate(
  n: number,
  [a, b]: [(round: number) => Promise<void>, (round: number) => Promise<void>],
): Promise<[number, number]> {
  const [ma, mb] = await alternateAll(n, [a, b])
  return [ma!, mb!]
}

/** Each case in its own block: one round not counted, then `n` rounds one after another; their medians. */
async function inBlocks(n: number, cases: ((round: number) => Promise<void>)[]): Promise<number[]> {
  const out: number[] = []
  for (const run of cases) {
    await run(-1)
    out.push(await rounds(n, run))
  }
  return out
}

/** `alternate` for any number of cases. */
async function alternateAll(n: number, cases: ((round: number) => Promise<void>)[]): Promise<number[]> {
  const times = cases.map((): number[] => [])
  for (let round = 0; round < n; round++) {
    for (const [i, run] of cases.entries()) {
      const t = performance.now()
      await run(round)
      times[i]!.push(performance.now() - t)
    }
  }
  return times.map(median)
}

/**
 * A Stream Deck Neo's LCD (248×58), drawn and written on the loop (the library has no way to prepare it
 * elsewhere): the update and the loop's longest hold, against the same with the library's own pixel
 * conversion (before the driver installed the fast one in the loop's thread).
 */
async function neoLcdRow(): Promise<Row> {
  const { surface } = await openDeck(DeviceModelId.NEO, 0)
  const update = async (): Promise<void> => {
    surface.setFeedback('lcd:0', feedbackFor(freshPage()))
    await surface.drain()
  }
  await update()
  const held = { now: [] as number[], before: [] as number[] }
  // The loop's longest hold: the widest gap between turns, seen by an immediate set again each turn.
  const timed = (into: number[]) => async (): Promise<void> => {
    let last = performance.now()
    let widest = 0
    let ticking = true
    const tick = (): void => {
      const now = performance.now()
      widest = Math.max(widest, now - last)
      last = now
      if (ticking) setImmediate(tick)
    }
    setImmediate(tick)
    await update()
    ticking = false
    await new Promise((resolve) => setImmediate(resolve))
    into.push(widest)
  }
  const [before, now] = await alternate(15, [asBefore(timed(held.before)), timed(held.now)])
  await surface.close()
  return [
    'Stream Deck Neo LCD update, on the loop',
    fmt(now),
    `248×58, the loop held at most ${fmt(median(held.now))} (median of rounds); with the library's own pixel conversion ${fmt(before)}, held ${fmt(median(held.before))}`,
  ]
}

/** One 96×96 key encoded by the library's encoder (jpeg-turbo's async compress) and by jpeg-turbo's sync call. */
async function encodeRow(): Promise<Row> {
  const renderer = new KeyRenderer()
  const key = renderer.render(feedbackFor(7), XL_KEY)
  const asyncMs = await rounds(64, async () => {
    await encodeJPEG(key.rgba, 96, 96, { quality: 95 })
  })
  // jpeg-turbo is the library's optional dependency, reached from where the library finds it.
  const turbo = createRequire(createRequire(import.meta.url).resolve('@elgato-stream-deck/node-lib'))(
    '@julusian/jpeg-turbo',
  ) as { compressSync: (b: Buffer, o: object) => Buffer; FORMAT_RGBA: number }
  const raw = Buffer.from(key.rgba.buffer, key.rgba.byteOffset, key.rgba.byteLength)
  const syncMs = await rounds(64, () => {
    turbo.compressSync(raw, { format: turbo.FORMAT_RGBA, width: 96, height: 96, quality: 95 })
    return Promise.resolve()
  })
  return [
    'JPEG 96×96 q95, async (library)',
    fmt(asyncMs),
    `jpeg-turbo's compressSync on the loop ${fmt(syncMs)}: the thread hop costs ${(asyncMs / syncMs).toFixed(0)}× the encode`,
  ]
}
/** Face numbers never used before in this run: cold for the renderer and the device bytes cache. */
let freshFaces = 100_000
const freshPage = (): number => (freshFaces += 100)

/**
 * A cold XL page (32 keys never drawn before, drawn and written: the `XL full redraw, cold` row alone),
 * in a child under `flags` in `box`, for flags.bench: with the driver's pixel conversion and with the
 * library's own (`fast-transform.ts` weighed under those flags). Medians, ms; NaN when the child failed.
 */
export function coldXlPage(flags: readonly string[], box?: Box): { fast: number; library: number } {
  const rows = measureInChild('all', flags, { ...(box ? { box } : {}), env: { BENCH_SURFACES_ONLY: 'xl-cold' } })
  const ms = (name: string): number => Number(rows?.find((r) => r[0] === name)?.[1] ?? NaN)
  return { fast: ms(COLD_XL.fast), library: ms(COLD_XL.library) }
}

const COLD_XL = { fast: 'cold XL page', library: 'cold XL page, library conversion' } as const

/** `coldXlPage`'s child: both conversions in blocks of rounds (as `xlRows`), the figures in ms, unformatted. */
async function coldXlRows(): Promise<Row[]> {
  const { surface } = await openDeck(DeviceModelId.XL, 0)
  const showPage = async (base: number): Promise<void> => {
    for (let k = 0; k < 32; k++) surface.setFeedback(`key:${k}`, feedbackFor(base + k))
    await surface.drain()
  }
  await showPage(freshPage())
  const n = process.env.BENCH_QUICK === '1' ? 5 : 15
  const [fast = NaN, library = NaN] = await inBlocks(n, [
    () => showPage(freshPage()),
    asBefore(() => showPage(freshPage())),
  ])
  await surface.close()
  return [
    [COLD_XL.fast, String(fast), ''],
    [COLD_XL.library, String(library), ''],
  ]
}

/** Full redraws and page switches of an XL: this path against the one before issue 29, in the same run. */
async function xlRows(): Promise<Row[]> {
  const bare = await openBareDeck(DeviceModelId.XL)
  const renderer = new KeyRenderer()
  renderer.render(feedbackFor(-1), XL_KEY) // warm the font
  const serialPage = asBefore(async (base: number): Promise<void> => {
    for (let k = 0; k < 32; k++) {
      await bare.fillKeyBuffer(k, renderer.render(feedbackFor(base + k), XL_KEY).rgba, { format: 'rgba' })
    }
  })
  const { surface } = await openDeck(DeviceModelId.XL, 0)
  const pageOn =
    (deck: StreamDeckSurface) =>
    async (base: number): Promise<void> => {
      const before = deck.stats.writes
      for (let k = 0; k < 32; k++) deck.setFeedback(`key:${k}`, feedbackFor(base + k))
      await deck.drain()
      if (deck.stats.writes - before !== 32) throw new Error('XL redraw did not write 32 keys')
    }
  const showPage = pageOn(surface)
  await showPage(freshPage())
  // Each path in its own block of rounds, pages one after another (the first of each block not counted).
  // Taking turns round by round, as the other rows do, put every cold page right after the old paths'
  // work on the loop alone, with the other core idle, and a core woken from idle (a VM's, at least)
  // does the same work slower for its first few milliseconds, which the cold page then measured.
  // That wake-up is real on a box whose cores sleep, so it has its own row (cold after idle).
  const [oldCold = NaN, cold = NaN] = await inBlocks(15, [() => serialPage(freshPage()), () => showPage(freshPage())])
  const afterIdle: number[] = []
  for (let round = 0; round < 15; round++) {
    await new Promise((resolve) => setTimeout(resolve, 150))
    const t = performance.now()
    await showPage(freshPage())
    afterIdle.push(performance.now() - t)
  }
  const seenPages = [freshPage(), freshPage()]
  for (const p of seenPages) {
    await serialPage(p)
    await showPage(p)
  }
  const [oldSeen, seen] = await alternate(15, [
    (round) => serialPage(seenPages[round % 2]!),
    (round) => showPage(seenPages[round % 2]!),
  ])
  // The library's whole-panel write: one panel image, its keys encoded side by side, one sendReports.
  const panel = new Uint8Array(8 * 96 * 4 * 96 * 4)
  const [wholePanel, coldAgain] = await alternate(15, [
    async () => {
      const base = freshPage()
      for (let k = 0; k < 32; k++) {
        const key = renderer.render(feedbackFor(base + k), XL_KEY).rgba
        const [row, col] = [Math.floor(k / 8), k % 8]
        for (let y = 0; y < 96; y++) {
          panel.set(key.subarray(y * 96 * 4, (y + 1) * 96 * 4), ((row * 96 + y) * 8 * 96 + col * 96) * 4)
        }
      }
      await bare.fillPanelBuffer(panel, { format: 'rgba' })
    },
    () => showPage(freshPage()),
  ])
  await bare.close()
  await surface.close()
  return [
    [
      'XL full redraw, cold',
      fmt(cold),
      `${fmt(cold / 32)} per key, drawn on the event loop; before issue 29 (one key after another, fillKeyBuffer) ${fmt(oldCold)}: ${(oldCold / cold).toFixed(1)}× faster`,
    ],
    [
      'XL full redraw, cold, after 150 ms idle',
      fmt(median(afterIdle)),
      `the cold redraw above, each page after 150 ms with nothing to do (the cores' wake-up; ${fmt(median(afterIdle) - cold)} over back to back)`,
    ],
    [
      'XL page switch, seen page',
      fmt(seen),
      `cached device bytes; before issue 29 (drawing cached, encoded again) ${fmt(oldSeen)}: ${(oldSeen / seen).toFixed(0)}× faster`,
    ],
    [
      'XL full redraw, whole panel (fillPanelBuffer)',
      fmt(wholePanel),
      `the library's one-write panel fill on the loop (the driver's pixel conversion), for comparison: ${(wholePanel / coldAgain).toFixed(2)}× the per-key cold redraw (${fmt(coldAgain)} in the same rounds)`,
    ],
  ]
}

/**
 * Jog lag: a Stream Deck+ encoder turned 2,000 steps a second (input reports through the real library),
 * each step's lag from when it was due to when its event reached a listener, while an XL on the same
 * loop switches between four pages every 100 ms (or not at all).
 */
async function jog(paging: boolean, cacheBytes?: number): Promise<{ p50: number; p99: number; steps: number }> {
  const plus = await openDeck(DeviceModelId.PLUS)
  const xl = paging ? await openDeck(DeviceModelId.XL, undefined, new DeviceBytesCache(cacheBytes)) : undefined
  const pages = [freshPage(), freshPage(), freshPage(), freshPage()]
  // The pages are shown once before the jog starts: paging goes between pages seen before (the cold
  // first showing is the redraw rows' subject; with no cache every switch is cold, see jogRows).
  for (const base of xl ? pages : []) {
    for (let k = 0; k < 32; k++) xl?.surface.setFeedback(`key:${k}`, feedbackFor(base + k))
    await xl?.surface.drain()
  }
  const lags: number[] = []
  let due = 0
  plus.surface.events.on('input', (e) => {
    if (e.type === 'rotate') lags.push(performance.now() - due)
  })
  const start = performance.now()
  const durationMs = 3000
  let sent = 0
  let page = 0
  const pager = xl
    ? setInterval(() => {
        const base = pages[page++ % pages.length]!
        for (let k = 0; k < 32; k++) xl.surface.setFeedback(`key:${k}`, feedbackFor(base + k))
      }, 100)
    : undefined
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now()
      const target = Math.floor((Math.min(now, start + durationMs) - start) * 2)
      for (; sent < target; sent++) {
        due = start + sent / 2
        plus.hid.input(encoderRotateReport([1]))
      }
      if (now - start >= durationMs) {
        clearInterval(timer)
        resolve()
      }
    }, 1)
  })
  clearInterval(pager)
  if (lags.length !== sent) throw new Error(`jog: ${sent} steps sent, ${lags.length} received`)
  await xl?.surface.close()
  await plus.surface.close()
  return { p50: median(lags), p99: percentile(lags, 99), steps: sent }
}

async function jogRows(): Promise<Row[]> {
  const quiet = await jog(false)
  const paging = await jog(true)
  const uncached = await jog(true, 0)
  const pq = (j: { p50: number; p99: number }): string => `p50 ${fmt(j.p50)} / p99 ${fmt(j.p99)}`
  return [
    [
      'jog lag while paging',
      pq(paging),
      `2,000 steps/s, XL page every 100 ms over 4 pages seen before; no paging ${pq(quiet)} (p99 ${paging.p99 >= quiet.p99 ? '+' : '−'}${fmt(Math.abs(paging.p99 - quiet.p99))}); paging with no device bytes cache ${pq(uncached)}`,
    ],
  ]
}

/** The Stream Deck+ strip: four new 200×100 segments, against the strip's regions written one by one before. */
async function lcdStripRow(): Promise<Row> {
  const seg = { width: 200, height: 100 }
  const bare = await openBareDeck(DeviceModelId.PLUS)
  const renderer = new KeyRenderer()
  renderer.render(feedbackFor(-1), seg)
  const { surface } = await openDeck(DeviceModelId.PLUS, 0)
  surface.setFeedback('lcd:0', feedbackFor(-1))
  await surface.drain()
  const [old, now] = await alternate(15, [
    asBefore(async () => {
      const base = freshPage()
      for (let i = 0; i < 4; i++) {
        const img = renderer.render(feedbackFor(base + i), seg)
        await bare.fillLcdRegion(0, i * 200, 0, img.rgba, { format: 'rgba', width: 200, height: 100 })
      }
    }),
    async () => {
      const base = freshPage()
      for (let i = 0; i < 4; i++) surface.setFeedback(`lcd:${i}`, feedbackFor(base + i))
      await surface.drain()
    },
  ])
  await bare.close()
  await surface.close()
  return [
    'Stream Deck+ LCD strip full update',
    fmt(now),
    `4 new 200×100 segments; before issue 29 (one region after another) ${fmt(old)}: ${(old / now).toFixed(1)}× faster`,
  ]
}
