/**
 * `npm run bench config-bounds` (issue 24, item 3, the loader's part): how long the loader takes to
 * refuse a hostile mapping file, one case at a time, in this process. Each case is loaded RUNS times
 * after WARMUP loads (the first loads compile the schema and the parser); reported: the median, the
 * 90th percentile and the longest load, and the event loop's longest stall over the case's loads
 * (`perf_hooks.monitorEventLoopDelay`). Target: loads under TARGET_MS (the loader runs on the daemon's
 * loop until a reload moves to a worker thread). The verdict reads the 90th percentile: on the shared
 * machine a garbage collection or another process lands in the longest load of any case, the small
 * valid baseline's included.
 *
 * Before this change (issue 24): a 10,000-character key held the loop for seconds on "did you mean",
 * and 10,000 nested `[` held it in the yaml parser alone and then overflowed the stack in its composer.
 *
 * The baseline row is a small valid file: the cost of a load that refuses nothing.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { setImmediate as yieldLoop } from 'node:timers/promises'
import { parseDocument } from 'yaml'
import { CONFIG_LIMITS } from '../src/mappings/limits.js'
import { loadConfigText } from '../src/mappings/load.js'
import { bigConfig } from './config-reload.bench.js'
import { median, percentile } from './stats.js'

const QUICK = process.env.BENCH_QUICK === '1'
/** Loads measured per case, and loads before them that are not. */
const RUNS = QUICK ? 5 : 30
const WARMUP = 3
/** Every load of every case must finish within this, ms (issue 24: no input holds the loop longer). */
export const TARGET_MS = 50

const LONG = 10_000
const long = (c: string): string => c.repeat(LONG)
/** `unit` repeated to fill the largest file, less `room` bytes for what goes around it. */
const fill = (unit: string, room: number): string =>
  unit.repeat(Math.floor((CONFIG_LIMITS.fileBytes - room) / unit.length))
/** Distinct short keys (`k0: 1, k1: 1, ...`) to fill the largest file, less `room` bytes. */
function keys(room: number): string {
  const out: string[] = []
  let size = 0
  for (let i = 0; size < CONFIG_LIMITS.fileBytes - room - 16; i++) {
    out.push(`k${i}: 1`)
    size += out.at(-1)!.length + 2
  }
  return out.join(', ')
}
const HEAD = 'version: 1\nsurfaces:\n  desk: { driver: web, rows: 2, columns: 4 }\nbindings:\n'

/** Each case: a name and the file's text. */
export const CASES: readonly (readonly [string, string])[] = [
  ['baseline: a small valid file', `${HEAD}  - on: desk/key:0\n    press: { command: getVideoFormat }\n`],
  ['10,000-char top-level key', `version: 1\n"${long('a')}": 1\n`],
  ['10,000-char key in listen (flow)', `version: 1\nlisten: { ${long('a')}: 1 }\n`],
  ['10,000-char key in a binding', `${HEAD}  - { on: desk/key:0, ${long('l')}: x }\n`],
  ['10,000-char key in a surface entry', `version: 1\nsurfaces:\n  desk: { driver: web, rows: 2, ${long('c')}: 4 }\n`],
  [
    '10,000-char key in colors',
    `${HEAD}  - on: desk/key:0\n    feedback: { title: T, colors: { ${long('R')}: '#ffffff' } }\n`,
  ],
  [
    // 240 KB of YAML: the parse itself, in proportion to the size, is most of it.
    '60 unknown 4,000-char keys (240 KB)',
    `version: 1\nlisten: { ${Array.from({ length: 60 }, (_, i) => `${'k'.repeat(4000)}${i}: 1`).join(', ')} }\n`,
  ],
  ['10,000-char command', `${HEAD}  - on: desk/key:0\n    press: { command: ${long('s')} }\n`],
  [
    '10,000-char parameter',
    `${HEAD}  - on: desk/key:0\n    press: { command: schedule, params: { title: T, ${long('t')}: 1 } }\n`,
  ],
  ['10,000-char surface in on:', `${HEAD}  - on: ${long('d')}/key:0\n    press: { command: getVideoFormat }\n`],
  ['10,000-deep flow lists', `version: 1\nbindings: ${'['.repeat(LONG)}${']'.repeat(LONG)}\n`],
  ['10,000-deep flow maps', `version: 1\nbindings: ${'{a: '.repeat(LONG)}1${'}'.repeat(LONG)}\n`],
  ['10,000-deep block lists (- - -)', `version: 1\nbindings:\n  ${'- '.repeat(LONG)}1\n`],
  ['the largest file, all [', `version: 1\nx: ${'['.repeat(CONFIG_LIMITS.fileBytes - 20)}\n`],
  // The largest file a control room could write: the loader's whole cost on a file within the bounds.
  ['the largest valid file: 2,000 bindings', bigConfig(CONFIG_LIMITS.bindings)],
  ['the largest file, all aliases of a list', `version: 1\na: &a [x]\nb: [${fill('*a, ', 30)}]\n`],
  ['the largest file, all aliases of a scalar', `version: 1\na: &a x\nb: [${fill('*a, ', 30)}]\n`],
  ['the largest file, all anchors', `version: 1\nb: [${fill('&a x, ', 30)}]\n`],
  ['the largest file, all short keys', `version: 1\nlisten: {${keys(30)}}\n`],
  ['the largest file, all one-line bindings', `${HEAD}${fill('  - { on: desk/key:0 }\n', 40)}`],
]

