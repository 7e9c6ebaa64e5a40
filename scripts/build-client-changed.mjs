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
import { buildIfChanged } from './client-stamp.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
/** Beside the bundle (it lists the bundle among its outputs, so a renamed bundle still counts). */
const stamp = join(root, 'dist', 'surfaces', 'web', 'page-bundle.stamp.json')

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
