/**
 * Writes the page script's browser bundle next to the compiled server, where a built daemon reads it:
 * `dist/surfaces/web/client.bundle.js`, and beside it the deck script the page imports only when it
 * connects a Stream Deck (`browser-deck.bundle.js`, see `deck-script.ts`). Part of `npm run build` (after `tsc`), through
 * `build-client-changed.mjs`, which loads this module only when an input of the last bundle changed.
 * The esbuild options live in `src/surfaces/web/client-script.ts`, shared with the in-memory bundle
 * used from source.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bundleClientScriptWithInputs, CLIENT_BUNDLE_FILE } from '../src/surfaces/web/client-script.js'
import { bundleDeckScriptWithInputs, DECK_BUNDLE_FILE } from '../src/surfaces/web/deck-script.js'
import type { BuiltFiles } from './client-stamp.mjs'

/** Where the bundle goes, relative to the package root. */
export const CLIENT_BUNDLE_OUT = join('dist', 'surfaces', 'web', CLIENT_BUNDLE_FILE)
/** Where the page's deck script goes (WebHID, issue 26.2: loaded by the page only when it connects a deck). */
export const DECK_BUNDLE_OUT = join('dist', 'surfaces', 'web', DECK_BUNDLE_FILE)

/**
 * What shapes the bundle besides the sources esbuild reads: the options' module, the tsconfig files
 * esbuild reads for `strict` and the target, this builder, and esbuild's own version.
 */
function buildInputs(): string[] {
  const require = createRequire(import.meta.url)
  const here = dirname(fileURLToPath(import.meta.url))
  return [
    join(here, '..', 'src', 'surfaces', 'web', 'client-script.ts'),
    join(here, '..', 'src', 'surfaces', 'web', 'deck-script.ts'),
    join(here, '..', 'src', 'page', 'tsconfig.json'),
    join(here, '..', 'tsconfig.json'),
    fileURLToPath(import.meta.url),
    require.resolve('esbuild/package.json'),
  ]
}

/** Bundles the page script into `root`'s dist/ and says what it wrote and read (absolute paths). */
export async function buildClient(root: string): Promise<BuiltFiles> {
  const out = join(root, CLIENT_BUNDLE_OUT)
  const { code, inputs } = await bundleClientScriptWithInputs()
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, code)
  process.stdout.write(`wrote ${CLIENT_BUNDLE_OUT}\n`)
  const deckOut = join(root, DECK_BUNDLE_OUT)
  const deck = await bundleDeckScriptWithInputs()
  writeFileSync(deckOut, deck.code)
  process.stdout.write(`wrote ${DECK_BUNDLE_OUT}\n`)
  return { outputs: [out, deckOut], inputs: [...new Set([...inputs, ...deck.inputs]), ...buildInputs()] }
}