interface Row {
  name: string
  medianMs: number
  p90Ms: number
  maxMs: number
  stallMs: number
  problems: string
}

async function measure(name: string, text: string): Promise<Row> {
  for (let i = 0; i < WARMUP; i++) await loadConfigText(text, 'bench.yaml')
  const times: number[] = []
  const loop = monitorEventLoopDelay({ resolution: 1 })
  loop.enable()
  let problems = ''
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now()
    const r = await loadConfigText(text, 'bench.yaml')
    times.push(performance.now() - t0)
    problems = r.config ? 'loads' : `${r.problems.length}: ${r.problems[0]?.message.slice(0, 60) ?? ''}`
    // Let the monitor see the loop between loads.
    await yieldLoop()
  }
  loop.disable()
  return {
    name,
    medianMs: median(times),
    p90Ms: percentile(times, 90),
    maxMs: Math.max(...times),
    stallMs: loop.max / 1e6,
    problems,
  }
}

/**
 * The old first step, once per deep case: the yaml library's parseDocument on the whole text (what the
 * loader ran before any check of depth), for the figure before beside the one after.
 */
function oldParseMs(text: string): string {
  const t0 = performance.now()
  try {
    parseDocument(text, { prettyErrors: false, uniqueKeys: true })
  } catch (err) {
    return `${(performance.now() - t0).toFixed(0)} ms, then ${err instanceof Error ? err.message : String(err)}`
  }
  return `${(performance.now() - t0).toFixed(0)} ms`
}

export default async function run(): Promise<void> {
  const rows: Row[] = []
  for (const [name, text] of CASES) rows.push(await measure(name, text))
  const w = Math.max(...rows.map((r) => r.name.length))
  console.log(`loads per case: ${RUNS} after ${WARMUP}; target: p90 of the loads < ${TARGET_MS} ms`)
  console.log(`${'case'.padEnd(w)} | median ms | p90 ms | max ms | loop stall ms | verdict | first problem`)
  console.log(`${'-'.repeat(w)}-|-----------|--------|--------|---------------|---------|--------------`)
  for (const r of rows) {
    const verdict = r.p90Ms < TARGET_MS ? 'ok' : 'OVER'
    const ms = (v: number, width: number): string => v.toFixed(2).padStart(width)
    console.log(
      `${r.name.padEnd(w)} | ${ms(r.medianMs, 9)} | ${ms(r.p90Ms, 6)} | ${ms(r.maxMs, 6)} | ` +
        `${r.stallMs.toFixed(1).padStart(13)} | ${verdict.padEnd(7)} | ${r.problems}`,
    )
  }
  console.log('\nbefore: the yaml parse alone, as the loader ran it before this change (once each)')
  for (const [name, text] of CASES.filter(([n]) => n.includes('deep'))) console.log(`${name}: ${oldParseMs(text)}`)
}
