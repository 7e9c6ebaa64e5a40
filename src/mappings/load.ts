/**
 * Loads a mapping file and reports **every** problem at once as `file:line:col: message`, pointing at
 * the exact node: YAML syntax, schema errors, an unknown surface, a control the surface lacks,
 * duplicates, an undeclared page, a command not in the catalogue (a warning: the application has more
 * commands than we know), missing or ill-typed parameters of a known command (through the client's
 * own `checkParams`). A file with any error gives no config; a refused reload keeps the last good one.
 *
 * Everything read is bounded (file size, alias expansion, nesting, counts), and no input makes the
 * loader throw: the fuzz suite holds it to that.
 */
import { readFile } from 'node:fs/promises'
import { isMap, isNode, isPair, isScalar, LineCounter, parseDocument, type Document, type Node } from 'yaml'
import { z } from 'zod'
import { checkParams } from '../api/codec.js'
import { getCommandSpec } from '../api/commands.js'
import { validateClaims } from '../surfaces/claims.js'
import { ControlIdError, controlSends, parseControlAddress } from '../surfaces/control-id.js'
import type { ControlDescriptor, ControlKind, SurfaceEvent } from '../surfaces/types.js'
import { jsonDepthExceeds } from '../wire.js'
import { CONFIRM_COMMANDS, PAGE_NEXT, PAGE_PREVIOUS } from './constants.js'
import { migrate } from './migrate.js'
import {
  CONFIG_LIMITS,
  binding as bindingSchema,
  configSchema,
  surface as surfaceSchema,
  type Action,
  type Actions,
  type Binding,
  type Config,
  type SurfaceConfig,
} from './schema.js'
import { claimsOfConfig, defaultSurfaceCatalogue, type SurfaceCatalogue } from './surfaces.js'
import { parseTemplate, soleTemplate, usesTemplate } from './template.js'

/** The largest mapping file read, bytes. */
export const MAX_CONFIG_BYTES = 1024 * 1024
/** How many alias expansions a file may make (a "billion laughs" file stops here). */
export const MAX_CONFIG_ALIASES = 100
/** The deepest nesting of any value in the file. */
export const MAX_CONFIG_DEPTH = 32
/** How many problems are listed before the rest are counted. */
export const MAX_PROBLEMS = 200

export type Severity = 'error' | 'warning'

export interface ConfigProblem {
  file: string
  line: number
  col: number
  severity: Severity
  message: string
}

/** `file:line:col: message` (warnings say so). */
export function formatProblem(p: ConfigProblem): string {
  return `${p.file}:${p.line}:${p.col}: ${p.severity === 'warning' ? 'warning: ' : ''}${p.message}`
}

export interface LoadResult {
  /** The config, when the file has no error (warnings allowed). */
  config?: Config
  problems: ConfigProblem[]
}

/** A file refused: every problem, formatted. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(problems.map(formatProblem).join('\n'))
  }
}

export interface LoadOptions {
  catalogue?: SurfaceCatalogue
}

type Path = readonly (string | number)[]

/** Where problems go, each at the node its path names. */
class Problems {
  readonly list: ConfigProblem[] = []
  private dropped = 0
  constructor(
    private readonly file: string,
    private readonly doc: Document | undefined,
    private readonly lines: LineCounter,
  ) {}

  get errors(): number {
    return this.list.filter((p) => p.severity === 'error').length + this.dropped
  }

  at(offset: number, severity: Severity, message: string): void {
    if (this.list.length >= MAX_PROBLEMS) {
      this.dropped++
      return
    }
    const { line, col } = this.lines.linePos(offset)
    // An empty line table (nothing parsed yet) answers 0:0; a position is 1-based.
    this.list.push({ file: this.file, line: Math.max(1, line), col: Math.max(1, col), severity, message })
  }

  /** A problem at the node of `path`; `key` points at a map key instead of its value. */
  add(path: Path, severity: Severity, message: string, key?: string): void {
    this.at(this.offsetOf(path, key), severity, message)
  }

  finish(): ConfigProblem[] {
    const out = [...this.list].sort((a, b) => a.line - b.line || a.col - b.col)
    if (this.dropped > 0) {
      out.push({
        file: this.file,
        line: 1,
        col: 1,
        severity: 'error',
        message: `${this.dropped} more problems not listed`,
      })
    }
    return out
  }

