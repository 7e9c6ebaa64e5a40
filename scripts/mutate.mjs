// `npm run mutate [-- <file> ... | <stryker flags>]`: runs StrykerJS over the files listed in
// stryker.config.mjs (or only the ones named), then checks each file's mutation score against its own
// break threshold there. Stryker's own thresholds are one number for the whole run; this holds every
// file to its own. Exits 1 when a file scores below its threshold or Stryker produced no report.
import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { breakThresholds } from '../stryker.config.mjs'

const REPORT = 'test-output/mutation/mutation.json'
/** Statuses that count toward the score (Stryker's "valid" mutants); the rest (ignored, compile or runtime errors) do not. */
const DETECTED = new Set(['Killed', 'Timeout'])
const UNDETECTED = new Set(['Survived', 'NoCoverage'])

const files = []
const flags = []
for (const arg of process.argv.slice(2)) (arg.startsWith('-') || flags.length > 0 ? flags : files).push(arg)
const unknown = files.filter((file) => !(file in breakThresholds))
if (unknown.length > 0) {
  console.error(`mutate: not in stryker.config.mjs's breakThresholds: ${unknown.join(', ')}`)
  process.exit(2)
}

rmSync(REPORT, { force: true })
// Why a path, not require.resolve: the package exports no ./bin subpath.
const stryker = fileURLToPath(new URL('../node_modules/@stryker-mutator/core/bin/stryker.js', import.meta.url))
const args = [stryker, 'run', ...(files.length > 0 ? ['--mutate', files.join(',')] : []), ...flags]
const started = Date.now()
const run = spawnSync(process.execPath, args, { stdio: 'inherit' })
const seconds = Math.round((Date.now() - started) / 1000)

let report
try {
  report = JSON.parse(readFileSync(REPORT, 'utf8'))
} catch {
  console.error(`mutate: Stryker exited ${run.status ?? run.signal} after ${seconds} s without a report at ${REPORT}`)
  process.exit(1)
}

let failed = run.status !== 0
const rows = []
for (const [name, file] of Object.entries(report.files)) {
  // Why relative(): the report names files relative to the project, but older reports used absolute paths.
  const path = relative(process.cwd(), resolve(name)).split('\\').join('/')
  const statuses = file.mutants.map((mutant) => mutant.status)
  const detected = statuses.filter((status) => DETECTED.has(status)).length
  const undetected = statuses.filter((status) => UNDETECTED.has(status)).length
  const valid = detected + undetected
  const score = valid === 0 ? NaN : (100 * detected) / valid
  const threshold = breakThresholds[path]
  const ok = threshold !== undefined && score >= threshold
  failed ||= !ok
  rows.push({
    file: path,
    mutants: valid,
    killed: statuses.filter((status) => status === 'Killed').length,
    timeout: statuses.filter((status) => status === 'Timeout').length,
    survived: statuses.filter((status) => status === 'Survived').length,
    'no coverage': statuses.filter((status) => status === 'NoCoverage').length,
    score: Number.isNaN(score) ? 'no mutants' : score.toFixed(2),
    break: threshold ?? 'not listed',
    result: ok ? 'ok' : 'BELOW',
  })
}
for (const path of files.length > 0 ? files : Object.keys(breakThresholds)) {
  if (rows.some((row) => row.file === path)) continue
  failed = true
  rows.push({ file: path, score: 'not in the report', break: breakThresholds[path], result: 'BELOW' })
}
console.log(`\nmutate: Stryker took ${seconds} s`)
console.table(rows)
if (failed) console.error('mutate: FAILED: a file scored below its break threshold, or Stryker failed (see above)')
process.exitCode = failed ? 1 : 0
