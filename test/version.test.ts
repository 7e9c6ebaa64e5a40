/**
 * panelbridge's version comes from package.json (src/version.ts), bounded, from src/ and from dist/;
 * the notification link announces it.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildSync } from 'esbuild'
import { describe, expect, it, onTestFinished } from 'vitest'
import { LINK_CLIENT_VERSION } from '../src/api/notifications.js'
import { PANELBRIDGE_VERSION, readPackageVersion } from '../src/version.js'

/** What an unreadable package.json gives (`src/version.ts`). */
const UNKNOWN_VERSION = '0.0.0-unknown'

const PACKAGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pb-version-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function packageAt(dir: string, text: string): URL {
  writeFileSync(join(dir, 'package.json'), text)
  return pathToFileURL(join(dir, 'package.json'))
}

describe('the version', () => {
  it("is package.json's, and the notification link announces it", () => {
    expect(PANELBRIDGE_VERSION).toBe(PACKAGE.version)
    expect(LINK_CLIENT_VERSION).toBe(PACKAGE.version)
  })

  it('is read the same from a built copy one level below its package.json (dist/)', async () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'dist'))
    packageAt(dir, JSON.stringify({ name: 'x', version: '9.8.7-beta.1' }))
    const built = join(dir, 'dist', 'version.mjs')
    // With the bounded reader it takes from installed.ts, in one file where the built module would be.
    buildSync({
      entryPoints: [new URL('../src/version.ts', import.meta.url).pathname],
      bundle: true,
      format: 'esm',
      platform: 'node',
      outfile: built,
      logLevel: 'silent',
    })
    const module = (await import(pathToFileURL(built).href)) as { PANELBRIDGE_VERSION: string }
    expect(module.PANELBRIDGE_VERSION).toBe('9.8.7-beta.1')
  })

  it('is UNKNOWN_VERSION for a missing, oversized, broken or odd package.json', () => {
    const dir = tempDir()
    expect(readPackageVersion(pathToFileURL(join(dir, 'missing.json')))).toBe(UNKNOWN_VERSION)
    const big = JSON.stringify({ version: '1.0.0', padding: 'x'.repeat(70 * 1024) })
    expect(readPackageVersion(packageAt(dir, big))).toBe(UNKNOWN_VERSION)
    expect(readPackageVersion(packageAt(dir, '{ not json'))).toBe(UNKNOWN_VERSION)
    expect(readPackageVersion(packageAt(dir, 'null'))).toBe(UNKNOWN_VERSION)
    expect(readPackageVersion(packageAt(dir, JSON.stringify({ version: 3 })))).toBe(UNKNOWN_VERSION)
    expect(readPackageVersion(packageAt(dir, JSON.stringify({ version: '1.0\n\u001b[2J' })))).toBe(UNKNOWN_VERSION)
    expect(readPackageVersion(packageAt(dir, JSON.stringify({ version: '2.3.4' })))).toBe('2.3.4')
  })
})
