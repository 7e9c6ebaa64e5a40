/**
 * The binding engine: surface events in, command requests out (through the command client), and the
 * application's state out again as feedback on every bound control.
 *
 * - Routing: each control resolves to the binding of its surface's current page, else its page-less
 *   binding. A down and its up always go to the binding that took the down, even if the page or the
 *   mapping changed in between; a jog burst finishes on the binding it started on.
 * - Presses: each source (a browser, the remote API, the device: `SurfaceEvent.source`) holds its own
 *   press of a control, and its up ends that press only; an up marked `cancel` (a browser gone, a lease
 *   ended) or `cancelPresses` (a surface gone) ends a press with nothing fired.
 * - Pages: the first page is the start page; the current page of each surface survives reloads and
 *   unplugging (the engine keeps it by surface name, not by device). A view that keeps a page of its
 *   own (a browser, with `listen.pages: per-browser`; `./page-views.ts`) is routed and drawn by its page.
 * - `apply(config)` is a diff: unchanged bindings keep their runtime (a toggle its state, a stepper its
 *   step); only controls whose look changed are redrawn; no device is touched.
 * - Feedback: every state change redraws the controls that show it, synchronously, so a notification
 *   reaches the surface in the same turn of the event loop that the store announces it.
 */
import type { AppState } from '../api/app-state.js'
import { createLogger, type Logger } from '../log.js'
import type { ControlId } from '../face/control-id.js'
import type { Feedback } from '../face/feedback.js'
import type { SurfaceEvent } from '../surfaces/types.js'
import { JogScrub } from './behaviours/jog.js'
import { PressBehaviour } from './behaviours/press.js'
import { RotateSender, ShuttleSpeed, ValueSetter } from './behaviours/continuous.js'
import type { Behaviour, BehaviourHost, BehaviourLook } from './behaviours/types.js'
import { ENGINE_TUNABLES } from './constants.js'
import { computeFeedback, followedTitle, indicatorOn, showsReplaySpeed, titleContext } from './feedback.js'
import type { PagePort, PageViewSink } from '../surfaces/page-port.js'
import { carryPages, PageViews, turnPage, type PageState, type View } from './page-views.js'
import type { Binding, Config } from './schema.js'
import type { CommandPort, SendObserver } from './sender.js'
import { oneApp, type AppChange, type EngineApps } from './app-router.js'
import { parseTemplate, type Template } from './template.js'
import { hasPicture, withPicture, type PictureSource } from './pictures.js'
import { PLAYHEAD_POLL_MS, replayContext, showsPlayhead } from './playhead.js'

/** Where the engine draws: the surface manager (by configured surface name). */
export interface FeedbackSink {
  setFeedback(surface: string, control: ControlId, feedback: Feedback): void
}

/**
 * The applications, as the engine reaches them: always through a router (`./app-router.ts`), which sends,
 * keeps each application's state and polls it. `apps` is the daemon's, one per application of `apps:` or
 * the one of `app:`; a caller with one client and its state (a test, `replay`) may give `client` and
 * `state` (and `onSend`) instead, and the engine makes the router of that one application.
 */
export type EngineAppsOption =
  | { apps: EngineApps; client?: never; state?: never; onSend?: never }
  | {
      apps?: never
      client: CommandPort
      state: AppState
      /** Called once per command sent, with `ok` or the error code and the whole record (metrics, events, trace). */
      onSend?: SendObserver
    }

export type EngineOptions = EngineAppsOption & {
  surfaces: FeedbackSink
  logger?: Logger
  /** Pictures under keys' labels (`image:`, title thumbnails; `./pictures.ts`); the engine stops it. */
  pictures?: PictureSource
  /** Called when a command goes out for a surface event, with the time since the event, ms (metrics). */
  onRequest?: (msSinceEvent: number) => void
  /** Called when a page action turned a page: the surface's, or that of a view keeping its own (`run --record`). */
  onPage?: (surface: string, page: string, view?: string) => void
}

/** What the remote API shows of a control. */
export interface ControlView {
  surface: string
  control: ControlId
  page: string | null
  feedback: Feedback
}

