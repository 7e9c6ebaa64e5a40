/**
 * Schema issues (zod's) as the loader's problems: readable messages at the nodes they concern, and
 * "did you mean" for an unknown key from the keys the schema itself allows at that place, so a key
 * added to the schema is suggested with no list to keep. An unknown key one edit from a required key
 * that is missing is one problem (`colums` → "did you mean columns?", not also "columns is required").
 */
import { z } from 'zod'
import { nameText, pathText, type Path, type Problems } from './problems.js'
import { configSchema } from './schema.js'
import { nearest } from './suggest.js'

// The one "did you mean" (`suggest.ts`), here too for the callers that import it from this file.
export { suggest } from './suggest.js'

type Issue = z.core.$ZodIssue
type Schema = z.core.$ZodType

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'a map'
  if (typeof value === 'string') return `"${value.length > 40 ? value.slice(0, 39) + '…' : value}"`
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return `${typeof value} ${value}`
  return typeof value
}

// ---- the keys the schema allows at a path -------------------------------------------------------------

/** How many wrappers (optional, default, prefault, ...) are looked through; the schema nests a few. */
const MAX_UNWRAP = 8

/** The schema inside optional, nullable, default, prefault, readonly and catch wrappers, and pipes' input. */
function unwrap(schema: Schema): Schema {
  let s = schema
  for (let i = 0; i < MAX_UNWRAP; i++) {
    const def = s._zod.def as { innerType?: Schema; in?: Schema }
    const inner = def.innerType ?? (s instanceof z.ZodPipe ? def.in : undefined)
    if (inner === undefined) break
    s = inner
  }
  return s
}

/** A union's options the value may be meant as: a discriminated union's by its discriminator. */
function unionOptions(schema: z.ZodUnion, value: unknown): Schema[] {
  const options = schema.options as readonly Schema[]
  if (!(schema instanceof z.ZodDiscriminatedUnion) || value === null || typeof value !== 'object') return [...options]
  const key = schema.def.discriminator
  const given = (value as Record<string, unknown>)[key]
  const chosen = options.filter((o) => {
    const literal = o instanceof z.ZodObject ? (o.shape as Record<string, Schema>)[key] : undefined
    return literal instanceof z.ZodLiteral && literal.values.has(given as z.core.util.Literal)
  })
  return chosen.length > 0 ? chosen : [...options]
}

/** The schemas `schema` may mean for `value`, with unions spread into their options. */
function spread(schema: Schema, value: unknown, depth = 0): Schema[] {
  const s = unwrap(schema)
  if (!(s instanceof z.ZodUnion) || depth > MAX_UNWRAP) return [s]
  return unionOptions(s, value).flatMap((o) => spread(o, value, depth + 1))
}

/** The schemas one step down from `schema`: an object's field, a list's items, a map's values. */
function child(schema: Schema, step: string | number): Schema | undefined {
  if (schema instanceof z.ZodObject) {
    const shape = schema.shape as Record<string, Schema>
    return typeof step === 'string' && Object.hasOwn(shape, step) ? shape[step] : undefined
  }
  if (schema instanceof z.ZodArray) return typeof step === 'number' ? schema.element : undefined
  if (schema instanceof z.ZodRecord) return schema.valueType
  return undefined
}

/**
 * The keys an object may have at `path` of the mapping file, as the schema allows them (through
 * wrappers, lists, maps and unions; a discriminated union's option by the value's discriminator).
 * `root` is the file's data, read for the discriminators on the way. In the schema's order, each once.
 */
export function keysAt(path: Path, root: unknown, schema: Schema = configSchema): string[] {
  let value = root
  let schemas = spread(schema, value)
  for (const step of path) {
    value = value !== null && typeof value === 'object' ? (value as Record<string | number, unknown>)[step] : undefined
    schemas = schemas
      .map((s) => child(s, step))
      .filter((s) => s !== undefined)
      .flatMap((s) => spread(s, value))
  }
  const keys = new Set<string>()
  for (const s of schemas) {
    if (s instanceof z.ZodObject) for (const k of Object.keys(s.shape)) keys.add(k)
    // A map with a fixed set of keys (`colors`, `labels`: the play states).
    if (s instanceof z.ZodRecord && s.keyType instanceof z.ZodEnum)
      for (const k of s.keyType.options as readonly (string | number)[]) keys.add(String(k))
  }
  return [...keys]
}

