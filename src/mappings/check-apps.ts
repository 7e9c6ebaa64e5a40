/**
 * The checks of `apps:` the schema cannot state (issue 27): `app:` or `apps:`, not both; a `mirror_of`
 * that names another application which mirrors none; and every application a binding names (its
 * `app`, its feedback's, a command's, a `resync`'s) is one the file has, each at its own line.
 */
import { actionsOf } from './check-binding.js'
import { appsOf, MAIN_APP, type AppsPlan } from './apps.js'
import { nameText, type Problems } from './problems.js'
import type { Binding, Config } from './schema.js'

/** The names, for a message: `main, graphics2`. */
function known(plan: AppsPlan): string {
  return [...plan.apps.keys()].map(nameText).join(', ')
}

/** `apps:` against `app:` and itself. */
function checkSection(problems: Problems, raw: Record<string, unknown>, plan: AppsPlan): void {
  if (Object.hasOwn(raw, 'app')) {
    problems.add([], 'error', `apps: give app: (one application, named ${MAIN_APP}) or apps:, not both`, 'apps')
  }
  for (const a of plan.apps.values()) {
    if (a.mirrorOf === undefined) continue
    const at = ['apps', a.name, 'mirror_of']
    const target = plan.apps.get(a.mirrorOf)
    if (a.mirrorOf === a.name) problems.add(at, 'error', `apps.${nameText(a.name)}: mirror_of names itself`)
    else if (!target)
      problems.add(
        at,
        'error',
        `apps.${nameText(a.name)}: mirror_of: no application named ${nameText(a.mirrorOf)} (known: ${known(plan)})`,
      )
    else if (target.mirrorOf !== undefined)
      problems.add(
        at,
        'error',
        `apps.${nameText(a.name)}: mirror_of: ${nameText(a.mirrorOf)} is itself a mirror; mirror its main`,
      )
  }
}

/** Every application one binding names. */
function checkBindingApps(problems: Problems, plan: AppsPlan, b: Binding, index: number): void {
  const unknown = (name: string, path: (string | number)[], field: string): void => {
    if (plan.apps.has(name)) return
    problems.add(
      ['bindings', index, ...path],
      'error',
      `${field}: no application named ${nameText(name)} (known: ${known(plan)})`,
    )
  }
  if (b.app !== undefined) unknown(b.app, ['app'], 'app')
  if (b.feedback?.app !== undefined) unknown(b.feedback.app, ['feedback', 'app'], 'feedback.app')
  for (const { action, path } of actionsOf(b)) {
    if ('command' in action && action.app !== undefined) unknown(action.app, [...path, 'app'], 'app')
    if (!('resync' in action)) continue
    const mirror = plan.apps.get(action.resync)
    if (!mirror) unknown(action.resync, [...path, 'resync'], 'resync')
    else if (mirror.mirrorOf === undefined) {
      problems.add(
        ['bindings', index, ...path, 'resync'],
        'error',
        `resync: ${nameText(action.resync)} mirrors no application (give mirror_of in apps:)`,
      )
    }
  }
}

/** The checks, when the top level parsed (`config` has `app` and `apps`). */
export function checkApps(
  problems: Problems,
  raw: Record<string, unknown>,
  config: Pick<Config, 'app' | 'apps'> | undefined,
  bindings: readonly Binding[],
): void {
  if (!config) return
  const plan = appsOf(config)
  if (config.apps !== undefined) checkSection(problems, raw, plan)
  for (const [i, b] of bindings.entries()) checkBindingApps(problems, plan, b, i)
}
