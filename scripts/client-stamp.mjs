/**
 * Whether the page bundle must be built again: `npm run build` (and so `npm start`) rebuilds it only
 * when one of its inputs changed. Plain JavaScript on purpose: it runs on every build, and loading
 * tsx alone costs most of a second of CPU (measured for issue 29), so the check itself needs node only;
 * the TypeScript builder (`build-client.ts`) is loaded only when there is something to build.
 *
 * The stamp, a small JSON file beside the bundle, lists the build's outputs and inputs (the files
 * esbuild read, from its metafile, plus what shapes the bundle besides them: the esbuild options'
 * module, the tsconfig files, esbuild's version) and a hash of the inputs' contents. The bundle is
 * fresh when the stamp reads, every output exists and the inputs hash to the same value. A new
 * source file only matters once an existing input imports it, so the listed inputs are enough.
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { isAbsolute, join, relative } from 'node:path'

/**
 * The page bundle's stamp, relative to the package root: beside the bundle (it lists the bundle among
 * its outputs, so a renamed bundle still counts). Read by build-client-changed.mjs and start.mjs.
 */
export const PAGE_BUNDLE_STAMP = join('dist', 'surfaces', 'web', 'page-bundle.stamp.json')

/** The stamp's format; a stamp of another version is stale. */
const STAMP_VERSION = 1
/** A stamp is a few kilobytes; anything larger is not ours and counts as stale (read bounded). */
const STAMP_MAX_BYTES = 1024 * 1024

/**
 * The hash of `inputs` (paths relative to `root`), their names and contents in sorted order; null when
 * one cannot be read (a removed input: rebuild).
 * @param {string} root
 * @param {readonly string[]} inputs
 * @returns {string | null}
 */
export function inputsHash(root, inputs) {
  const hash = createHash('sha256')
  for (const input of [...new Set(inputs)].sort()) {
    let content
    try {
      content = readFileSync(join(root, input))
    } catch {
      return null
    }
    hash.update(`${input}\0${content.length}\0`)
    hash.update(content)
  }
  return hash.digest('hex')
}

/**
 * The stamp at `stampPath` when it is readable and well formed, else undefined.
 * @param {string} stampPath
 */
function readStamp(stampPath) {
  try {
    if (statSync(stampPath).size > STAMP_MAX_BYTES) return undefined
    const stamp = JSON.parse(readFileSync(stampPath, 'utf8'))
    const strings = (v) => Array.isArray(v) && v.every((s) => typeof s === 'string')
    if (stamp?.version !== STAMP_VERSION || typeof stamp.hash !== 'string') return undefined
    if (!strings(stamp.outputs) || !strings(stamp.inputs)) return undefined
    return stamp
  } catch {
    return undefined
  }
}

/**
 * True when the outputs the stamp lists exist and its inputs still hash as they did.
 * @param {string} root
 * @param {string} stampPath
 * @returns {boolean}
 */
export function stampFresh(root, stampPath) {
  const stamp = readStamp(stampPath)
  if (stamp === undefined || stamp.outputs.length === 0) return false
  if (!stamp.outputs.every((out) => existsSync(join(root, out)))) return false
  return inputsHash(root, stamp.inputs) === stamp.hash
}

/**
 * Writes the stamp of a build that just wrote `built.outputs` from `built.inputs` (absolute paths or
 * relative to `root`; kept relative, so a moved checkout stays fresh).
 * @param {string} root
 * @param {string} stampPath
 * @param {{ outputs: readonly string[], inputs: readonly string[] }} built
 */
export function writeStamp(root, stampPath, built) {
  const rel = (p) => (isAbsolute(p) ? relative(root, p) : p)
  const inputs = [...new Set(built.inputs.map(rel))].sort()
  const hash = inputsHash(root, inputs)
  // An input gone already: no stamp, so the next build runs again.
  if (hash === null) return
  const stamp = { version: STAMP_VERSION, hash, outputs: built.outputs.map(rel), inputs }
  const tmp = `${stampPath}.tmp`
  writeFileSync(tmp, `${JSON.stringify(stamp, null, 1)}\n`)
  renameSync(tmp, stampPath)
}

/**
 * Runs `build` unless the stamp says its last outputs are fresh, then stamps what it built.
 * @param {{ root: string, stamp: string, force?: boolean,
 *   build: () => Promise<{ outputs: readonly string[], inputs: readonly string[] }> }} options
 * @returns {Promise<'built' | 'skipped'>}
 */
export async function buildIfChanged({ root, stamp, force = false, build }) {
  if (!force && stampFresh(root, stamp)) return 'skipped'
  const built = await build()
  writeStamp(root, stamp, built)
  return 'built'
}
