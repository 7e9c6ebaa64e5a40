/**
 * What of node_modules the program needs on the box. `npm ci --omit=dev` installs every module a
 * dependency declares, and some declare what only their install script uses: @julusian/jpeg-turbo names
 * cmake-js (to build itself where no prebuilt binary fits), which brings axios, gauge, tar, yargs and
 * more (about 10 MiB), none of which the program ever loads. So the package ships:
 *
 * - every package that a file of dist/ reaches by import or require, followed as Node resolves them:
 *   esbuild walks the graph from each file of dist/ and from each declared dependency's entry point,
 *   and its metafile names every file it read (`runtimeGraph`);
 * - the declared dependencies whole, as some are loaded by name through createRequire (pino-pretty,
 *   the canvas) or by path (the key font), where esbuild's walk cannot see them, and what the worker
 *   files of WORKER_FILES reach;
 *
 * and of those, no file a running program never reads: type declarations, source maps, TypeScript
 * sources, documentation, test and example folders (`DEV_FILE`, `DEV_FOLDER`). Then every file the walk
 * read must still be there (`pruneToRuntime` throws otherwise): nothing reachable is ever pruned.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative, resolve, sep } from 'node:path'
import type { Plugin } from 'esbuild'

export interface RuntimeGraph {
  /** Package folders under node_modules the program reaches, e.g. `pino`, `p-queue/node_modules/eventemitter3`. */
  packages: Set<string>
  /** Every file esbuild read, relative to the program's folder. */
  inputs: string[]
  /** Bare specifiers no installed package answers, with the file that names them (never loaded on the box). */
  unresolved: string[]
}

/**
 * Files a dependency starts by path in a worker thread, which no import names: pino's transport worker
 * and thread-stream's (what they require, real-require, is shipped with them). The program logs without
 * a transport today; a transport added later works without a change here.
 */
const WORKER_FILES = ['pino/lib/worker.js', 'thread-stream/lib/worker.js']

/** `node_modules/a/node_modules/@s/b/lib/x.js` → `a/node_modules/@s/b`; undefined outside node_modules. */
export function packageOf(path: string): string | undefined {
  const m = /^node_modules\/((?:(?:@[^/]+\/)?[^/]+\/node_modules\/)*(?:@[^/]+\/)?[^/]+)\//.exec(path)
  return m?.[1]
}

/** The .js files of `dir`, less the page's browser bundles (made by esbuild already, importing nothing). */
function programFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.[cm]?js$/.test(e.name) && !e.name.endsWith('.bundle.js'))
    .map((e) => join(e.parentPath, e.name))
}

/** A specifier no package answers is left out of the walk (kept as external) and named. */
function unresolvedAsExternal(lib: string, unresolved: string[]): Plugin {
  return {
    name: 'unresolved-as-external',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === 'inner' || args.path.startsWith('node:')) return undefined
        const { kind, resolveDir, importer } = args
        const r = await build.resolve(args.path, { kind, resolveDir, importer, pluginData: 'inner' })
        // Found above `lib` (a staging folder inside the repository finds the repository's node_modules):
        // not installed in the program, so as good as not found.
        if (r.errors.length === 0 && (r.external || r.path.startsWith(`${lib}${sep}`))) return r
        unresolved.push(`${args.path} (${relative(lib, importer)})`)
        return { path: args.path, external: true }
      })
    },
  }
}