/**
 * The steps of `Engine.apply` (`Engine.compiler`), in order: `carry` each control of the running
 * mapping (so unchanged bindings keep their runtime), `add` each binding (its runtime built beside the
 * running mapping), `swap` (the whole mapping in force at once; returns the control keys to redraw),
 * `retire` each binding it replaced, `redraw` each key, then `done`. `abort` instead of `swap` drops
 * what was built; nothing that runs changes.
 */
export interface MappingCompiler {
  readonly carrySteps: number
  carry(i: number): void
  add(binding: Binding): void
  swap(config: Config): string[]
  /** How many bindings the swap left to retire. */
  retireSteps(): number
  retire(i: number): void
  redraw(key: string): void
  done(): void
  abort(): void
}

const EMPTY_LOOK: BehaviourLook = { pending: false, failed: false, context: {} }

/** Which bindings' looks a change of an application's state may change (an unnamed change: any). */
const SHOWS: Record<AppChange, (b: Binding) => boolean> = {
  title: (b) => b.feedback?.title !== undefined,
  titlesReset: (b) => b.feedback?.title !== undefined,
  link: (b) => b.feedback !== undefined || b.toggle !== undefined,
  replay: (b) =>
    b.feedback?.replay_state !== undefined ||
    b.jog !== undefined ||
    b.shuttle !== undefined ||
    showsReplaySpeed(b) ||
    showsPlayhead(b),
  playhead: showsPlayhead,
  streaming: (b) => b.feedback?.streaming !== undefined,
  tally: (b) => b.feedback?.input !== undefined,
}

/** One binding at run time. */
class Bound {
  readonly label: Template | undefined
  behaviour: Behaviour | undefined
  constructor(
    readonly binding: Binding,
    readonly identity: string,
  ) {
    this.label = binding.label !== undefined ? parseTemplate(binding.label).template : undefined
  }
}

function keyOf(surface: string, control: string): string {
  return `${surface}/${control}`
}
function splitKey(key: string): [string, string] {
  const i = key.indexOf('/')
  return [key.slice(0, i), key.slice(i + 1)]
}

export class Engine implements PagePort {
  private readonly log: Logger
  /** Every application, its sends, states, polls and looks. */
  private readonly apps: EngineApps
  /** By control key: the page-less binding and the bindings per page. */
  private controls = new Map<string, { all?: Bound; pages: Map<string, Bound> }>()
  private readonly pages = new Map<string, PageState>()
  /** Views of surfaces, some keeping a page of their own. */
  private readonly views = new PageViews()
  /** The view each control's latest input came from: a page action it takes turns that view's page. */
  private readonly actedBy = new Map<string, string>()
  /**
   * The binding that took each held press's down, by control, view and source, with the
   * press's name within that binding: presses from different sources are tracked apart.
   */
  private readonly heldBy = new Map<string, { b: Bound; press: string }>()
  /** Every control held down now, by control key and press (bound or not): a jog's `fine` key. */
  private readonly down = new Set<string>()
  /** Rotary controls in a burst on a binding a reload replaced. */
  private readonly burstOn = new Map<string, Bound>()
  /** What each control shows now (as drawn), by key. */
  private readonly shown = new Map<string, { feedback: Feedback; hash: string }>()
  /** When each control's latest event reached the engine (`performance.now()`), for the event → request metric. */
  private readonly lastEventAt = new Map<string, number>()
  private streamingPoll: NodeJS.Timeout | undefined
  /** Polls `replay_get_play_info` while a shown label follows the playhead and the replay is on. */
  private playheadPoll: NodeJS.Timeout | undefined
  private playheadApps: string[] = []
  /** Applications whose playhead read is in flight: at most one each (the poll is bounded). */
  private readonly playheadAsking = new Set<string>()
  /** The applications the streaming poll asks: each one a key showing streaming follows. */
  private streamingApps: string[] = []
  private stopped = false
  private readonly unsubscribe: () => void

