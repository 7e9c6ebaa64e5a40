/**
 * The walls between the parts, checked on the source and on esbuild's bundles:
 *
 * - the layer boundaries of shared/design/architecture.md: src/api and src/surfaces never import each
 *   other, neither imports src/mappings, only the CLI and the daemon import the application kit; src/families
 *   (what each hardware family is, as data) imports none of them;
 * - the config loader (`src/mappings/load.ts`, which `check` and every reload's worker load) bundles no
 *   driver, no surface manager, no web server, no key worker and not the driver table, and few files;
 * - no import circle anywhere in src/, through type-only imports neither (read from the source, as madge does);
 * - a family's name stands only in its own places (its families file and any light rules' file, its
 *   surface folder, its mapping record) and the three tables.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type Metafile } from 'esbuild'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { FAMILY_NAMES } from './helpers/driver-families.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const src = join(root, 'src')
const VENDOR = join(src, 'app-kit', 'vendor')

/**
 * Our source files: not `src/app-kit/vendor`, third-party code vendored unmodified that no part of the
 * build compiles (the tests load it; each folder's NOTICE.md says how).
 */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? join(dir, e.name) === VENDOR
        ? []
        : sourceFiles(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  )
}

/** Every relative import of a file (type-only ones too), as a path under src/ (e.g. `api/protocol.js`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)].map((m) => m[1]!)
  return specs.map((s) => relative(src, resolve(dirname(file), s)))
}

/** Every package or built-in module a file imports (`node:fs`, `zod`). */
function packagesOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^.'"][^'"]*)['"]/g)].map((m) => m[1]!)
}

function layerOf(path: string): string {
  return path.split('/')[0]!
}

const files = sourceFiles(src)
const under = (folder: string): string[] => files.filter((f) => relative(src, f).startsWith(`${folder}/`))

const forbidden: Record<string, string[]> = {
  api: ['surfaces', 'mappings', 'app-kit', 'families'],
  surfaces: ['api', 'mappings', 'app-kit'],
  mappings: ['app-kit'],
  'app-kit': ['surfaces', 'mappings', 'families'],
  families: ['api', 'mappings', 'app-kit', 'daemon', 'commands'],
}

/**
 * What src/families may take from src/surfaces: the pieces the page and the daemon share (control ids,
 * the surface types, the key painter's colour reader), none of them a driver.
 */
const SHARED_FACE = ['surfaces/types.js']

describe('layer boundaries', () => {
  it('finds the source files it checks', () => {
    expect(files.length).toBeGreaterThan(20)
    expect(importsOf(join(src, 'surfaces/web/server.ts'))).toContain('defaults.js')
    expect(under('families').length).toBeGreaterThan(5)
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

  it('src/families takes from src/surfaces only the shared face pieces, and reads nothing', () => {
    const offences = under('families').flatMap((f) => [
      ...importsOf(f)
        .filter((to) => layerOf(to) === 'surfaces' && !SHARED_FACE.includes(to))
        .map((to) => `${relative(src, f)} imports ${to}`),
      ...packagesOf(f)
        .filter((p) => p.startsWith('node:'))
        .map((p) => `${relative(src, f)} imports ${p}`),
    ])
    expect(offences).toEqual([])
  })

  it("a family's mapping record imports src/families, the mapping file's own files and the shared face", () => {
    // The MIDI record reads a profile file for its controls: I/O, which src/families does not do.
    const ALLOWED = [...SHARED_FACE, 'surfaces/midi/profile.js']
    const offences = under('mappings/drivers').flatMap((f) =>
      importsOf(f)
        .filter((to) => !['families', 'mappings', 'face'].includes(layerOf(to)) && !ALLOWED.includes(to))
        .map((to) => `${relative(src, f)} imports ${to}`),
    )
    expect(offences).toEqual([])
  })

  it('only the daemon and the hardware commands import the driver table', () => {
    const importers = files
      .filter((f) => importsOf(f).includes('surfaces/drivers.js'))
      .map((f) => relative(src, f))
      .filter((f) => !f.startsWith('daemon/') && !f.startsWith('commands/'))
    expect(importers).toEqual([])
  })
})

/** A bundle's source files under src/ (esbuild's metafile inputs), as paths under src/. */
function bundled(metafile: Metafile): string[] {
  return Object.keys(metafile.inputs)
    .filter((f) => f.startsWith('src/'))
    .map((f) => f.slice('src/'.length))
}

/**
 * The import graph of src/'s files, read from their text as madge reads it: file (under src/) → the src/
 * files it imports, `import type` and `export ... from` included. esbuild's metafile leaves type-only
 * imports out, and a circle through types still ties the files' design together (and a type import
 * turned into a value one later would be a circle at run time).
 */
function sourceGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  const known = new Set(files)
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    const to = importedFiles
      .map((i) => i.fileName)
      .filter((s) => s.startsWith('.'))
      .map((s) => resolve(dirname(file), s).replace(/\.js$/, '.ts'))
      .filter((f) => known.has(f))
    graph.set(
      relative(src, file),
      [...new Set(to)].map((f) => relative(src, f)),
    )
  }
  return graph
}

