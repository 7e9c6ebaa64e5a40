/**
 * The page script (`src/page/*.ts`) as the browser gets it: one classic script bundled by esbuild.
 *
 * `npm run build` writes the bundle next to the compiled server (`dist/surfaces/web/client.bundle.js`,
 * by `scripts/build-client.ts`), and a built daemon serves that file; it never needs esbuild. Run from
 * source (tests through vitest, `tsx src/cli.ts`), there is no built file, so the first request bundles
 * the script in memory with esbuild's API (a devDependency, imported only then). One set of esbuild
 * options serves both, so what the tests load is what the build ships.
 */
import { readFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { INSTALLED } from '../../installed.js'

/** The bundle's file name, next to this module once built. */
export const CLIENT_BUNDLE_FILE = 'client.bundle.js'

/** The bundle's entry point, present in a source checkout only. */
const ENTRY = fileURLToPath(new URL('../../page/main.ts', import.meta.url))
const BUILT = fileURLToPath(new URL(`./${CLIENT_BUNDLE_FILE}`, import.meta.url))
/** The package root, so the bundle (its path comments) does not depend on the working directory. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/**
 * Bundles the page script with esbuild: one strict IIFE (esbuild keeps `strict` from the tsconfig) for
 * current browsers, unminified (it is small, and a readable script is easier to audit).
 */
export async function bundleClientScript(): Promise<string> {
  return (await bundleClientScriptWithInputs()).code
}

/** The bundle, and the files esbuild read to make it (absolute paths: what a rebuild depends on). */
export interface ClientBundle {
  code: string
  inputs: string[]
}

/** {@link bundleClientScript}, with the inputs from esbuild's metafile (for the build's freshness stamp). */
export function bundleClientScriptWithInputs(): Promise<ClientBundle> {
  return bundleScript(ENTRY, 'client script')
}

/**
 * Bundles a browser script from `entry` with the one set of esbuild options (the page script, the deck
 * script): a strict IIFE for current browsers, its exports in `globalName` when given; `what` names it
 * in an error.
 */
export async function bundleScript(entry: string, what: string, globalName?: string): Promise<ClientBundle> {
  const esbuild = await import('esbuild')
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    format: 'iife',
    ...(globalName !== undefined ? { globalName } : {}),
    platform: 'browser',
    target: ['es2022'],
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
  })
  const file = result.outputFiles[0]
  if (!file) throw new Error(`${what}: esbuild produced no output`)
  const inputs = Object.keys(result.metafile.inputs).map((input) => join(ROOT, input))
  return { code: file.text, inputs }
}

/**
 * Makes a loader of the script to serve: the built bundle at `builtPath` when there is one, else
 * `bundle()` (from source). The script is loaded once per loader; a failure is not kept, so the next
 * request tries again. `atStart`: a built daemon reads it now, when it starts (the page script: a page
 * of the version that runs, whatever was installed since); otherwise on the first request, refused
 * once the installed tree was replaced (`installed.ts`).
 */
export function clientScriptLoader(
  builtPath: string,
  bundle: () => Promise<string> = bundleClientScript,
  atStart = false,
): () => Promise<string> {
  let loading: Promise<string> | undefined
  const load = async (): Promise<string> => {
    INSTALLED.check(`cannot read ${basename(builtPath)}`)
    try {
      return await readFile(builtPath, 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
    try {
      return await bundle()
    } catch (err) {
      throw new Error(
        `client script: no built bundle at ${builtPath}, and bundling from source failed (run "npm run build"): ${
          (err as Error).message
        }`,
        { cause: err },
      )
    }
  }
  const loader = (): Promise<string> => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined
      throw err
    })
    return loading
  }
  // From source there is no built file, and bundling at import would cost every test and command.
  if (atStart && !import.meta.url.endsWith('.ts')) loader().catch(() => undefined)
  return loader
}

/** The script the web server serves (see the module comment), read when the process starts. */
export const loadClientScript = clientScriptLoader(BUILT, bundleClientScript, true)
