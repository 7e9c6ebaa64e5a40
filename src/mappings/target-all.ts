/**
 * A command that acts on everything when its target is left out (the catalogue's `allWhenEmpty`:
 * `schedule` with neither `id` nor `title` takes every title to air) is refused in a binding unless the
 * binding says so on purpose with `all: true`. The on-purpose form sends no target at all, so `all:
 * true` beside a target is refused too: the engine sends the parameters as written (`all` is not one
 * of them), and what it sends is then exactly what the author meant.
 *
 * The rule itself is `targetAllFinding`; the mapping file's check words it here (`checkTargetAll`), and
 * `panelbridge send` words the same finding for its `--all` (src/commands/send.ts).
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
 * What the rule finds in one command, its parameters and its `all`: nothing wrong (`ok`), `all` on a
 * command that does not act on everything, `all` beside the targets it `named`, or a command that acts
 * on everything without `all` (`targets` it takes; `empty`, the first one written empty). A command the
 * catalogue lacks is `ok` (nothing is known of its targets).
 */
export type TargetAllFinding =
  | { kind: 'ok' }
  | { kind: 'all-not-everything' }
  | { kind: 'all-with-target'; named: readonly string[] }
  | { kind: 'needs-all'; targets: readonly string[]; empty: string | undefined }

export function targetAllFinding(
  command: string,
  params: Readonly<Record<string, unknown>> | undefined,
  all: boolean | undefined,
): TargetAllFinding {
  if (getCommandSpec(command) === undefined) return { kind: 'ok' }
  const targets = targetParams(command)
  if (targets.length === 0) return all === true ? { kind: 'all-not-everything' } : { kind: 'ok' }
  const named = targets.filter((t) => params !== undefined && Object.hasOwn(params, t))
  if (all === true) return named.length > 0 ? { kind: 'all-with-target', named } : { kind: 'ok' }
  if (named.some((t) => given(params![t]))) return { kind: 'ok' }
  return { kind: 'needs-all', targets, empty: named[0] }
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
  const finding = targetAllFinding(command, params, all)
  const where = pathText(path)
  switch (finding.kind) {
    case 'ok':
      return
    case 'all-not-everything':
      problems.add(path, 'error', `${where}: all: ${command} does not act on everything; remove all`, 'all')
      return
    case 'all-with-target':
      for (const t of finding.named) {
        problems.add(
          [...path, 'params', t],
          'error',
          `${where}: all: true sends ${command} to everything, without ${t}: remove ${t}, or all to name one`,
        )
      }
      return
    case 'needs-all':
      problems.add(
        finding.empty !== undefined ? [...path, 'params', finding.empty] : [...path, 'command'],
        'error',
        `${where}: ${command} without ${finding.targets.join(' or ')} acts on everything: ` +
          `name its ${finding.targets.at(-1)!}, or write all: true to mean everything`,
      )
  }
}
