/**
 * panelbridge's own version, from its package.json: read once, when this module loads, and bounded
 * (size and form). `../package.json` from this file is the package's root whether it runs from `src/`
 * (tsx, tests) or from `dist/` (the built CLI): both sit one level below it.
 */
import { closeSync, openSync, readSync } from 'node:fs'

/** package.json is a few kB; past this it is not ours, and is not read. */
const MAX_PACKAGE_JSON_BYTES = 64 * 1024
/** A version as package.json spells one (semver: digits, letters, `.`, `-`, `+`). */
const VERSION_TEXT = /^[0-9A-Za-z.+-]{1,64}$/
/** What is announced when package.json cannot be read: says so, rather than a made-up number. */
export const UNKNOWN_VERSION = '0.0.0-unknown'

/** The `version` of the package.json at `url`; UNKNOWN_VERSION when it is missing, too big or odd. */
export function readPackageVersion(url: URL = new URL('../package.json', import.meta.url)): string {
  let text: string
  try {
    const fd = openSync(url, 'r')
    try {
      const buffer = Buffer.alloc(MAX_PACKAGE_JSON_BYTES + 1)
      let length = 0
      for (let n = -1; n !== 0 && length < buffer.length; length += n) {
        n = readSync(fd, buffer, length, buffer.length - length, null)
      }
      if (length > MAX_PACKAGE_JSON_BYTES) return UNKNOWN_VERSION
      text = buffer.toString('utf8', 0, length)
    } finally {
      closeSync(fd)
    }
    const version = (JSON.parse(text) as { version?: unknown } | null)?.version
    return typeof version === 'string' && VERSION_TEXT.test(version) ? version : UNKNOWN_VERSION
  } catch {
    return UNKNOWN_VERSION
  }
}

/** This panelbridge's version (package.json's). */
export const PANELBRIDGE_VERSION = readPackageVersion()
