/** Types of start.mjs (plain JavaScript so that `npm start` needs node alone). */
import type { StdioOptions } from 'node:child_process'

/** What `tsc -b tsconfig.build.json` reads and writes, relative to the root. */
export interface TsBuildFiles {
  readonly buildInfo: string
  readonly sources: readonly string[]
  readonly configs: readonly string[]
  readonly outputs: readonly string[]
}
export const TS_BUILD: TsBuildFiles
export function typescriptUpToDate(
  root: string,
  build?: TsBuildFiles,
  typescript?: string | null,
): { upToDate: boolean; why: string }
export function markBuilt(root: string, startedAt: number, buildInfo?: string): void
export function foregroundOf(stat: string): boolean
export function inTerminalForeground(): boolean
export const FORWARDED_SIGNALS: readonly ['SIGINT', 'SIGTERM', 'SIGHUP']
export function runForwarding(
  command: string,
  args: readonly string[],
  options?: { foreground?: () => boolean; stdio?: StdioOptions },
): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
export function exitLike(outcome: { code: number | null; signal: NodeJS.Signals | null }): never
