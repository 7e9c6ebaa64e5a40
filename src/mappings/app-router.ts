/**
 * The engine's way to several applications (issue 27): one sender per application, a binding's
 * commands to the application it names (a command's `app`, else the binding's, else the default), and
 * every command to a main also to its mirrors (`mirror.ts`). The engine keeps every binding's own state
 * (a toggle's side, a stepper's step, pages) once: the router is handed a resolved command and sends
 * that same command to each side, so a toggle never flips twice and pages never drift apart.
 *
 * Feedback: a binding shows the state of the application it follows (`feedback.app`, else its `app`,
 * else the default); a main while it is stale gives way to a mirror that is up (the key says `from
 * NAME`), and a key whose pair disagrees shows `diverged`.
 *
 * Polls (the streaming state) go to one application each, never to its mirrors: the engine asks each
 * application a key follows (`followedBy`).
 *
 * With one application (`app:` alone) the router is the map of one (`oneApp`): one sender and state, and
 * every look passes through unchanged.
 */
import type { AppState } from '../api/app-state.js'
import type { Logger } from '../log.js'
import type { Feedback } from '../face/feedback.js'
import { feedbackAppOf, MAIN_APP, mirrorsOf, type AppsPlan, type PlannedApp } from './apps.js'
import { MirrorPair } from './mirror.js'
import type { Binding } from './schema.js'
import { busy, Sender, type CommandPort, type SendObserver, type SendOptions, type SendResult } from './sender.js'

/** One application as the router reaches it: its command client (through the daemon's link) and its state. */
export interface AppPort {
  client: CommandPort
  state: AppState
}

/** The applications as the router routes them: their names, who mirrors whom (an `AppsPlan` is one). */
export interface RoutedApps {
  defaultApp: string
  apps: ReadonlyMap<string, Pick<PlannedApp, 'name' | 'mirrorOf' | 'divergedAfterMs'>>
}

/** The events of an application's state that may change a key's look. */
const STATE_EVENTS = ['title', 'titlesReset', 'link', 'replay', 'streaming', 'tally'] as const
/**
 * Which part of an application's state changed (`EngineApps.watch`). `playhead`: a `replay` change of
 * the playhead's times alone (position, in, out), which a scrubbing jog makes at every reply and only
 * `{{replay.…}}` labels show.
 */
export type AppChange = (typeof STATE_EVENTS)[number] | 'playhead'
const PLAYHEAD_FIELDS: ReadonlySet<string> = new Set(['position', 'inPoint', 'outPoint'])

/** What the engine asks of the applications (`EngineOptions.apps`): all it knows of them. */
export interface EngineApps {
  /** The state a binding's behaviour and feedback read. */
  stateFor(binding: Binding): AppState
  /** Sends a binding's resolved command to its application and that one's mirrors. Never throws. */
  send(
    binding: Binding,
    command: string,
    params: Record<string, unknown>,
    origin: string,
    options: SendOptions,
  ): Promise<SendResult>
  /** Whether a binding's commands also go to a mirror (`SendOptions.mirrorsOnly` can reach one). */
  mirrored?(binding: Binding): boolean
  /** Asks one application (no mirror) the same command again and again (a poll). Never throws. */
  poll(app: string, command: string, origin: string): Promise<SendResult>
  /** The applications whose state a binding's feedback may show: the one it follows, then its mirrors. */
  followedBy(binding: Binding): string[]
  /** Sends the main's play states to the mirror `mirror`: one `schedule` per differing title. */
  resync(mirror: string, origin: string): Promise<SendResult>
  /** The look with what the applications add: `diverged`, the mirror it follows. */
  decorate(binding: Binding, feedback: Feedback): Feedback
  /**
   * Calls `onChange` whenever a key's look may have changed for a reason of the applications': with the
   * part of a state that changed, in the turn the state announces it; with nothing, for any other reason
   * (the applications changed, a mirror began or ended a divergence).
   */
  watch(onChange: (change?: AppChange) => void): () => void
}