/** The import circles of a graph: its strongly connected components of more than one file (or a file importing itself). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, with an explicit stack of frames: a deep import chain must not overflow the call stack.
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  let next = 0
  for (const start of graph.keys()) {
    if (index.has(start)) continue
    const frames: { file: string; edge: number }[] = [{ file: start, edge: 0 }]
    index.set(start, next)
    low.set(start, next++)
    stack.push(start)
    onStack.add(start)
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!
      const edges = graph.get(frame.file) ?? []
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!
        if (!index.has(to)) {
          index.set(to, next)
          low.set(to, next++)
          stack.push(to)
          onStack.add(to)
          frames.push({ file: to, edge: 0 })
        } else if (onStack.has(to)) low.set(frame.file, Math.min(low.get(frame.file)!, index.get(to)!))
        continue
      }
      frames.pop()
      const parent = frames[frames.length - 1]
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!))
      if (low.get(frame.file) !== index.get(frame.file)) continue
      const component: string[] = []
      let file: string
      do {
        file = stack.pop()!
        onStack.delete(file)
        component.push(file)
      } while (file !== frame.file)
      if (component.length > 1 || edges.includes(frame.file)) found.push(component.sort())
    }
  }
  return found
}

describe('import circles', () => {
  it('finds a circle where there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', []],
      ['e', ['e']],
    ])
    expect(circles(graph)).toEqual([['a', 'b', 'c'], ['e']])
  })

  it('reads type-only imports and re-exports into the graph', () => {
    const graph = sourceGraph()
    expect(graph.size).toBe(files.length)
    // `import type { AppStatus, DaemonMetrics } from './api.js'`: a type-only import.
    expect(graph.get('daemon/apps.ts')).toContain('daemon/api.ts')
    // `export { SimulatorState } from './state.js'`: a re-export.
    expect(graph.get('app-kit/simulator/index.ts')).toContain('app-kit/simulator/state.ts')
  })

  it('src/ has none, through type-only imports neither', () => {
    expect(circles(sourceGraph())).toEqual([])
  })
})

/**
 * Each family's own places, read from the three tables (keyed by driver name): its families file
 * (`src/families/index.ts`, and its light rules' file where FAMILY_LIGHTS there lists one), its surface folder (`src/surfaces/drivers.ts`) and its mapping record
 * (`src/mappings/drivers/index.ts`). Its name (`'midi'`, `driver: 'shuttle'`) and imports of its places
 * stand only there, in the tables, in the tools listed in FAMILY_TOOLS and in the places of a family
 * built on it (FAMILY_BASES); the shared places (`src/families/lights.ts`, `claims.ts`,
 * `src/surfaces/usb-hid/`, `src/mappings/drivers/common.ts`, ...) name no family, so a new family touches
 * its own three places and one line in each table.
 */
