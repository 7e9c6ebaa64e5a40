// Prints "N passed, N failed" from vitest's JSON report. A suite that failed to load counts as a
// failure; so does a run that never produced a report (type check or lint failed first).
import { readFileSync } from 'node:fs'

const [file, rcText] = process.argv.slice(2)
const rc = Number(rcText ?? '0')
let passed = 0
let failed = 0
try {
  const report = JSON.parse(readFileSync(file, 'utf8'))
  passed = report.numPassedTests ?? 0
  failed = report.numFailedTests ?? 0
  for (const suite of report.testResults ?? []) {
    if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) failed += 1
  }
  if (rc !== 0 && failed === 0) failed = 1
} catch {
  console.error(`ci: no test report at ${file}: the type check or lint failed before the tests ran`)
  failed = 1
}
console.log(`${passed} passed, ${failed} failed`)