export interface AppRouterOptions {
  log: Logger
  /** Every command sent, on any application (the sender's records, `app` set when there are several). */
  observe?: SendObserver
  /** A pair began to diverge (metrics). */
  onDiverged?: (backup: string, reason: 'command' | 'state') => void
}

/** Behaviours whose commands are latest-wins (a newer position makes an older one pointless). */
function isContinuous(b: Binding): boolean {
  return b.jog !== undefined || b.shuttle !== undefined || b.value !== undefined || b.rotate !== undefined
}

const NOT_CONNECTED = 'NOT_CONNECTED'

/** The router of one application, named `main` (`app:` alone; a test's or `replay`'s engine). */
export function oneApp(port: AppPort, o: AppRouterOptions): AppRouter {
  const router = new AppRouter(o)
  const main = { name: MAIN_APP, divergedAfterMs: 0 }
  router.setApps({ defaultApp: MAIN_APP, apps: new Map([[MAIN_APP, main]]) }, new Map([[MAIN_APP, port]]))
  return router
}

export class AppRouter implements EngineApps {
  private plan: RoutedApps | undefined
  private readonly ports = new Map<string, AppPort>()
  private readonly senders = new Map<string, Sender>()
  /** By mirror name. */
  private readonly pairs = new Map<string, MirrorPair>()
  private readonly listeners = new Set<(change?: AppChange) => void>()
  private readonly pairSigns = new WeakMap<MirrorPair, string>()
  private readonly pairPorts = new WeakMap<MirrorPair, string>()
  private readonly ids = new WeakMap<object, number>()
  private lastId = 0
  private detachStates: () => void = () => {}

  constructor(private readonly o: AppRouterOptions) {}

  /** The applications of the config in force, and how to reach each (at start and after every reload). */
  setApps(plan: RoutedApps, ports: ReadonlyMap<string, AppPort>): void {
    const several = plan.apps.size > 1
    for (const [name, port] of ports) {
      const had = this.ports.get(name)
      if (had?.state === port.state && had.client === port.client && this.senders.has(name)) continue
      this.ports.set(name, port)
      // The record names its application only when there are several: one application's records stay as they were.
      this.senders.set(
        name,
        new Sender(port.client, port.state, this.o.log, this.o.observe, several ? name : undefined),
      )
    }
    for (const name of [...this.ports.keys()]) {
      if (ports.has(name)) continue
      this.ports.delete(name)
      this.senders.delete(name)
    }
    this.plan = plan
    this.makePairs(plan)
    this.watchStates()
    this.changed()
  }

  stateFor(binding: Binding): AppState {
    const name = feedbackAppOf(this.defaults(), binding)
    const own = this.ports.get(name)?.state ?? this.defaultState()
    const stand = this.standIn(name, own)
    return stand?.state ?? own
  }

  async send(
    binding: Binding,
    command: string,
    params: Record<string, unknown>,
    origin: string,
    options: SendOptions,
  ): Promise<SendResult> {
    const target = options.app ?? binding.app ?? this.defaults().defaultApp
    const sender = this.senders.get(target)
    if (!sender) return { ok: false, code: NOT_CONNECTED, message: `no application ${target}` }
    if (options.mirrorsOnly === true) return this.sendToMirrors(binding, target, command, params, origin, options)
    const main = sender.send(command, params, origin, options)
    for (const pair of this.pairs.values()) {
      if (pair.main !== target) continue
      const backup = pair.sendToBackup(command, params, origin, options, isContinuous(binding))
      const title = binding.feedback?.title
      void Promise.all([main, backup]).then(([m, b]) => pair.outcome(origin, command, m, b, title))
    }
    return main
  }

  /** Whether a binding's commands go to a mirror too (a press then has a second application to reach). */
  mirrored(binding: Binding): boolean {
    const target = binding.app ?? this.defaults().defaultApp
    for (const pair of this.pairs.values()) if (pair.main === target) return true
    return false
  }

