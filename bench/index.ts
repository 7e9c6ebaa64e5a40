/**
 * `npm run bench`: runs every `bench/*.bench.ts` (or the ones named on the command line) and prints
 * their tables. Benchmarks compare against a baseline measured in the same run and report medians:
 * the machine is shared and noisy, so absolute numbers mean little and ratios mean a lot.
 *
 * Memory benchmarks measure after `global.gc()`: without `--expose-gc` the runner starts itself again
 * with it (and with the same loader flags, so `tsx bench/index.ts` and `node --import tsx` both work).
 */
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export interface BenchModule {
  /** Runs the benchmark and prints its own report; resolves when done. */
  default: () => Promise<void>
}

if (typeof (globalThis as { gc?: unknown }).gc !== 'function') {
  const child = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
  })
  process.exit(child.status ?? 1)
}

const here = dirname(fileURLToPath(import.meta.url))
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'))
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort()

for (const file of files) {
  console.log(`\n=== ${file}`)
  const mod = (await import(pathToFileURL(join(here, file)).href)) as BenchModule
  await mod.default()
}
