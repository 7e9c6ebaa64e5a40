/**
 * The worker thread of a reload (`config-load.ts` starts it): parses and checks one config text with
 * the loader (`loadConfigText`) and posts back its result, so that a large file (2,000 bindings, a
 * quarter megabyte) costs the daemon's event loop only the copy of the result, not the parse.
 *
 * The config is plain data (objects, arrays, strings, numbers, booleans: what the schema builds), so
 * the structured clone keeps it whole (the test of `config-load.ts` holds it to that). Its bindings
 * come back as serialized slices of BINDINGS_PER_SLICE, which the daemon turns back into objects one
 * slice a turn: rebuilt at once, 2,000 bindings would hold its loop for the whole copy.
 */
import { serialize } from 'node:v8'
import { parentPort } from 'node:worker_threads'
import { loadConfigText, type LoadResult } from '../mappings/load.js'

/** Bindings in one serialized slice. ASSUMED: ~250 bindings rebuild in a few ms (`npm run bench config-reload`). */
const BINDINGS_PER_SLICE = 256

/** What the daemon sends: the text read and the file it came from (for `file:line:col`). */
export interface ConfigJob {
  text: string
  file: string
}

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
  port.once('message', (job: ConfigJob) => {
    // loadConfigText never throws (it reports every problem); a fault here still ends as an error event.
    // A picture file that cannot be read is a warning to the daemon (the key says why; `check-image.ts`).
    void loadConfigText(job.text, job.file, { imageProblems: 'warning' }).then((result) => {
      const answer = answerOf(result)
      // The slices' memory moves to the daemon's thread rather than being copied (each buffer once).
      port.postMessage(answer, [...new Set(answer.slices.map((s) => s.buffer as ArrayBuffer))])
    })
  })
}