// ---- issues as problems ---------------------------------------------------------------------------------

/** Of a union's branches, the one the author most likely meant: fewest issues, then the deepest. */
function bestBranch(branches: Issue[][]): Issue[] {
  const depth = (issues: Issue[]): number => Math.max(0, ...issues.map((i) => i.path.length))
  return [...branches].sort((a, b) => a.length - b.length || depth(b) - depth(a))[0] ?? []
}

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let v = root
  for (const step of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, step)) return undefined
    v = (v as Record<string | number, unknown>)[step]
  }
  return v
}

/** What a schema issue is read against: the problems it goes to, and the file's data from the top. */
export interface IssueContext {
  problems: Problems
  /** The whole file's data (the keys allowed at a place depend on a surface's `driver`). */
  root: unknown
}

/** The keys unknown keys are nearest: by the unknown key's path, and the paths of the keys meant. */
interface KeySuggestions {
  near: Map<string, string>
  meant: Set<string>
}

/** "Did you mean" for every unknown key of `issues` (`unrecognized_keys`), each looked up once. */
function keySuggestions(ctx: IssueContext, issues: readonly Issue[], base: Path): KeySuggestions {
  const out: KeySuggestions = { near: new Map(), meant: new Set() }
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue
    const path = [...base, ...(issue.path as (string | number)[])]
    const known = keysAt(path, ctx.root)
    for (const key of issue.keys) {
      const near = nearest(key, known)
      if (near === undefined) continue
      out.near.set(JSON.stringify([...path, key]), near)
      out.meant.add(JSON.stringify([...path, near]))
    }
  }
  return out
}

/**
 * Schema issues as problems at their nodes, with readable messages. `base` is where the parsed value
 * sits in the file, `input` that value.
 */
export function reportIssues(ctx: IssueContext, issues: readonly Issue[], base: Path, input: unknown): void {
  const { problems } = ctx
  const suggestions = keySuggestions(ctx, issues, base)
  for (const issue of issues) {
    const path = [...base, ...(issue.path as (string | number)[])]
    const at = pathText(path)
    const prefix = at === '' ? '' : `${at}: `
    if (issue.code === 'invalid_union') {
      if (issue.errors.length > 0) reportIssues(ctx, bestBranch(issue.errors), path, input)
      else if ('options' in issue && Array.isArray(issue.options))
        problems.add(path, 'error', `${prefix}must be one of ${(issue.options as unknown[]).map(String).join(', ')}`)
      else problems.add(path, 'error', `${prefix}${issue.message}`)
      continue
    }
    switch (issue.code) {
      case 'unrecognized_keys': {
        for (const key of issue.keys) {
          const near = suggestions.near.get(JSON.stringify([...path, key]))
          const hint = near === undefined ? '' : ` (did you mean ${near}?)`
          problems.add(path, 'error', `${prefix}unknown key ${nameText(key)}${hint}`, key)
        }
        break
      }
      case 'invalid_type': {
        const given = valueAt(input, issue.path as (string | number)[])
        if (given === undefined) {
          // An unknown key nearest this one says it already ("did you mean").
          if (suggestions.meant.has(JSON.stringify(path))) break
          const parent = path.slice(0, -1)
          problems.add(parent, 'error', `${pathText(parent) || 'the file'}: ${String(path.at(-1))} is required`)
        } else {
          problems.add(path, 'error', `${prefix}expected ${issue.expected}, got ${describeValue(given)}`)
        }
        break
      }
      case 'invalid_value':
        problems.add(path, 'error', `${prefix}must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`)
        break
      case 'custom':
      case 'invalid_element':
      case 'invalid_format':
      case 'invalid_key':
      case 'not_multiple_of':
      case 'too_big':
      case 'too_small':
        problems.add(path, 'error', `${prefix}${issue.message}`)
        break
    }
  }
}
