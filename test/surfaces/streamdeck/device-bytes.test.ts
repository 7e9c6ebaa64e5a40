/**
 * Issue 29: the device bytes of key images cached by face, model and control (bounded in bytes), and a
 * frame's images prepared side by side, each key's writes in order. Over the real library with the
 * in-memory HID device (the only fake).
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { Jimp } from 'jimp'
import { describe, expect, it, onTestFinished } from 'vitest'
import { PrometheusMetrics } from '../../../src/daemon/metrics.js'
import { KeyRenderer } from '../../../src/surfaces/render/key-renderer.js'
import { DeviceBytesCache, sharedDeviceBytes } from '../../../src/surfaces/streamdeck/device-bytes.js'
import { StreamDeckDriver, type EncodeJPEGHelper } from '../../../src/surfaces/streamdeck/driver.js'
import type { StreamDeckSurface } from '../../../src/surfaces/streamdeck/surface.js'
import type { Feedback } from '../../../src/face/feedback.js'
import {
  MemoryStreamDeckTransport,
  decodeGen2KeyImages,
  rawImageEncoder,
  rotate180,
  type FakeHidDevice,
} from '../helpers/fake-hid.js'

const face = (n: number): Feedback => ({ color: n % 2 ? '#c00000' : '#0050ff', text: `Face ${n}` })
const XL_KEY = { width: 96, height: 96 }

/** Whether a decoded XL key image is `fb` as the renderer draws it (the XL panel is mounted turned 180°). */
const shows = (renderer: KeyRenderer, img: { rgba: Uint8Array }, fb: Feedback): boolean =>
  Buffer.from(img.rgba).equals(rotate180(renderer.render(fb, XL_KEY).rgba))

async function openXl(opts: {
  deviceBytes?: DeviceBytesCache
  encodeJPEG?: EncodeJPEGHelper
  parallel?: number
  renderer?: KeyRenderer
}): Promise<{ surface: StreamDeckSurface; hid: FakeHidDevice; renderer: KeyRenderer }> {
  const transport = new MemoryStreamDeckTransport()
  const listing = transport.plug(DeviceModelId.XL, '/dev/hidraw-xl', 'SN-XL')
  const renderer = opts.renderer ?? new KeyRenderer()
  const driver = new StreamDeckDriver({
    transport,
    renderer,
    frameMs: 0,
    ...(opts.encodeJPEG ? { encodeJPEG: opts.encodeJPEG } : {}),
    ...(opts.deviceBytes ? { deviceBytes: opts.deviceBytes } : {}),
    ...(opts.parallel !== undefined ? { parallel: opts.parallel } : {}),
  })
  const surface = await driver.open((await driver.detect())[0]!)
  onTestFinished(() => surface.close())
  return { surface, hid: transport.lastOpened(listing.path)!, renderer }
}

/** Shows page `page` (32 faces numbered page×32 + key) and waits until it is written. */
/** The raw encoder, counting its calls. */
function countingEncoder() {
  const counted = {
    count: 0,
    encode: ((b, w, h) => {
      counted.count++
      return rawImageEncoder(b, w, h)
    }) satisfies EncodeJPEGHelper,
  }
  return counted
}

async function showPage(surface: StreamDeckSurface, page: number): Promise<void> {
  for (let k = 0; k < 32; k++) surface.setFeedback(`key:${k}`, face(page * 32 + k))
  await surface.drain()
}

/** The image payloads (header 02 07 key last lenLE pageLE, data from byte 8) of every key write, per key. */
function keyPayloads(calls: Uint8Array[][]): Map<number, Buffer[]> {
  const out = new Map<number, Buffer[]>()
  for (const reports of calls) {
    const parts = reports.filter((r) => r[0] === 0x02 && r[1] === 0x07)
    if (parts.length === 0) continue
    const key = parts[0]![2]!
    const payload = Buffer.concat(parts.map((r) => r.subarray(8, 8 + (r[4]! | (r[5]! << 8)))))
    out.set(key, [...(out.get(key) ?? []), payload])
  }
  return out
}

