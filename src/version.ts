/**
 * panelbridge's own version, from its package.json: read once, when this module loads, and bounded
 * (size and form), as `installed.ts` reads the build's own stamp (`dist/build.json`). `../package.json`
 * from this file is the package's root whether it runs from `src/` (tsx, tests) or from `dist/` (the
 * built CLI): both sit one level below it.
 */
import { readSmallJson, VERSION_TEXT } from './installed.js'

/** What is announced when package.json cannot be read: says so, rather than a made-up number. */
const UNKNOWN_VERSION = '0.0.0-unknown'

/** The `version` of the package.json at `url`; UNKNOWN_VERSION when it is missing, too big or odd. */
export function readPackageVersion(url: URL = new URL('../package.json', import.meta.url)): string {
  const json = readSmallJson(url)
  const version = typeof json === 'object' && json !== null ? (json as { version?: unknown }).version : undefined
  return typeof version === 'string' && VERSION_TEXT.test(version) ? version : UNKNOWN_VERSION
}

/** This panelbridge's version (package.json's). */
export const PANELBRIDGE_VERSION = readPackageVersion()
