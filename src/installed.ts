/**
 * One version per running process: what the daemon may load after it started comes from what was
 * installed when it started. An upgrade replaces the installed tree under a running daemon (its restart
 * may be held back), and a module or worker loaded from that tree later would be another version's code
 * inside this one.
 *
 * - The worker thread (a reload's config worker) starts from a bundle read
 *   here once, when the process starts (`npm run build` makes it, gzipped: scripts/build-workers.mjs),
 *   never from the files on disk at the time.
 * - What must still come from disk later (a native addon and its loader, the simulator's modules, a
 *   device library loaded on the first device) is loaded through `lateImport`/`lateRequire`, which first
 *   compare the build stamp on disk (`dist/build.json`) with the one read at start, and refuse with
 *   "panelbridge was upgraded on disk (X → Y): restart the service to use it" when it changed. A reload
 *   that needs such a module is refused that way; the running mapping stays.
 *
 * Run from the TypeScript sources (tests, `npm run bench`) there is no stamp and no bundle: nothing to
 * compare, and the worker starts from its source under tsx (`config-load.ts`).
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs'
import { isMainThread, Worker, workerData, type WorkerOptions } from 'node:worker_threads'
import { gunzipSync } from 'node:zlib'

/** package.json and build.json are a few kB; past this they are not ours, and are not read. */
const MAX_SMALL_JSON_BYTES = 64 * 1024
/** A version as package.json spells one (semver: digits, letters, `.`, `-`, `+`). */
export const VERSION_TEXT = /^[0-9A-Za-z.+-]{1,64}$/

/**
 * The JSON of the small file at `url` (at most MAX_SMALL_JSON_BYTES): package.json (`version.ts`) or the
 * build stamp; undefined when missing, too big or not JSON.
 */