/** The packages the program in `lib` (dist/, package.json, node_modules/) reaches; see the file's comment. */
export async function runtimeGraph(program: string): Promise<RuntimeGraph> {
  const lib = resolve(program)
  const { build } = await import('esbuild')
  const declared = Object.keys(
    (JSON.parse(readFileSync(join(lib, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
      .dependencies,
  )
  const require = createRequire(join(lib, 'package.json'))
  // A dependency with no entry point (the font package: files only) is kept whole below.
  const entries = declared.flatMap((name) => {
    try {
      return [require.resolve(name)]
    } catch {
      return []
    }
  })
  const workers = WORKER_FILES.map((f) => join(lib, 'node_modules', f)).filter((f) => existsSync(f))
  const unresolved: string[] = []
  const result = await build({
    entryPoints: [...programFiles(join(lib, 'dist')), ...entries, ...workers],
    absWorkingDir: lib,
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    outdir: join(lib, '.runtime-graph'),
    logLevel: 'silent',
    // A native binary is a file the walk reads (it counts), never code it follows.
    loader: { '.node': 'empty' },
    plugins: [unresolvedAsExternal(lib, unresolved)],
  })
  const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('<'))
  const packages = new Set(declared)
  for (const f of inputs) {
    const pkg = packageOf(f)
    if (pkg !== undefined) packages.add(pkg)
  }
  return { packages, inputs, unresolved: [...new Set(unresolved)].sort() }
}

/** Files no running program reads. Licence files (LICENSE.md, NOTICE.md) are kept. */
const DEV_FILE =
  /(\.d\.[cm]?ts|\.[cm]?ts|\.tsx|\.map|\.tsbuildinfo)$|^(?!(licen[cs]e|copying|notice))[^/]*\.(md|markdown)$/i
/** Folders of a package no running program reads. */
const DEV_FOLDER = new Set([
  'test',
  'tests',
  '__tests__',
  'example',
  'examples',
  'benchmark',
  'benchmarks',
  'docs',
  '.github',
])

/** The package folders directly in a node_modules folder (`a`, `@s/b`). */
function packagesIn(modules: string): string[] {
  return readdirSync(modules, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .flatMap((e) =>
      e.name.startsWith('@')
        ? readdirSync(join(modules, e.name), { withFileTypes: true })
            .filter((s) => s.isDirectory())
            .map((s) => `${e.name}/${s.name}`)
        : [e.name],
    )
}

/** What pruneToRuntime removed: whole packages, and files or folders of the packages kept. */
export interface Pruned {
  packages: string[]
  files: string[]
}

/** Removes what is not in `keep` (package folders) and, in what stays, the DEV_FILE and DEV_FOLDER entries. */
function prune(modules: string, keep: Set<string>, prefix: string, removed: Pruned): void {
  if (!existsSync(modules)) return
  for (const name of packagesIn(modules)) {
    const id = `${prefix}${name}`
    const dir = join(modules, name)
    if (!keep.has(id)) {
      rmSync(dir, { recursive: true })
      removed.packages.push(id)
      continue
    }
    pruneFiles(dir, dir, removed.files, id)
    prune(join(dir, 'node_modules'), keep, `${id}/node_modules/`, removed)
  }
  for (const scope of readdirSync(modules).filter((n) => n.startsWith('@'))) {
    if (readdirSync(join(modules, scope)).length === 0) rmSync(join(modules, scope), { recursive: true })
  }
}

function pruneFiles(pkgRoot: string, dir: string, removed: string[], id: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) {
      if (e.name === 'node_modules' && dir === pkgRoot) continue
      if (DEV_FOLDER.has(e.name)) {
        rmSync(p, { recursive: true })
        removed.push(`${id}/${relative(pkgRoot, p)}/`)
      } else pruneFiles(pkgRoot, p, removed, id)
    } else if (e.isFile() && DEV_FILE.test(e.name)) {
      rmSync(p)
      removed.push(`${id}/${relative(pkgRoot, p)}`)
    }
  }
}

/**
 * Leaves in `lib`/node_modules the packages of `graph` alone, less their DEV_FILE and DEV_FOLDER entries.
 * Throws if a file the walk read is gone (a pruning rule that would break the program). Returns what went.
 */
export function pruneToRuntime(lib: string, graph: RuntimeGraph): Pruned {
  const removed: Pruned = { packages: [], files: [] }
  prune(join(lib, 'node_modules'), graph.packages, '', removed)
  const lost = graph.inputs.filter((f) => !existsSync(join(lib, f)))
  if (lost.length > 0) throw new Error(`pruned files the program reads: ${lost.slice(0, 10).join(', ')}`)
  return removed
}
