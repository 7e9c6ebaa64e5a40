/**
 * A binding's command against the catalogue: a command the catalogue lacks is an error when it is one
 * slip from a command it has (with the suggestion; `unlisted: true` sends it as written on purpose),
 * else a warning; missing or ill-typed parameters through the client's own `checkParams`, a misspelt
 * parameter with "did you mean" (and not also reported missing); templates in parameters.
 */
import { checkParams } from '../api/params.js'
import { COMMAND_NAMES, getCommandSpec, type CommandSpec } from '../api/commands.js'
import { nameText, pathText, type Path, type Problems } from './problems.js'
import { nearest } from './suggest.js'
import { parseTemplate, soleTemplate, usesTemplate } from './template.js'

/** A command as a binding writes it: its name, its parameters, and whether it is sent unlisted on purpose. */
export interface CommandUse {
  command: string
  params?: Record<string, unknown> | undefined
  unlisted?: boolean | undefined
}

/**
 * A command the catalogue lacks. One a single slip from a catalogue command is an error with the
 * suggestion (a misspelling would otherwise reach the application only on air); `unlisted: true` sends
 * it as written on purpose. One near no catalogue command is a warning (the application has commands
 * the catalogue does not list) unless it says `unlisted: true`.
 */
function checkUnlisted(problems: Problems, path: Path, use: CommandUse): void {
  if (use.unlisted === true) return
  const near = nearest(use.command, COMMAND_NAMES)
  const name = nameText(use.command)
  if (near !== undefined) {
    problems.add(
      [...path, 'command'],
      'error',
      `${pathText(path)}: ${name} is not in the command catalogue (did you mean ${near}?); ` +
        'add unlisted: true to send it as written',
    )
    return
  }
  problems.add(
    [...path, 'command'],
    'warning',
    `${pathText(path)}: ${name} is not in the command catalogue; sent as written`,
  )
}

/**
 * The names a misspelt parameter stood for: for each unknown parameter (given, or a template's), the
 * catalogue parameter it is nearest. A required one among them is not reported missing as well.
 */
function parameterSuggestions(spec: CommandSpec, unknown: Iterable<string>): Map<string, string> {
  const out = new Map<string, string>()
  for (const k of unknown) {
    const near = nearest(k, Object.keys(spec.params))
    if (near !== undefined) out.set(k, near)
  }
  return out
}

/** Where the catalogue says what each of a parameter's values does (schedule's actions): how to read it. */
function valuesExplained(command: string, spec: CommandSpec, param: string | undefined): string {
  const p = param === undefined ? undefined : spec.params[param]
  return p?.values !== undefined && p.note !== undefined
    ? ` (\`panelbridge commands ${command}\` says what each does)`
    : ''
}

/**
 * Checks a command and its parameters against the catalogue (templates are checked when filled in).
 * `path` is the action's node; `extraParam` the parameter a value binding fills in.
 */
export function checkCommand(problems: Problems, path: Path, use: CommandUse, extraParam?: string): void {
  const { command, params } = use
  const spec = getCommandSpec(command)
  if (spec === undefined) {
    checkUnlisted(problems, path, use)
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
  const found = checkParams(command, given).filter(
    (p) => !((p.kind === 'missing' || p.kind === 'unknown-parameter') && templated.has(p.param!)),
  )
  const unknown = [
    ...found.filter((p) => p.kind === 'unknown-parameter').map((p) => p.param!),
    ...[...templated].filter((k) => !Object.hasOwn(spec.params, k)),
  ]
  const near = parameterSuggestions(spec, unknown)
  const meant = new Set(near.values())
  const hint = (k: string): string => (near.has(k) ? ` (did you mean ${near.get(k)}?)` : '')
  for (const p of found) {
    if (p.kind === 'missing' && meant.has(p.param!)) continue
    const at =
      p.param !== undefined && params && Object.hasOwn(params, p.param)
        ? [...path, 'params', p.param]
        : [...path, 'command']
    // The client's own words, but an unknown parameter's name cut to length (the file may hold anything).
    const message =
      p.kind === 'unknown-parameter'
        ? `unknown parameter ${nameText(p.param!)}${hint(p.param!)}`
        : `${p.message}${p.kind === 'type' ? `, got ${p.given}${valuesExplained(command, spec, p.param)}` : ''}`
    problems.add(at, 'error', `${pathText(path)}: ${command}: ${message}`)
  }
  for (const k of templated) {
    const known = Object.hasOwn(spec.params, k)
    if (k === extraParam) {
      if (!known)
        problems.add(
          [...path, 'param'],
          'error',
          `${pathText(path)}: ${command} has no parameter ${nameText(k)}${hint(k)}`,
        )
      else if (spec.params[k]!.type !== 'number') {
        problems.add([...path, 'param'], 'error', `${pathText(path)}: ${command}: parameter ${k} is not a number`)
      }
    } else if (!known) {
      problems.add(
        [...path, 'params', k],
        'error',
        `${pathText(path)}: ${command}: unknown parameter ${nameText(k)}${hint(k)}`,
      )
    }
  }
  for (const [k, v] of Object.entries(params ?? {})) {
    if (typeof v === 'string')
      for (const t of parseTemplate(v).problems) problems.add([...path, 'params', k], 'error', t)
  }
}
