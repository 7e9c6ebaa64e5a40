// Mutation testing: `npm run mutate` (scripts/mutate.mjs runs Stryker, then holds each file to its
// own break threshold below). Never part of `npm test`: it takes minutes per file.

/**
 * The files under mutation, each with its break threshold: the lowest mutation score (killed and
 * timed-out mutants over all that were tested, in %) the file may reach before `npm run mutate`
 * fails. Each is set to the score the file reached (at least 80); surviving mutants are either killed
 * by a test or named as equivalent in the issue that set the threshold.
 */
export const breakThresholds = {
  'src/api/notifications.ts': 94,
  'src/api/qwebchannel.ts': 88,
  'src/api/client.ts': 90,
  'src/surfaces/manager.ts': 93,
  'src/surfaces/streamdeck/write-queue.ts': 91,
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.config.ts' },
  mutate: Object.keys(breakThresholds),
  // Only the tests that reach a mutant run against it.
  coverageAnalysis: 'perTest',
  // Two cores, shared with other work: one test process at a time.
  concurrency: 1,
  // Why break is null: the per-file thresholds above are the gate (scripts/mutate.mjs), not the total.
  thresholds: { high: 90, low: 80, break: null },
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'test-output/mutation/mutation.json' },
  htmlReporter: { fileName: 'test-output/mutation/mutation.html' },
  // Used with --incremental: a rerun after new tests only retests the mutants they could change.
  incrementalFile: 'test-output/mutation/stryker-incremental.json',
  clearTextReporter: { allowColor: false, logTests: false },
  // Why inside test-output: already ignored by git, ESLint, Prettier and tsc.
  tempDirName: 'test-output/stryker-tmp',
  ignorePatterns: ['dist', 'coverage', 'test-output'],
  cleanTempDir: 'always',
}
