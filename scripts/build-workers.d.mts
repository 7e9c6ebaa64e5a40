/** Types of build-workers.mjs (plain JavaScript so that `npm start`'s check needs node alone). */

/** One worker bundle: its name, entry and output (relative to the package root), and what it leaves out. */
export interface WorkerBundle {
  readonly name: string
  readonly entry: string
  readonly out: string
  readonly external: readonly string[]
}
export const WORKER_BUNDLES: readonly WorkerBundle[]
export const NATIVE_EXTERNALS: readonly string[]
export const WORKER_BUNDLES_STAMP: string
export const BUILD_STAMP: string
export function buildWorkers(root: string): Promise<{ outputs: string[]; inputs: string[] }>
export function writeBuildStamp(root: string): { version: string; id: string }
export function buildWorkersChanged(root: string, options?: { force?: boolean }): Promise<void>
