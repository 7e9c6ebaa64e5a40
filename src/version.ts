/**
 * panelbridge's own version, from its package.json: read once, when this module loads, and bounded
 * (size and form). `../package.json` from this file is the package's root whether it runs from `src/`
 * (tsx, tests) or from `dist/` (the built CLI): both sit one level below it. The build's own stamp
 * (`dist/build.json`) is read the same way, by `installed.ts`.
 */
import { closeSync, openSync, readSync } from 'node:fs'

/** package.json is a few kB; past this it is not ours, and is not read. */
const MAX_PACKAGE_JSON_BYTES = 64 * 1024
/** A version as package.json spells one (semver: digits, letters, `.`, `-`, `+`). */
const VERSION_TEXT = /^[0-9A-Za-z.+-]{1,64}$/
/** What is announced when package.json cannot be read: says so, rather than a made-up number. */
export const UNKNOWN_VERSION = '0.0.0-unknown'

/** The JSON of the small file at `url` (at most MAX_PACKAGE_JSON_BYTES); undefined when missing, too big or not JSON. */
function readSmallJson(url: URL): unknown {
  try {
    const fd = openSync(url, 'r')
    let text: string
    try {
      const buffer = Buffer.alloc(MAX_PACKAGE_JSON_BYTES + 1)
      let length = 0
      for (let n = -1; n !== 0 && length < buffer.length; length += n) {
        n = readSync(fd, buffer, length, buffer.length - length, null)
      }
      if (length > MAX_PACKAGE_JSON_BYTES) return undefined
      text = buffer.toString('utf8', 0, length)
    } finally {
      closeSync(fd)
    }
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** The `version` of the package.json at `url`; UNKNOWN_VERSION when it is missing, too big or odd. */
export function readPackageVersion(url: URL = new URL('../package.json', import.meta.url)): string {
  const json = readSmallJson(url)
  const version = typeof json === 'object' && json !== null ? (json as { version?: unknown }).version : undefined
  return typeof version === 'string' && VERSION_TEXT.test(version) ? version : UNKNOWN_VERSION
}

/** What `npm run build` stamps a build with (`dist/build.json`, scripts/build-workers.mjs). */
export interface BuildStamp {
  /** package.json's version when it was built. */
  version: string
  /** A hash of what the build made: another id is another build. */
  id: string
}

/** A build id as the build writes one. */
const BUILD_ID_TEXT = /^[0-9a-f]{16}$/

/**
 * The build stamp at `url` (by default the one beside the compiled modules, `dist/build.json`);
 * undefined when there is none (run from the TypeScript sources) or it is unreadable or odd.
 */
export function readBuildStamp(url: URL = new URL('./build.json', import.meta.url)): BuildStamp | undefined {
  const json = readSmallJson(url)
  if (typeof json !== 'object' || json === null) return undefined
  const { version, id } = json as { version?: unknown; id?: unknown }
  if (typeof version !== 'string' || !VERSION_TEXT.test(version)) return undefined
  if (typeof id !== 'string' || !BUILD_ID_TEXT.test(id)) return undefined
  return { version, id }
}

/** This panelbridge's version (package.json's). */
export const PANELBRIDGE_VERSION = readPackageVersion()
