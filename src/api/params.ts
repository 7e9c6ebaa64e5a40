/**
 * The catalogue's parameter rules, usable without sending: `checkParams` lists every problem of a
 * command's parameters (the YAML loader reports them all at once, with positions); the client's
 * `encodeParams` (`codec.ts`) checks with the same rules before it encodes. A module of its own so the
 * config loader needs the catalogue and these rules, not the client's reply reading and errors.
 */
import { getCommandSpec, type CommandSpec, type ParamSpec } from './commands.js'
import { isRecord, numberOf } from '../wire.js'

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
      const n = numberOf(value)
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

/** Checked parameters in the order given, or every problem found (the client's `encodeParams` sends them). */
export function checkParamEntries(
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
  return checkParamEntries(spec, params).problems
}