  constructor(private readonly options: EngineOptions) {
    this.log = options.logger ?? createLogger('engine')
    const own = options.apps
      ? undefined
      : oneApp(
          { client: options.client, state: options.state },
          { log: this.log, ...(options.onSend ? { observe: options.onSend } : {}) },
        )
    this.apps = options.apps ?? own!
    options.pictures?.onChange(() => this.redrawWhere((b) => hasPicture(b.binding)))
    // A change of an application's state, or a mirror's divergence: every key that may show it is redrawn.
    const detachApps = this.apps.watch((change) => {
      const shows = change === undefined ? undefined : SHOWS[change]
      this.redrawWhere(shows ? (b) => shows(b.binding) : () => true)
      if (change === undefined || change === 'replay' || change === 'link') this.updatePlayheadPoll()
    })
    this.unsubscribe = () => {
      detachApps()
      own?.dispose()
    }
  }

  /**
   * Applies a mapping as a diff against the running one. Bindings whose definition is unchanged keep
   * their runtime; changed and removed ones are retired (one still held or mid-burst finishes first).
   */
  apply(config: Config): void {
    if (this.stopped) return
    const compiler = this.compiler()
    for (let i = 0; i < compiler.carrySteps; i++) compiler.carry(i)
    for (const binding of config.bindings) compiler.add(binding)
    const keys = compiler.swap(config)
    for (let i = 0; i < compiler.retireSteps(); i++) compiler.retire(i)
    for (const key of keys) compiler.redraw(key)
    compiler.done()
  }

  /**
   * `apply` in steps, for a reload that spreads the work over turns of the loop (`compile-slices.ts`):
   * the new mapping's runtime is built beside the running one, which takes every input meanwhile, and
   * put in force by `swap` at once. A compiler whose base was replaced meanwhile (another apply) builds
   * again at the swap, so it never puts a stale diff in force.
   */
  compiler(): MappingCompiler {
    const base = this.controls
    const slots = [...base.values()]
    const previous = new Map<string, Bound>()
    const next = new Map<string, { all?: Bound; pages: Map<string, Bound> }>()
    const created: Bound[] = []
    let retiring: Bound[] = []
    const compiler: MappingCompiler = {
      carrySteps: slots.length,
      carry: (i) => {
        const slot = slots[i]!
        for (const b of [slot.all, ...slot.pages.values()]) if (b) previous.set(b.identity, b)
      },
      add: (binding) => {
        const identity = JSON.stringify(binding)
        const [surface, control] = splitKey(binding.on)
        const key = keyOf(surface, control)
        let bound = previous.get(identity)
        if (bound) previous.delete(identity)
        else created.push((bound = this.create(binding, identity, key)))
        let slot = next.get(key)
        if (!slot) next.set(key, (slot = { pages: new Map() }))
        if (binding.page !== undefined) slot.pages.set(binding.page, bound)
        else slot.all = bound
      },
      abort: () => {
        for (const b of created.splice(0)) b.behaviour?.dispose()
      },
      swap: (config) => {
        if (this.stopped || this.controls !== base) {
          compiler.abort()
          if (this.stopped) return []
          const again = this.compiler()
          for (let i = 0; i < again.carrySteps; i++) again.carry(i)
          for (const binding of config.bindings) again.add(binding)
          const keys = again.swap(config)
          for (let i = 0; i < again.retireSteps(); i++) again.retire(i)
          return keys
        }
        created.length = 0
        const swapped = this.swapIn(config, next, previous)
        retiring = swapped.retiring
        return swapped.keys
      },
      retireSteps: () => retiring.length,
      retire: (i) => this.retire(retiring[i]!),
      redraw: (key) => this.redraw(key),
      done: () => {
        if (!this.stopped) this.updateStreamingPoll()
        this.updatePlayheadPoll()
      },
    }
    return compiler
  }

