/**
 * Writes the page script's browser bundle next to the compiled server, where a built daemon reads it:
 * `dist/surfaces/web/client.bundle.js`. Part of `npm run build` (after `tsc`). The esbuild options
 * live in `src/surfaces/web/client-script.ts`, shared with the in-memory bundle used from source.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bundleClientScript, CLIENT_BUNDLE_FILE } from '../src/surfaces/web/client-script.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'dist', 'surfaces', 'web', CLIENT_BUNDLE_FILE)
mkdirSync(dirname(out), { recursive: true })
writeFileSync(out, await bundleClientScript())
process.stdout.write(`wrote ${out.slice(root.length + 1)}\n`)
