/**
 * Loads a mapping file and reports **every** problem at once as `file:line:col: message`, pointing at
 * the exact node: YAML syntax, schema errors, an unknown surface, a control the surface lacks,
 * duplicates, an undeclared page, a command not in the catalogue (an error with "did you mean" when it
 * is a slip from one it has, else a warning: the application has more commands than we know), missing
 * or ill-typed parameters of a known command (through the client's own `checkParams`). A file with any
 * error gives no config; a refused reload keeps the last good one.
 *
 * This file reads the file and runs the checks in order; `yaml-read.ts` parses the YAML (bounded depth,
 * merge keys, one problem per syntax mistake), `problems.ts` places and writes the problems,
 * `schema-issues.ts` reads the schema's, `check-binding.ts` checks each binding (`check-command.ts` its
 * commands), `suggest.ts` is the one "did you mean".
 *
 * Everything read is bounded (file size, alias expansion, nesting while parsing, name lengths before a
 * suggestion, counts), and no input makes the loader throw: the fuzz suite holds it to that.
 */
import { LineCounter } from 'yaml'
import { z } from 'zod'
import { validateClaims } from '../families/claims.js'
import { readRegularFile } from '../read-regular.js'
import type { DecodeOptions } from '../surfaces/render/picture.js'
import { jsonDepthExceeds } from '../wire.js'
import { checkLabelGlyphs } from './check-glyphs.js'
import { checkBinding, type BindingContext, type SurfaceInfo } from './check-binding.js'
import { attachPictures, checkImages } from './check-image.js'
import { checkApps } from './check-apps.js'
import { PAGE_WORDS } from './constants.js'
import { Problems, type ConfigProblem, type Severity } from './problems.js'
import { reportIssues, type IssueContext } from './schema-issues.js'
import {
  CONFIG_LIMITS,
  binding as bindingSchema,
  configSchema,
  migrate,
  surface as surfaceSchema,
  type Binding,
  type Config,
} from './schema.js'
import { claimsOfConfig, defaultSurfaceCatalogue, type SurfaceCatalogue } from './surfaces.js'
import { parseYaml, syntaxProblems, tooDeepOffset } from './yaml-read.js'

export { ConfigError, formatProblem, type ConfigProblem, type Severity } from './problems.js'
export { pressNeedsConfirm } from './check-binding.js'

export interface LoadResult {
  /** The config, when the file has no error (warnings allowed). */
  config?: Config
  problems: ConfigProblem[]
}

export interface LoadOptions {
  catalogue?: SurfaceCatalogue
  /**
   * What a binding's `image:` that cannot be read is: an error (default: `check` refuses the file) or a
   * warning (the daemon runs, and the key shows its text and says why). See `check-image.ts`.
   */
  imageProblems?: Severity
  /** Who draws the pictures of `image:` and what stops them (default: this process's drawing process). */
  pictures?: DecodeOptions
}

/** A file read as data: its problems so far (they know where its nodes stand) and its (migrated) data. */
interface Read {
  problems: Problems
  raw: unknown
}

/** Why a file of `size` bytes is refused, with the figures. */
function tooLargeText(size: number): string {
  const n = (v: number): string => v.toLocaleString('en-US')
  return `too large: ${n(size)} bytes; a mapping file is at most ${n(CONFIG_LIMITS.fileBytes)} bytes (${CONFIG_LIMITS.fileBytes / 1024} KiB)`
}

/**
 * Parses the text and reads it as data, bounded (size, aliases, depth), migrated to this version.
 * The problems alone when the file cannot be read that far. The size bound is what keeps the `yaml`
 * library's document (every node with its position) cheap to build for any file.
 */