describe('device bytes cache', () => {
  it('a page seen before is written from cached bytes: nothing drawn or encoded, the same reports sent', async () => {
    const encoder = countingEncoder()
    const cache = new DeviceBytesCache()
    const { surface, hid, renderer } = await openXl({ deviceBytes: cache, encodeJPEG: encoder.encode })
    await showPage(surface, 0)
    await showPage(surface, 1)
    expect(encoder.count).toBe(64)
    const drawn = renderer.stats.misses
    const before = hid.reports.length
    await showPage(surface, 0)
    expect(encoder.count).toBe(64)
    expect(renderer.stats.misses).toBe(drawn)
    expect(cache.stats.hits).toBe(32)
    expect(hid.reports.length - before).toBe(32)
    // The switch back sends exactly the reports of the first showing.
    const flat = (calls: Uint8Array[][]): Buffer => Buffer.concat(calls.flat())
    expect(flat(hid.reports.slice(before)).equals(flat(hid.reports.slice(0, 32)))).toBe(true)
    expect(surface.stats.writes).toBe(96)
  })

  it('holds its byte bound with more distinct faces than fit; pages still switch to the right images', async () => {
    // Raw images of 96×96 are ~37 KB of reports each: a bound of 20 keys holds less than one page.
    const maxBytes = 20 * 38 * 1024
    const cache = new DeviceBytesCache(maxBytes)
    const renderer = new KeyRenderer({ cacheSize: 8 })
    const { surface, hid } = await openXl({ deviceBytes: cache, encodeJPEG: rawImageEncoder, renderer })
    const pages = [0, 1, 2, 0, 3, 1, 0]
    for (const [i, page] of pages.entries()) {
      await showPage(surface, page)
      expect(cache.bytes).toBeLessThanOrEqual(maxBytes)
      expect(cache.bytes).toBeGreaterThan(maxBytes - 38 * 1024)
      expect(surface.stats.writes).toBe(32 * (i + 1))
      const shown = decodeGen2KeyImages(hid.reports)
      for (let k = 0; k < 32; k++) {
        const last = shown.get(k)!.at(-1)!
        expect(shows(renderer, last, face(page * 32 + k)), `key ${k}`).toBe(true)
      }
    }
    expect(cache.size).toBeLessThanOrEqual(20)
  })

  it('cached and fresh bytes decode to the same image (real JPEG encoder and decoder)', async () => {
    const cache = new DeviceBytesCache()
    const { surface, hid } = await openXl({ deviceBytes: cache })
    surface.setFeedback('key:5', face(5))
    await surface.drain()
    surface.setFeedback('key:5', face(6))
    await surface.drain()
    surface.setFeedback('key:5', face(5))
    await surface.drain()
    expect(cache.stats.hits).toBe(1)
    // The library's own path, uncached, on a second deck: what key 5 showed before this change.
    const { surface: plain, hid: plainHid } = await openXl({ deviceBytes: new DeviceBytesCache(0) })
    plain.setFeedback('key:5', face(5))
    await plain.drain()
    const [fresh, , cached] = keyPayloads(hid.reports).get(5)!
    const [library] = keyPayloads(plainHid.reports).get(5)!
    expect(fresh!.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8])) // a JPEG
    const decode = async (b: Buffer): Promise<Buffer> => (await Jimp.read(b)).bitmap.data
    const [a, b, c] = await Promise.all([decode(fresh!), decode(cached!), decode(library!)])
    expect(a.length).toBe(96 * 96 * 4)
    expect(b.equals(a)).toBe(true)
    expect(c.equals(a)).toBe(true)
    expect((await decode(keyPayloads(hid.reports).get(5)![1]!)).equals(a)).toBe(false)
  })

  it('the shared cache (the default encoder) is its size in /metrics', async () => {
    const { surface } = await openXl({})
    surface.setFeedback('key:0', face(900))
    await surface.drain()
    expect(sharedDeviceBytes.bytes).toBeGreaterThan(0)
    const text = await new PrometheusMetrics({ processMetrics: false }).text()
    expect(text).toMatch(/^# TYPE panelbridge_key_image_cache_bytes gauge$/m)
    expect(text).toContain(`\npanelbridge_key_image_cache_bytes ${sharedDeviceBytes.bytes}\n`)
  })

  it('a bound of 0 caches nothing: every switch draws and encodes again', async () => {
    const encoder = countingEncoder()
    const cache = new DeviceBytesCache(0)
    const { surface } = await openXl({ deviceBytes: cache, encodeJPEG: encoder.encode })
    await showPage(surface, 0)
    await showPage(surface, 1)
    await showPage(surface, 0)
    expect(encoder.count).toBe(96)
    expect(cache.bytes).toBe(0)
  })
})