  /** The offset of the deepest node on `path` that exists (a missing key points at its map). */
  private offsetOf(path: Path, key?: string): number {
    if (!this.doc) return 0
    let node: unknown = this.doc.contents
    let offset = rangeStart(node) ?? 0
    for (const step of path) {
      if (!isNode(node) || !('get' in node)) break
      const next = (node as { get(k: unknown, keepScalar: true): unknown }).get(step, true)
      if (next === undefined) break
      node = next
      offset = rangeStart(node) ?? offset
    }
    if (key !== undefined && isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key)
      const start = pair ? rangeStart(pair.key) : undefined
      if (start !== undefined) return start
    }
    return offset
  }
}

function rangeStart(node: unknown): number | undefined {
  return isNode(node) && (node as Node).range ? (node as Node).range![0] : undefined
}

function pathText(path: Path): string {
  let out = ''
  for (const step of path) out += typeof step === 'number' ? `[${step}]` : out === '' ? step : `.${step}`
  return out
}

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

/** Edit distance, for "did you mean" on unknown keys. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!
    d[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = d[j]!
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = tmp
    }
  }
  return d[b.length]!
}

function suggest(word: string, known: readonly string[]): string {
  const best = known.map((k) => ({ k, d: distance(word.toLowerCase(), k.toLowerCase()) })).sort((a, b) => a.d - b.d)[0]
  return best && best.d <= Math.max(1, Math.floor(word.length / 3)) ? ` (did you mean ${best.k}?)` : ''
}

type Issue = z.core.$ZodIssue

/** Of a union's branches, the one the author most likely meant: fewest issues, then the deepest. */
function bestBranch(branches: Issue[][]): Issue[] {
  const depth = (issues: Issue[]): number => Math.max(0, ...issues.map((i) => i.path.length))
  return [...branches].sort((a, b) => a.length - b.length || depth(b) - depth(a))[0] ?? []
}

