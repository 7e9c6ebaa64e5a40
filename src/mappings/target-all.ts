/**
 * A command that acts on everything when its target is left out (the catalogue's `allWhenEmpty`:
 * `schedule` with neither `id` nor `title` takes every title to air) is refused in a binding unless the
 * binding says so on purpose with `all: true`. The on-purpose form sends no target at all, so `all:
 * true` beside a target is refused too: the engine sends the parameters as written (`all` is not one
 * of them), and what it sends is then exactly what the author meant.
 */
import { getCommandSpec } from '../api/commands.js'
import { pathText, type Path, type Problems } from './problems.js'

/** A target parameter is given when present and not an empty string (the application reads '' as all). */
function given(value: unknown): boolean {
  return value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '')
}

/** The target parameters of `command` that take everything when all are left out; empty for most. */
export function targetParams(command: string): readonly string[] {
  return getCommandSpec(command)?.allWhenEmpty ?? []
}

/**
 * Checks one command of a binding at `path` (the action's node): a command that acts on everything
 * without a target needs `all: true`; `all: true` goes with no target, and only on such a command.
 * A command the catalogue lacks is not checked (nothing is known of its targets).
 */
export function checkTargetAll(
  problems: Problems,
  path: Path,
  command: string,
  params: Readonly<Record<string, unknown>> | undefined,
  all: boolean | undefined,
): void {
  if (getCommandSpec(command) === undefined) return
  const targets = targetParams(command)
  const where = pathText(path)
  if (targets.length === 0) {
    if (all === true)
      problems.add(path, 'error', `${where}: all: ${command} does not act on everything; remove all`, 'all')
    return
  }
  const named = targets.filter((t) => params !== undefined && Object.hasOwn(params, t))
  if (all === true) {
    for (const t of named) {
      problems.add(
        [...path, 'params', t],
        'error',
        `${where}: all: true sends ${command} to everything, without ${t}: remove ${t}, or all to name one`,
      )
    }
    return
  }
  if (named.some((t) => given(params![t]))) return
  const empty = named[0]
  problems.add(
    empty !== undefined ? [...path, 'params', empty] : [...path, 'command'],
    'error',
    `${where}: ${command} without ${targets.join(' or ')} acts on everything: ` +
      `name its ${targets.at(-1)!}, or write all: true to mean everything`,
  )
}
