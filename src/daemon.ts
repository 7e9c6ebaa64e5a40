/**
 * The daemon moved to `src/daemon/daemon.ts` (issue 21, its rooms under `src/daemon/`). This stays only
 * until `src/commands/run.ts` imports it from there (that file is being edited in the same round).
 */
export * from './daemon/daemon.js'
