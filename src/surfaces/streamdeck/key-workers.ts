/**
 * Key images drawn and encoded off the event loop (issue 29): a small pool of worker threads
 * (`key-worker.ts`), each drawing a key face with the key renderer and turning it into the device's
 * reports with the library's own model code, so that a cold page (32 XL keys) paints side by side on
 * the cores while the loop stays free for input (a jog's deltas are not held behind a paint).
 *
 * The surface asks `prepare()` on a device bytes cache miss and sends what comes back as it would its
 * own prepared buffer; what the worker answers is the same bytes the surface would have made (tested).
 * When the pool cannot help (a request that does not clone, a worker that fails to start or dies),
 * `prepare()` rejects and the surface draws and encodes on the loop as before;
 * a worker failure ends the pool's use for the rest of the process (the surface logs it once).
 *
 * Threads start on the first request, never at import: a daemon with no LCD deck never starts one.
 * They end after `idleMs` with nothing to do, and do not keep the process alive (unref).
 *
 * A thread runs the key worker's bundle as the daemon read it at start (`installed.ts`); what the bundle
 * leaves out (the canvas library, the Stream Deck library) it requires from the installed tree. Once
 * that tree was replaced (an upgrade on disk, its restart held back), no thread starts: the running
 * ones do the work and are kept past `idleMs`, and with none running the surface draws on the loop.
 */
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { DeviceModelId, PreparedBuffer } from '@elgato-stream-deck/core'
import { INSTALLED, type InstalledTree } from '../../installed.js'
import type { Feedback } from '../../face/feedback.js'

/**
 * ASSUMED (issue 29: the small boxes are a Raspberry Pi 4 or 5, four cores): at most 4 key workers.
 * Each carries its own V8 heap and Skia; past the cores a box has, more only cost memory.
 */
export const KEY_WORKERS_MAX = 4
/** ASSUMED: 30 s with nothing to draw ends the threads (their memory back); the next cold page starts them again. */
export const KEY_WORKERS_IDLE_MS = 30_000
/**
 * ASSUMED (issue 29: the jog never waits for paint): key workers run 10 steps nicer than the thread that
 * starts them (`key-worker.ts` lowers its own priority). Where the loop and a worker painting a cold
 * page share a core (one core, the smallest box), the kernel's scheduler then hands the loop the core as
 * soon as it has input to read; where cores are free it changes nothing.
 */
export const KEY_WORKER_NICENESS = 10
/** ASSUMED: a worker holds a few faces' pixels and a 1 MiB cache; 64 MB of heap is far above that. */
const KEY_WORKER_HEAP_MB = 64

/** Where on the device the image goes: a key, or a region of an LCD strip (at `x`, the strip's full height). */
export type KeyTarget = { kind: 'key'; index: number } | { kind: 'region'; lcd: number; x: number }

/** One image to make: the face, its size, and the model and place whose reports to make. */
export interface KeyRequest {
  model: DeviceModelId
  target: KeyTarget
  feedback: Feedback
  size: { width: number; height: number }
}

/** A request as posted to a worker. */
export interface KeyJob extends KeyRequest {
  id: number
}

/** A worker's answer: the library's prepared reports and what identifies them (`KeyMade`), or why not. */
export type KeyAnswer = { id: number; hash: string; prepared: PreparedBuffer } | { id: number; error: string }

/** What `prepare()` resolves with. */
export interface KeyMade {
  /**
   * What the surface records as shown: a digest of the reports (`preparedDigest`), where the loop's own
   * path records the pixels' hash. Either way equal values mean the control needs no write; after a
   * switch between the two paths a control showing the same image is written once more, no worse.
   */
  hash: string
  prepared: PreparedBuffer
}

export interface KeyWorkersOptions {
  /** Threads at most; default the cores available, at most KEY_WORKERS_MAX. */
  size?: number
  /** Idle time before the threads end; default KEY_WORKERS_IDLE_MS. */
  idleMs?: number
  /** The installed tree the threads start from (default the one this process runs from). */
  tree?: InstalledTree
  /** Starts one worker (tests start a broken one); default the tree's bundle, or the source under tsx. */
  start?: () => Worker
}

interface Thread {
  worker: Worker
  /** Requests posted to it and not answered yet. */
  busy: number
}

interface Waiting {
  thread: Thread
  resolve: (made: KeyMade) => void
  reject: (err: Error) => void
}

/**
 * The worker for this build: the bundle `tree` held since start, or the TypeScript source under tsx (as
 * `config-load.ts`). Throws when the tree was replaced since start (the bundle requires its natives
 * from it) or a built tree has no bundle.
 */
