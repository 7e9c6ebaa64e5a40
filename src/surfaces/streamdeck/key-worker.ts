/**
 * A key worker thread (`key-workers.ts` starts them): draws one key face with the key renderer and
 * turns it into the device's reports with the library's own model code (the model's orientation and
 * colour order, JPEG at the driver's quality, split into the model's HID reports), so that none of it
 * runs on the daemon's event loop. It answers the library's prepared buffer, as the surface would have
 * made it itself (the same renderer, the same library, the same encoder), and a digest of its reports.
 *
 * The library's model is built here over a device that is never written (`NoDevice`): preparing a
 * buffer only reads the model's properties; the surface sends the buffer to the real device.
 */
import { readlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { getPriority, setPriority } from 'node:os'
import { isMainThread, parentPort } from 'node:worker_threads'
import {
  DEVICE_MODELS2,
  type ChildHIDDeviceInfo,
  type DeviceModelId,
  type HIDDevice,
  type HIDDeviceEvents,
  type HIDDeviceInfo,
  type StreamDeck,
} from '@elgato-stream-deck/core'
import { EventEmitter } from 'eventemitter3'
import { KeyRenderer, pixelHash } from '../render/key-renderer.js'
import { preparedDigest, preparedReports } from './device-bytes.js'
import { installFastTransform } from './fast-transform.js'
import { JPEG_QUALITY, libraryJpeg, type EncodeJPEGHelper } from './jpeg.js'
import { KEY_WORKER_NICENESS, type KeyJob, type KeyAnswer } from './key-workers.js'

/** The model's side of a device: never opened, never written. */
class NoDevice extends EventEmitter<HIDDeviceEvents> implements HIDDevice {
  private refuse(): Promise<never> {
    return Promise.reject(new Error('key worker: this deck only prepares buffers'))
  }
  close(): Promise<void> {
    return Promise.resolve()
  }
  sendFeatureReport(): Promise<void> {
    return this.refuse()
  }
  getFeatureReport(): Promise<Uint8Array> {
    return this.refuse()
  }
  sendReports(): Promise<void> {
    return this.refuse()
  }
  getDeviceInfo(): Promise<HIDDeviceInfo> {
    return this.refuse()
  }
  getChildDeviceInfo(): Promise<ChildHIDDeviceInfo | null> {
    return Promise.resolve(null)
  }
}

interface JpegTurbo {
  compressSync(raw: Buffer, options: { format: number; width: number; height: number; quality: number }): Buffer
  FORMAT_RGBA: number
}

/**
 * The library's encoder, made synchronous where it can be: in this thread blocking is the point, and
 * jpeg-turbo's `compressSync` with the options the library's `encodeJPEG` gives its asynchronous
 * `compress` makes the same bytes without a hop to libuv's threads. Where jpeg-turbo does not load
 * (or the buffer is not RGBA), the library's own encoder, as the driver uses it.
 */
function encoder(): EncodeJPEGHelper {
  let turbo: JpegTurbo | undefined
  try {
    // jpeg-turbo is the library's optional dependency: found from where the library finds it.
    const fromLibrary = createRequire(createRequire(import.meta.url).resolve('@elgato-stream-deck/node-lib'))
    turbo = fromLibrary('@julusian/jpeg-turbo') as JpegTurbo
  } catch {
    turbo = undefined
  }
  if (!turbo) return libraryJpeg
  const sync = turbo
  return (buffer, width, height) => {
    if (buffer.length !== width * height * 4) return libraryJpeg(buffer, width, height)
    const raw = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    return Promise.resolve(sync.compressSync(raw, { format: sync.FORMAT_RGBA, width, height, quality: JPEG_QUALITY }))
  }
}

/** Lowers this thread's priority by KEY_WORKER_NICENESS (Linux takes a thread's id where setpriority wants a process's). */
function niceThisThread(): void {
  if (isMainThread) return
  try {
    const tid = Number(/\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1])
    if (tid > 0) setPriority(tid, Math.min(19, getPriority(tid) + KEY_WORKER_NICENESS))
  } catch {
    // Not Linux, or not allowed: the worker runs at the loop's priority, as before.
  }
}
niceThisThread()

const encodeJPEG = encoder()
// The library's per-pixel conversion, by rows where it is the same bytes (./fast-transform.ts).
installFastTransform()
/**
 * Its own renderer: a face drawn for one key is often drawn for the same size on another (the reports
 * differ by key, the pixels do not). Small, since the surface caches the finished bytes. It hashes no
 * pixels: what this thread makes is identified by its reports (`preparedDigest`), a fifth of the bytes
 * for a JPEG key.
 */
const renderer = new KeyRenderer({ cacheSize: 64, cacheBytes: 1024 * 1024, hashPixels: false })
const decks = new Map<DeviceModelId, Promise<StreamDeck>>()

function deckOf(model: DeviceModelId): Promise<StreamDeck> {
  let deck = decks.get(model)
  if (!deck) {
    deck = Promise.resolve(DEVICE_MODELS2[model].factory(new NoDevice(), { encodeJPEG }))
    decks.set(model, deck)
  }
  return deck
}

async function answer(job: KeyJob): Promise<KeyAnswer> {
  try {
    const img = renderer.render(job.feedback, job.size)
    const deck = await deckOf(job.model)
    const { target } = job
    const prepared =
      target.kind === 'key'
        ? await deck.prepareFillKeyBuffer(target.index, img.rgba, { format: 'rgba' })
        : await deck.prepareFillLcdRegion(target.lcd, target.x, 0, img.rgba, {
            format: 'rgba',
            width: img.width,
            height: img.height,
          })
    return { id: job.id, hash: preparedDigest(prepared) ?? pixelHash(img.width, img.height, img.rgba), prepared }
  } catch (err) {
    return { id: job.id, error: err instanceof Error ? err.message : String(err) }
  }
}

/**
 * The reports' own buffers, to move to the loop's thread rather than copy (the loop then makes no copy
 * of its own when it reads the answer). Only buffers a report has to itself (the library makes each
 * report a new Uint8Array), each once; anything else is copied as before.
 */
function movable(reply: KeyAnswer): ArrayBuffer[] {
  if (!('prepared' in reply)) return []
  const out = new Set<ArrayBuffer>()
  for (const r of preparedReports(reply.prepared)) {
    if (!(r instanceof Uint8Array) || !(r.buffer instanceof ArrayBuffer)) continue
    if (r.byteOffset === 0 && r.byteLength === r.buffer.byteLength && !out.has(r.buffer)) out.add(r.buffer)
    else return []
  }
  return [...out]
}

parentPort?.on('message', (job: KeyJob) => {
  void answer(job).then((reply) => parentPort?.postMessage(reply, movable(reply)))
})
