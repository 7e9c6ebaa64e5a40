/**
 * The application kit's walls (issue 41): the daemon reaches `src/app-kit` only by a lazy `import()` from
 * its three doors (the app link, for `app.simulate`, and the `sim` and `probe` commands), which may also
 * name the kit's types; nothing else outside the kit imports it (`src/api` included), and the kit itself
 * imports only `src/api` and the shared modules at the top of `src/`.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../../src')
const DOORS = ['daemon/app-link.ts', 'commands/sim.ts', 'commands/probe.ts']
/** The line bound of `src/api` (issue 41's "Must show"): the client, the codec, the catalogue, the link, the state. */
const API_MAX_LINES = 4000

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

interface Import {
  from: string
  /** The imported file, relative to src/ (`app-kit/simulator/index.js`). */
  to: string
  /** `type`: erased at run time; `lazy`: an `import()`; `static`: loaded with the importing module. */
  kind: 'static' | 'type' | 'lazy'
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8')
  const from = relative(src, file)
  const to = (spec: string): string => relative(src, resolve(dirname(file), spec))
  const lazy = [...text.matchAll(/\bimport\s*\(\s*['"](\.[^'"]+)['"]/g)].map((m): Import => ({
    from,
    to: to(m[1]!),
    kind: 'lazy',
  }))
  const statics = [...text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s*)?['"](\.[^'"]+)['"]/gm)].map(
    (m): Import => ({ from, to: to(m[2]!), kind: m[1] ? 'type' : 'static' }),
  )
  return [...statics, ...lazy]
}

const inKit = (path: string): boolean => path.startsWith('app-kit/')
const all = sourceFiles(src).flatMap(importsOf)

describe('the application kit', () => {
  it('is reached through each of its doors by a lazy import', () => {
    for (const door of DOORS) {
      expect(all.filter((i) => i.from === door && inKit(i.to) && i.kind === 'lazy').length, door).toBeGreaterThan(0)
    }
  })

  it('is imported by nothing outside it but its doors, and by them only lazily or for types', () => {
    const offences = all.filter(
      (i) => !inKit(i.from) && inKit(i.to) && (!DOORS.includes(i.from) || i.kind === 'static'),
    )
    expect(offences).toEqual([])
  })

  it('imports only src/api and the shared modules at the top of src/', () => {
    const offences = all.filter(
      (i) => inKit(i.from) && !inKit(i.to) && !i.to.startsWith('api/') && (i.to.includes('/') || i.to === 'cli.js'),
    )
    expect(offences).toEqual([])
    expect(all.some((i) => inKit(i.from) && i.to === 'api/protocol.js')).toBe(true)
  })

  it(`leaves src/api at most ${API_MAX_LINES} lines`, () => {
    const files = sourceFiles(join(src, 'api'))
    const lines = files.reduce((n, f) => n + readFileSync(f, 'utf8').split('\n').length - 1, 0)
    expect(lines).toBeLessThanOrEqual(API_MAX_LINES)
  })
})
