/**
 * `npm run build` bundles the page script only when an input changed (issue 29, `npm start` twice):
 * the skip logic of scripts/client-stamp.mjs, driven by a real esbuild build of a small script in a
 * folder of its own (its metafile lists the inputs, as the page bundle's does). No timing: what is
 * asserted is whether the builder ran and what the output holds.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { buildIfChanged, type BuiltFiles } from '../../scripts/client-stamp.mjs'
import { bundleClientScriptWithInputs } from '../../src/surfaces/web/client-script.js'

/** A source tree of its own (entry main.ts importing greeting.ts), removed when the test finishes. */
function sourceTree(): string {
  const root = mkdtempSync(join(tmpdir(), 'pb-stamp-'))
  onTestFinished(() => rmSync(root, { recursive: true, force: true }))
  writeFileSync(join(root, 'main.ts'), "import { greeting } from './greeting.js'\nconsole.log(greeting)\n")
  writeFileSync(join(root, 'greeting.ts'), "export const greeting: string = 'hello'\n")
  return root
}

/** A build of `root` as build-client.ts does it (esbuild, its metafile's inputs), counting its runs. */
function builderOf(root: string): { build: () => Promise<BuiltFiles>; runs: () => number } {
  let runs = 0
  const build = async (): Promise<BuiltFiles> => {
    runs++
    const esbuild = await import('esbuild')
    const result = await esbuild.build({
      entryPoints: [join(root, 'main.ts')],
      absWorkingDir: root,
      bundle: true,
      write: false,
      format: 'iife',
      metafile: true,
      logLevel: 'silent',
    })
    writeFileSync(join(root, 'out.js'), result.outputFiles[0]!.text)
    return { outputs: ['out.js'], inputs: Object.keys(result.metafile.inputs) }
  }
  return { build, runs: () => runs }
}

describe('the page bundle is built only when its inputs changed', () => {
  it('skips an unchanged tree and rebuilds when an input changes', async () => {
    const root = sourceTree()
    const stamp = join(root, 'out.stamp.json')
    const { build, runs } = builderOf(root)
    const again = (): Promise<'built' | 'skipped'> => buildIfChanged({ root, stamp, build })

    expect(await again()).toBe('built')
    expect(await again()).toBe('skipped')
    expect(runs()).toBe(1)

    // An imported file changes: rebuilt, and the output has the new text.
    writeFileSync(join(root, 'greeting.ts'), "export const greeting: string = 'hello again'\n")
    expect(await again()).toBe('built')
    expect(readFileSync(join(root, 'out.js'), 'utf8')).toContain('hello again')
    expect(await again()).toBe('skipped')

    // A new file counts once an input imports it (the importer changed), and is an input from then on.
    writeFileSync(join(root, 'extra.ts'), 'export const extra = 1\n')
    expect(await again()).toBe('skipped')
    writeFileSync(join(root, 'main.ts'), "import { extra } from './extra.js'\nconsole.log(extra)\n")
    expect(await again()).toBe('built')
    writeFileSync(join(root, 'extra.ts'), 'export const extra = 2\n')
    expect(await again()).toBe('built')
    expect(readFileSync(join(root, 'out.js'), 'utf8')).toMatch(/extra = 2/)
    expect(await again()).toBe('skipped')
    expect(runs()).toBe(4)
  })

  it('rebuilds when the output, the stamp or an input is gone, or when forced', async () => {
    const root = sourceTree()
    const stamp = join(root, 'out.stamp.json')
    const { build, runs } = builderOf(root)
    const again = (force = false): Promise<'built' | 'skipped'> => buildIfChanged({ root, stamp, build, force })
    expect(await again()).toBe('built')

    rmSync(join(root, 'out.js'))
    expect(await again()).toBe('built')
    writeFileSync(stamp, '{ not json')
    expect(await again()).toBe('built')
    rmSync(stamp)
    expect(await again()).toBe('built')
    expect(await again(true)).toBe('built')
    expect(await again()).toBe('skipped')
    expect(runs()).toBe(5)

    // An input removed (its importer still naming it): the build runs and fails, and it is not stamped.
    rmSync(join(root, 'greeting.ts'))
    await expect(again()).rejects.toThrow(/greeting/)
    await expect(again()).rejects.toThrow(/greeting/)
    expect(runs()).toBe(7)
  })

  it("takes the page script's inputs from esbuild: its sources and the shared modules it imports", async () => {
    const { inputs } = await bundleClientScriptWithInputs()
    const names = inputs.map((input) => input.replaceAll('\\', '/'))
    expect(names.some((name) => name.endsWith('/src/page/main.ts'))).toBe(true)
    expect(names.some((name) => name.endsWith('/src/face/protocol.ts'))).toBe(true)
    expect(names.some((name) => name.endsWith('/src/face/key-paint.ts'))).toBe(true)
    for (const input of inputs) expect(() => readFileSync(input)).not.toThrow()
  })
})
