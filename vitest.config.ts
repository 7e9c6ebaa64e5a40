import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The machine is shared and has two cores: keep parallelism modest so that socket tests
    // measure behaviour, not scheduler starvation.
    pool: 'forks',
    maxWorkers: 2,
    // The JSON report is what .ci/run counts; vitest's own summary is for people.
    reporters: ['default', ['json', { outputFile: 'test-output/vitest-report.json' }]],
  },
})
