/**
 * Issue 29: key images drawn and encoded on worker threads. What a worker makes is what the surface
 * makes on its own loop, byte for byte (the same renderer, the library's model code, the same JPEG
 * encoder), so worker-made, fresh and cached bytes decode to the same image; the surface's own
 * renderer draws nothing while the workers paint; a pool that fails leaves the keys drawn on the loop.
 * Over the real library with the in-memory HID device (the only fake).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { getPriority } from 'node:os'
import { Worker } from 'node:worker_threads'
import { DeviceModelId } from '@elgato-stream-deck/core'
import { Jimp } from 'jimp'
import { describe, expect, it, onTestFinished } from 'vitest'
import { KeyRenderer } from '../../../src/surfaces/render/key-renderer.js'
import { DeviceBytesCache } from '../../../src/surfaces/streamdeck/device-bytes.js'
import { StreamDeckDriver } from '../../../src/surfaces/streamdeck/driver.js'
import {
  KEY_WORKER_NICENESS,
  KeyWorkers,
  type KeyWorkersOptions,
} from '../../../src/surfaces/streamdeck/key-workers.js'
import type { StreamDeckSurface } from '../../../src/surfaces/streamdeck/surface.js'
import type { Feedback } from '../../../src/face/feedback.js'
import { MemoryStreamDeckTransport, type FakeHidDevice } from '../helpers/fake-hid.js'

/** Worker threads start under tsx here (a few seconds on a loaded machine). */
const SLOW = 60_000

/** A small picture of its own (a gradient), as a binding's pre-rendered image. */
function gradient(size: number): NonNullable<Feedback['image']> {
  const rgba = new Uint8Array(size * size * 4)
  for (let i = 0; i < size * size; i++) rgba.set([(i * 7) % 256, (i >> 3) % 256, 128, 255], i * 4)
  return { width: size, height: size, rgba }
}

/** Faces of every kind the painter has: text, badges, detail, a level bar, an image scaled to the key. */
const faces: Feedback[] = [
  { color: '#c00000', text: 'Lower third', badge: 'pending' },
  { color: '#0050ff', text: 'Cam 2', detail: 'no signal', badge: 'failed' },
  { color: '#ffffff', text: 'Fader', value: 0.4 },
  { image: gradient(48), detail: 'image' },
  { color: '#202020', text: 'Title with a rather long name that wraps' },
]
const face = (n: number): Feedback => ({
  ...faces[n % faces.length]!,
  ...(n >= faces.length ? { text: `Face ${n}` } : {}),
})

/** Faces the renderer was asked for (drawn, or taken from its cache): on this thread. */
const drawn = (renderer: KeyRenderer): number => renderer.stats.hits + renderer.stats.misses

function pool(opts: KeyWorkersOptions = {}): KeyWorkers {
  const workers = new KeyWorkers({ size: 2, ...opts })
  onTestFinished(() => workers.close())
  return workers
}

async function openDeck(
  model: DeviceModelId,
  workers?: KeyWorkers,
): Promise<{ surface: StreamDeckSurface; hid: FakeHidDevice; renderer: KeyRenderer; cache: DeviceBytesCache }> {
  const transport = new MemoryStreamDeckTransport()
  const listing = transport.plug(model, `/dev/hidraw-${model}`, `SN-${model}`)
  const renderer = new KeyRenderer()
  const cache = new DeviceBytesCache()
  const driver = new StreamDeckDriver({
    transport,
    renderer,
    frameMs: 0,
    deviceBytes: cache,
    ...(workers ? { workers } : {}),
  })
  const surface = await driver.open((await driver.detect())[0]!)
  onTestFinished(() => surface.close())
  return { surface, hid: transport.lastOpened(listing.path)!, renderer, cache }
}

/** A deck that paints through `workers` and one of the same model that paints on its own loop. */
async function twoDecks(model: DeviceModelId, workers = pool()) {
  return { workers, off: await openDeck(model, workers), here: await openDeck(model) }
}

async function showPage(surface: StreamDeckSurface, page: number, keys = 32): Promise<void> {
  for (let k = 0; k < keys; k++) surface.setFeedback(`key:${k}`, face(page * keys + k))
  await surface.drain()
}

/** Every write's reports, one buffer a write, sorted (the writes of one frame go out as each is ready). */
const writes = (hid: FakeHidDevice, from = 0): Buffer[] =>
  hid.reports
    .slice(from)
    .map((reports) => Buffer.concat(reports))
    .sort((a, b) => Buffer.compare(a, b))

/** The JPEG of one XL key write (reports 02 07 key last lenLE pageLE, data from byte 8). */
const jpegOf = (reports: Uint8Array[]): Buffer =>
  Buffer.concat(
    reports.filter((r) => r[0] === 0x02 && r[1] === 0x07).map((r) => r.subarray(8, 8 + (r[4]! | (r[5]! << 8)))),
  )

