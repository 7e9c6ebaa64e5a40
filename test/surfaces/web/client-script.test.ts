/**
 * The page script as served: the built bundle when there is one, else bundled from source with
 * esbuild on first request (how every other test here gets it).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Script } from 'node:vm'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { bundleClientScript, clientScriptLoader } from '../../../src/surfaces/web/client-script.js'

/** A directory of its own, removed when the test finishes. */
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pb-client-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

describe('the page script bundle', () => {
  it('is one classic browser script: no module syntax, no Node, no TypeScript left', async () => {
    const code = await bundleClientScript()
    expect(code.startsWith('"use strict";\n(() => {')).toBe(true)
    expect(code.trimEnd().endsWith('})();')).toBe(true)
    // Parses as a plain script (a leftover type annotation or import statement would not).
    expect(() => new Script(code)).not.toThrow()
    expect(code).not.toMatch(/\brequire\(|\bimport\b|node:|\bBuffer\b|\bprocess\./)
    // Built from the TypeScript sources, which import the shared protocol types (erased).
    expect(code).toContain('// src/page/main.ts')
    expect(code).toMatch(/new URL\("ws", location\.href\)/)
    expect(code).not.toContain('parseClientMessage')
  })
})

describe('clientScriptLoader', () => {
  it('serves the built bundle when there is one, without bundling', async () => {
    const built = join(tempDir(), 'client.bundle.js')
    writeFileSync(built, '/* built */')
    const bundle = vi.fn(() => Promise.resolve('/* bundled */'))
    const load = clientScriptLoader(built, bundle)
    expect(await load()).toBe('/* built */')
    expect(bundle).not.toHaveBeenCalled()
  })

  it('bundles once when there is no built file, however many requests come at once', async () => {
    const bundle = vi.fn(() => Promise.resolve('/* bundled */'))
    const load = clientScriptLoader(join(tempDir(), 'absent.js'), bundle)
    expect(await Promise.all([load(), load(), load()])).toEqual(['/* bundled */', '/* bundled */', '/* bundled */'])
    expect(await load()).toBe('/* bundled */')
    expect(bundle).toHaveBeenCalledTimes(1)
  })

  it('says how to fix a failed bundle and tries again on the next request', async () => {
    const bundle = vi
      .fn<() => Promise<string>>()
      .mockRejectedValueOnce(new Error('esbuild is not installed'))
      .mockResolvedValue('/* bundled */')
    const load = clientScriptLoader(join(tempDir(), 'absent.js'), bundle)
    await expect(load()).rejects.toThrow(/no built bundle at .*absent\.js.*npm run build.*esbuild is not installed/)
    expect(await load()).toBe('/* bundled */')
  })

  it('passes on a built file it cannot read (not a missing one) without bundling', async () => {
    const bundle = vi.fn(() => Promise.resolve('/* bundled */'))
    const load = clientScriptLoader(tempDir(), bundle) // a directory: EISDIR
    await expect(load()).rejects.toMatchObject({ code: 'EISDIR' })
    expect(bundle).not.toHaveBeenCalled()
  })
})
