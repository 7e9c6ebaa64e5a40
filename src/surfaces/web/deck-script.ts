/**
 * The page's deck script (`src/page/deck/webhid-deck.ts` and the WebHID library), a bundle of its own
 * that the page imports only when someone presses "connect a Stream Deck" (issue 26.2): the page
 * script stays as small as it was, and the daemon reads this file only when a browser asks for it.
 *
 * As the page script (`client-script.ts`): `npm run build` writes it next to the compiled server
 * (`dist/surfaces/web/browser-deck.bundle.js`, by `scripts/build-client.ts` beside the page script), and a built daemon
 * serves that file; run from source, the first request bundles it in memory with esbuild. One classic
 * script defining DECK_SCRIPT_GLOBAL, unminified.
 */
import { fileURLToPath } from 'node:url'
import { bundleScript, clientScriptLoader, type ClientBundle } from './client-script.js'

/** The bundle's file name, next to this module once built. */
export const DECK_BUNDLE_FILE = 'browser-deck.bundle.js'
/**
 * The global the script defines (its exports): a classic script like the page's, added as a `<script>`
 * element when the button is pressed, so neither script needs module syntax.
 */
const DECK_SCRIPT_GLOBAL = 'panelbridgeDeck'
/** Where the page asks for it, relative to the page. */
export const DECK_SCRIPT_ROUTE = '/browser-deck.js'

const ENTRY = fileURLToPath(new URL('../../page/deck/webhid-deck.ts', import.meta.url))
const BUILT = fileURLToPath(new URL(`./${DECK_BUNDLE_FILE}`, import.meta.url))

/** Bundles the deck script with esbuild: one strict IIFE for current browsers, its exports in a global. */
export async function bundleDeckScript(): Promise<string> {
  return (await bundleDeckScriptWithInputs()).code
}

/** {@link bundleDeckScript}, with the files esbuild read (for the build's freshness stamp). */
export function bundleDeckScriptWithInputs(): Promise<ClientBundle> {
  return bundleScript(ENTRY, 'deck script', DECK_SCRIPT_GLOBAL)
}

/** The deck script the web server serves (read or bundled on the first request, then kept). */
export const loadDeckScript = clientScriptLoader(BUILT, bundleDeckScript)