describe('key workers', () => {
  it(
    'make the same reports as the loop for a whole XL page, and the loop draws none of it',
    { timeout: SLOW },
    async () => {
      const { workers, off, here } = await twoDecks(DeviceModelId.XL)
      await showPage(off.surface, 0)
      await showPage(here.surface, 0)
      expect(off.surface.stats.writes).toBe(32)
      expect(workers.stats.made).toBe(32)
      expect(drawn(off.renderer)).toBe(0)
      expect(drawn(here.renderer)).toBe(32)
      const [a, b] = [writes(off.hid), writes(here.hid)]
      expect(a).toHaveLength(32)
      for (let i = 0; i < 32; i++) expect(a[i]!.equals(b[i]!), `write ${i}`).toBe(true)
      expect(workers.running).toBeGreaterThan(0)
      expect(workers.running).toBeLessThanOrEqual(2)
    },
  )

  it(
    'worker-made, fresh and cached bytes decode to the same image (real JPEG encoder and decoder)',
    { timeout: SLOW },
    async () => {
      const { workers, off, here } = await twoDecks(DeviceModelId.XL)
      for (const fb of [face(3), face(1), face(3)]) {
        off.surface.setFeedback('key:5', fb)
        await off.surface.drain()
      }
      here.surface.setFeedback('key:5', face(3))
      await here.surface.drain()
      expect(off.cache.stats.hits).toBe(1)
      expect(workers.stats.made).toBe(2)
      const [made, other, cached] = off.hid.reports.map(jpegOf)
      const fresh = jpegOf(here.hid.reports[0]!)
      expect(made!.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]))
      const decode = async (b: Buffer): Promise<Buffer> => (await Jimp.read(b)).bitmap.data
      const [m, c, f, o] = await Promise.all([decode(made!), decode(cached!), decode(fresh), decode(other!)])
      expect(m.length).toBe(96 * 96 * 4)
      expect(c.equals(m)).toBe(true)
      expect(f.equals(m)).toBe(true)
      expect(o.equals(m)).toBe(false)
    },
  )

  it("make the Stream Deck +'s strip segments as the loop does", { timeout: SLOW }, async () => {
    const { workers, off, here } = await twoDecks(DeviceModelId.PLUS)
    for (const deck of [off, here]) {
      for (let s = 0; s < 4; s++) deck.surface.setFeedback(`lcd:${s}`, face(s))
      await deck.surface.drain()
    }
    expect(workers.stats.made).toBe(4)
    expect(drawn(off.renderer)).toBe(0)
    const [a, b] = [writes(off.hid), writes(here.hid)]
    expect(a).toHaveLength(4)
    for (let i = 0; i < 4; i++) expect(a[i]!.equals(b[i]!), `segment write ${i}`).toBe(true)
  })

  it('a pool whose worker fails leaves the keys drawn on the loop, the same images', { timeout: SLOW }, async () => {
    const workers = pool({ start: () => new Worker('throw new Error("no canvas here")', { eval: true }) })
    const { off, here } = await twoDecks(DeviceModelId.XL, workers)
    await showPage(off.surface, 1, 8)
    await showPage(here.surface, 1, 8)
    expect(workers.usable).toBe(false)
    expect(workers.stats.made).toBe(0)
    expect(drawn(off.renderer)).toBe(8)
    const [a, b] = [writes(off.hid), writes(here.hid)]
    expect(a).toHaveLength(8)
    for (let i = 0; i < 8; i++) expect(a[i]!.equals(b[i]!)).toBe(true)
    // The next page does not try the pool again.
    await showPage(off.surface, 2, 8)
    expect(drawn(off.renderer)).toBe(16)
    expect(workers.running).toBe(0)
  })

  it('run nicer than the loop’s thread, so that input on a shared core goes first', { timeout: SLOW }, async () => {
    /** Every thread of this process's niceness (field 19 of its stat). */
    const niceness = (): number[] =>
      readdirSync('/proc/self/task').map((tid) => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
      })
    const loop = getPriority()
    const before = niceness().filter((n) => n !== loop)
    const workers = pool({ size: 1 })
    const { surface } = await openDeck(DeviceModelId.XL, workers)
    await showPage(surface, 5, 2)
    expect(workers.stats.made).toBe(2)
    const after = niceness()
    expect(getPriority()).toBe(loop)
    expect(after.filter((n) => n !== loop).length - before.length).toBe(1)
    expect(after).toContain(Math.min(19, loop + KEY_WORKER_NICENESS))
  })

  it('end their threads when idle and start them again for the next cold page', { timeout: SLOW }, async () => {
    const workers = pool({ idleMs: 50, size: 1 })
    const { surface, renderer } = await openDeck(DeviceModelId.XL, workers)
    await showPage(surface, 3, 4)
    expect(workers.running).toBe(1)
    await expect.poll(() => workers.running, { timeout: 10_000 }).toBe(0)
    await showPage(surface, 4, 4)
    expect(workers.stats.made).toBe(8)
    expect(workers.usable).toBe(true)
    expect(drawn(renderer)).toBe(0)
  })

  it(
    'a control already showing what a worker made is not written again, even for a face written otherwise',
    { timeout: SLOW },
    async () => {
      const { workers, off } = await twoDecks(DeviceModelId.XL)
      // '#f00' and '#ff0000' are two faces to the renderer's cache (two identities), one image to the device.
      off.surface.setFeedback('key:2', { color: '#ff0000', text: 'Same' })
      await off.surface.drain()
      off.surface.setFeedback('key:2', { color: '#f00', text: 'Same' })
      await off.surface.drain()
      expect(workers.stats.made).toBe(2)
      expect(off.surface.stats).toMatchObject({ writes: 1, skipped: 1 })
      // A different image on the same key is written.
      off.surface.setFeedback('key:2', { color: '#f00', text: 'Other' })
      await off.surface.drain()
      expect(off.surface.stats).toMatchObject({ writes: 2, skipped: 1 })
    },
  )

  it('a face that does not clone is drawn on the loop; the pool stays in use', { timeout: SLOW }, async () => {
    const workers = pool()
    const { surface, renderer } = await openDeck(DeviceModelId.XL, workers)
    // A function is not structured-clonable: posting it throws before anything reaches a worker.
    const odd = { ...face(0), extra: () => undefined } as Feedback
    surface.setFeedback('key:0', odd)
    surface.setFeedback('key:1', face(2))
    await surface.drain()
    expect(drawn(renderer)).toBe(1)
    expect(workers.stats.made).toBe(1)
    expect(workers.usable).toBe(true)
  })
})
