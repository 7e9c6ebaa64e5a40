/**
 * The catalogue's parameter rules, usable without sending: `checkParams` lists every problem of a
 * command's parameters (the YAML loader reports them all at once, with positions), and
 * `encodeParams` (the client's) turns checked parameters into a GET query or a POST body. One set of
 * rules for both, so a file that passes `panelbridge check` never meets a `BAD_PARAMS` at run time.
 */
import { getCommandSpec, type CommandSpec, type ParamSpec } from './commands.js'
import { isRecord } from '../wire.js'

export type Transport = 'get' | 'post'

export type ParamProblemKind = 'unknown-command' | 'unknown-parameter' | 'missing' | 'type'

/** One problem with a command's parameters. */
export interface ParamProblem {
  kind: ParamProblemKind
  /** The parameter concerned; absent for `unknown-command`. */
  param?: string
  /** What the catalogue expects: `a string`, `one of in, out`, `a finite number`, ... */
  expected: string
  /** What was given, shortened for a message (`nothing` when missing). */
  given: string
  /** The sentence the client's `BAD_PARAMS` error carries, e.g. `parameter title must be a string`. */
  message: string
}

/** How much of a given value a problem quotes. */
const GIVEN_CHARS = 40

function describe(value: unknown): string {
  if (value === undefined) return 'nothing'
  let text: string
  if (typeof value === 'string') text = JSON.stringify(value)
  else if (Array.isArray(value)) text = `an array of ${value.length}`
  else if (isRecord(value)) text = 'an object'
  else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') text = String(value)
  else text = value === null ? 'null' : `a ${typeof value}`
  return text.length > GIVEN_CHARS ? `${text.slice(0, GIVEN_CHARS - 1)}…` : text
}

function expectedOf(p: ParamSpec): string {
  switch (p.type) {
    case 'string':
      return p.values !== undefined ? `one of ${p.values.join(', ')}` : 'a string'
    case 'number':
      return 'a finite number'
    case 'boolean':
      return 'a boolean'
    case 'string[]':
      return 'an array of strings'
    case 'object':
      return 'an object'
  }
}

/** Numbers and numeric text (a YAML template may hand over `"2"`); anything else is NaN. */
function toNumber(value: unknown): number {
  if (typeof value === 'number') return value
  if (typeof value === 'string' && value.trim() !== '') return Number(value)
  return Number.NaN
}

/** Checks one value; returns the value to send (numeric text becomes a number) or a problem. */
function checkParam(key: string, p: ParamSpec, value: unknown): { value: unknown } | ParamProblem {
  const bad = (why: string): ParamProblem => ({
    kind: 'type',
    param: key,
    expected: expectedOf(p),
    given: describe(value),
    message: `parameter ${key} ${why}`,
  })
  switch (p.type) {
    case 'string':
      if (typeof value !== 'string') return bad('must be a string')
      if (p.values !== undefined && !p.values.includes(value)) return bad(`must be one of ${p.values.join(', ')}`)
      return { value }
    case 'number': {
      const n = toNumber(value)
      return Number.isFinite(n) ? { value: n } : bad('must be a finite number')
    }
    case 'boolean':
      return typeof value === 'boolean' ? { value } : bad('must be a boolean')
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string')
        ? { value }
        : bad('must be an array of strings')
    case 'object':
      return isRecord(value) ? { value } : bad('must be an object')
  }
}

/** Required parameter names per spec, derived once from the catalogue. */
const REQUIRED = new WeakMap<CommandSpec, string[]>()
function requiredOf(spec: CommandSpec): string[] {
  let r = REQUIRED.get(spec)
  if (r === undefined) {
    r = Object.entries(spec.params)
      .filter(([, p]) => p.required)
      .map(([key]) => key)
    REQUIRED.set(spec, r)
  }
  return r
}

/** Checked parameters in the order given, or every problem found. */
function check(
  spec: CommandSpec,
  params: Record<string, unknown>,
): { entries: [string, unknown][]; problems: ParamProblem[] } {
  const entries: [string, unknown][] = []
  const problems: ParamProblem[] = []
  for (const key of Object.keys(params)) {
    const value = params[key]
    if (value === undefined) continue
    // An own-property lookup: a parameter named `constructor` or `__proto__` is unknown, not inherited.
    const p = Object.hasOwn(spec.params, key) ? spec.params[key] : undefined
    if (p === undefined) {
      problems.push({
        kind: 'unknown-parameter',
        param: key,
        expected: 'no such parameter',
        given: describe(value),
        message: `unknown parameter ${key}`,
      })
      continue
    }
    const checked = checkParam(key, p, value)
    if ('message' in checked) problems.push(checked)
    else entries.push([key, checked.value])
  }
  for (const key of requiredOf(spec)) {
    if (params[key] === undefined) {
      problems.push({
        kind: 'missing',
        param: key,
        expected: expectedOf(spec.params[key]!),
        given: 'nothing',
        message: `missing required parameter ${key}`,
      })
    }
  }
  return { entries, problems }
}

