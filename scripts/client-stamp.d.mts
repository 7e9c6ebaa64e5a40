/** Types of client-stamp.mjs (plain JavaScript so the build's freshness check runs without tsx). */
export interface BuiltFiles {
  /** What the build wrote: absolute, or relative to the root. */
  readonly outputs: readonly string[]
  /** Every file whose content shapes the outputs: absolute, or relative to the root. */
  readonly inputs: readonly string[]
}
export function inputsHash(root: string, inputs: readonly string[]): string | null
export function stampFresh(root: string, stampPath: string): boolean
export function writeStamp(root: string, stampPath: string, built: BuiltFiles): void
export function buildIfChanged(options: {
  root: string
  stamp: string
  force?: boolean
  build: () => Promise<BuiltFiles>
}): Promise<'built' | 'skipped'>