const FAMILIES_TABLE = join(src, 'families/index.ts')
const SURFACE_TABLE = join(src, 'surfaces/drivers.ts')
const MAPPING_TABLE = join(src, 'mappings/drivers/index.ts')

/** Family tools outside the family's places: file → the family (by driver name) and why. */
const FAMILY_TOOLS: Record<string, { family: string; why: string }> = {
  'commands/learn-raw.ts': { family: 'hid', why: '`learn --raw` reads raw HID reports to write a report map' },
}

/** Families built on another family's code: the family → the one whose places its own may import, and why. */
const FAMILY_BASES: Record<string, { base: string; why: string }> = {
  'streamdeck-net': {
    base: 'streamdeck',
    why: 'a network deck is a Stream Deck: the USB decks’ surface and model table, fed a deck the tcp library built',
  },
  'browser-deck': {
    base: 'streamdeck',
    why: 'a browser deck is a Stream Deck: the same library model table, mapped to the same control ids',
  },
}

/** A table's entries: the driver name (or the record's name, for the mapping table's list) → the file imported for it. */
function tableEntries(file: string, table: string): Map<string, string> {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true)
  const imported = new Map<string, string>()
  for (const s of sf.statements) {
    if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier)) continue
    const bindings = s.importClause?.namedBindings
    if (!bindings || !ts.isNamedImports(bindings)) continue
    const to = resolve(dirname(file), s.moduleSpecifier.text).replace(/\.js$/, '.ts')
    for (const e of bindings.elements) imported.set(e.name.text, to)
  }
  const out = new Map<string, string>()
  for (const s of sf.statements) {
    if (!ts.isVariableStatement(s)) continue
    for (const d of s.declarationList.declarations) {
      if (!ts.isIdentifier(d.name) || d.name.text !== table || !d.initializer) continue
      let e = d.initializer
      while (ts.isAsExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression
      const items = ts.isObjectLiteralExpression(e)
        ? e.properties.map((p) => [p.name && ts.isStringLiteral(p.name) ? p.name.text : p.name!.getText(), p] as const)
        : ts.isArrayLiteralExpression(e)
          ? e.elements.map((el) => [el.getText(), el] as const)
          : []
      for (const [name, node] of items) {
        const value = ts.isPropertyAssignment(node) ? node.initializer : node
        out.set(name, imported.get(value.getText()) ?? '')
      }
    }
  }
  return out
}

interface FamilyPlaces {
  name: string
  /** Its families file. */
  facts: string
  /** Its light rules' file (FAMILY_LIGHTS), where its lights look other than the common rules; '' where not. */
  lights: string
  /** Its surface folder, with a trailing slash. */
  folder: string
  /** Its mapping record. */
  mapping: string
}

async function familyPlaces(): Promise<FamilyPlaces[]> {
  const facts = tableEntries(FAMILIES_TABLE, 'FAMILIES')
  const lights = tableEntries(FAMILIES_TABLE, 'FAMILY_LIGHTS')
  const surfaces = tableEntries(SURFACE_TABLE, 'FAMILIES')
  const mappings = new Map<string, string>()
  for (const [record, file] of tableEntries(MAPPING_TABLE, 'MAPPING_FAMILIES')) {
    const mod = (await import(file)) as Record<string, { schema: { shape: { driver: { value: string } } } }>
    mappings.set(mod[record]!.schema.shape.driver.value, file)
  }
  return [...surfaces].map(([name, record]) => ({
    name,
    facts: facts.get(name) ?? '',
    lights: lights.get(name) ?? '',
    folder: `${dirname(record)}/`,
    mapping: mappings.get(name) ?? '',
  }))
}

/** Names of control kinds: a family name that is one too counts only beside a `driver`. */
const KIND_NAMES = new Set(['shuttle', 'jog', 'key', 'encoder', 'fader', 'button', 'tbar', 'joystick', 'note', 'cc'])

