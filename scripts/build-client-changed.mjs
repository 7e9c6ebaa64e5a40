/**
 * `npm run build`'s page bundle step: builds `dist/surfaces/web/client.bundle.js` (build-client.ts)
 * only when one of its inputs changed since the last build, so `npm start` on a built tree does not
 * bundle again (issue 29). The stamp beside the bundle says what the last build read
 * (client-stamp.mjs). `--force` builds regardless.
 *
 * Plain JavaScript: the check runs with node alone, and tsx's loader is registered only to build.
 */
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildIfChanged, PAGE_BUNDLE_STAMP } from './client-stamp.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const stamp = join(root, PAGE_BUNDLE_STAMP)

const outcome = await buildIfChanged({
  root,
  stamp,
  force: process.argv.includes('--force'),
  build: async () => {
    const { register } = await import('tsx/esm/api')
    register()
    const { buildClient } = await import('./build-client.ts')
    return buildClient(root)
  },
})
if (outcome === 'skipped') process.stdout.write('page bundle up to date (its inputs are unchanged)\n')
