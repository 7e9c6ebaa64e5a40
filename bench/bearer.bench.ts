/**
 * `npm run bench bearer`: reading the Authorization header is linear in its length, whatever the blanks
 * (the wall-clock check that was in test/daemon/server-capacity.test.ts, where a busy machine decided it).
 * Each row reads one header ROUNDS times and reports the median call; the baseline row is a plain
 * `Bearer TOKEN` measured in the same run, and the ratio column is each row's median over the baseline's.
 * Read each pair of rows (20,000 then 40,000 blanks) together: a linear read gives the second about twice
 * the first; a backtracking pattern would give it many times that.
 */
import { performance } from 'node:perf_hooks'
import { bearer } from '../src/daemon/auth.js'
import { median } from './stats.js'

const QUICK = process.env.BENCH_QUICK === '1'
/** Calls measured per row. */
const ROUNDS = QUICK ? 50 : 500

const TOKEN = 'a'.repeat(32)

/** Each row: a name and the header read. */
const ROWS: readonly (readonly [string, string])[] = [
  ['baseline: Bearer TOKEN', `Bearer ${TOKEN}`],
  ['20,000 blanks inside', `Bearer a${' '.repeat(20_000)}b`],
  ['40,000 blanks inside', `Bearer a${' '.repeat(40_000)}b`],
  ['20,000 blanks around', `Bearer ${' '.repeat(10_000)}${TOKEN}${' '.repeat(10_000)}`],
  ['40,000 blanks around', `Bearer ${' '.repeat(20_000)}${TOKEN}${' '.repeat(20_000)}`],
]

function timeRow(header: string): number {
  const times: number[] = []
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now()
    if (bearer(header) === undefined) throw new Error('the header was not read')
    times.push(performance.now() - started)
  }
  return median(times)
}

export default function run(): Promise<void> {
  for (const [, header] of ROWS) timeRow(header) // warm-up: the first calls compile the function
  const figures = ROWS.map(([name, header]) => [name, timeRow(header)] as const)
  const base = figures[0]![1]
  console.log('| header | median µs | × baseline |')
  console.log('| --- | ---: | ---: |')
  for (const [name, ms] of figures) console.log(`| ${name} | ${(ms * 1000).toFixed(2)} | ${(ms / base).toFixed(1)} |`)
  return Promise.resolve()
}
