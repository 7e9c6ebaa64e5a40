/**
 * Titles' thumbnails by application (issues 26.3 and 27): a thumbnail key asks the application its
 * feedback follows (`feedback.app`, else the binding's `app`, else the default; `apps.ts`'s
 * `feedbackAppOf`), and refreshes on that application's title changes. One `Thumbnails` per application
 * followed with a thumbnail, on that application's client and state, so the cache is per application,
 * title and size (two applications' titles of one name and id never share a picture).
 *
 * A mirrored main: its keys' thumbnails are the main's. While the main is stale nothing is asked (its
 * `Thumbnails` waits for its link) and the key keeps the picture it had; the backup is not asked in its
 * place. ASSUMED (issue 27 says feedback follows the backup while the main is stale, not pictures): a
 * title's icon is drawn by its project, the same on both sides of a pair, so the main's last picture is
 * as good as the backup's, and asking the backup would double the calls of every stale period.
 *
 * With one application (no `setApps`, or a plan of one) this is exactly one `Thumbnails` on its client
 * and state.
 */
import { feedbackAppOf, MAIN_APP, type AppsPlan } from './apps.js'
import type { AppPort } from './app-router.js'
import type { Binding } from './schema.js'
import { Thumbnails, type ThumbnailLook, type ThumbnailOptions } from './thumbnails.js'

export type AppThumbnailsOptions = Omit<ThumbnailOptions, 'client' | 'state'> & Partial<AppPort>

interface Followed {
  port: AppPort
  thumbnails: Thumbnails
}

export class AppThumbnails {
  private plan: Pick<AppsPlan, 'defaultApp'> = { defaultApp: MAIN_APP }
  /** The applications, as the router reaches them. */
  private ports: ReadonlyMap<string, AppPort> = new Map()
  private readonly byApp = new Map<string, Followed>()
  private bindings: readonly Binding[] = []
  private stopped = false

  /** `o.client` and `o.state`, when given, are the default application's where `setApps` gives none. */
  constructor(private readonly o: AppThumbnailsOptions) {}

  /** The applications of the config in force (before its mapping is applied; the last mapping is asked again). */
  setApps(plan: Pick<AppsPlan, 'defaultApp'>, ports: ReadonlyMap<string, AppPort>): void {
    this.plan = plan
    this.ports = ports
    this.want(this.bindings)
  }

  /** The bindings of the mapping in force: each application is handed those that follow it. */
  want(bindings: readonly Binding[]): void {
    if (this.stopped) return
    this.bindings = bindings
    const groups = new Map<string, Binding[]>()
    for (const b of bindings) {
      if (b.feedback?.thumbnail !== true || b.feedback.title === undefined) continue
      const app = feedbackAppOf(this.plan, b)
      let group = groups.get(app)
      if (!group) groups.set(app, (group = []))
      group.push(b)
    }
    for (const [app, followed] of [...this.byApp]) {
      const port = this.portOf(app)
      if (groups.has(app) && port && samePort(port, followed.port)) continue
      // No longer followed, gone, or a new link under the same name: its pictures are not the new one's.
      followed.thumbnails.stop()
      this.byApp.delete(app)
    }
    for (const [app, group] of groups) {
      const port = this.portOf(app)
      if (!port) continue // an application not linked (yet): its keys show no picture
      let followed = this.byApp.get(app)
      if (!followed) {
        followed = { port, thumbnails: new Thumbnails({ ...this.o, client: port.client, state: port.state }) }
        this.byApp.set(app, followed)
      }
      followed.thumbnails.want(group)
    }
  }

  /** What a binding's key shows of its title's thumbnail, from the application it follows. */
  lookOf(binding: Binding): ThumbnailLook {
    return this.byApp.get(feedbackAppOf(this.plan, binding))?.thumbnails.lookOf(binding)
  }

  noteInput(): void {
    for (const f of this.byApp.values()) f.thumbnails.noteInput()
  }

  /** Bytes of thumbnails kept, every application's. */
  get cachedBytes(): number {
    let bytes = 0
    for (const f of this.byApp.values()) bytes += f.thumbnails.cachedBytes
    return bytes
  }

  stop(): void {
    this.stopped = true
    for (const f of this.byApp.values()) f.thumbnails.stop()
    this.byApp.clear()
  }

  /** An application's client and state: the router's, else, for the default one, those given at the start. */
  private portOf(app: string): AppPort | undefined {
    const port = this.ports.get(app)
    if (port) return port
    const { client, state } = this.o
    return app === this.plan.defaultApp && client && state ? { client, state } : undefined
  }
}

function samePort(a: AppPort, b: AppPort): boolean {
  return a.client === b.client && a.state === b.state
}