  /**
   * Puts a compiled mapping in force. The bindings it replaced that may be mid-burst are retired at once
   * (a turn of their control must still reach them); the others are returned to retire after (no input
   * reaches them any more; one still held is disposed at its up). Also returns the control keys to redraw.
   */
  private swapIn(
    config: Config,
    next: Map<string, { all?: Bound; pages: Map<string, Bound> }>,
    previous: Map<string, Bound>,
  ): { keys: string[]; retiring: Bound[] } {
    this.options.pictures?.apply(config)
    const oldKeys = [...this.controls.keys()]
    this.controls = next
    const retiring: Bound[] = []
    for (const b of previous.values()) {
      if (b.binding.jog || b.binding.rotate || b.binding.shuttle || b.binding.value) this.retire(b)
      else retiring.push(b)
    }

    // Pages: the current page of a surface survives when it is still listed.
    const seen = new Set<string>()
    for (const [surface, list] of Object.entries(config.pages)) {
      seen.add(surface)
      this.pages.set(surface, carryPages(this.pages.get(surface), list))
    }
    for (const surface of [...this.pages.keys()]) if (!seen.has(surface)) this.pages.delete(surface)
    this.views.apply(config.listen.pages === 'per-browser', this.pages)
    return { keys: [...new Set([...oldKeys, ...next.keys()])], retiring }
  }

  /** One event from a surface (the manager's `input`, under the configured surface name). */
  handle(event: SurfaceEvent): void {
    if (this.stopped) return
    const key = keyOf(event.surface, event.control)
    // Input that waited too long (a stalled loop, a burst replayed by a driver) is not acted on: a press
    // fired late is worse than a press shown as lost. An up always gets through, to end a hold.
    if (event.type !== 'up' && performance.now() - event.at > ENGINE_TUNABLES.maxInputAgeMs) {
      this.log.once(`stale-input:${key}`, 'warn', 'input arrived too late and was dropped', { control: key })
      return
    }
    if (this.options.onRequest) this.lastEventAt.set(key, event.at)
    this.options.pictures?.noteInput()
    const view = this.views.owning(event.surface, event.view)
    if (view) this.actedBy.set(key, view.id)
    else this.actedBy.delete(key)
    // Two views on different pages hold two bindings of one control; two sources hold two presses.
    const press = `${view?.id ?? ''}\u0000${event.source ?? ''}`
    const heldKey = `${key}\u0000${press}`
    if (event.type === 'down') this.down.add(heldKey)
    else if (event.type === 'up') this.down.delete(heldKey)
    switch (event.type) {
      case 'down': {
        const b = this.active(key, view)
        if (!b?.behaviour?.down || this.heldBy.has(heldKey)) return
        this.heldBy.set(heldKey, { b, press })
        b.behaviour.down(press)
        return
      }
      case 'up':
        this.endPress(heldKey, event.cancel === true)
        return
      case 'rotate': {
        const retired = this.burstOn.get(key)
        if (retired?.behaviour?.busy()) {
          retired.behaviour.rotate?.(event.delta)
          return
        }
        if (retired) this.finishRetired(retired)
        this.burstOn.delete(key)
        this.active(key, view)?.behaviour?.rotate?.(event.delta)
        return
      }
      case 'value':
        this.active(key, view)?.behaviour?.value?.(event.value)
        return
    }
  }

  /**
   * Cancels every press held on a surface, whatever its source (the surface was unplugged or removed):
   * nothing fires for them. Returns how many there were.
   */
  cancelPresses(surface: string): number {
    const prefix = `${surface}/`
    for (const k of [...this.down]) if (k.startsWith(prefix)) this.down.delete(k)
    let n = 0
    for (const heldKey of [...this.heldBy.keys()]) {
      if (!heldKey.startsWith(prefix)) continue
      this.endPress(heldKey, true)
      n++
    }
    return n
  }

  /** The current page of a paged surface. */
  pageOf(surface: string): string | undefined {
    return this.pages.get(surface)?.current
  }

  /**
   * Turns a surface's shared page to `page`, one of its pages, as a page action would (`panelbridge
   * replay` starts on the page its recording began on). False when the surface has no such page.
   */
  setPageOf(surface: string, page: string): boolean {
    const p = this.pages.get(surface)
    if (!p?.list.includes(page)) return false
    if (p.current !== page) this.setPage(surface, page, undefined)
    return true
  }

  /**
   * Opens a view of a surface (a browser of a web surface): it is told its page now and on every
   * change, and while it keeps a page of its own (`listen.pages: per-browser` and `mayOwn`), its input
   * (events naming it in `view`) routes by that page and its controls are drawn on its sink.
   */
  openView(surface: string, id: string, sink: PageViewSink, mayOwn: boolean): () => void {
    const view = this.views.open(surface, id, sink, mayOwn, this.pages.get(surface))
    this.drawView(view)
    return () => {
      this.views.close(view)
      this.updateStreamingPoll()
      this.updatePlayheadPoll()
    }
  }

