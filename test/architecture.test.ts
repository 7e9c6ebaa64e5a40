/**
 * The layer boundaries of shared/design/architecture.md, checked on the source: src/api and
 * src/surfaces never import each other, neither imports src/mappings, and only the CLI/daemon may
 * import the simulator. And the driver families: each family's knowledge stays in its two places
 * (the rule is written above `describe('driver families')`).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { FAMILY_NAMES } from './helpers/driver-families.js'

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

/**
 * Driver families (issue 21): what a family is lives in its two places, listed by the two tables.
 *
 * - The families are the keys of the surface-side table (`src/surfaces/drivers.ts`, `DRIVER_FAMILIES`);
 *   each has the folder of its record there (`src/surfaces/<folder>/`) and the file of its record in the
 *   mapping-side table (`src/mappings/drivers/index.ts`, `MAPPING_FAMILIES`). Both are read from the
 *   tables' own source and modules, never listed here.
 * - A family's knowledge is (1) a relative import that resolves into one of its two places, (2) its
 *   driver name as a string literal in code (comments do not count), and (3) its driver name as a
 *   property name (`{ midi: ... }`, `configs.midi`). A name that is also a control kind (`shuttle`)
 *   counts only where it is compared with, or assigned to, a `driver` (`s.driver === 'shuttle'`,
 *   `driver: 'shuttle'`, `driver: z.literal('shuttle')`, `case` of a `switch` on a driver), since
 *   `'shuttle'` is the ring's control id everywhere else.
 * - It may appear only in its two places and in the two tables, and in the family tools listed in
 *   FAMILY_TOOLS with their reason, and in the folder of a family built on it (FAMILY_BASES). The
 *   shared places (`src/surfaces/usb-hid/`, `lights.ts`, `claims.ts`, `src/mappings/drivers/common.ts`,
 *   ...) hold nothing of any one family, so a new family touches its own two places and one entry in
 *   each table.
 * - `web` is not a driver family: the daemon makes web surfaces itself (no detection, no claim); it has
 *   a mapping-side record for its YAML entry only.
 */
/** Family tools outside the family's places: file → the family (by driver name) and why. */
const FAMILY_TOOLS: Record<string, { family: string; why: string }> = {
  'commands/learn-raw.ts': { family: 'hid', why: '`learn --raw` reads raw HID reports to write a report map' },
}

/**
 * Families built on another family's code: the family (by driver name) → the one whose folder its own
 * folder may import, and why.
 */
const FAMILY_BASES: Record<string, { base: string; why: string }> = {
  'streamdeck-net': {
    base: 'streamdeck',
    why: 'a network deck is a Stream Deck: the USB decks’ surface and model table, fed a deck the tcp library built',
  },
}

/** A property's name as written in the table (`'streamdeck-net'` unquoted). */
const keyName = (name: ts.PropertyName | undefined): string | undefined =>
  name && ts.isStringLiteral(name) ? name.text : name?.getText()

const SURFACE_TABLE = join(src, 'surfaces/drivers.ts')
const MAPPING_TABLE = join(src, 'mappings/drivers/index.ts')

const parsed = new Map<string, ts.SourceFile>()
function parse(file: string): ts.SourceFile {
  let sf = parsed.get(file)
  if (!sf) parsed.set(file, (sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true)))
  return sf
}

/** A table's imports: local name → the file it comes from (absolute, `.ts`). */
function importsByName(file: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const s of parse(file).statements) {
    if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier)) continue
    const to = resolve(dirname(file), s.moduleSpecifier.text).replace(/\.js$/, '.ts')
    for (const e of s.importClause?.namedBindings && ts.isNamedImports(s.importClause.namedBindings)
      ? s.importClause.namedBindings.elements
      : [])
      out.set(e.name.text, to)
  }
  return out
}

