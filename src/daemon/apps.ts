/**
 * The daemon's applications (issue 27; `app:` alone is one, named `main`): one link each (`app-link.ts`:
 * its simulator when `simulate` asks, its command client, its notification link) and one app state each,
 * kept by name across reloads; the default application's state is the daemon's own. The router reaches
 * every one the same way (`ports`), the default being only a name.
 *
 * A reload prepares the links of added or changed applications beside the running ones (`prepare`); a
 * simulator that cannot start refuses the reload with nothing changed. The one link that can still fail
 * at the swap (a simulator on its old one's port) is swapped first (`swap`), then `commit` stops the
 * changed and removed ones and starts the new.
 */
import { AppState } from '../api/app-state.js'
import type { Logger } from '../log.js'
import { appsOf, MAIN_APP, type AppsPlan } from '../mappings/apps.js'
import type { AppPort } from '../mappings/app-router.js'
import type { Config } from '../mappings/schema.js'
import type { AppStatus, DaemonMetrics } from './api.js'
import {
  AppLinkSwapError,
  prepareAppLink,
  startAppLink,
  stopAppLink,
  type AppLink,
  type AppLinkDeps,
  type PreparedLink,
} from './app-link.js'

interface Linked {
  app: Config['app']
  link: AppLink
  /** Where its section is in the file (`app`, `apps.graphics2`), for messages that name a setting. */
  section: string
  /** The default application's link keeps the daemon's own state; every other one a state of its own. */
  isDefault: boolean
}

/** One application's link in a reload: kept under a new name, made anew beside the running one, or new. */
interface Change {
  name: string
  app: Config['app']
  isDefault: boolean
  section: string
  /** The running link it replaces (its own name's, or the old default's under a new name). */
  from?: string
  /** The new link, made now; absent when the running one is only renamed (same section). */
  made?: { prepared: PreparedLink } | { link: AppLink }
}

/** A reload's links, made beside the running ones (`AppLinks.prepare`). */
export interface PreparedLinks {
  /**
   * Swaps in the one link that can still fail (a simulator on its old one's own port), if there is one.
   * A failure throws, the old link started again where it could be; nothing else changed.
   */
  swap(): Promise<void>
  /** Puts back what `swap` replaced (what came after it, the listener, could not be swapped). */
  undoSwap(): Promise<void>
  /** Every other change: the new links in, the changed and removed ones stopped. Cannot fail. */
  commit(): Promise<void>
  /** Closes the links made and not swapped in. */
  abort(): Promise<void>
}

export interface AppLinksDeps {
  /**
   * The default application's state: the daemon's own, kept across a change of application (the status,
   * systemd's line and the missing titles' watch read it).
   */
  state: AppState
  metrics: DaemonMetrics
  log: Logger
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** A link's state as the status lists it. */
export function linkStatus(state: AppState): AppStatus['link'] {
  const link = state.link
  return {
    state: link.status === 'connected' ? 'connected' : 'stale',
    since: new Date(link.since).toISOString(),
    ...(link.status === 'stale' && link.error !== undefined ? { error: link.error } : {}),
  }
}

export class AppLinks {
  private readonly links = new Map<string, Linked>()
  /** Every application's state but the default's, by name, kept across reloads (the engine's keys keep showing it). */
  private readonly states = new Map<string, AppState>()
  private readonly detach = new Map<string, () => void>()
  private readonly clients = new Map<string, AppPort['client']>()
  /** The titles each link's filter was last set to (`setFilter`). */
  private readonly filters = new WeakMap<AppLink, string>()
  private plan: AppsPlan | undefined
  /** The notification links run (`startLinks`): a link made later starts at once. */
  private started = false

  constructor(private readonly deps: AppLinksDeps) {}

  /** Makes every application's link (not their notification links yet). */
  async start(config: Config): Promise<void> {
    const prepared = await this.prepare(config)
    await prepared.swap()
    await prepared.commit()
  }

  /** Starts every notification link (after the engine has its mapping: the filter is set first). */
  startLinks(): void {
    this.started = true
    for (const e of this.links.values()) e.link.link.start()
  }