  /** What a control shows now (for the remote API), or undefined when nothing was drawn on it. */
  controlView(surface: string, control: ControlId): ControlView | undefined {
    const shown = this.shown.get(keyOf(surface, control))
    if (!shown) return undefined
    return { surface, control, page: this.pageOf(surface) ?? null, feedback: shown.feedback }
  }

  /**
   * Whether a control's behaviour, on any page, still has something to send or waits for a reply (a
   * jog's last position waiting out its interval, or in flight).
   */
  pending(surface: string, control: ControlId): boolean {
    const slot = this.controls.get(keyOf(surface, control))
    if (!slot) return false
    return [slot.all, ...slot.pages.values()].some((b) => b?.behaviour?.look().pending === true)
  }

  /** Whether a binding exists for the control on any page. */
  hasControl(surface: string, control: ControlId): boolean {
    return this.controls.has(keyOf(surface, control))
  }

  /** The titles the bindings follow (for the notification link's filter). */
  followedTitles(): string[] {
    const names = new Set<string>()
    for (const slot of this.controls.values()) {
      for (const b of [slot.all, ...slot.pages.values()])
        if (b?.binding.feedback?.title) names.add(b.binding.feedback.title)
    }
    return [...names]
  }

  /** Stops timers and listeners; in-flight commands finish but change nothing. Idempotent. */
  stop(): void {
    if (this.stopped) return
    this.stopped = true
    this.unsubscribe()
    clearInterval(this.streamingPoll)
    clearInterval(this.playheadPoll)
    this.options.pictures?.stop()
    for (const slot of this.controls.values())
      for (const b of [slot.all, ...slot.pages.values()]) b?.behaviour?.dispose()
    for (const b of [...this.heldBys(), ...this.burstOn.values()]) b.behaviour?.dispose()
  }

  // ---- internals -------------------------------------------------------------------------------

  private create(binding: Binding, identity: string, key: string): Bound {
    const bound = new Bound(binding, identity)
    const [surface] = splitKey(key)
    const apps = this.apps
    const host: BehaviourHost = {
      origin: key,
      get state() {
        return apps.stateFor(binding)
      },
      send: (command, params, options) => {
        const at = this.lastEventAt.get(key)
        if (at !== undefined && this.options.onRequest) {
          this.lastEventAt.delete(key)
          this.options.onRequest(performance.now() - at)
        }
        return apps.send(binding, command, params, key, options ?? {})
      },
      resync: (mirror) => apps.resync(mirror, key),
      mirrored: () => apps.mirrored?.(binding) ?? false,
      changed: () => {
        if (this.isCurrent(bound)) this.redraw(key)
      },
      setPage: (page) => this.setPage(surface, page, this.actedBy.get(key)),
      isHeld: (on) => {
        for (const k of this.down) if (k.startsWith(`${on}\u0000`)) return true
        return false
      },
      titleContext: () => ({ ...replayContext(host.state), ...titleContext(followedTitle(binding, host.state)) }),
      notSent: (command, reason) =>
        this.log.warn(`${key}: ${command} not sent: ${reason}`, { control: key, command, outcome: 'NOT_SENT' }),
    }
    if (binding.press || binding.toggle || binding.steps || binding.hold) {
      bound.behaviour = new PressBehaviour(binding, host, () => indicatorOn(binding, host.state))
    } else if (binding.jog) bound.behaviour = new JogScrub(binding.jog.scrub, host)
    else if (binding.shuttle) bound.behaviour = new ShuttleSpeed(binding.shuttle, host)
    else if (binding.value) bound.behaviour = new ValueSetter(binding.value, host)
    else if (binding.rotate) bound.behaviour = new RotateSender(binding.rotate, host)
    return bound
  }

  /** A binding a reload removed: one still held or mid-burst finishes on its old definition first. */
  private retire(b: Bound): void {
    const key = b.binding.on
    if (this.heldBys().includes(b)) return // disposed when its up arrives
    if (b.behaviour?.busy() && (b.binding.jog || b.binding.rotate || b.binding.shuttle || b.binding.value)) {
      this.burstOn.set(key, b)
      return
    }
    b.behaviour?.dispose()
  }

