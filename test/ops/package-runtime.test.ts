/**
 * The package ships the modules the program loads, not what npm installed for the modules' install
 * scripts (scripts/package/runtime.ts). A small program tree, made here, is walked by the real esbuild
 * and pruned on disk: a module only an install script would use goes, as do type files, maps, sources,
 * docs and tests of the modules kept; what the program reaches, a declared dependency loaded by path, a
 * nested copy and the licence files stay. `npm run package:verify` proves the real package runs.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { packageOf, pruneToRuntime, runtimeGraph } from '../../scripts/package/runtime.js'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** A program folder (dist/, package.json, node_modules/) from path → text. */
function program(files: Record<string, string>): string {
  const lib = mkdtempSync(join(tmpdir(), 'pb-runtime-'))
  dirs.push(lib)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(lib, path)), { recursive: true })
    writeFileSync(join(lib, path), text)
  }
  return lib
}

const pkg = (name: string, main = 'index.js'): string => JSON.stringify({ name, version: '1.0.0', main })

/** The program: uses `used` (which uses `dep` and its own nested `inner`), declares a font package. */
const TREE = {
  'package.json': JSON.stringify({ dependencies: { used: '1', 'font-files': '1', builder: '1' } }),
  'dist/cli.js': "import { x } from 'used'\nconsole.log(x)\n",
  'dist/surfaces/web/client.bundle.js': "require('never-installed-browser-thing')\n",
  'node_modules/used/package.json': pkg('used'),
  'node_modules/used/index.js':
    "const dep = require('dep')\nconst inner = require('inner')\n" +
    "let fast\ntry { fast = require('optional-speedup') } catch {}\nexports.x = dep + inner\n",
  'node_modules/used/index.d.ts': 'export const x: number\n',
  'node_modules/used/index.js.map': '{}',
  'node_modules/used/README.md': '# used\n',
  'node_modules/used/LICENSE.md': 'MIT\n',
  'node_modules/used/src/index.ts': 'export const x = 1\n',
  'node_modules/used/test/index.test.js': "require('test-only')\n",
  'node_modules/used/node_modules/inner/package.json': pkg('inner'),
  'node_modules/used/node_modules/inner/index.js': 'module.exports = 2\n',
  'node_modules/used/node_modules/unused-nested/package.json': pkg('unused-nested'),
  'node_modules/used/node_modules/unused-nested/index.js': 'module.exports = 0\n',
  'node_modules/dep/package.json': pkg('dep'),
  'node_modules/dep/index.js': 'module.exports = 1\n',
  'node_modules/dep/LICENSE': 'ISC\n',
  // A declared dependency with no code: files the program opens by path.
  'node_modules/font-files/package.json': JSON.stringify({ name: 'font-files', version: '1.0.0' }),
  'node_modules/font-files/ttf/Font.ttf': 'glyphs',
  // Declared, and requires what only its install script needs.
  'node_modules/builder/package.json': pkg('builder'),
  'node_modules/builder/index.js': "module.exports = 'prebuilt binding'\n",
  'node_modules/cmake-like/package.json': pkg('cmake-like'),
  'node_modules/cmake-like/index.js': "require('@scope/http-client')\n",
  'node_modules/@scope/http-client/package.json': pkg('@scope/http-client'),
  'node_modules/@scope/http-client/index.js': 'module.exports = {}\n',
}

describe('the runtime modules of the package', () => {
  it('names a file’s package, nested and scoped ones too', () => {
    expect(packageOf('node_modules/pino/lib/tools.js')).toBe('pino')
    expect(packageOf('node_modules/@napi-rs/canvas/index.js')).toBe('@napi-rs/canvas')
    expect(packageOf('node_modules/p-queue/node_modules/eventemitter3/index.js')).toBe(
      'p-queue/node_modules/eventemitter3',
    )
    expect(packageOf('node_modules/a/node_modules/@s/b/x.js')).toBe('a/node_modules/@s/b')
    expect(packageOf('dist/cli.js')).toBeUndefined()
  })

  it('keeps what the program reaches and what it declares; leaves out the rest and the modules’ dev files', async () => {
    const lib = program(TREE)
    const graph = await runtimeGraph(lib)
    expect([...graph.packages].sort()).toEqual(['builder', 'dep', 'font-files', 'used', 'used/node_modules/inner'])
    // Named but not installed: an optional require in a try block; never the browser bundle's.
    expect(graph.unresolved).toEqual(['optional-speedup (node_modules/used/index.js)'])
    const gone = pruneToRuntime(lib, graph)
    expect(gone.packages.sort()).toEqual(['@scope/http-client', 'cmake-like', 'used/node_modules/unused-nested'])
    const left = (p: string): boolean => existsSync(join(lib, p))
    for (const p of ['used/index.d.ts', 'used/index.js.map', 'used/README.md', 'used/src/index.ts', 'used/test'])
      expect([p, left(`node_modules/${p}`)]).toEqual([p, false])
    for (const p of [
      'used/index.js',
      'used/LICENSE.md',
      'used/node_modules/inner/index.js',
      'dep/LICENSE',
      'font-files/ttf/Font.ttf',
      'builder/index.js',
    ])
      expect([p, left(`node_modules/${p}`)]).toEqual([p, true])
    expect(left('node_modules/@scope')).toBe(false)
    expect(left('dist/cli.js')).toBe(true)
  })

  it('does not count a package found only above the program’s folder (the repository’s, when staged inside it)', async () => {
    const outer = program({ 'node_modules/outside/package.json': pkg('outside'), 'node_modules/outside/index.js': '' })
    const lib = join(outer, 'stage')
    mkdirSync(join(lib, 'dist'), { recursive: true })
    writeFileSync(join(lib, 'package.json'), JSON.stringify({ dependencies: {} }))
    writeFileSync(join(lib, 'dist/cli.js'), "import('outside')\n")
    const graph = await runtimeGraph(lib)
    expect([...graph.packages]).toEqual([])
    expect(graph.unresolved).toEqual(['outside (dist/cli.js)'])
  })

  it('refuses to prune a file the program reads, whatever folder it sits in', async () => {
    const lib = program({
      ...TREE,
      'node_modules/dep/index.js': "module.exports = require('./test/fixture.js')\n",
      'node_modules/dep/test/fixture.js': 'module.exports = 1\n',
    })
    const graph = await runtimeGraph(lib)
    expect(() => pruneToRuntime(lib, graph)).toThrow(
      /pruned files the program reads: node_modules\/dep\/test\/fixture\.js/,
    )
  })
})