/** The initializer of a top-level `const NAME = ...` of a file. */
function constInit(file: string, name: string): ts.Expression {
  for (const s of parse(file).statements) {
    if (!ts.isVariableStatement(s)) continue
    for (const d of s.declarationList.declarations) {
      if (ts.isIdentifier(d.name) && d.name.text === name && d.initializer) {
        let e = d.initializer
        while (ts.isAsExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression
        return e
      }
    }
  }
  throw new Error(`${file} has no const ${name}`)
}

interface FamilyPlaces {
  name: string
  /** The family's surface folder, with a trailing slash. */
  folder: string
  /** The family's mapping file. */
  mapping: string
}

/** Each family and its two places, read from the two tables. */
async function familyPlaces(): Promise<FamilyPlaces[]> {
  const surfaceImports = importsByName(SURFACE_TABLE)
  const families = constInit(SURFACE_TABLE, 'FAMILIES')
  if (!ts.isObjectLiteralExpression(families)) throw new Error('FAMILIES is not an object literal')
  const folders = new Map<string, string>()
  for (const p of families.properties) {
    if (!ts.isPropertyAssignment(p) || !ts.isIdentifier(p.initializer))
      throw new Error('FAMILIES: one `name: record` each')
    folders.set(keyName(p.name)!, `${dirname(surfaceImports.get(p.initializer.text)!)}/`)
  }
  const mappingImports = importsByName(MAPPING_TABLE)
  const list = constInit(MAPPING_TABLE, 'MAPPING_FAMILIES')
  if (!ts.isArrayLiteralExpression(list)) throw new Error('MAPPING_FAMILIES is not an array literal')
  const mappings = new Map<string, string>()
  for (const e of list.elements) {
    const file = mappingImports.get(e.getText())!
    const mod = (await import(file)) as Record<string, { schema: { shape: { driver: { value: string } } } }>
    mappings.set(mod[e.getText()]!.schema.shape.driver.value, file)
  }
  return [...folders].map(([name, folder]) => ({ name, folder, mapping: mappings.get(name) ?? '' }))
}

/** Names of control kinds: a family name that is one too counts only beside a `driver`. */
const KIND_NAMES = new Set(['shuttle', 'jog', 'key', 'encoder', 'fader', 'button', 'tbar', 'joystick', 'note', 'cc'])

/** Whether a string literal is compared with, or given to, a `driver`. */
function besideDriver(node: ts.Node): boolean {
  const p = node.parent
  const isDriver = (e: ts.Node): boolean => /(^|\.)driver$/.test(e.getText())
  if (ts.isBinaryExpression(p)) return isDriver(p.left === node ? p.right : p.left)
  if (ts.isPropertyAssignment(p)) return isDriver(p.name)
  if (ts.isCaseClause(p)) return isDriver(p.parent.parent.expression)
  if (ts.isCallExpression(p)) return ts.isPropertyAssignment(p.parent) && isDriver(p.parent.name)
  return false
}

/** Where a file names a family: `line: text`, for each of its literals, property names and imports. */
function mentions(file: string, family: FamilyPlaces): string[] {
  const sf = parse(file)
  const out: string[] = []
  const at = (n: ts.Node, what: string): void => {
    out.push(`${relative(src, file)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${what}`)
  }
  const visit = (n: ts.Node): void => {
    if (
      (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) &&
      n.moduleSpecifier &&
      ts.isStringLiteral(n.moduleSpecifier)
    ) {
      const to = resolve(dirname(file), n.moduleSpecifier.text).replace(/\.js$/, '.ts')
      if (to.startsWith(family.folder) || to === family.mapping) at(n, `imports ${n.moduleSpecifier.text}`)
      return
    }
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && n.text === family.name) {
      if (!KIND_NAMES.has(family.name) || besideDriver(n)) at(n, `'${n.text}'`)
    }
    if (!KIND_NAMES.has(family.name)) {
      const named =
        (ts.isPropertyAssignment(n) || ts.isPropertySignature(n) || ts.isShorthandPropertyAssignment(n)) &&
        ts.isIdentifier(n.name) &&
        n.name.text === family.name
      if (named || (ts.isPropertyAccessExpression(n) && n.name.text === family.name)) at(n, `property ${family.name}`)
    }
    ts.forEachChild(n, visit)
  }
  visit(sf)
  return out
}

describe('driver families', () => {
  const files = sourceFiles(src)

  it('reads every family and its two places from the tables, a mapping record for each', async () => {
    const families = await familyPlaces()
    expect(families.map((f) => f.name)).toEqual(FAMILY_NAMES)
    expect(families.find((f) => f.name === 'hid')).toEqual({
      name: 'hid',
      folder: join(src, 'surfaces/report-map/'),
      mapping: join(src, 'mappings/drivers/report-map.ts'),
    })
    for (const f of families) expect(f.mapping, f.name).not.toBe('')
  })

  it("finds a family's knowledge: its imports, its name as a literal, a property or beside a driver", async () => {
    const families = await familyPlaces()
    const midi = families.find((f) => f.name === 'midi')!
    const shuttle = families.find((f) => f.name === 'shuttle')!
    expect(mentions(SURFACE_TABLE, midi)).toEqual([
      expect.stringMatching(/^surfaces\/drivers\.ts:\d+: imports \.\/midi\/family\.js$/),
      expect.stringMatching(/^surfaces\/drivers\.ts:\d+: property midi$/),
    ])
    // `'shuttle'` is the ring's control id in the web protocol; only `driver: z.literal('shuttle')` names the family.
    expect(mentions(join(src, 'face/protocol.ts'), shuttle)).toEqual([])
    expect(mentions(shuttle.mapping, shuttle)).toEqual([
      expect.stringMatching(/: imports \.\.\/\.\.\/surfaces\/shuttle\/models\.js$/),
      expect.stringMatching(/: 'shuttle'$/),
    ])
  })

  it('a family is named only in its two places, the two tables and its listed tools', async () => {
    const offences: string[] = []
    const places = await familyPlaces()
    for (const family of places) {
      const builtOn = places.filter((f) => FAMILY_BASES[f.name]?.base === family.name)
      for (const file of files) {
        const path = relative(src, file)
        const allowed =
          file.startsWith(family.folder) ||
          file === family.mapping ||
          file === SURFACE_TABLE ||
          file === MAPPING_TABLE ||
          FAMILY_TOOLS[path]?.family === family.name ||
          builtOn.some((f) => file.startsWith(f.folder))
        if (!allowed) offences.push(...mentions(file, family).map((m) => `${family.name}: ${m}`))
      }
    }
    expect(offences).toEqual([])
    // Every source file's syntax tree walked once per family: 8-40 s on a shared 2-core machine.
  }, 120_000)

  it('each table names each family in one entry', async () => {
    const surfaceEntries = constInit(SURFACE_TABLE, 'FAMILIES') as ts.ObjectLiteralExpression
    const mappingEntries = constInit(MAPPING_TABLE, 'MAPPING_FAMILIES') as ts.ArrayLiteralExpression
    const families = await familyPlaces()
    expect(surfaceEntries.properties.map((p) => keyName(p.name))).toEqual(families.map((f) => f.name))
    // The mapping table also holds web's record (the daemon's own surface, no driver family).
    expect(mappingEntries.elements.length).toBe(families.length + 1)
  })
})