  private finishRetired(b: Bound): void {
    if (this.isCurrent(b) || this.heldBys().includes(b)) return
    b.behaviour?.dispose()
  }

  /** Ends a held press: released (a short press may fire) or cancelled (nothing fires). */
  private endPress(heldKey: string, cancel: boolean): void {
    const held = this.heldBy.get(heldKey)
    if (!held) return
    this.heldBy.delete(heldKey)
    if (cancel) held.b.behaviour?.cancel?.(held.press)
    else held.b.behaviour?.up?.(held.press)
    if (!this.isCurrent(held.b)) this.finishRetired(held.b)
  }

  /** The bindings holding a press. */
  private heldBys(): Bound[] {
    return [...this.heldBy.values()].map((h) => h.b)
  }

  /** Whether a binding is part of the running mapping. */
  private isCurrent(b: Bound): boolean {
    const slot = this.controls.get(b.binding.on)
    return slot !== undefined && (slot.all === b || [...slot.pages.values()].includes(b))
  }

  /** The binding a control takes input with and is drawn from: on the view's own page, else the surface's. */
  private active(key: string, view?: View): Bound | undefined {
    const slot = this.controls.get(key)
    if (!slot) return undefined
    const page = view?.own?.current ?? this.pageOf(splitKey(key)[0])
    return (page !== undefined ? slot.pages.get(page) : undefined) ?? slot.all
  }

  /** A page action: it turns the page of the view that took it, if that keeps its own, else the surface's. */
  private setPage(surface: string, page: string, viewId: string | undefined): void {
    const view = this.views.owning(surface, viewId)
    const p = view?.own ?? this.pages.get(surface)
    if (!p || !turnPage(p, page)) return
    this.log.debug('page', { surface, page: p.current, ...(view ? { view: view.id } : {}) })
    this.options.onPage?.(surface, p.current, view?.id)
    if (view) {
      view.sink.page({ page: p.current, pages: p.list, own: true })
      this.drawView(view)
    } else {
      this.views.sharedTurned(surface, p)
      for (const key of this.controls.keys()) if (splitKey(key)[0] === surface) this.redraw(key)
    }
    this.updateStreamingPoll()
    this.updatePlayheadPoll()
  }

  private redrawWhere(match: (b: Bound) => boolean): void {
    if (this.stopped) return
    for (const key of this.controls.keys()) {
      const b = this.active(key)
      if (b && match(b)) this.redrawShared(key)
      for (const view of this.views.of(splitKey(key)[0])) {
        const vb = view.own ? this.active(key, view) : undefined
        if (vb && match(vb)) this.redrawView(key, view)
      }
    }
  }

  /** A binding's feedback with its picture, or why it has none (`./pictures.ts`). */
  private pictured(b: Bound | undefined, feedback: Feedback): Feedback {
    const pictures = this.options.pictures
    return b && pictures && hasPicture(b.binding) ? withPicture(feedback, pictures.lookOf(b.binding)) : feedback
  }

  /** Draws a control where its look changed: on the surface, and on each view with a page of its own. */
  private redraw(key: string): void {
    this.redrawShared(key)
    for (const view of this.views.of(splitKey(key)[0])) this.redrawView(key, view)
  }

  /** What a binding shows now; a control without a binding on the page shown is blank. */
  private feedbackOf(b: Bound | undefined): Feedback {
    if (!b) return {}
    const feedback = computeFeedback({
      binding: b.binding,
      label: b.label,
      look: b.behaviour?.look() ?? EMPTY_LOOK,
      state: this.apps.stateFor(b.binding),
    })
    return this.apps.decorate(b.binding, feedback)
  }

  /** Draws a control on its surface when its look changed. A control without a binding on this page is blanked. */
  private redrawShared(key: string): void {
    if (this.stopped) return
    const b = this.active(key)
    const feedback = this.pictured(b, this.feedbackOf(b))
    const hash = JSON.stringify(feedback)
    const before = this.shown.get(key)
    if (before?.hash === hash) return
    if (!b && !before) return
    if (b) this.shown.set(key, { feedback, hash })
    else this.shown.delete(key)
    const [surface, control] = splitKey(key)
    this.options.surfaces.setFeedback(surface, control, feedback)
  }

