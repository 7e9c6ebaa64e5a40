/**
 * Where pictures are drawn (issue 46, item 1): a child process of its own, killed when a picture takes
 * longer than its bound, when its reload ends or when the daemon stops.
 *
 * Why a process, not a worker thread: the rasteriser (Skia, native code) cannot be interrupted. A worker
 * thread inside it ignores `worker.terminate()` until the native call returns, and the process cannot
 * exit meanwhile either (Node joins its worker threads on the way out), so one slow picture (an SVG
 * within every bound of its cost scan, whose dashed strokes take minutes to draw) kept a core busy after
 * its reload had timed out and made SIGTERM hang. A process is ended by SIGKILL at once, whatever it runs.
 *
 * One process at a time, started on the first picture and gone after PICTURE_PROCESS.idleMs without one
 * (it holds the canvas library: tens of megabytes the daemon need not keep). Pictures are drawn one after
 * another; each has `drawMs` from the moment it is handed over. While idle the process and its channel do
 * not keep this one alive, and it exits when its channel closes (this process gone).
 *
 * The child runs only the few lines below and the canvas library: it knows nothing of panelbridge.
 * The library is loaded from disk, so the installed tree is checked first (`installed.ts`).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { INSTALLED } from '../../installed.js'

/** The bounds of the drawing process. */
export const PICTURE_PROCESS = {
  /**
   * The longest one picture may take to draw, ms, from the moment it is handed to the process.
   * ASSUMED: 4 s; a picture within the size bounds draws in well under a second on a small box, and a
   * reload (whose own bound is above this) can still refuse one slow picture and finish.
   */
  drawMs: 4000,
  /** The longest the process may take to start and load the canvas library, ms. ASSUMED: 15 s (a loaded small box). */
  startMs: 15_000,
  /** How long an idle process is kept for the next picture, ms. ASSUMED: 2 s (a reload's pictures come one after another). */
  idleMs: 2000,
} as const

/**
 * Draws `source` (PNG, JPEG or SVG bytes) at `width`×`height`; the RGBA pixels, row-major. `ms`: a bound
 * of its own for this picture, when shorter than the process's (what a load has left of its budget).
 */
export type DrawPixels = (
  source: Uint8Array,
  size: { width: number; height: number },
  signal?: AbortSignal,
  ms?: number,
) => Promise<Uint8Array>

/** Why a picture was not drawn, as the rest of a sentence about it (`the PNG took longer than ...`). */
export class DrawError extends Error {
  override readonly name = 'DrawError'
}

/** The child's program (CommonJS, `node -e`): the canvas library at `canvas`, one job a message. */
function childProgram(canvas: string): string {
  return `'use strict'
const { loadImage, createCanvas } = require(${JSON.stringify(canvas)})
process.on('disconnect', () => process.exit(0))
process.on('message', (job) => {
  Promise.resolve()
    .then(async () => {
      const image = await loadImage(Buffer.from(job.source.buffer, job.source.byteOffset, job.source.byteLength))
      if (!(image.width > 0 && image.height > 0)) throw new Error('no size')
      const c = createCanvas(job.width, job.height)
      const ctx = c.getContext('2d')
      ctx.imageSmoothingEnabled = true
      ctx.imageSmoothingQuality = 'high'
      ctx.drawImage(image, 0, 0, job.width, job.height)
      const data = ctx.getImageData(0, 0, job.width, job.height).data
      process.send({ id: job.id, rgba: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) })
    })
    .catch((err) => process.send({ id: job.id, error: String((err && err.message) || err) }))
})
process.send({ ready: true })
`
}

interface Job {
  id: number
  source: Uint8Array
  width: number
  height: number
  signal: AbortSignal | undefined
  ms: number | undefined
  resolve(rgba: Uint8Array): void
  reject(err: Error): void
}

type Answer = { ready: true } | { id: number; rgba: Uint8Array } | { id: number; error: string }

export interface PictureProcessOptions {
  /** See PICTURE_PROCESS. */
  drawMs?: number
  startMs?: number
  idleMs?: number
  /** The child's program (tests: one that never answers, to stand for a draw that never returns). */
  program?: (canvas: string) => string
}

/** The drawing process (see the header). `draw` is its one door. */
export class PictureProcess {
  private child: ChildProcess | undefined
  private ready = false
  private readonly queue: Job[] = []
  private running: Job | undefined
  private timer: NodeJS.Timeout | undefined
  private idle: NodeJS.Timeout | undefined
  private nextId = 0
  /** The pids of every process started, ended or not (tests follow them to their end). */
  readonly started: number[] = []

  constructor(private readonly o: PictureProcessOptions = {}) {}

  /** Whether a picture is being drawn now (handed to the process, not answered yet). */
  get drawing(): boolean {
    return this.running !== undefined
  }

