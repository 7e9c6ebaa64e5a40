/**
 * The one way a test waits for something that happens on a real socket, process or file: poll `check` until it
 * is true, and fail with `what` when `ms` pass first. Tests about time itself use fake timers instead; this is for
 * what real I/O decides (a frame read, a child's output, a file written).
 */
export async function until(what: string, check: () => boolean, ms = 10_000, everyMs = 5): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}

/** As `until`, for a value: resolves with the first non-undefined answer of `find`. */
export async function untilFound<T>(what: string, find: () => T | undefined, ms = 10_000, everyMs = 5): Promise<T> {
  let found: T | undefined
  await until(what, () => (found = find()) !== undefined, ms, everyMs)
  return found as T
}
