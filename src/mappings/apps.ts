/**
 * The applications of a mapping file (issue 27): `app:` alone is one application named `main`; `apps:`
 * names several, each an `app:` section with, for a backup, `mirror_of`. This file turns either form
 * into one plan, and says which application a binding's commands go to and whose state its feedback
 * shows. The daemon makes one link per application from the plan; the engine's router sends by it.
 */
import type { AppEntry, Binding, Config } from './schema.js'

/** The name `app:` alone stands for. */
export const MAIN_APP = 'main'

/**
 * ASSUMED (issue 27): how long a title may be on air on one of a main/backup pair and not the other
 * before its keys show `diverged`, ms, when `diverged_after_ms` is not given.
 */
const DEFAULT_DIVERGED_AFTER_MS = 1000

export interface PlannedApp {
  name: string
  /** The application's section (`app:`, or its `apps:` entry without the mirror's keys). */
  app: Config['app']
  /** The application this one mirrors (it receives every command sent there). */
  mirrorOf?: string
  divergedAfterMs: number
}

export interface AppsPlan {
  /** Where a binding that names no application sends, and whose state it shows. */
  defaultApp: string
  /** In the file's order. */
  apps: ReadonlyMap<string, PlannedApp>
}

function planned(name: string, entry: AppEntry): PlannedApp {
  const { mirror_of, diverged_after_ms, ...app } = entry
  return {
    name,
    app,
    ...(mirror_of !== undefined ? { mirrorOf: mirror_of } : {}),
    divergedAfterMs: diverged_after_ms ?? DEFAULT_DIVERGED_AFTER_MS,
  }
}

/** The applications of a config: `apps:`, else `app:` as the one named `main`. */
export function appsOf(config: Pick<Config, 'app' | 'apps'>): AppsPlan {
  const apps = new Map<string, PlannedApp>()
  if (config.apps === undefined) {
    apps.set(MAIN_APP, { name: MAIN_APP, app: config.app, divergedAfterMs: DEFAULT_DIVERGED_AFTER_MS })
    return { defaultApp: MAIN_APP, apps }
  }
  for (const [name, entry] of Object.entries(config.apps)) apps.set(name, planned(name, entry))
  return { defaultApp: defaultAppName(apps), apps }
}

/** `main` when there is one, else the first listed that mirrors none, else the first. */
function defaultAppName(apps: ReadonlyMap<string, PlannedApp>): string {
  if (apps.has(MAIN_APP)) return MAIN_APP
  for (const a of apps.values()) if (a.mirrorOf === undefined) return a.name
  return apps.keys().next().value ?? MAIN_APP
}

/** The default application's section: what the single-application daemon ran (`config.app` without `apps:`). */
export function defaultAppSection(config: Pick<Config, 'app' | 'apps'>): Config['app'] {
  const plan = appsOf(config)
  return plan.apps.get(plan.defaultApp)!.app
}

/** Whose state a binding's feedback shows: `feedback.app`, else the binding's `app`, else the default. */
export function feedbackAppOf(plan: Pick<AppsPlan, 'defaultApp'>, binding: Binding): string {
  return binding.feedback?.app ?? binding.app ?? plan.defaultApp
}

/** The mirrors of an application (those naming it in `mirror_of`). */
export function mirrorsOf<A extends Pick<PlannedApp, 'mirrorOf'>>(
  plan: { apps: ReadonlyMap<string, A> },
  name: string,
): A[] {
  return [...plan.apps.values()].filter((a) => a.mirrorOf === name)
}