  /**
   * The links `config` needs beside the running ones: made now (a simulator that cannot start throws,
   * the ones made closed again), swapped in by `swap` and `commit`. The default application's first: it
   * alone may be started on its old simulator's port at `swap` (a reload can put one link back whole).
   */
  async prepare(config: Config): Promise<PreparedLinks> {
    const plan = appsOf(config)
    const oldDefault = this.plan?.defaultApp
    const changes: Change[] = []
    let inPlace: Change | undefined
    try {
      const ordered = [...plan.apps.values()].sort(
        (a, b) => Number(b.name === plan.defaultApp) - Number(a.name === plan.defaultApp),
      )
      for (const a of ordered) {
        const isDefault = a.name === plan.defaultApp
        const own = this.links.get(a.name)
        // The default renamed: its running link is the one it replaces.
        const from =
          own !== undefined
            ? a.name
            : isDefault && oldDefault !== undefined && !plan.apps.has(oldDefault)
              ? oldDefault
              : undefined
        const running = from !== undefined ? this.links.get(from) : undefined
        // `app` when the file has `app:` alone.
        const section = config.apps === undefined ? 'app' : `apps.${a.name}`
        const change: Change = { name: a.name, app: a.app, isDefault, section, ...(from !== undefined ? { from } : {}) }
        if (running && running.isDefault === isDefault && sameJson(running.app, a.app)) {
          if (from !== a.name) changes.push(change)
          continue
        }
        changes.push(change)
        const deps = this.linkDeps(a.name, isDefault, section)
        if (!running) {
          change.made = { link: await startAppLink(a.app, deps) }
          continue
        }
        const prepared = await prepareAppLink(a.app, running, deps, inPlace === undefined)
        change.made = { prepared }
        if (prepared.inPlace) inPlace = change
      }
    } catch (err) {
      await Promise.allSettled(changes.map((c) => this.abortChange(c)))
      throw err
    }
    return this.preparedLinks(plan, changes, inPlace)
  }

  /** How the router reaches each application, the default through the daemon's own state. */
  ports(): Map<string, AppPort> {
    const plan = this.plan!
    const out = new Map<string, AppPort>()
    for (const name of plan.apps.keys()) out.set(name, { client: this.clientOf(name), state: this.stateOf(name) })
    return out
  }

  /**
   * Every notification link's filter: the titles the bindings follow (one list for all: a superset is
   * harmless). Set only where they changed or the link is new: a new filter re-reads every title, and the
   * engine redraws every key that follows one.
   */
  setFilter(titles: string[]): void {
    const key = JSON.stringify([...titles].sort())
    for (const e of this.links.values()) {
      if (this.filters.get(e.link) === key) continue
      this.filters.set(e.link, key)
      e.link.link.setFilter({ titles })
    }
  }

  /** The applications for `/api/status`, the default one first. */
  statuses(): AppStatus[] {
    const plan = this.plan
    if (!plan) return []
    const ordered = [...plan.apps.values()].sort(
      (a, b) => Number(b.name === plan.defaultApp) - Number(a.name === plan.defaultApp),
    )
    return ordered.map((a) => {
      const linked = this.links.get(a.name)
      return {
        name: a.name,
        url: linked?.link.appUrl ?? a.app.url,
        simulated: linked?.link.simulator !== undefined,
        default: a.name === plan.defaultApp,
        ...(a.mirrorOf !== undefined ? { mirrorOf: a.mirrorOf } : {}),
        link: linkStatus(this.stateOf(a.name)),
      }
    })
  }

  /** The default application's link (none before the first start). */
  get defaultLink(): AppLink | undefined {
    return this.plan ? this.links.get(this.plan.defaultApp)?.link : undefined
  }

  /** The applications in force (after the first start). */
  get current(): AppsPlan {
    return this.plan!
  }

  /** The default application's name (`main` before the first start). */
  get defaultApp(): string {
    return this.plan?.defaultApp ?? MAIN_APP
  }

  /** Stops every link; the states but the daemon's are disposed. */
  async stop(): Promise<void> {
    const all = [...this.links.values()]
    this.links.clear()
    await Promise.allSettled(all.map((e) => stopAppLink(e.link)))
    for (const name of [...this.states.keys()]) this.forget(name)
  }

  // ---- internals -------------------------------------------------------------------------------

