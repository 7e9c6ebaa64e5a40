import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Safety nets, not measures: a test waits on events (test/helpers/until.ts), so these only decide how late
    // a broken test fails. Above SAFETY_MS (each wait's own net) so that the wait's message is the one seen;
    // generous because on a busy two-core machine a test that starts processes from the sources is slow.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // expect.poll's own default (1 s) is a measure of the machine, not of the code: the same net as until's.
    expect: { poll: { timeout: 60_000 } },
    // The machine is shared and has two cores: keep parallelism modest so that socket tests
    // measure behaviour, not scheduler starvation.
    pool: 'forks',
    maxWorkers: 2,
    // The JSON report is what .ci/run counts; vitest's own summary is for people.
    reporters: ['default', ['json', { outputFile: 'test-output/vitest-report.json' }]],
  },
})
