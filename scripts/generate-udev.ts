/**
 * Writes systemd/60-panelbridge.rules and systemd/70-panelbridge-uaccess.rules from the model table.
 * `npx tsx scripts/generate-udev.ts` regenerates; `--check` exits 1 if the committed files are stale.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { UDEV_FILES, renderUdevRules, type UdevVariant } from '../src/families/udev.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const check = process.argv.includes('--check')
let stale = 0
for (const variant of Object.keys(UDEV_FILES) as UdevVariant[]) {
  const file = join(root, UDEV_FILES[variant])
  const text = renderUdevRules(variant)
  if (check) {
    let current = ''
    try {
      current = readFileSync(file, 'utf8')
    } catch (err) {
      process.stderr.write(`${UDEV_FILES[variant]}: ${(err as Error).message}\n`)
    }
    if (current !== text) {
      stale++
      process.stderr.write(`${UDEV_FILES[variant]} is stale: run npx tsx scripts/generate-udev.ts\n`)
    }
  } else {
    writeFileSync(file, text)
    process.stdout.write(`wrote ${UDEV_FILES[variant]}\n`)
  }
}
process.exitCode = stale > 0 ? 1 : 0