function startKeyWorker(tree: InstalledTree): Worker {
  tree.check('cannot start a key worker')
  const options = { resourceLimits: { maxOldGenerationSizeMb: KEY_WORKER_HEAP_MB } }
  const held = tree.startWorker('key-worker', options)
  if (held !== undefined) return held
  if (!import.meta.url.endsWith('.ts')) throw new Error('key workers: the key worker was not built (npm run build)')
  // From sources: tsx's loader registered in the worker first (its `import` export, resolved by path).
  const tsxRoot = dirname(createRequire(import.meta.url).resolve('tsx/package.json'))
  const api = pathToFileURL(join(tsxRoot, 'dist/esm/api/index.mjs')).href
  const source = new URL('./key-worker.ts', import.meta.url).href
  const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(source)}) })`
  return new Worker(code, { eval: true, ...options })
}

export class KeyWorkers {
  readonly size: number
  private readonly idleMs: number
  private readonly start: () => Worker
  private readonly tree: InstalledTree
  private threads: Thread[] = []
  private readonly waiting = new Map<number, Waiting>()
  private nextId = 0
  private idleTimer: NodeJS.Timeout | undefined
  private failure: Error | undefined
  private closed = false
  /** Images made by the workers, for the bench and tests. */
  readonly stats = { made: 0, failed: 0 }

  constructor(opts: KeyWorkersOptions = {}) {
    this.size = Math.max(1, Math.floor(opts.size ?? Math.min(availableParallelism(), KEY_WORKERS_MAX)))
    this.idleMs = opts.idleMs ?? KEY_WORKERS_IDLE_MS
    this.tree = opts.tree ?? INSTALLED
    const tree = this.tree
    this.start = opts.start ?? (() => startKeyWorker(tree))
  }

  /** False once a worker failed or the pool closed: `prepare()` then rejects at once. */
  get usable(): boolean {
    return this.failure === undefined && !this.closed
  }

  /** Threads running now. */
  get running(): number {
    return this.threads.length
  }

  /** The reports of `request` and their digest, made on a worker thread. */
  prepare(request: KeyRequest): Promise<KeyMade> {
    if (!this.usable) return Promise.reject(this.failure ?? new Error('key workers: closed'))
    clearTimeout(this.idleTimer)
    this.idleTimer = undefined
    let thread: Thread
    try {
      thread = this.pick()
    } catch (err) {
      this.fail(err)
      return Promise.reject(this.failure ?? toError(err))
    }
    const id = this.nextId++
    return new Promise<KeyMade>((resolve, reject) => {
      this.waiting.set(id, { thread, resolve, reject })
      thread.busy++
      try {
        const job: KeyJob = { ...request, id }
        thread.worker.postMessage(job)
      } catch (err) {
        // A face that does not clone (a DataCloneError): this request only; the surface draws it itself.
        this.settle(id)?.reject(toError(err))
      }
    })
  }

  /** Ends every thread; pending requests reject. Idempotent. */
  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.idleTimer)
    this.rejectAll(new Error('key workers: closed'))
    await this.endThreads()
  }

  /** The least busy thread; a new one while every thread has work and the pool is below its size. */
  private pick(): Thread {
    let best: Thread | undefined
    for (const t of this.threads) if (!best || t.busy < best.busy) best = t
    if (best && (best.busy === 0 || this.threads.length >= this.size)) return best
    // No thread from a replaced tree: the running ones take the work.
    if (best && this.tree.replaced() !== undefined) return best
    const worker = this.start()
    worker.unref()
    const thread: Thread = { worker, busy: 0 }
    worker.on('message', (answer: KeyAnswer) => this.answered(answer))
    worker.on('error', (err) => this.fail(err))
    worker.on('exit', (code) => this.fail(new Error(`key workers: a worker ended (exit ${code})`)))
    this.threads.push(thread)
    return thread
  }

  private answered(answer: KeyAnswer): void {
    const waiting = this.settle(answer.id)
    if (!waiting) return
    if ('error' in answer) {
      this.stats.failed++
      waiting.reject(new Error(`key worker: ${answer.error}`))
    } else {
      this.stats.made++
      waiting.resolve({ hash: answer.hash, prepared: answer.prepared })
    }
  }

  /** Takes request `id` off the books (and its thread's count); starts the idle clock when none is left. */
  private settle(id: number): Waiting | undefined {
    const waiting = this.waiting.get(id)
    if (!waiting) return undefined
    this.waiting.delete(id)
    waiting.thread.busy--
    if (this.waiting.size === 0 && this.threads.length > 0 && !this.closed) {
      this.idleTimer = setTimeout(() => this.idle(), this.idleMs)
      this.idleTimer.unref()
    }
    return waiting
  }

  /** Nothing to do for `idleMs`: the threads end, unless none could start again (the tree was replaced). */
  private idle(): void {
    this.idleTimer = undefined
    if (this.tree.replaced() === undefined) void this.endThreads()
  }

  /** A worker failed (or could not start): every request rejects and the pool is not used again. */
  private fail(err: unknown): void {
    if (this.failure || this.closed) return
    this.failure = toError(err)
    this.rejectAll(this.failure)
    void this.endThreads()
  }

  private rejectAll(err: Error): void {
    const all = [...this.waiting.values()]
    this.waiting.clear()
    for (const w of all) {
      w.thread.busy--
      w.reject(err)
    }
  }

  /** Ends the threads on purpose: their exit is no failure. */
  private async endThreads(): Promise<void> {
    this.idleTimer = undefined
    const threads = this.threads
    this.threads = []
    await Promise.all(
      threads.map((t) => {
        t.worker.removeAllListeners('exit')
        t.worker.removeAllListeners('error')
        t.worker.on('error', () => undefined)
        return t.worker.terminate()
      }),
    )
  }
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err))
}

/** The process's pool, shared by every Stream Deck driver the family record makes (threads start on first use). */
export const sharedKeyWorkers = new KeyWorkers()