export function readSmallJson(url: URL): unknown {
  try {
    const fd = openSync(url, 'r')
    let text: string
    try {
      const buffer = Buffer.alloc(MAX_SMALL_JSON_BYTES + 1)
      let length = 0
      for (let n = -1; n !== 0 && length < buffer.length; length += n) {
        n = readSync(fd, buffer, length, buffer.length - length, null)
      }
      if (length > MAX_SMALL_JSON_BYTES) return undefined
      text = buffer.toString('utf8', 0, length)
    } finally {
      closeSync(fd)
    }
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** What `npm run build` stamps a build with (`dist/build.json`, scripts/build-workers.mjs). */
export interface BuildStamp {
  /** package.json's version when it was built. */
  version: string
  /** A hash of what the build made: another id is another build. */
  id: string
}

/** A build id as the build writes one. */
const BUILD_ID_TEXT = /^[0-9a-f]{16}$/

/**
 * The build stamp at `url` (by default the one beside the compiled modules, `dist/build.json`);
 * undefined when there is none (run from the TypeScript sources) or it is unreadable or odd.
 */
export function readBuildStamp(url: URL = new URL('./build.json', import.meta.url)): BuildStamp | undefined {
  const json = readSmallJson(url)
  if (typeof json !== 'object' || json === null) return undefined
  const { version, id } = json as { version?: unknown; id?: unknown }
  if (typeof version !== 'string' || !VERSION_TEXT.test(version)) return undefined
  if (typeof id !== 'string' || !BUILD_ID_TEXT.test(id)) return undefined
  return { version, id }
}

/** The workers started from held bundles. */
export type WorkerName = 'config-worker'

/** Each worker's bundle, relative to dist/ (scripts/build-workers.mjs's WORKER_BUNDLES; a test holds them equal). */
export const WORKER_BUNDLE_FILES: Readonly<Record<WorkerName, string>> = {
  'config-worker': 'daemon/config-worker.bundle.cjs.gz',
}

/** A bundle is a megabyte or two, gzipped a few hundred kB; past these it is not ours, and is not read. */
const MAX_BUNDLE_BYTES = 4 * 1024 * 1024
const MAX_BUNDLE_TEXT_BYTES = 16 * 1024 * 1024

/** Why something was not loaded: the installed tree is no longer the one this process started from. */
export class TreeReplacedError extends Error {
  override readonly name = 'TreeReplacedError'
}

/** What a built tree's `dist/` held when this process started: its build stamp and its worker bundles. */
export class InstalledTree {
  /** The build stamp read at start; undefined run from sources (nothing to compare). */
  readonly stamp: BuildStamp | undefined
  /** Each bundle as read at start (gzipped: the text is made again at each worker's start). */
  private readonly programs = new Map<WorkerName, { gzipped: Buffer; url: string }>()

  /**
   * Reads the stamp and (unless `bundles` is false) the bundles of the tree whose `dist/` folder is
   * `dist` (a URL ending in `/`).
   */
  constructor(
    readonly dist: URL,
    bundles = true,
  ) {
    this.stamp = inheritedStamp() ?? readBuildStamp(new URL('build.json', dist))
    if (!bundles) return
    for (const [name, file] of Object.entries(WORKER_BUNDLE_FILES) as [WorkerName, string][]) {
      const url = new URL(file, dist)
      try {
        if (statSync(url).size > MAX_BUNDLE_BYTES) continue
        this.programs.set(name, { gzipped: readFileSync(url), url: url.href })
      } catch {
        // No bundle (run from sources, or a tree built without it): the worker's starter says so.
      }
    }
  }

  /** Whether `name`'s bundle was read at start. */
  holds(name: WorkerName): boolean {
    return this.programs.has(name)
  }

  /**
   * Why nothing more may be loaded from the tree: undefined while its stamp is the one read at start
   * (or there was none to compare), else the sentence to show.
   */
  replaced(): string | undefined {
    if (this.stamp === undefined) return undefined
    const now = readBuildStamp(new URL('build.json', this.dist))
    if (now?.id === this.stamp.id) return undefined
    const to = now === undefined ? 'a tree without a readable build stamp' : now.version
    const another = now !== undefined && now.version === this.stamp.version ? ', another build' : ''
    return `panelbridge was upgraded on disk (${this.stamp.version} → ${to}${another}): restart the service to use it`
  }

  /** Throws TreeReplacedError (`what`: what was about to load) when the tree was replaced. */
  check(what: string): void {
    const why = this.replaced()
    if (why !== undefined) throw new TreeReplacedError(`${what}: ${why}`)
  }

  /**
   * A worker running `name`'s bundle as read at start; undefined when none was read. Its modules
   * resolve what the bundle leaves out (natives) from the bundle's place in the tree. Throws when the
   * bundle does not unzip (a damaged file read at start).
   */
  startWorker(name: WorkerName, options: WorkerOptions = {}): Worker | undefined {
    const program = this.programs.get(name)
    if (program === undefined) return undefined
    const code = gunzipSync(program.gzipped, { maxOutputLength: MAX_BUNDLE_TEXT_BYTES }).toString('utf8')
    const workerData: unknown = { [STAMP_KEY]: this.stamp }
    return new Worker(wrapBundle(code, program.url), { ...options, workerData, eval: true })
  }
}

/** Where a worker finds the stamp of the process that started it (`workerData`). */
const STAMP_KEY = 'panelbridgeStartStamp'

/**
 * In a worker started by `startWorker`, the stamp its process read at start: what the worker loads
 * later (a picture's canvas library) is compared with the process's start, not the worker's.
 */
function inheritedStamp(): BuildStamp | undefined {
  if (isMainThread || typeof workerData !== 'object' || workerData === null) return undefined
  return (workerData as Record<string, BuildStamp | undefined>)[STAMP_KEY]
}

/**
 * A CommonJS bundle as a worker's `eval` program: its `require` resolves from `url` (where the bundle
 * was installed), and `__pbBase` is that URL (the bundle's modules find their own URLs from it).
 */
function wrapBundle(code: string, url: string): string {
  const at = JSON.stringify(url)
  return (
    `;(function (require, module, __pbBase) { 'use strict'; var exports = module.exports;\n${code}\n})` +
    `(require('node:module').createRequire(${at}), { exports: {} }, ${at})\n`
  )
}

/**
 * The tree this process runs from: `dist/` when built (this module is `dist/installed.js`), else `src/`.
 * A worker thread (the config worker, should it load this module) starts no worker: it holds no bundle.
 */
export const INSTALLED = new InstalledTree(new URL('./', import.meta.url), isMainThread)

const imported = new Map<string, Promise<unknown>>()
const required = new Map<string, unknown>()

/**
 * `load()` (an `import()` of `name`), unless the installed tree was replaced since start: then it
 * rejects with TreeReplacedError. Once loaded, the module is given again without a check (it is in
 * memory). One `name` per module, whoever loads it.
 */
export function lateImport<T>(name: string, load: () => Promise<T>, tree: InstalledTree = INSTALLED): Promise<T> {
  const held = imported.get(name) as Promise<T> | undefined
  if (held !== undefined) return held
  try {
    tree.check(`cannot load ${name}`)
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)))
  }
  const loading = load()
  imported.set(name, loading)
  loading.catch(() => imported.delete(name))
  return loading
}

/** `lateImport` for a synchronous `require` (the canvas library: drawing stays synchronous). */
export function lateRequire<T>(name: string, load: () => T, tree: InstalledTree = INSTALLED): T {
  if (required.has(name)) return required.get(name) as T
  tree.check(`cannot load ${name}`)
  const module = load()
  required.set(name, module)
  return module
}
