/**
 * Surfaces bench: key rendering and Stream Deck write coalescing, over the real
 * `@elgato-stream-deck/core` with an in-memory HID device (the library's real JPEG encoder).
 *
 * Baseline: the bare canvas cost of the same size (fill + read back pixels), measured in the same run.
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { createCanvas } from '@napi-rs/canvas'
import { KeyRenderer } from '../src/surfaces/render/key-renderer.js'
import { StreamDeckDriver } from '../src/surfaces/streamdeck/driver.js'
import type { StreamDeckSurface } from '../src/surfaces/streamdeck/surface.js'
import type { Feedback } from '../src/surfaces/types.js'
import { MemoryStreamDeckTransport } from '../test/surfaces/helpers/fake-hid.js'
import { median } from './stats.js'

const fmt = (ms: number): string => (ms < 0.01 ? `${(ms * 1000).toFixed(2)} µs` : `${ms.toFixed(3)} ms`)

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

async function openDeck(model: DeviceModelId, frameMs?: number): Promise<{ surface: StreamDeckSurface }> {
  const transport = new MemoryStreamDeckTransport()
  transport.plug(model, `/dev/bench-${model}`, `BENCH-${model}`)
  const driver = new StreamDeckDriver({ transport, ...(frameMs !== undefined ? { frameMs } : {}) })
  const surface = await driver.open((await driver.detect())[0]!)
  return { surface }
}

export default async function (): Promise<void> {
  const rows: [string, string, string][] = []
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

  // Full redraw of an XL: 32 new images, rendered, JPEG-encoded by the library, written to the fake HID.
  {
    const { surface } = await openDeck(DeviceModelId.XL, 0)
    const times: number[] = []
    for (let round = 0; round < 15; round++) {
      const before = surface.stats.writes
      const t = performance.now()
      for (let k = 0; k < 32; k++) surface.setFeedback(`key:${k}`, feedbackFor(round * 100 + k))
      await surface.drain()
      times.push(performance.now() - t)
      if (surface.stats.writes - before !== 32) throw new Error('XL redraw did not write 32 keys')
    }
    rows.push([
      'XL full redraw (32 keys, render + JPEG + HID)',
      fmt(median(times)),
      `${fmt(median(times) / 32)} per key`,
    ])
    await surface.close()
  }

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

  const w0 = Math.max(...rows.map((r) => r[0].length))
  const w1 = Math.max(...rows.map((r) => r[1].length))
  console.log(`${'case'.padEnd(w0)} | ${'median'.padEnd(w1)} | note`)
  console.log(`${'-'.repeat(w0)}-|-${'-'.repeat(w1)}-|-----`)
  for (const [a, b, c] of rows) console.log(`${a.padEnd(w0)} | ${b.padEnd(w1)} | ${c}`)
}
