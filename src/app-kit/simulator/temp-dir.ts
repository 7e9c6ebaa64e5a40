/**
 * Temporary data folders the simulator made for itself, removed when the simulator closes and also
 * when the process ends without closing it: a normal or forced exit, an uncaught exception (Node
 * emits `exit` for both) and SIGINT/SIGTERM. A SIGKILL cannot be caught; nothing is left to chance
 * beyond that.
 */
import { rmSync } from 'node:fs'

const tracked = new Set<string>()
const SIGNALS = ['SIGINT', 'SIGTERM'] as const

function removeAll(): void {
  for (const dir of tracked) rmSync(dir, { recursive: true, force: true })
  tracked.clear()
}

/**
 * On a signal: the folders go at once. When nobody else listens for the signal, the default action
 * (ending the process) is restored and the signal raised again, so that listening here never keeps
 * a process alive that would otherwise have stopped.
 */
function onSignal(signal: NodeJS.Signals): void {
  removeAll()
  if (process.listenerCount(signal) === 1) {
    uninstall()
    process.kill(process.pid, signal)
  }
}

let installed = false
function install(): void {
  if (installed) return
  installed = true
  process.on('exit', removeAll)
  for (const s of SIGNALS) process.on(s, onSignal)
}
function uninstall(): void {
  if (!installed) return
  installed = false
  process.off('exit', removeAll)
  for (const s of SIGNALS) process.off(s, onSignal)
}

/** Removes `dir` if the process ends before `removeTempDir(dir)` is called. */
export function trackTempDir(dir: string): void {
  tracked.add(dir)
  install()
}

/** Removes `dir` now and stops tracking it; the process listeners go with the last folder. */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
  tracked.delete(dir)
  if (tracked.size === 0) uninstall()
}

/** Folders still tracked (for tests). */
export function trackedTempDirs(): readonly string[] {
  return [...tracked]
}