  poll(app: string, command: string, origin: string): Promise<SendResult> {
    const sender = this.senders.get(app)
    if (!sender) return Promise.resolve({ ok: false, code: NOT_CONNECTED, message: `no application ${app}` })
    // A poll is the engine's own command: its failures are not an operator's (issue 43 item 6).
    return sender.send(command, {}, origin, { repeating: true, own: true })
  }

  followedBy(binding: Binding): string[] {
    const plan = this.plan
    const name = feedbackAppOf(this.defaults(), binding)
    const mirrors = plan ? mirrorsOf(plan, name).map((m) => m.name) : []
    return [name, ...mirrors].filter((n) => this.senders.has(n))
  }

  async resync(mirror: string, origin: string): Promise<SendResult> {
    const pair = this.pairs.get(mirror)
    const sender = this.senders.get(mirror)
    if (!pair || !sender) return { ok: false, code: NOT_CONNECTED, message: `${mirror} mirrors nothing` }
    if (!pair.bothUp()) return { ok: false, code: NOT_CONNECTED, message: `${pair.main} or ${mirror} is away` }
    let last: SendResult = { ok: true, reply: {} }
    for (const { name, mainOnAir } of pair.differing()) {
      const r = await sender.send('schedule', { action: mainOnAir ? 'cutin' : 'cutout', title: name }, origin)
      if (!r.ok) last = r
    }
    if (last.ok) pair.resynced()
    return last
  }

  decorate(binding: Binding, feedback: Feedback): Feedback {
    if (this.pairs.size === 0 || binding.feedback === undefined) return this.decorateSends(binding, feedback)
    const name = feedbackAppOf(this.defaults(), binding)
    const own = this.ports.get(name)?.state
    const stand = own ? this.standIn(name, own) : undefined
    let out = feedback
    if (stand && out.detail === undefined) out = { ...out, detail: `from ${stand.name}` }
    return this.divergence(binding, out)
  }

  watch(onChange: (change?: AppChange) => void): () => void {
    this.listeners.add(onChange)
    return () => this.listeners.delete(onChange)
  }

  /** Stops the pairs' timers and listeners. */
  dispose(): void {
    for (const p of this.pairs.values()) p.dispose()
    this.pairs.clear()
    this.detachStates()
    this.listeners.clear()
  }

  // ---- internals -------------------------------------------------------------------------------

  /**
   * A press the main has not answered the binding's previous one for (`SendOptions.mirrorsOnly`): sent to
   * each mirror of `target` that has answered its own, and marked there as reaching the backup only.
   */
  private async sendToMirrors(
    binding: Binding,
    target: string,
    command: string,
    params: Record<string, unknown>,
    origin: string,
    options: SendOptions,
  ): Promise<SendResult> {
    const sends: Promise<SendResult>[] = []
    const mainBusy: SendResult = busy('still waiting for its answer to the previous press')
    const { mirrorsOnly: _, ...own } = options
    for (const pair of this.pairs.values()) {
      if (pair.main !== target || pair.busyWith(origin)) continue
      const backup = pair.sendToBackup(command, params, origin, own, false) as Promise<SendResult>
      const title = binding.feedback?.title
      void backup.then((b) => pair.outcome(origin, command, mainBusy, b, title))
      sends.push(backup)
    }
    if (sends.length === 0) return busy('every application is still answering the previous press')
    const results = await Promise.all(sends)
    return results.find((r) => r.ok) ?? results[0]!
  }

  private defaults(): Pick<AppsPlan, 'defaultApp'> {
    return this.plan ?? { defaultApp: MAIN_APP }
  }

  private defaultState(): AppState {
    return this.ports.get(this.defaults().defaultApp)!.state
  }

  /** A mirror that is up, standing in for `name` while that one is stale. */
  private standIn(name: string, own: AppState): { name: string; state: AppState } | undefined {
    if (own.link.status === 'connected') return undefined
    for (const pair of this.pairs.values()) {
      if (pair.main !== name) continue
      const state = this.ports.get(pair.backup)?.state
      if (state?.link.status === 'connected') return { name: pair.backup, state }
    }
    return undefined
  }

