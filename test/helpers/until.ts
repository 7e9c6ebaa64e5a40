import { readFileSync } from 'node:fs'
/**
 * How long a wait on real I/O (a process's line, a socket, a file) may take before the test fails. A safety
 * net, not a measure: a wait ends at its event, so this only decides how late a broken test fails. It is
 * generous because a busy two-core machine (load 20, stress-ng beside the suite) starts a process from the
 * sources many times slower than a quiet one. The suite's per-test time-out (vitest.config.ts) is above it.
 * Daemons started in tests take it as their reload bound too (`reloadTimeoutMs`), where the reload's bound is
 * not what the test is about: a reload's worker starts under tsx here, which a busy machine holds long.
 */
export const SAFETY_MS = 60_000

/**
 * The one way a test waits for something that happens on a real socket, process or file: poll `check` until it
 * is true, and fail with `what` when `ms` pass first. Tests about time itself use fake timers instead; this is for
 * what real I/O decides (a frame read, a child's output, a file written).
 */
export async function until(what: string, check: () => boolean, ms = SAFETY_MS, everyMs = 5): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}

/** As `until`, for a value: resolves with the first non-undefined answer of `find`. */
export async function untilFound<T>(what: string, find: () => T | undefined, ms = SAFETY_MS, everyMs = 5): Promise<T> {
  let found: T | undefined
  await until(what, () => (found = find()) !== undefined, ms, everyMs)
  return found as T
}

/** Whether process `pid` still runs (not gone, not a zombie waiting to be reaped). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}
