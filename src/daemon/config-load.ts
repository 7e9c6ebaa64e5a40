/**
 * A reload's read and check of the config file, kept off the daemon's event loop: the file is read
 * without ever blocking (opened non-blocking, refused unless it is a regular file, bounded), then parsed
 * and checked in a worker thread (`config-worker.ts`), whose result is copied back: parsing and checking
 * a large file on the loop would hold every press and light for as long as it takes.
 *
 * `run`'s first load and `check` still load on the main thread (`loadConfigFile`): nothing else runs
 * yet, and their errors are the same.
 *
 * The worker runs the config worker's bundle as the daemon read it when it started (`installed.ts`):
 * a tree replaced under a running daemon does not change the loader its reloads run. Run from the
 * TypeScript sources (tests, `npm run bench`), it runs `config-worker.ts` with tsx's loader registered
 * in the worker first (a worker does not inherit the loader of the thread that starts it).
 */
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import { deserialize } from 'node:v8'
import { Worker } from 'node:worker_threads'
import { INSTALLED, type InstalledTree } from '../installed.js'
import { fileProblem, readConfigText, type LoadResult } from '../mappings/load.js'
import type { Binding } from '../mappings/schema.js'
import { sharedPictureProcess, type DrawPixels } from '../surfaces/render/picture.js'
import type { ConfigAnswer, ConfigJob, DrawAnswer, DrawRequest } from './config-worker.js'

/**
 * The heap a reload's worker may use, MB. ASSUMED: a larger file than the loader now takes (1 MB, 4,096
 * bindings; the bound is 256 KiB and 2,000) needed under 100 MB of heap in `npm run bench config-reload`; the bound stops a worker from
 * taking the box's memory, not a real file.
 */
const CONFIG_WORKER_HEAP_MB = 256
/**
 * The young generation of a reload's worker, MB. ASSUMED: the parse's garbage is short-lived, and V8's
 * default (up to 64 MB of semi-spaces on a 64-bit box) holds far more resident memory at the worker's
 * peak for no gain in time (`npm run bench config-reload` compares); under the launcher's V8 flags
 * `--max-semi-space-size=1` bounds it anyway.
 */
const CONFIG_WORKER_YOUNG_MB = 4

/** Why a reload's load stopped early: the reload timed out, or the daemon is stopping. */
export class ConfigLoadAborted extends Error {
  override readonly name = 'ConfigLoadAborted'
}

/**
 * The worker for this build: the bundle `tree` held since start, or the TypeScript source under tsx.
 * A built tree without the bundle (built by tsc alone) throws: the reload is refused and says why.
 */
function startWorker(tree: InstalledTree): Worker {
  const limits = {
    resourceLimits: { maxOldGenerationSizeMb: CONFIG_WORKER_HEAP_MB, maxYoungGenerationSizeMb: CONFIG_WORKER_YOUNG_MB },
  }
  const held = tree.startWorker('config-worker', limits)
  if (held !== undefined) return held
  if (!import.meta.url.endsWith('.ts'))
    throw new Error('the config worker was not built: run npm run build, then restart')
  // Run from sources: register tsx's loader in the worker, then load the source. The path is tsx's own
  // export for `tsx/esm/api` under the `import` condition (createRequire resolves the `require` one).
  const tsxRoot = dirname(createRequire(import.meta.url).resolve('tsx/package.json'))
  const api = pathToFileURL(join(tsxRoot, 'dist/esm/api/index.mjs')).href
  const source = new URL('./config-worker.ts', import.meta.url).href
  const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(source)}) })`
  return new Worker(code, { eval: true, ...limits })
}

/**
 * The worker's answer for `text`; the worker ends with it. The pictures it asks for are drawn by `draw`
 * (see `config-worker.ts`), stopped with the load: what draws is killed, not left running.
 */
function askWorker(
  text: string,
  file: string,
  signal: AbortSignal | undefined,
  tree: InstalledTree,
  draw: DrawPixels,
): Promise<ConfigAnswer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ConfigLoadAborted('the reload was stopped'))
      return
    }
    let worker: Worker
    try {
      worker = startWorker(tree)
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)))
      return
    }
    let settled = false
    // Ends the pictures still drawing for this worker when it ends, whichever way.
    const drawing = new AbortController()
    const settle = (fn: () => void): void => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', onAbort)
      drawing.abort()
      void worker.terminate()
      fn()
    }
    const onDraw = (m: DrawRequest): void => {
      const answer = (a: DrawAnswer): void => {
        if (!settled) worker.postMessage(a)
      }
      draw(m.source, { width: m.width, height: m.height }, drawing.signal).then(
        (rgba) => answer({ drawn: m.draw, rgba }),
        (err: unknown) => answer({ drawn: m.draw, error: err instanceof Error ? err.message : String(err) }),
      )
    }
    const onAbort = (): void => settle(() => reject(new ConfigLoadAborted('the reload was stopped')))
    signal?.addEventListener('abort', onAbort, { once: true })
    worker.on('message', (m: ConfigAnswer | DrawRequest) => {
      if ('draw' in m) onDraw(m)
      else settle(() => resolve(m))
    })
    worker.once('error', (err) => settle(() => reject(err)))
    worker.once('exit', (code) => settle(() => reject(new Error(`the config worker ended (exit ${code})`))))
    const job: ConfigJob = { text, file }
    worker.postMessage(job)
  })
}

/**
 * The loader's result for `text`, computed in a worker thread. The bindings are rebuilt one slice a
 * turn of the event loop, so that nothing of a large file holds the loop for long.
 */
export async function loadInWorker(
  text: string,
  file: string,
  signal?: AbortSignal,
  tree: InstalledTree = INSTALLED,
  draw: DrawPixels = sharedPictureProcess().draw,
): Promise<LoadResult> {
  const answer = await askWorker(text, file, signal, tree, draw)
  if (!answer.config) return { problems: answer.problems }
  const bindings: Binding[] = []
  for (const slice of answer.slices) {
    await nextTurn()
    if (signal?.aborted) throw new ConfigLoadAborted('the reload was stopped')
    for (const b of deserialize(slice) as Binding[]) bindings.push(b)
  }
  return { problems: answer.problems, config: { ...answer.config, bindings } }
}

/**
 * Reads and loads the config file for a reload, off the loop: never blocks on what is at the path,
 * never throws but for an abort (`ConfigLoadAborted`) or a worker that could not run.
 */
export async function loadConfigOffLoop(file: string, signal?: AbortSignal): Promise<LoadResult> {
  const read = await readConfigText(file)
  if ('problem' in read) return fileProblem(file, read.problem)
  return loadInWorker(read.text, file, signal)
}