/**
 * Every problem of `params` for `command`, in the order the client meets them (given parameters
 * first, then missing ones). Empty when the client would send the command. An unknown command gives
 * one `unknown-command` problem (the YAML loader makes that a warning: the application has commands
 * the catalogue lacks).
 */
export function checkParams(command: string, params: Record<string, unknown> = {}): ParamProblem[] {
  const spec = getCommandSpec(command)
  if (spec === undefined) {
    return [
      {
        kind: 'unknown-command',
        expected: 'a command of the catalogue',
        given: describe(command),
        message: 'unknown command',
      },
    ]
  }
  return check(spec, params).problems
}

export interface Encoded {
  /** `?a=1&b=2` (GET), or '' */
  query: string
  /** JSON text (POST) */
  body: string
}

/**
 * Checks parameters against the catalogue and encodes them, or returns the first problem. GET values
 * are query text: spaces as `%20` (never `+`: the application does not form-decode, see protocol notes
 * 5.2), commas kept literal so comma-separated lists stay readable, objects as JSON text. POST keeps
 * arrays, objects, numbers and `word` booleans native; flags stay the application's `'1'`/`'0'` strings.
 */
export function encodeParams(
  name: string,
  spec: CommandSpec,
  params: Record<string, unknown>,
  transport: Transport,
  requestId: string,
): Encoded | ParamProblem {
  const { entries, problems } = check(spec, params)
  if (problems.length > 0) return problems[0]!
  if (transport === 'get') {
    let query = ''
    for (const [key, value] of entries) {
      query += `${query ? '&' : '?'}${encodeURIComponent(key)}=${queryText(getText(spec.params[key]!, value))}`
    }
    query += `${query ? '&' : '?'}requestId=${queryText(requestId)}`
    return { query, body: '' }
  }
  const parameters: Record<string, unknown> = {}
  let variables: unknown
  for (const [key, value] of entries) {
    const p = spec.params[key]!
    if (p.body === 'variables') variables = value
    else parameters[key] = postValue(p, value)
  }
  parameters.requestId = requestId
  const body: Record<string, unknown> = { command: name, parameters }
  if (variables !== undefined) body.variables = variables
  return { query: '', body: JSON.stringify(body) }
}

function queryText(text: string): string {
  return encodeURIComponent(text).replace(/%2C/g, ',')
}

function getText(p: ParamSpec, value: unknown): string {
  switch (p.encoding) {
    case 'flag':
      return value ? '1' : '0'
    case 'word':
      return value ? 'true' : 'false'
    case 'csv':
      return (value as string[]).join(',')
    case 'json':
      return JSON.stringify(value)
    case 'text':
      return String(value)
  }
}

function postValue(p: ParamSpec, value: unknown): unknown {
  return p.encoding === 'flag' ? (value ? '1' : '0') : value
}

/** What a command the catalogue lacks may be called: letters, digits, `_`, `.` and `-`. */
const UNLISTED_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/

/**
 * A spec for a command the catalogue lacks (the application has more commands than we know), built
 * from the values given: strings as text, numbers as numbers, booleans as `true`/`false`, string
 * lists comma-joined, objects as JSON. Its reply is taken as it comes, unconverted. Undefined for a
 * name that cannot be a command.
 */
export function unlistedSpec(name: string, params: Record<string, unknown>): CommandSpec | undefined {
  if (!UNLISTED_NAME.test(name)) return undefined
  const specs: Record<string, ParamSpec> = {}
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue
    const type: ParamSpec['type'] =
      typeof value === 'number'
        ? 'number'
        : typeof value === 'boolean'
          ? 'boolean'
          : Array.isArray(value)
            ? 'string[]'
            : isRecord(value)
              ? 'object'
              : 'string'
    const encoding = type === 'boolean' ? 'word' : type === 'string[]' ? 'csv' : type === 'object' ? 'json' : 'text'
    specs[key] = { type, required: false, encoding }
  }
  return { group: 'unlisted', source: 'unlisted', summary: 'A command the catalogue lacks.', params: specs, reply: {} }
}
