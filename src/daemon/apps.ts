/**
 * The daemon's applications beside the default one (issue 27, `apps:`): one link each (`app-link.ts`:
 * its simulator when `simulate` asks, its command client, its notification link) and one app state each,
 * kept by name across reloads. The default application keeps the daemon's own link and state (the path
 * of `app:` alone, unchanged); with `app:` alone there is nothing here.
 *
 * A reload prepares the links of added or changed applications beside the running ones (`prepare`), and
 * `commit` stops the changed and removed ones and starts the new; a simulator that cannot start refuses
 * the reload with nothing changed.
 */
import { AppState } from '../api/app-state.js'
import type { Logger } from '../log.js'
import { appsOf, type AppsPlan, type PlannedApp } from '../mappings/apps.js'
import type { AppPort } from '../mappings/app-router.js'
import type { Config } from '../mappings/schema.js'
import type { DaemonMetrics } from './api.js'
import { startAppLink, stopAppLink, type AppLink, type AppLinkDeps } from './app-link.js'
import type { Prepared } from './prepared.js'

/** One application as `GET /api/status` lists it. */
export interface AppStatus {
  name: string
  /** Its HTTP URL (the simulator's when simulated). */
  url: string
  simulated: boolean
  default: boolean
  mirrorOf?: string
  link: { state: 'connected' | 'stale'; since: string; error?: string }
}

interface Extra {
  app: Config['app']
  link: AppLink
}

export interface AppLinksDeps {
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
  private readonly extras = new Map<string, Extra>()
  /** Each application's state, by name, kept across reloads (the engine's keys keep showing it). */
  private readonly states = new Map<string, AppState>()
  private readonly detach = new Map<string, () => void>()
  private readonly clients = new Map<string, AppPort['client']>()
  private plan: AppsPlan | undefined

  constructor(private readonly deps: AppLinksDeps) {}

  /** Starts the links of every application but the default (not their notification links yet). */
  async start(config: Config): Promise<void> {
    const prepared = await this.prepare(config)
    await prepared.commit()
  }

  /** Starts every notification link (after the engine has its mapping: the filter is set first). */
  startLinks(): void {
    for (const e of this.extras.values()) e.link.link.start()
  }

  /**
   * The links `config` needs beside the running ones: made now (a simulator that cannot start throws,
   * the ones made closed again), swapped in by `commit`.
   */
  async prepare(config: Config): Promise<Prepared<void>> {
    const plan = appsOf(config)
    const made = new Map<string, Extra>()
    try {
      for (const a of this.othersOf(plan)) {
        if (sameJson(this.extras.get(a.name)?.app, a.app)) continue
        made.set(a.name, { app: a.app, link: await startAppLink(a.app, this.linkDeps(a.name)) })
      }
    } catch (err) {
      await Promise.allSettled([...made.values()].map((e) => stopAppLink(e.link)))
      throw err
    }
    return {
      commit: async () => {
        const wanted = new Set(this.othersOf(plan).map((a) => a.name))
        for (const [name, e] of [...this.extras]) {
          if (wanted.has(name) && !made.has(name)) continue
          this.extras.delete(name)
          await stopAppLink(e.link)
        }
        for (const [name, e] of made) {
          this.extras.set(name, e)
          if (this.plan !== undefined) e.link.link.start()
        }
        for (const name of [...this.states.keys()]) if (!wanted.has(name)) this.forget(name)
        this.plan = plan
      },
      abort: async () => {
        await Promise.allSettled([...made.values()].map((e) => stopAppLink(e.link)))
      },
    }
  }

  /** How the router reaches each application: the default through the daemon's own link and state. */
  ports(defaultPort: AppPort): Map<string, AppPort> {
    const plan = this.plan!
    const out = new Map<string, AppPort>([[plan.defaultApp, defaultPort]])
    for (const name of this.extras.keys()) {
      out.set(name, { client: this.clientOf(name), state: this.stateOf(name) })
    }
    return out
  }

  /** Every notification link's filter: the titles the bindings follow (one list for all: a superset is harmless). */
  setFilter(titles: string[]): void {
    for (const e of this.extras.values()) e.link.link.setFilter({ titles })
  }

  /** The applications for `/api/status`, the default one first as given. */
  statuses(defaultApp: { url: string; simulated: boolean; state: AppState }): AppStatus[] {
    const plan = this.plan
    if (!plan) return []
    const ordered = [...plan.apps.values()].sort(
      (a, b) => Number(b.name === plan.defaultApp) - Number(a.name === plan.defaultApp),
    )
    return ordered.map((a) => {
      const isDefault = a.name === plan.defaultApp
      const extra = this.extras.get(a.name)
      const url = isDefault ? defaultApp.url : (extra?.link.appUrl ?? a.app.url)
      return {
        name: a.name,
        url,
        simulated: isDefault ? defaultApp.simulated : extra?.link.simulator !== undefined,
        default: isDefault,
        ...(a.mirrorOf !== undefined ? { mirrorOf: a.mirrorOf } : {}),
        link: linkStatus(isDefault ? defaultApp.state : this.stateOf(a.name)),
      }
    })
  }

  /** The link of a running application beside the default (tests: its simulator, its URL). */
  linkOf(name: string): AppLink | undefined {
    return this.extras.get(name)?.link
  }

  /** Stops every link; the states are disposed. */
  async stop(): Promise<void> {
    const all = [...this.extras.values()]
    this.extras.clear()
    await Promise.allSettled(all.map((e) => stopAppLink(e.link)))
    for (const name of [...this.states.keys()]) this.forget(name)
  }

  // ---- internals -------------------------------------------------------------------------------

  private othersOf(plan: AppsPlan): PlannedApp[] {
    return [...plan.apps.values()].filter((a) => a.name !== plan.defaultApp)
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
          const e = this.extras.get(name)
          if (!e) return Promise.reject(new Error(`the application ${name} is gone`))
          return e.link.client.callByName(command, params, options)
        },
      }
      this.clients.set(name, client)
    }
    return client
  }

  private stateOf(name: string): AppState {
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
    this.clients.delete(name)
  }

  private linkDeps(name: string): AppLinkDeps {
    const section = `apps.${name}`
    return { state: this.stateOf(name), metrics: this.deps.metrics, log: this.deps.log.child(name), section }
  }
}