/** Where a file's code (not its comments) quotes a driver name: `line: 'name'`. */
function quotedNames(file: string, names: ReadonlySet<string>): { name: string; at: string }[] {
  const text = readFileSync(file, 'utf8')
  const scanner = ts.createScanner(ts.ScriptTarget.ES2022, true, ts.LanguageVariant.Standard, text)
  const out: { name: string; at: string }[] = []
  const recent: string[] = []
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    const value = scanner.getTokenValue()
    const isString = token === ts.SyntaxKind.StringLiteral || token === ts.SyntaxKind.NoSubstitutionTemplateLiteral
    // A name that is also a control kind counts only beside `driver` (`driver: 'shuttle'`, `.driver === 'shuttle'`).
    if (isString && names.has(value) && (!KIND_NAMES.has(value) || recent.includes('driver'))) {
      const line = text.slice(0, scanner.getTokenStart()).split('\n').length
      out.push({ name: value, at: `${relative(src, file)}:${line}: '${value}'` })
    }
    recent.push(scanner.getTokenText())
    if (recent.length > 6) recent.shift()
  }
  return out
}

describe('driver families', () => {
  it('reads every family and its three places from the tables', async () => {
    const families = await familyPlaces()
    expect(families.map((f) => f.name)).toEqual(FAMILY_NAMES)
    expect(families.find((f) => f.name === 'hid')).toEqual({
      name: 'hid',
      facts: join(src, 'families/report-map.ts'),
      lights: '',
      folder: join(src, 'surfaces/report-map/'),
      mapping: join(src, 'mappings/drivers/report-map.ts'),
    })
    for (const f of families) {
      expect(f.facts, f.name).not.toBe('')
      expect(f.mapping, f.name).not.toBe('')
    }
    expect([...tableEntries(FAMILIES_TABLE, 'FAMILIES').keys()]).toEqual(FAMILY_NAMES)
    expect(families.find((f) => f.name === 'xkeys')?.lights).toBe(join(src, 'families/xkeys-lights.ts'))
    // The mapping table also holds web's record (the daemon's own surface, no driver family).
    expect(tableEntries(MAPPING_TABLE, 'MAPPING_FAMILIES').size).toBe(FAMILY_NAMES.length + 1)
  })

  it('finds a quoted driver name in code, and a control kind only beside a driver', () => {
    const names = new Set(FAMILY_NAMES)
    expect(quotedNames(join(src, 'mappings/drivers/shuttle.ts'), names).map((m) => m.name)).toEqual(['shuttle'])
    // The table quotes the keys that are not plain identifiers (`'streamdeck-net': ...`), and only those.
    expect(quotedNames(SURFACE_TABLE, names).map((m) => m.name)).toEqual(FAMILY_NAMES.filter((n) => n.includes('-')))
    // `'shuttle'` is the ring's control id in the web protocol; there it names no family.
    expect(quotedNames(join(src, 'face/protocol.ts'), names)).toEqual([])
  })

  it('a family is named and imported only in its places, the tables and its listed tools', async () => {
    const places = await familyPlaces()
    const tables = [FAMILIES_TABLE, SURFACE_TABLE, MAPPING_TABLE]
    const own = (family: FamilyPlaces, file: string): boolean =>
      file === family.facts ||
      (family.lights !== '' && file === family.lights) ||
      file.startsWith(family.folder) ||
      file === family.mapping
    const allowed = (family: FamilyPlaces, file: string): boolean =>
      own(family, file) ||
      tables.includes(file) ||
      FAMILY_TOOLS[relative(src, file)]?.family === family.name ||
      places.some((f) => FAMILY_BASES[f.name]?.base === family.name && own(f, file))
    const names = new Set(places.map((f) => f.name))
    const offences: string[] = []
    for (const file of files) {
      const imported = importsOf(file).map((to) => join(src, to).replace(/\.js$/, '.ts'))
      for (const family of places) {
        if (allowed(family, file)) continue
        for (const to of imported.filter((to) => own(family, to)))
          offences.push(`${family.name}: ${relative(src, file)} imports ${relative(src, to)}`)
      }
      for (const { name, at } of quotedNames(file, names)) {
        if (
          !allowed(
            places.find((f) => f.name === name)!,
            file,
          )
        )
          offences.push(`${name}: ${at}`)
      }
    }
    expect(offences).toEqual([])
  })
})