describe('parallel preparation', () => {
  /** An encoder whose calls wait until the test releases them, in any order. */
  function gatedEncoder(): { encode: EncodeJPEGHelper; waiting: (() => void)[] } {
    const waiting: (() => void)[] = []
    const encode: EncodeJPEGHelper = (b, w, h) =>
      new Promise((resolve) => waiting.push(() => resolve(rawImageEncoder(b, w, h))))
    return { encode, waiting }
  }

  it('encodes up to `parallel` keys at once and writes each as it is ready', async () => {
    const gate = gatedEncoder()
    const { surface, hid, renderer } = await openXl({ encodeJPEG: gate.encode, parallel: 3 })
    for (let k = 0; k < 4; k++) surface.setFeedback(`key:${k}`, face(k))
    await expect.poll(() => gate.waiting.length).toBe(3)
    // The third key's encode finishes first: it is written first.
    gate.waiting[2]!()
    await expect.poll(() => hid.reports.length).toBe(1)
    expect([...decodeGen2KeyImages(hid.reports).keys()]).toEqual([2])
    await expect.poll(() => gate.waiting.length).toBe(4)
    for (const i of [3, 0, 1]) gate.waiting[i]!()
    await surface.drain()
    const shown = decodeGen2KeyImages(hid.reports)
    expect(hid.reports).toHaveLength(4)
    for (let k = 0; k < 4; k++) {
      expect(shows(renderer, shown.get(k)![0]!, face(k))).toBe(true)
    }
  })

  it('a later face for a key is never overwritten by an earlier one, however the encodes finish', async () => {
    const gate = gatedEncoder()
    const { surface, hid, renderer } = await openXl({ encodeJPEG: gate.encode, parallel: 4 })
    surface.setFeedback('key:0', face(1))
    surface.setFeedback('key:1', face(2))
    await expect.poll(() => gate.waiting.length).toBe(2)
    // A newer face for key 0 arrives while the first is still encoding.
    surface.setFeedback('key:0', face(3))
    gate.waiting[1]!()
    await expect.poll(() => hid.reports.length).toBe(1)
    // The newer face is not encoded until the frame that holds the older one is written.
    expect(gate.waiting).toHaveLength(2)
    gate.waiting[0]!()
    await expect.poll(() => gate.waiting.length).toBe(3)
    gate.waiting[2]!()
    await surface.drain()
    const key0 = decodeGen2KeyImages(hid.reports).get(0)!
    expect(key0).toHaveLength(2)
    expect(shows(renderer, key0[0]!, face(1))).toBe(true)
    expect(shows(renderer, key0[1]!, face(3))).toBe(true)
  })

  it('a failed encode fails the surface once and writes nothing after it', async () => {
    const transport = new MemoryStreamDeckTransport()
    transport.plug(DeviceModelId.XL, '/dev/hidraw-xl', 'SN-XL')
    let calls = 0
    const driver = new StreamDeckDriver({
      transport,
      frameMs: 0,
      parallel: 2,
      encodeJPEG: (b, w, h) => (++calls === 2 ? Promise.reject(new Error('encoder broke')) : rawImageEncoder(b, w, h)),
    })
    const surface = await driver.open((await driver.detect())[0]!)
    onTestFinished(() => surface.close())
    const errors: Error[] = []
    surface.events.on('error', (e) => errors.push(e))
    for (let k = 0; k < 6; k++) surface.setFeedback(`key:${k}`, face(k))
    await surface.drain()
    expect(errors.map((e) => e.message)).toEqual(['encoder broke'])
    expect(surface.stats.writes).toBeLessThan(6)
    const written = transport.lastOpened('/dev/hidraw-xl')!.reports.length
    surface.setFeedback('key:7', face(7))
    await surface.drain()
    expect(transport.lastOpened('/dev/hidraw-xl')!.reports.length).toBe(written)
  })
})