  private preparedLinks(plan: AppsPlan, changes: Change[], inPlace: Change | undefined): PreparedLinks {
    let swapped: { link: AppLink; old: Linked | undefined } | undefined
    const rest = changes.filter((c) => c !== inPlace)
    return {
      swap: async () => {
        if (!inPlace?.made || !('prepared' in inPlace.made)) return
        const from = inPlace.from!
        const old = this.links.get(from)
        let link: AppLink
        try {
          link = await inPlace.made.prepared.commit()
        } catch (err) {
          if (old && err instanceof AppLinkSwapError && err.restored)
            this.links.set(from, { ...old, link: err.restored })
          throw err
        }
        swapped = { link, old }
        this.links.delete(from)
        this.links.set(inPlace.name, { app: inPlace.app, link, isDefault: inPlace.isDefault, section: inPlace.section })
      },
      undoSwap: async () => {
        if (!inPlace || !swapped) return
        const { link, old } = swapped
        swapped = undefined
        this.links.delete(inPlace.name)
        await stopAppLink(link)
        if (!old) return
        const again = await startAppLink(old.app, this.linkDeps(inPlace.from!, old.isDefault, old.section))
        this.links.set(inPlace.from!, { ...old, link: again })
        again.link.start()
      },
      commit: async () => {
        const replaced = new Set(changes.flatMap((c) => (c.from !== undefined ? [c.from] : [])))
        for (const [name, e] of [...this.links]) {
          if (plan.apps.has(name) || replaced.has(name)) continue
          this.links.delete(name)
          await stopAppLink(e.link)
        }
        for (const c of rest) {
          const running = c.from !== undefined ? this.links.get(c.from) : undefined
          if (c.from !== undefined) this.links.delete(c.from)
          if (c.made === undefined) {
            // The default application renamed, its section unchanged: the same link under its new name.
            if (running) this.links.set(c.name, running)
            continue
          }
          // A replaced link's commit stops the old one and starts the new; a new one starts with the others.
          const link = 'prepared' in c.made ? await c.made.prepared.commit() : c.made.link
          if ('link' in c.made && this.started) link.link.start()
          this.links.set(c.name, { app: c.app, link, isDefault: c.isDefault, section: c.section })
        }
        for (const name of [...this.states.keys()]) {
          if (!plan.apps.has(name) || name === plan.defaultApp) this.forget(name)
        }
        for (const name of [...this.clients.keys()]) if (!plan.apps.has(name)) this.clients.delete(name)
        this.plan = plan
      },
      abort: async () => {
        await Promise.allSettled(rest.map((c) => this.abortChange(c)))
      },
    }
  }

  private async abortChange(c: Change): Promise<void> {
    if (c.made === undefined) return
    if ('prepared' in c.made) await c.made.prepared.abort()
    else await stopAppLink(c.made.link)
  }

  /**
   * The client of an application, through the map on every call (a reload that replaces the link is
   * followed at once); one object per name, so the router keeps its sender across reloads.
   */
  private clientOf(name: string): AppPort['client'] {
    let client = this.clients.get(name)
    if (!client) {
      client = {
        callByName: (command, params, options) => {
          const e = this.links.get(name)
          if (!e) return Promise.reject(new Error(`the application ${name} is gone`))
          return e.link.client.callByName(command, params, options)
        },
      }
      this.clients.set(name, client)
    }
    return client
  }

  /** The state of an application: the daemon's own for the default one. */
  private stateOf(name: string, isDefault = name === this.plan?.defaultApp): AppState {
    if (isDefault) return this.deps.state
    let state = this.states.get(name)
    if (!state) {
      state = new AppState()
      this.states.set(name, state)
      const metrics = this.deps.metrics
      const onLink = (): void => metrics.setAppLinkUp?.(name, state!.link.status === 'connected')
      state.on('link', onLink)
      this.detach.set(name, () => state!.off('link', onLink))
    }
    return state
  }

  private forget(name: string): void {
    this.detach.get(name)?.()
    this.detach.delete(name)
    this.states.get(name)?.dispose()
    this.states.delete(name)
  }

  private linkDeps(name: string, isDefault: boolean, section: string): AppLinkDeps {
    const log = isDefault ? this.deps.log : this.deps.log.child(name)
    return { state: this.stateOf(name, isDefault), metrics: this.deps.metrics, log, section }
  }
}