  /** A key that shows no state still shows a command that reached one side only. */
  private decorateSends(binding: Binding, feedback: Feedback): Feedback {
    return this.pairs.size === 0 ? feedback : this.divergence(binding, feedback)
  }

  /** `diverged` over stale and unknown (a failure or a command in flight says more for its moment). */
  private divergence(binding: Binding, feedback: Feedback): Feedback {
    const title = binding.feedback?.title
    for (const pair of this.pairs.values()) {
      const d = pair.divergenceOf(binding.on, title)
      if (!d) continue
      if (feedback.badge === 'failed' || feedback.badge === 'pending') return feedback
      return { ...feedback, badge: 'diverged', detail: d.detail }
    }
    return feedback
  }

  /**
   * One pair per mirror of the plan. A pair whose sides, states, sender and tolerance are unchanged by
   * a reload keeps what it saw (a divergence stays shown); any other is made anew.
   */
  private makePairs(plan: RoutedApps): void {
    const wanted = new Map<string, string>()
    for (const main of plan.apps.values()) {
      for (const m of mirrorsOf(plan, main.name)) wanted.set(m.name, `${main.name}\u0000${m.divergedAfterMs}`)
    }
    for (const [name, pair] of [...this.pairs]) {
      const same = wanted.get(name) === this.pairSigns.get(pair) && this.pairPorts.get(pair) === this.portsOf(pair)
      if (same) continue
      pair.dispose()
      this.pairs.delete(name)
    }
    for (const main of plan.apps.values()) {
      for (const m of mirrorsOf(plan, main.name)) {
        const mainPort = this.ports.get(main.name)
        const backupPort = this.ports.get(m.name)
        const sender = this.senders.get(m.name)
        if (!mainPort || !backupPort || !sender || this.pairs.has(m.name)) continue
        const pair = new MirrorPair({
          main: { name: main.name, state: mainPort.state },
          backup: { name: m.name, state: backupPort.state, sender },
          divergedAfterMs: m.divergedAfterMs,
          log: this.o.log,
          changed: () => this.changed(),
          ...(this.o.onDiverged ? { onDiverged: this.o.onDiverged } : {}),
        })
        this.pairs.set(m.name, pair)
        this.pairSigns.set(pair, wanted.get(m.name)!)
        this.pairPorts.set(pair, this.portsOf(pair))
      }
    }
  }

  /** What a pair was made with: its two states and the backup's sender, as one comparable list. */
  private portsOf(pair: MirrorPair): string {
    const ids = [this.ports.get(pair.main)?.state, this.ports.get(pair.backup)?.state, this.senders.get(pair.backup)]
    return ids.map((x) => (x === undefined ? '-' : String(this.identity(x)))).join(',')
  }

  /** A number per object, for `portsOf`. */
  private identity(x: object): number {
    let id = this.ids.get(x)
    if (id === undefined) this.ids.set(x, (id = ++this.lastId))
    return id
  }

  /** Every application's state changes reach the engine through `watch`, each with what changed. */
  private watchStates(): void {
    this.detachStates()
    const states = [...this.ports.values()].map((p) => p.state)
    const handlers = STATE_EVENTS.map(
      (e) =>
        [e, (what?: unknown): void => this.changed(e === 'replay' && playheadOnly(what) ? 'playhead' : e)] as const,
    )
    for (const s of states) for (const [e, h] of handlers) s.on(e, h)
    this.detachStates = () => {
      for (const s of states) for (const [e, h] of handlers) s.off(e, h)
    }
  }

  private changed(change?: AppChange): void {
    for (const l of [...this.listeners]) l(change)
  }
}

/** A `replay` event's changes touch only the playhead's times. */
function playheadOnly(changes: unknown): boolean {
  if (typeof changes !== 'object' || changes === null) return false
  const keys = Object.keys(changes)
  return keys.length > 0 && keys.every((k) => PLAYHEAD_FIELDS.has(k))
}
