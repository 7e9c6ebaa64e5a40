/**
 * The page's walls: `src/face` (shared by the daemon and the page) stands alone, with no Node, no DOM and
 * no import outside itself; `src/page` (the browser's code) imports from `src/` only itself and the face.
 * The page's tsconfig gives it the DOM and no Node types; the face's "no DOM" is the global names below.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const SRC = fileURLToPath(new URL('../../src/', import.meta.url))
const FACE = join(SRC, 'face')
const PAGE = join(SRC, 'page')

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name))
}

/** Every module a file names: static imports and re-exports, side-effect imports, dynamic imports. */
function specifiers(text: string): string[] {
  const found = text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)'([^']+)'/g)
  return [...found].map((m) => m[1]!)
}

/** What `file` imports that breaks its wall: bare names (packages, `node:`) unless allowed, and files outside `inside`. */
function breaches(file: string, inside: string[], packages: boolean): string[] {
  return specifiers(readFileSync(file, 'utf8')).filter((spec) => {
    if (!spec.startsWith('.')) return !packages || spec.startsWith('node:')
    const target = resolve(dirname(file), spec)
    return !inside.some((dir) => target.startsWith(dir + sep))
  })
}

/** The code of a file without its comments and string literals, so a word in prose is not a global. */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, "''")
}

/** Globals of a browser or of Node that the face must not use (what both have, such as TextDecoder, it may). */
const HOST_GLOBALS =
  /\b(window|document|navigator|location|localStorage|HTML\w*Element|OffscreenCanvas|FontFace|requestAnimationFrame|Buffer|process|require|__dirname|__filename|global)\b/

describe('the page and face walls', () => {
  it('src/face imports no package, no node: module and nothing outside src/face', () => {
    const files = sources(FACE)
    expect(files.length).toBeGreaterThan(4)
    const found = files.flatMap((f) => breaches(f, [FACE], false).map((s) => `${relative(SRC, f)}: ${s}`))
    expect(found).toEqual([])
  })

  it('src/face names no browser or Node global', () => {
    const found = sources(FACE).flatMap((f) => {
      const hit = HOST_GLOBALS.exec(code(readFileSync(f, 'utf8')))
      return hit ? [`${relative(SRC, f)}: ${hit[1]}`] : []
    })
    expect(found).toEqual([])
  })

  it('src/page imports from src/ only src/page and src/face, and no node: module', () => {
    const files = sources(PAGE)
    expect(files.length).toBeGreaterThan(4)
    const found = files.flatMap((f) => breaches(f, [PAGE, FACE], true).map((s) => `${relative(SRC, f)}: ${s}`))
    expect(found).toEqual([])
  })

  it('the walls see a breach (the check is not blind)', () => {
    expect(specifiers("import { a } from '../surfaces/types.js'\nexport * from 'node:fs'")).toEqual([
      '../surfaces/types.js',
      'node:fs',
    ])
    expect(HOST_GLOBALS.test(code('const w = window.innerWidth // a document'))).toBe(true)
    expect(HOST_GLOBALS.test(code("// the document's window\nconst s = 'document'"))).toBe(false)
  })
})