function readData(text: string, file: string): Read | { problems: ConfigProblem[] } {
  const lines = new LineCounter()
  const size = Buffer.byteLength(text, 'utf8')
  if (size > CONFIG_LIMITS.fileBytes) {
    const problems = new Problems(file, undefined, lines)
    problems.at(0, 'error', tooLargeText(size))
    return { problems: problems.finish() }
  }
  const read = parseYaml(text, lines)
  if ('tooDeepAt' in read) {
    const problems = new Problems(file, undefined, lines)
    problems.at(read.tooDeepAt, 'error', `values are nested deeper than ${CONFIG_LIMITS.depth} levels`)
    return { problems: problems.finish() }
  }
  const { doc } = read
  const problems = new Problems(file, doc, lines)
  for (const e of syntaxProblems(text, doc, lines)) problems.at(e.offset, 'error', e.message)
  for (const w of doc.warnings) problems.at(w.pos[0], 'warning', w.message.split('\n')[0]!)
  if (doc.errors.length > 0) return { problems: problems.finish() }

  let raw: unknown
  try {
    raw = doc.toJS({ maxAliasCount: CONFIG_LIMITS.aliases })
  } catch (err) {
    // The yaml library throws a ReferenceError when aliases expand past the limit.
    problems.at(0, 'error', `the file cannot be read as data: ${err instanceof Error ? err.message : String(err)}`)
    return { problems: problems.finish() }
  }
  if (jsonDepthExceeds(raw, CONFIG_LIMITS.depth)) {
    problems.at(tooDeepOffset(doc) ?? 0, 'error', `values are nested deeper than ${CONFIG_LIMITS.depth} levels`)
    return { problems: problems.finish() }
  }
  return migrated(problems, raw)
}

/** The data migrated to this version (an empty file is an empty mapping), or the problem why not. */
function migrated(problems: Problems, raw: unknown): Read | { problems: ConfigProblem[] } {
  const migration = migrate(raw ?? {})
  if ('problem' in migration) {
    problems.add(['version'], 'error', migration.problem, migration.atKey ? 'version' : undefined)
    return { problems: problems.finish() }
  }
  return { problems, raw: migration.value }
}

/** Each `surfaces:` entry on its own (one bad entry hides nothing of the others), then their claims. */
async function checkSurfaces(
  ctx: IssueContext,
  rawSurfaces: Record<string, unknown>,
  catalogue: SurfaceCatalogue,
): Promise<Map<string, SurfaceInfo>> {
  const { problems } = ctx
  const surfaces = new Map<string, SurfaceInfo>()
  for (const [name, value] of Object.entries(rawSurfaces)) {
    const parsed = surfaceSchema.safeParse(value)
    if (!parsed.success) {
      reportIssues(ctx, parsed.error.issues, ['surfaces', name], value)
      continue
    }
    const known = await catalogue.controlsOf(name, parsed.data)
    if ('problem' in known) {
      problems.add(['surfaces', name, ...known.path], 'error', `surfaces.${name}: ${known.problem}`)
      continue
    }
    surfaces.set(name, {
      config: parsed.data,
      controls: known.controls && new Map(known.controls.map((c) => [c.id, c])),
    })
  }
  const claims = claimsOfConfig(Object.fromEntries([...surfaces].map(([name, s]) => [name, s.config])))
  for (const p of validateClaims(claims))
    problems.add(['surfaces', p.name], 'error', `surfaces.${p.name}: ${p.message}`, undefined)
  return surfaces
}

/** `pages:`: a configured surface each, no reserved word, no page twice. */
function checkPages(
  problems: Problems,
  pages: Record<string, string[]>,
  surfaces: ReadonlyMap<string, SurfaceInfo>,
  rawSurfaces: Record<string, unknown>,
): void {
  for (const [surfaceName, list] of Object.entries(pages)) {
    if (!surfaces.has(surfaceName) && !Object.hasOwn(rawSurfaces, surfaceName)) {
      problems.add(['pages'], 'error', `pages: ${surfaceName} is not a configured surface`, surfaceName)
    }
    const seen = new Set<string>()
    for (const [i, page] of list.entries()) {
      if (page === PAGE_WORDS.previous || page === PAGE_WORDS.next) {
        problems.add(
          ['pages', surfaceName, i],
          'error',
          `pages.${surfaceName}: ${page} is a reserved word, not a page name`,
        )
      }
      if (seen.has(page))
        problems.add(['pages', surfaceName, i], 'error', `pages.${surfaceName}: ${page} is listed twice`)
      seen.add(page)
    }
  }
}

/** Each binding on its own: its schema, then (when that holds) its checks against the rest of the file. */
function checkBindings(ctx: IssueContext & BindingContext, rawBindings: readonly unknown[]): Binding[] {
  const bindings: Binding[] = []
  for (const [i, value] of rawBindings.entries()) {
    const parsed = bindingSchema.safeParse(value)
    if (!parsed.success) {
      reportIssues(ctx, parsed.error.issues, ['bindings', i], value)
      continue
    }
    bindings.push(parsed.data)
    checkBinding(ctx, parsed.data, i)
    checkLabelGlyphs(ctx.problems, parsed.data, i)
  }
  return bindings
}

