// Prints one line per run and, last, the line CI reads: "N passed, N failed", summed over every run.
// Arguments: one "label report rc" triple per run. A suite that failed to load counts as a failure;
// so does a run that exited non-zero without a report (install, type check, lint or native-module
// check failed first) or with a report that shows no failure. Exits 1 when anything failed.
import { readFileSync } from 'node:fs'

const args = process.argv.slice(2)
if (args.length === 0 || args.length % 3 !== 0) {
  console.error('usage: node .ci/summary.mjs <label> <report.json> <exit code> [<label> <report.json> <exit code> ...]')
  process.exit(2)
}

/** Counts one run's tests from its vitest JSON report and the exit code of the command that made it. */
function count(file, rc) {
  let passed = 0
  let failed = 0
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'))
    passed = report.numPassedTests ?? 0
    failed = report.numFailedTests ?? 0
    for (const suite of report.testResults ?? []) {
      if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) failed += 1
    }
  } catch {
    console.error(`ci: no test report at ${file}: a step before the tests failed (see above)`)
    failed = 1
  }
  if (rc !== 0 && failed === 0) failed = 1
  return { passed, failed }
}

let passed = 0
let failed = 0
for (let i = 0; i < args.length; i += 3) {
  const run = count(args[i + 1], Number(args[i + 2]))
  // Why not "N passed, N failed" here too: CI reads that shape, and only the total may have it.
  console.log(`ci: ${args[i]}: passed ${run.passed}, failed ${run.failed}`)
  passed += run.passed
  failed += run.failed
}
console.log(`${passed} passed, ${failed} failed`)
process.exitCode = failed > 0 ? 1 : 0
