/**
 * The layer boundaries of shared/design/architecture.md, checked on the source: src/api and
 * src/surfaces never import each other, neither imports src/mappings, and only the CLI/daemon may
 * import the simulator.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

/** Every relative import of a file, as a path under src/ (e.g. `api/protocol.js`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)].map((m) => m[1]!)
  return specs.map((s) => relative(src, resolve(dirname(file), s)))
}

function layerOf(path: string): string {
  return path.split('/')[0]!
}

const forbidden: Record<string, string[]> = {
  api: ['surfaces', 'mappings', 'simulator'],
  surfaces: ['api', 'mappings', 'simulator'],
  mappings: ['simulator'],
  simulator: ['surfaces', 'mappings'],
}

describe('layer boundaries', () => {
  const files = sourceFiles(src)

  it('finds the source files it checks', () => {
    expect(files.length).toBeGreaterThan(20)
    expect(importsOf(join(src, 'surfaces/web/server.ts'))).toContain('defaults.js')
  })

  for (const [layer, banned] of Object.entries(forbidden)) {
    it(`src/${layer} imports none of ${banned.join(', ')}`, () => {
      const offences = files
        .filter((f) => layerOf(relative(src, f)) === layer)
        .flatMap((f) => importsOf(f).map((to) => ({ from: relative(src, f), to })))
        .filter(({ to }) => banned.includes(layerOf(to)))
      expect(offences).toEqual([])
    })
  }
})
