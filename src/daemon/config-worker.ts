/**
 * The worker thread of a reload (`config-load.ts` starts it): parses and checks one config text with
 * the loader (`loadConfigText`) and posts back its result, so that a large file (2,000 bindings, a
 * quarter megabyte) costs the daemon's event loop only the copy of the result, not the parse.
 *
 * The config is plain data (objects, arrays, strings, numbers, booleans: what the schema builds), so
 * the structured clone keeps it whole (the test of `config-load.ts` holds it to that). Its bindings
 * come back as serialized slices of BINDINGS_PER_SLICE, which the daemon turns back into objects one
 * slice a turn: rebuilt at once, 2,000 bindings would hold its loop for the whole copy.
 *
 * The worker reads, sniffs and scans a binding's picture file, but never draws it: it asks the daemon's
 * thread (a `DrawRequest`), which has it drawn in the drawing process (`picture.ts`) and killed
 * when the reload ends. The rasteriser cannot be interrupted, and a worker thread inside it could be
 * neither terminated nor waited for on the process's way out.
 */
import { serialize } from 'node:v8'
import { parentPort } from 'node:worker_threads'
import { loadConfigText, type LoadResult } from '../mappings/load.js'
import { DrawError, type DrawPixels } from '../surfaces/render/picture.js'

/** Bindings in one serialized slice. ASSUMED: ~250 bindings rebuild in a few ms (`npm run bench config-reload`). */
const BINDINGS_PER_SLICE = 256

/** What the daemon sends: the text read and the file it came from (for `file:line:col`). */
export interface ConfigJob {
  text: string
  file: string
}

/** The worker asks the daemon's thread to draw a picture (`DrawPixels`'s arguments), by `draw` id. */
export interface DrawRequest {
  draw: number
  source: Uint8Array
  width: number
  height: number
}

/** The daemon's thread answers a `DrawRequest`: the pixels, or the rest of a sentence saying why not. */
export type DrawAnswer = { drawn: number; rgba: Uint8Array } | { drawn: number; error: string }

/** What the worker answers: the problems, the config without its bindings, the bindings in slices. */
export interface ConfigAnswer {
  problems: LoadResult['problems']
  /** The config with `bindings: []`, when the file has no error. */
  config?: NonNullable<LoadResult['config']>
  /** `v8.serialize` of each slice of the bindings, in order. */
  slices: Uint8Array[]
}

/** The answer for a loader's result: the bindings cut into serialized slices. */
export function answerOf(result: LoadResult): ConfigAnswer {
  if (!result.config) return { problems: result.problems, slices: [] }
  const { bindings } = result.config
  const slices: Uint8Array[] = []
  for (let i = 0; i < bindings.length; i += BINDINGS_PER_SLICE)
    slices.push(serialize(bindings.slice(i, i + BINDINGS_PER_SLICE)))
  return { problems: result.problems, config: { ...result.config, bindings: [] }, slices }
}

const port = parentPort
if (port) {
  const waiting = new Map<number, { resolve(rgba: Uint8Array): void; reject(err: Error): void }>()
  let next = 0
  const draw: DrawPixels = (source, size) =>
    new Promise((resolve, reject) => {
      const request: DrawRequest = { draw: next++, source, ...size }
      waiting.set(request.draw, { resolve, reject })
      port.postMessage(request)
    })
  port.on('message', (m: ConfigJob | DrawAnswer) => {
    if ('drawn' in m) {
      const w = waiting.get(m.drawn)
      waiting.delete(m.drawn)
      if ('rgba' in m) w?.resolve(m.rgba)
      else w?.reject(new DrawError(m.error))
      return
    }
    // loadConfigText never throws (it reports every problem); a fault here still ends as an error event.
    // A picture file that cannot be read is a warning to the daemon (the key says why; `check-image.ts`).
    void loadConfigText(m.text, m.file, { imageProblems: 'warning', pictures: { draw } }).then((result) => {
      const answer = answerOf(result)
      // The slices' memory moves to the daemon's thread rather than being copied (each buffer once).
      port.postMessage(answer, [...new Set(answer.slices.map((s) => s.buffer as ArrayBuffer))])
      // Nothing more comes: the daemon's thread ends the worker, and the port must not hold it meanwhile.
      port.unref()
    })
  })
}
