/**
 * How `learn` (and `learn --raw`) wait until the user stops them: a signal that fires on the first
 * SIGINT or SIGTERM, and a wait for it.
 */

/** An AbortSignal that fires on the first SIGINT or SIGTERM; its listeners are removed then. */
export function signalStop(): AbortSignal {
  const controller = new AbortController()
  const onSignal = (): void => {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    controller.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return controller.signal
}

/** Resolves when the signal fires (at once when it has). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
}