/**
 * The config loader's bounds: it bundles the mapping file's schema, checks and each family's data (its
 * families file and its mapping record, two files a family), never the hardware layer (drivers, the
 * manager, the web server, key workers, the driver table). Issue 41 bounds the whole bundle at 55 files,
 * each family's two files counted (LOADER_MAX_FILES, LOADER_MAX_SURFACE_FILES); the files no one family
 * owns are bounded apart (LOADER_MAX_SHARED_FILES).
 * ASSUMED: the shared bound is today's figure; a new shared file in the loader's bundle, or a new family,
 * is a choice to make here (the Satellite family took the last room of 55: the SVG cost scan, the
 * format's migrations and the surface-name rule joined the files that use them to make it).
 */
const LOADER_MAX_FILES = 55
const LOADER_MAX_SURFACE_FILES = 12
const LOADER_MAX_SHARED_FILES = 37

describe("the config loader's bundle", () => {
  it('holds no driver, manager, web server, key worker or driver table, and few files', async () => {
    const result = await build({
      entryPoints: [join(src, 'mappings/load.ts')],
      absWorkingDir: root,
      bundle: true,
      metafile: true,
      write: false,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    })
    const inBundle = bundled(result.metafile)
    expect(inBundle).toContain('mappings/load.ts')
    expect(inBundle).toContain('families/streamdeck.ts')
    const hardware = inBundle.filter(
      (f) =>
        /^surfaces\/[^/]+\/(driver|family|surface|transport)\.ts$/.test(f) ||
        /^surfaces\/streamdeck\/key-workers?\.ts$/.test(f) ||
        ['surfaces/manager.ts', 'surfaces/web/server.ts', 'surfaces/drivers.ts', 'surfaces/driver-family.ts'].includes(
          f,
        ),
    )
    expect(hardware).toEqual([])
    const families = await familyPlaces()
    const owned = new Set(families.flatMap((f) => [f.facts, f.mapping].map((file) => relative(src, file))))
    // Each family's two files are in it, and counted in the whole.
    expect(inBundle.filter((f) => owned.has(f))).toHaveLength(owned.size)
    expect(inBundle.length).toBeLessThanOrEqual(LOADER_MAX_FILES)
    expect(inBundle.filter((f) => f.startsWith('surfaces/')).length).toBeLessThanOrEqual(LOADER_MAX_SURFACE_FILES)
    expect(inBundle.filter((f) => !owned.has(f)).length).toBeLessThanOrEqual(LOADER_MAX_SHARED_FILES)
  }, 120_000)
})

describe('the parts of the build', () => {
  /** A tsconfig read as tsc reads it. */
  function read(file: string): ts.ParsedCommandLine {
    const { config } = ts.readConfigFile(file, (path) => ts.sys.readFile(path))
    return ts.parseJsonConfigFileContent(config, ts.sys, dirname(file), undefined, file)
  }

  it('every source file of src/ is in exactly one part of tsconfig.build.json (tsc -b holds the walls)', () => {
    const parts = (read(join(src, '..', 'tsconfig.build.json')).projectReferences ?? []).map((r) => r.path)
    expect(parts.length).toBeGreaterThan(8)
    const owner = new Map<string, string[]>()
    for (const part of parts) {
      for (const file of read(part).fileNames) owner.set(file, [...(owner.get(file) ?? []), relative(src, part)])
    }
    const sources = files.filter((f) => !f.endsWith('.test.ts'))
    expect(
      sources
        .filter((f) => owner.get(f)?.length !== 1)
        .map((f) => `${relative(src, f)}: ${owner.get(f)?.join(', ') ?? 'none'}`),
    ).toEqual([])
  })
})