  /** Draws a control on a view with a page of its own, when its look there changed. */
  private redrawView(key: string, view: View): void {
    if (this.stopped || !view.own) return
    const b = this.active(key, view)
    const feedback = this.pictured(b, this.feedbackOf(b))
    const hash = JSON.stringify(feedback)
    const control = splitKey(key)[1]
    const before = view.shown.get(control)
    if (before === hash || (!b && before === undefined)) return
    if (b) view.shown.set(control, hash)
    else view.shown.delete(control)
    view.sink.feedback(control, feedback)
  }

  /** Draws every control of a view with a page of its own (it opened, or turned its page). */
  private drawView(view: View): void {
    if (!view.own) return
    for (const key of this.controls.keys()) if (splitKey(key)[0] === view.surface) this.redrawView(key, view)
    this.updateStreamingPoll()
    this.updatePlayheadPoll()
  }

  /**
   * Polls the playhead (`replay_get_play_info`, the engine's own command) while a label on a current page
   * shows it (`{{replay.*}}`) and its application's replay is on (replay mode or playback, where the
   * position moves): every PLAYHEAD_POLL_MS, at most one read in flight per application; stopped when no
   * label shows it or the replay is off.
   */
  private updatePlayheadPoll(): void {
    if (this.stopped) return
    const apps = new Set<string>()
    for (const k of this.controls.keys()) {
      const shown = [
        this.active(k),
        ...this.views.of(splitKey(k)[0]).map((v) => (v.own ? this.active(k, v) : undefined)),
      ]
      for (const b of shown) {
        if (!b || !showsPlayhead(b.binding)) continue
        const replay = this.apps.stateFor(b.binding).replay.state
        if (replay !== 'replay' && replay !== 'playback') continue
        for (const name of this.apps.followedBy(b.binding)) apps.add(name)
      }
    }
    this.playheadApps = [...apps]
    if (apps.size > 0 && !this.playheadPoll) {
      this.playheadPoll = setInterval(() => {
        for (const name of this.playheadApps) {
          if (this.playheadAsking.has(name)) continue
          this.playheadAsking.add(name)
          void this.apps
            .poll(name, 'replay_get_play_info', 'playhead poll')
            .finally(() => this.playheadAsking.delete(name))
        }
      }, PLAYHEAD_POLL_MS)
    } else if (apps.size === 0 && this.playheadPoll) {
      clearInterval(this.playheadPoll)
      this.playheadPoll = undefined
    }
  }

  /**
   * Polls the streaming state while a control on a current page (a view's own too) shows it: on each
   * application such a control follows (its own, and the mirrors that stand in for it), one of them asked
   * at once when it joins the poll.
   */
  private updateStreamingPoll(): void {
    if (this.stopped) return
    const shows = (b: Bound | undefined): b is Bound => b?.binding.feedback?.streaming !== undefined
    const apps = new Set<string>()
    for (const k of this.controls.keys()) {
      const shown = [
        this.active(k),
        ...this.views.of(splitKey(k)[0]).map((v) => (v.own ? this.active(k, v) : undefined)),
      ]
      for (const b of shown) if (shows(b)) for (const name of this.apps.followedBy(b.binding)) apps.add(name)
    }
    const joined = [...apps].filter((name) => !this.streamingApps.includes(name))
    this.streamingApps = [...apps]
    // Repeating: an application that is away is warned of once per outage, not every ENGINE_TUNABLES.streamingPollMs.
    const poll = (name: string): void => void this.apps.poll(name, 'getStreamHostServer', 'streaming poll')
    for (const name of joined) poll(name)
    if (apps.size > 0 && !this.streamingPoll) {
      this.streamingPoll = setInterval(() => {
        for (const name of this.streamingApps) poll(name)
      }, ENGINE_TUNABLES.streamingPollMs)
    } else if (apps.size === 0 && this.streamingPoll) {
      clearInterval(this.streamingPoll)
      this.streamingPoll = undefined
    }
  }
}
