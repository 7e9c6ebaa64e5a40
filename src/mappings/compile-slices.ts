/**
 * A reload's engine work spread over turns of the event loop (issue 24, item 3): building the runtime of
 * 4,092 bindings (`Engine.apply`) held the daemon's loop for a quarter of a second in one go.
 *
 * `prepareMapping` builds the new mapping's runtime beside the running one, a slice of at most
 * COMPILE_SLICE_MS of work per turn; the running mapping takes every input meanwhile. Its `commit` puts
 * the whole of it in force at once (one synchronous swap: an input is routed by the old mapping or by the
 * new, never by a mix), then, again in slices, disposes of the old bindings (no input reaches them after
 * the swap; one mid-burst was handed its burst at the swap) and redraws the controls. `abort` drops what
 * was built. A reload prepares the mapping with the rest of its parts, before it swaps anything
 * (`Daemon.applyConfig`), and the reload resolves once the commit has drawn every control.
 */
import { setImmediate as nextTurnOfLoop } from 'node:timers/promises'
import type { MappingCompiler } from './engine.js'
import type { Config } from './schema.js'

/**
 * Work done in one turn before the loop gets a turn of its own, ms. ASSUMED: well under the 50 ms a
 * stall may last (issue 24), with room for the garbage collector's share; `npm run bench config-reload`.
 */
const COMPILE_SLICE_MS = 5

/** Why a preparation stopped: its reload timed out or was stopped. */
export class CompileAborted extends Error {
  override readonly name = 'CompileAborted'
}

export interface SliceOptions {
  /** Aborts the preparation (not a commit under way: the swap has happened by then). */
  signal?: AbortSignal
  /** See COMPILE_SLICE_MS. */
  sliceMs?: number
  /** The clock slices are measured with (default `performance.now`). */
  now?: () => number
  /** Gives the loop a turn (default: `setImmediate`, after the I/O already waiting). */
  nextTurn?: () => Promise<unknown>
}

/**
 * Calls `step(0)` to `step(count - 1)`, as many as fit in `sliceMs` per turn, giving the loop a turn
 * between slices (at least one step a slice). Throws CompileAborted when `signal` aborts between slices.
 */
export async function inSlices(count: number, step: (i: number) => void, o: SliceOptions = {}): Promise<void> {
  const now = o.now ?? (() => performance.now())
  const sliceMs = o.sliceMs ?? COMPILE_SLICE_MS
  const nextTurn = o.nextTurn ?? (() => nextTurnOfLoop())
  let i = 0
  while (i < count) {
    if (o.signal?.aborted) throw new CompileAborted('the reload was stopped')
    const start = now()
    do step(i++)
    while (i < count && now() - start < sliceMs)
    if (i < count) await nextTurn()
  }
  if (o.signal?.aborted) throw new CompileAborted('the reload was stopped')
}

/** A mapping made ready (the shape of the daemon's `Prepared`: this layer does not import the daemon's). */
export interface PreparedMapping {
  /** Swaps the mapping in at once, then redraws the controls in slices; resolves when all are drawn. */
  commit(): Promise<void>
  /** Drops what was built; what runs is untouched. */
  abort(): Promise<void>
}

/** The engine side a preparation needs. */
export interface Compiles {
  compiler(): MappingCompiler
}

/**
 * The new mapping for `config`, built in slices beside the running one. Rejects with CompileAborted,
 * having changed nothing, when `o.signal` aborts first.
 */
export async function prepareMapping(engine: Compiles, config: Config, o: SliceOptions = {}): Promise<PreparedMapping> {
  const compiler = engine.compiler()
  const { bindings } = config
  try {
    const carried = compiler.carrySteps
    await inSlices(
      carried + bindings.length,
      (i) => (i < carried ? compiler.carry(i) : compiler.add(bindings[i - carried]!)),
      o,
    )
  } catch (err) {
    compiler.abort()
    throw err
  }
  let used = false
  return {
    commit: async () => {
      if (used) return
      used = true
      // The swap, synchronously on this call: nothing of the loop runs between the old mapping and the new.
      const keys = compiler.swap(config)
      // After the swap, nothing stops half-way: what the old mapping ran is retired, every control drawn.
      const { signal: _ignored, ...after } = o
      const retired = compiler.retireSteps()
      await inSlices(
        retired + keys.length,
        (i) => (i < retired ? compiler.retire(i) : compiler.redraw(keys[i - retired]!)),
        after,
      )
      compiler.done()
    },
    abort: () => {
      if (!used) compiler.abort()
      used = true
      return Promise.resolve()
    },
  }
}
