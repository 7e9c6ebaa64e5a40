/**
 * A part of a reload made ready before anything changes (`Daemon.applyConfig`): the new listener bound,
 * the new simulator started, the files read. `commit` swaps it in; `abort` closes what was made, and
 * leaves what runs as it was. A reload prepares every part first, so that a failure in any leaves all.
 */
export interface Prepared<T = void> {
  /** Swaps the prepared part in. May still fail only where the part could not be made beside the old one. */
  commit(): Promise<T>
  /** Closes what was prepared; what runs is untouched. */
  abort(): Promise<void>
}

/** Whether `err` (or an error it was caused by) says the address is taken. */
export function isAddressInUse(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') return true
  }
  return false
}