/** More bindings than CONFIG_LIMITS.bindings: one error at the `bindings:` key, with the figures. */
function checkBindingCount(problems: Problems, rawObject: Record<string, unknown>): void {
  const { bindings } = rawObject
  if (!Array.isArray(bindings) || bindings.length <= CONFIG_LIMITS.bindings) return
  const n = (v: number): string => v.toLocaleString('en-US')
  const message = `bindings: too many: ${n(bindings.length)}; a mapping file has at most ${n(CONFIG_LIMITS.bindings)}`
  problems.add([], 'error', message, 'bindings')
}

/**
 * Loads mapping text. Never throws: every problem is in `problems`, and `config` is there only when no
 * problem is an error.
 */
export async function loadConfigText(text: string, file: string, options: LoadOptions = {}): Promise<LoadResult> {
  const read = readData(text, file)
  if (!('raw' in read)) return read
  const { problems, raw } = read
  const ctx: IssueContext = { problems, root: raw }

  // The top level with surfaces and bindings as opaque lists; then each surface and binding alone, so one
  // bad entry does not hide the checks of the others.
  const top = configSchema.extend({
    surfaces: z.record(z.string(), z.unknown()).default({}),
    bindings: z.array(z.unknown()).default([]),
  })
  const topResult = top.safeParse(raw)
  if (!topResult.success) reportIssues(ctx, topResult.error.issues, [], raw)
  const rawObject = raw as Record<string, unknown>
  checkBindingCount(problems, rawObject)
  // Each section is read on its own too, so a mistake in one does not hide the checks of the others.
  const section = <T>(schema: z.ZodType<T>, value: unknown, fallback: T): T => {
    const r = schema.safeParse(value)
    return r.success ? r.data : fallback
  }

  const rawSurfaces = section(top.shape.surfaces, rawObject.surfaces, {})
  const surfaces = await checkSurfaces(ctx, rawSurfaces, options.catalogue ?? defaultSurfaceCatalogue)
  const pages = section(configSchema.shape.pages, rawObject.pages, {})
  checkPages(problems, pages, surfaces, rawSurfaces)

  const rawBindings = topResult.success
    ? topResult.data.bindings
    : Array.isArray(rawObject.bindings)
      ? rawObject.bindings
      : []
  const lineOf = (index: number): number => problems.lineOf(['bindings', index])
  const bindings = checkBindings({ ...ctx, surfaces, rawSurfaces, pages, taken: new Map(), lineOf }, rawBindings)
  checkApps(problems, rawObject, topResult.success ? topResult.data : undefined, bindings)

  const pictures = await checkImages(problems, rawBindings, file, options.imageProblems ?? 'error', options.pictures)

  const all = problems.finish()
  if (problems.errors > 0 || !topResult.success) return { problems: all }
  const config: Config = {
    ...topResult.data,
    surfaces: Object.fromEntries([...surfaces].map(([n, s]) => [n, s.config])),
    bindings,
  }
  attachPictures(config, pictures)
  return { config, problems: all }
}

/**
 * The file's text, or why it cannot be used: read without blocking on what is at the path (a named
 * pipe in the config's place), refused unless it is a regular file, at most CONFIG_LIMITS.fileBytes
 * (`read-regular.ts`). `run`, `check` and a reload's read all come through here.
 */
export async function readConfigText(file: string): Promise<{ text: string } | { problem: string }> {
  const read = await readRegularFile(file, CONFIG_LIMITS.fileBytes)
  if ('bytes' in read) return { text: read.bytes.toString('utf8') }
  if ('notRegular' in read) return { problem: `cannot read the file: it is ${read.notRegular}, not a regular file` }
  if ('tooLarge' in read) return { problem: tooLargeText(read.size) }
  return { problem: `cannot read the file: ${read.error.message}` }
}

/** One problem at 1:1, as the loader reports a file it cannot read. */
export function fileProblem(file: string, message: string): LoadResult {
  return { problems: [{ file, line: 1, col: 1, severity: 'error', message }] }
}

/** Reads and loads a mapping file; a file that cannot be read is one problem at 1:1. */
export async function loadConfigFile(file: string, options: LoadOptions = {}): Promise<LoadResult> {
  const read = await readConfigText(file)
  if ('problem' in read) return fileProblem(file, read.problem)
  return loadConfigText(read.text, file, options)
}