/** Schema issues as problems at their nodes, with readable messages. */
function reportIssues(problems: Problems, issues: readonly Issue[], base: Path, input: unknown): void {
  for (const issue of issues) {
    const path = [...base, ...(issue.path as (string | number)[])]
    const at = pathText(path)
    const prefix = at === '' ? '' : `${at}: `
    if (issue.code === 'invalid_union') {
      if (issue.errors.length > 0) reportIssues(problems, bestBranch(issue.errors), path, input)
      else if ('options' in issue && Array.isArray(issue.options))
        problems.add(path, 'error', `${prefix}must be one of ${(issue.options as unknown[]).map(String).join(', ')}`)
      else problems.add(path, 'error', `${prefix}${issue.message}`)
      continue
    }
    switch (issue.code) {
      case 'unrecognized_keys': {
        const known = knownKeysAt(path)
        for (const key of issue.keys) {
          problems.add(path, 'error', `${prefix}unknown key ${key}${suggest(key, known)}`, key)
        }
        break
      }
      case 'invalid_type': {
        const given = valueAt(input, issue.path as (string | number)[])
        if (given === undefined) {
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

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let v = root
  for (const step of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, step)) return undefined
    v = (v as Record<string | number, unknown>)[step]
  }
  return v
}

/** The keys the schema allows where an unknown key was found, for "did you mean". */
function knownKeysAt(path: Path): string[] {
  const names = (s: unknown): string[] => {
    // Through defaults and prefaults to the object schema inside.
    let schema = s as { shape?: Record<string, unknown>; def?: { innerType?: unknown } } | undefined
    for (let i = 0; i < 4 && schema && !schema.shape; i++) schema = schema.def?.innerType as typeof schema
    return schema?.shape ? Object.keys(schema.shape) : []
  }
  const last = path.findLastIndex((p) => typeof p === 'string' && p in KEYS_BY_FIELD)
  if (path.length === 0) return names(configSchema)
  if (path.length === 1) return names((configSchema.shape as Record<string, unknown>)[path[0] as string])
  if (path[0] === 'bindings') {
    if (path.length === 2) return BINDING_KEYS
    if (last >= 0) return KEYS_BY_FIELD[path[last] as string] ?? []
    return BINDING_KEYS
  }
  return []
}
const BINDING_KEYS = Object.keys(bindingSchema.shape)
const ACTION_KEYS = ['command', 'params', 'wait_ms', 'page']
const KEYS_BY_FIELD: Record<string, string[]> = {
  press: ACTION_KEYS,
  hold: [...ACTION_KEYS, 'after_ms'],
  toggle: ['on', 'off', ...ACTION_KEYS],
  steps: ACTION_KEYS,
  on: ACTION_KEYS,
  off: ACTION_KEYS,
  jog: ['scrub', 'step_frames', 'step_seconds', 'enter'],
  scrub: ['step_frames', 'step_seconds', 'enter'],
  shuttle: ['speeds', 'max_speed'],
  value: ['command', 'param', 'range', 'params'],
  rotate: ['command', 'params', 'acceleration'],
  feedback: ['title', 'colors', 'replay_state', 'streaming', 'input', 'channel'],
}

/** Which events each behaviour needs from its control. */
const NEEDS: Record<string, SurfaceEvent['type']> = {
  press: 'down',
  hold: 'down',
  toggle: 'down',
  steps: 'down',
  jog: 'rotate',
  rotate: 'rotate',
  shuttle: 'value',
  value: 'value',
}

const KIND_WORDS: Record<ControlKind, string> = {
  key: 'a key',
  encoder: 'an encoder',
  lcd: 'an LCD segment',
  jog: 'a jog wheel',
  shuttle: 'a shuttle ring',
  button: 'a button',
  fader: 'a fader',
  note: 'a MIDI note',
  cc: 'a MIDI control change',
  pitchbend: 'a MIDI pitch bend',
  program: 'a MIDI program change',
  tbar: 'a T-bar',
  joystick: 'a joystick axis',
}

interface SurfaceInfo {
  config: SurfaceConfig
  /** Undefined when the controls are known only once the device is open. */
  controls: ReadonlyMap<string, ControlDescriptor> | undefined
}

/** Every action of a press, hold, toggle side or step, with its path. */
function* actionsOf(b: Binding): Generator<{ action: Action; path: Path }> {
  const list = (a: Actions, path: Path): { action: Action; path: Path }[] =>
    Array.isArray(a) ? a.map((x, i) => ({ action: x, path: [...path, i] })) : [{ action: a, path }]
  if (b.press) yield* list(b.press, ['press'])
  if (b.hold) yield { action: b.hold, path: ['hold'] }
  if (b.toggle) {
    yield* list(b.toggle.on, ['toggle', 'on'])
    yield* list(b.toggle.off, ['toggle', 'off'])
  }
  if (b.steps) for (const [i, s] of b.steps.entries()) yield* list(s, ['steps', i])
}

/** Checks a command and its parameters against the catalogue (templates are checked when filled in). */
function checkCommand(
  problems: Problems,
  path: Path,
  command: string,
  params: Record<string, unknown> | undefined,
  extraParam?: string,
): void {
  if (getCommandSpec(command) === undefined) {
    problems.add(
      [...path, 'command'],
      'warning',
      `${pathText(path)}: ${command} is not in the command catalogue; sent as written`,
    )
    return
  }
  const given: Record<string, unknown> = {}
  const templated = new Set<string>()
  for (const [k, v] of Object.entries(params ?? {})) {
    if (soleTemplate(v) !== undefined) templated.add(k)
    else if (typeof v === 'string' && usesTemplate(v)) given[k] = 'text'
    else given[k] = v
  }
  if (extraParam !== undefined) templated.add(extraParam)
  for (const p of checkParams(command, given)) {
    if (p.kind === 'missing' && templated.has(p.param!)) continue
    if (p.kind === 'unknown-parameter' && templated.has(p.param!)) continue
    const at =
      p.param !== undefined && params && Object.hasOwn(params, p.param)
        ? [...path, 'params', p.param]
        : [...path, 'command']
    const given = p.kind === 'type' ? `, got ${p.given}` : ''
    problems.add(at, 'error', `${pathText(path)}: ${command}: ${p.message}${given}`)
  }
  for (const k of templated) {
    if (k === extraParam) {
      const spec = getCommandSpec(command)!
      if (!Object.hasOwn(spec.params, k))
        problems.add([...path, 'param'], 'error', `${pathText(path)}: ${command} has no parameter ${k}`)
      else if (spec.params[k]!.type !== 'number') {
        problems.add([...path, 'param'], 'error', `${pathText(path)}: ${command}: parameter ${k} is not a number`)
      }
      continue
    }
    if (!Object.hasOwn(getCommandSpec(command)!.params, k)) {
      problems.add([...path, 'params', k], 'error', `${pathText(path)}: ${command}: unknown parameter ${k}`)
    }
  }
  for (const [k, v] of Object.entries(params ?? {})) {
    if (typeof v === 'string')
      for (const t of parseTemplate(v).problems) problems.add([...path, 'params', k], 'error', t)
  }
}

/**
 * Loads mapping text. Never throws: every problem is in `problems`, and `config` is there only when no
 * problem is an error.
 */
export async function loadConfigText(text: string, file: string, options: LoadOptions = {}): Promise<LoadResult> {
  const lines = new LineCounter()
  if (Buffer.byteLength(text, 'utf8') > MAX_CONFIG_BYTES) {
    const problems = new Problems(file, undefined, lines)
    problems.at(0, 'error', `the file is larger than ${MAX_CONFIG_BYTES} bytes`)
    return { problems: problems.finish() }
  }
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true })
  const problems = new Problems(file, doc, lines)
  for (const e of doc.errors) problems.at(e.pos[0], 'error', e.message.split('\n')[0]!)
  for (const w of doc.warnings) problems.at(w.pos[0], 'warning', w.message.split('\n')[0]!)
  if (doc.errors.length > 0) return { problems: problems.finish() }

  let raw: unknown
  try {
    raw = doc.toJS({ maxAliasCount: MAX_CONFIG_ALIASES })
  } catch (err) {
    // The yaml library throws a ReferenceError when aliases expand past the limit.
    problems.at(0, 'error', `the file cannot be read as data: ${err instanceof Error ? err.message : String(err)}`)
    return { problems: problems.finish() }
  }
  if (jsonDepthExceeds(raw, MAX_CONFIG_DEPTH)) {
    problems.at(0, 'error', `values are nested deeper than ${MAX_CONFIG_DEPTH} levels`)
    return { problems: problems.finish() }
  }
  if (raw === null || raw === undefined) raw = {}
  const migrated = migrate(raw)
  if ('problem' in migrated) {
    problems.add(['version'], 'error', migrated.problem, migrated.atKey ? 'version' : undefined)
    return { problems: problems.finish() }
  }
  raw = migrated.value
  const catalogue = options.catalogue ?? defaultSurfaceCatalogue

  // The top level with surfaces and bindings as opaque lists; then each surface and binding alone, so one
  // bad entry does not hide the checks of the others.
  const top = configSchema.extend({
    surfaces: z.record(z.string(), z.unknown()).default({}),
    bindings: z.array(z.unknown()).max(CONFIG_LIMITS.bindings).default([]),
  })
  const topResult = top.safeParse(raw)
  if (!topResult.success) reportIssues(problems, topResult.error.issues, [], raw)
  const rawObject = raw as Record<string, unknown>
  // Each section is read on its own too, so a mistake in one does not hide the checks of the others.
  const section = <T>(schema: z.ZodType<T>, value: unknown, fallback: T): T => {
    const r = schema.safeParse(value)
    return r.success ? r.data : fallback
  }

  const surfaces = new Map<string, SurfaceInfo>()
  const rawSurfaces = section(top.shape.surfaces, rawObject.surfaces, {})
  for (const [name, value] of Object.entries(rawSurfaces)) {
    const parsed = surfaceSchema.safeParse(value)
    if (!parsed.success) {
      reportIssues(problems, parsed.error.issues, ['surfaces', name], value)
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

  const pages = section(configSchema.shape.pages, rawObject.pages, {})
  for (const [surfaceName, list] of Object.entries(pages)) {
    if (!surfaces.has(surfaceName) && !Object.hasOwn(rawSurfaces, surfaceName)) {
      problems.add(['pages'], 'error', `pages: ${surfaceName} is not a configured surface`, surfaceName)
    }
    const seen = new Set<string>()
    for (const [i, page] of list.entries()) {
      if (page === PAGE_PREVIOUS || page === PAGE_NEXT) {
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

  const bindings: Binding[] = []
  const taken = new Map<string, number>()
  const rawBindings = topResult.success
    ? topResult.data.bindings
    : Array.isArray(rawObject.bindings)
      ? rawObject.bindings
      : []
  for (const [i, value] of rawBindings.entries()) {
    const base: Path = ['bindings', i]
    const parsed = bindingSchema.safeParse(value)
    if (!parsed.success) {
      reportIssues(problems, parsed.error.issues, base, value)
      continue
    }
    const b = parsed.data
    bindings.push(b)
    const at = (...p: Path): Path => [...base, ...p]

    let address: ReturnType<typeof parseControlAddress>
    try {
      address = parseControlAddress(b.on)
    } catch (err) {
      problems.add(at('on'), 'error', `on: ${err instanceof ControlIdError ? err.message : String(err)}`)
      continue
    }
    const surface = surfaces.get(address.surface)
    if (!surface && !Object.hasOwn(rawSurfaces, address.surface)) {
      const names = [...Object.keys(rawSurfaces)]
      problems.add(
        at('on'),
        'error',
        `on: ${address.surface} is not a configured surface${suggest(address.surface, names)}`,
      )
      continue
    }
    // A surface whose own entry has a problem (reported there): its controls are unknown, the rest of
    // the binding is still checked.
    const control = surface?.controls?.get(address.control)
    if (surface?.controls && !control) {
      problems.add(at('on'), 'error', `on: ${address.surface} has no control ${address.control}`)
      continue
    }
    const kind = control?.kind ?? address.parsed.kind
    for (const [field, needs] of Object.entries(NEEDS)) {
      if (b[field as keyof Binding] !== undefined && !controlSends(kind, needs)) {
        problems.add(at(field), 'error', `${field}: ${b.on} is ${KIND_WORDS[kind]}, which sends no ${needs} events`)
      }
    }

    const surfacePages = Object.hasOwn(pages, address.surface) ? pages[address.surface]! : undefined
    if (b.page !== undefined && !surfacePages?.includes(b.page)) {
      const hint = surfacePages
        ? `: one of ${surfacePages.join(', ')}`
        : ` (declare it under pages: ${address.surface})`
      problems.add(at('page'), 'error', `page: ${b.page} is not a page of ${address.surface}${hint}`)
    }
    const key = `${b.on}\u0000${b.page ?? ''}`
    const first = taken.get(key)
    if (first !== undefined) {
      const line = lines.linePos(problemsOffset(doc, ['bindings', first])).line
      problems.add(
        at('on'),
        'error',
        `on: ${b.on}${b.page ? ` on page ${b.page}` : ''} is already bound at line ${line}`,
      )
    } else taken.set(key, i)

    for (const { action, path } of actionsOf(b)) {
      if ('command' in action) checkCommand(problems, at(...path), action.command, action.params)
      else if ('page' in action && action.page !== PAGE_PREVIOUS && action.page !== PAGE_NEXT) {
        if (!surfacePages?.includes(action.page)) {
          problems.add(at(...path, 'page'), 'error', `page: ${action.page} is not a page of ${address.surface}`)
        }
      }
    }
    if (b.value) checkCommand(problems, at('value'), b.value.command, b.value.params, b.value.param)
    if (b.rotate) checkCommand(problems, at('rotate'), b.rotate.command, b.rotate.params)
    if (b.hold && b.confirm_ms !== 0 && pressNeedsConfirm(b)) {
      problems.add(
        at('hold'),
        'error',
        'hold: the press needs a hold to confirm already; set confirm_ms: 0 on this binding to use hold',
      )
    }
    if (b.label !== undefined)
      for (const t of parseTemplate(b.label).problems) problems.add(at('label'), 'error', `label: ${t}`)
    if (b.feedback?.channel !== undefined && b.feedback.input === undefined) {
      problems.add(at('feedback', 'channel'), 'error', 'feedback: channel goes with input')
    }
  }

  const all = problems.finish()
  if (problems.errors > 0 || !topResult.success) return { problems: all }
  const config: Config = {
    ...topResult.data,
    surfaces: Object.fromEntries([...surfaces].map(([n, s]) => [n, s.config])),
    bindings,
  }
  return { config, problems: all }
}

function problemsOffset(doc: Document, path: Path): number {
  const node = doc.getIn(path, true)
  return rangeStart(node) ?? 0
}

/** Whether a binding's press sends a command that needs hold-to-confirm by default. */
export function pressNeedsConfirm(b: Binding): boolean {
  if (b.press === undefined) return false
  const list = Array.isArray(b.press) ? b.press : [b.press]
  return list.some((a) => 'command' in a && CONFIRM_COMMANDS.has(a.command))
}

/** Reads and loads a mapping file; a file that cannot be read is one problem at 1:1. */
export async function loadConfigFile(file: string, options: LoadOptions = {}): Promise<LoadResult> {
  let text: string
  try {
    const bytes = await readFile(file)
    if (bytes.length > MAX_CONFIG_BYTES) {
      return {
        problems: [
          { file, line: 1, col: 1, severity: 'error', message: `the file is larger than ${MAX_CONFIG_BYTES} bytes` },
        ],
      }
    }
    text = bytes.toString('utf8')
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    return { problems: [{ file, line: 1, col: 1, severity: 'error', message: `cannot read the file: ${message}` }] }
  }
  return loadConfigText(text, file, options)
}