  /** Draws `source` at `size` (see DrawPixels); rejects with DrawError. `signal` stops it, killing the process if it runs. */
  readonly draw: DrawPixels = (source, size, signal, ms) =>
    new Promise<Uint8Array>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new DrawError('was not drawn (stopped)'))
        return
      }
      const job: Job = { id: this.nextId++, source, ...size, signal, ms, resolve, reject }
      const onAbort = (): void => this.abort(job)
      signal?.addEventListener('abort', onAbort, { once: true })
      const done = (): void => signal?.removeEventListener('abort', onAbort)
      job.resolve = (rgba) => (done(), resolve(rgba))
      job.reject = (err) => (done(), reject(err))
      this.queue.push(job)
      this.pump()
    })

  /** Kills the process (a picture drawing is refused) and drops every queued picture. */
  close(): void {
    for (const job of this.queue.splice(0)) job.reject(new DrawError('was not drawn (stopped)'))
    this.kill(new DrawError('was not drawn (stopped)'))
  }

  private pump(): void {
    if (this.running || this.queue.length === 0) return
    clearTimeout(this.idle)
    this.idle = undefined
    if (!this.child) {
      try {
        this.start()
      } catch (err) {
        const why = new DrawError(`was not drawn (${err instanceof Error ? err.message : String(err)})`)
        for (const job of this.queue.splice(0)) job.reject(why)
        return
      }
    }
    const child = this.child!
    child.ref()
    childChannel(child)?.ref()
    if (!this.ready) return
    const job = this.queue.shift()!
    this.running = job
    const ms = Math.max(0, Math.round(Math.min(this.o.drawMs ?? PICTURE_PROCESS.drawMs, job.ms ?? Infinity)))
    this.timer = setTimeout(() => this.kill(new DrawError(`took longer than ${ms} ms to draw`)), ms)
    child.send({ id: job.id, source: job.source, width: job.width, height: job.height })
  }

  private start(): void {
    INSTALLED.check('the canvas library')
    const canvas = createRequire(import.meta.url).resolve('@napi-rs/canvas')
    const program = (this.o.program ?? childProgram)(canvas)
    const child = spawn(process.execPath, ['-e', program], {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced',
    })
    this.child = child
    this.ready = false
    if (child.pid !== undefined) this.started.push(child.pid)
    const startMs = this.o.startMs ?? PICTURE_PROCESS.startMs
    this.timer = setTimeout(
      () => this.kill(new DrawError(`was not drawn (the drawing process did not start within ${startMs} ms)`)),
      startMs,
    )
    child.on('message', (m: Answer) => this.answered(child, m))
    child.once('error', (err) =>
      this.ended(child, new DrawError(`was not drawn (the drawing process failed: ${err.message})`)),
    )
    child.once('exit', (code, signal) =>
      this.ended(child, new DrawError(`was not drawn (the drawing process ended: ${signal ?? code})`)),
    )
  }

  private answered(child: ChildProcess, m: Answer): void {
    if (child !== this.child) return
    if ('ready' in m) {
      clearTimeout(this.timer)
      this.ready = true
      this.pump()
      this.rest()
      return
    }
    const job = this.running
    if (!job || job.id !== m.id) return
    clearTimeout(this.timer)
    this.running = undefined
    if ('rgba' in m) job.resolve(m.rgba)
    else job.reject(new DrawError(`does not decode (${m.error})`))
    this.pump()
    this.rest()
  }

  /** Nothing to draw: the process no longer keeps this one alive, and goes after the idle time. */
  private rest(): void {
    const child = this.child
    if (!child || this.running || this.queue.length > 0) return
    child.unref()
    childChannel(child)?.unref()
    this.idle = setTimeout(() => {
      if (this.child === child && !this.running && this.queue.length === 0) child.disconnect()
    }, this.o.idleMs ?? PICTURE_PROCESS.idleMs)
    this.idle.unref()
  }

  private abort(job: Job): void {
    const at = this.queue.indexOf(job)
    if (at >= 0) {
      this.queue.splice(at, 1)
      job.reject(new DrawError('was not drawn (stopped)'))
    } else if (this.running === job) {
      this.kill(new DrawError('was not drawn (stopped)'))
    }
  }

  /** Ends the process at once (SIGKILL: it may be inside native code), refusing the picture it draws. */
  private kill(why: DrawError): void {
    const child = this.child
    if (!child) return
    child.kill('SIGKILL')
    this.ended(child, why)
  }

  /** The process is gone (or killed): its picture refused with `why`, the next one in a new process. */
  private ended(child: ChildProcess, why: DrawError): void {
    if (child !== this.child) return
    this.child = undefined
    clearTimeout(this.timer)
    clearTimeout(this.idle)
    child.removeAllListeners('message')
    child.on('error', () => undefined)
    const job = this.running
    this.running = undefined
    if (job) job.reject(why)
    else if (!this.ready) for (const queued of this.queue.splice(0)) queued.reject(why)
    this.ready = false
    this.pump()
  }
}

/** The IPC channel's handle, which keeps this process alive unless unref'd (Node types leave it out). */
function childChannel(child: ChildProcess): { ref(): void; unref(): void } | undefined {
  return (child as unknown as { channel?: { ref(): void; unref(): void } }).channel ?? undefined
}

let shared: PictureProcess | undefined

/** The process's one drawing process, made on first use. */
export function sharedPictureProcess(): PictureProcess {
  shared ??= new PictureProcess()
  return shared
}
