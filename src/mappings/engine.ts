/**
 * The binding engine: surface events in, command requests out (through the command client), and the
 * application's state out again as feedback on every bound control.
 *
 * - Routing: each control resolves to the binding of its surface's current page, else its page-less
 *   binding. A down and its up always go to the binding that took the down, even if the page or the
 *   mapping changed in between; a jog burst finishes on the binding it started on.
 * - Pages: the first page is the start page; the current page of each surface survives reloads and
 *   unplugging (the engine keeps it by surface name, not by device).
 * - `apply(config)` is a diff: unchanged bindings keep their runtime (a toggle its state, a stepper its
 *   step); only controls whose look changed are redrawn; no device is touched.
 * - Feedback: every state change redraws the controls that show it, synchronously, so a notification
 *   reaches the surface in the same turn of the event loop that the store announces it.
 */
import type { AppState } from '../api/app-state.js'
import { createLogger, type Logger } from '../log.js'
import type { ControlId, Feedback, SurfaceEvent } from '../surfaces/types.js'
import { JogScrub } from './behaviours/jog.js'
import { PressBehaviour } from './behaviours/press.js'
import { RotateSender, ShuttleSpeed, ValueSetter } from './behaviours/continuous.js'
import type { Behaviour, BehaviourHost, BehaviourLook } from './behaviours/types.js'
import { MAX_INPUT_AGE_MS, PAGE_HISTORY, PAGE_NEXT, PAGE_PREVIOUS, STREAMING_POLL_MS } from './constants.js'
import { computeFeedback, followedTitle, indicatorOn, titleContext } from './feedback.js'
import type { Binding, Config } from './schema.js'
import { Sender, type CommandPort, type SendObserver } from './sender.js'
import { parseTemplate, type Template } from './template.js'

/** Where the engine draws: the surface manager (by configured surface name). */
export interface FeedbackSink {
  setFeedback(surface: string, control: ControlId, feedback: Feedback): void
}

export interface EngineOptions {
  client: CommandPort
  state: AppState
  surfaces: FeedbackSink
  logger?: Logger
  /** Called once per command sent, with `ok` or the error code (metrics). */
  onSend?: SendObserver
  /** Called when a command goes out for a surface event, with the time since the event, ms (metrics). */
  onRequest?: (msSinceEvent: number) => void
}

/** What the remote API shows of a control. */
export interface ControlView {
  surface: string
  control: ControlId
  page: string | null
  feedback: Feedback
}

const EMPTY_LOOK: BehaviourLook = { pending: false, failed: false, context: {} }

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

interface PageState {
  list: readonly string[]
  current: string
  history: string[]
}

function keyOf(surface: string, control: string): string {
  return `${surface}/${control}`
}
function splitKey(key: string): [string, string] {
  const i = key.indexOf('/')
  return [key.slice(0, i), key.slice(i + 1)]
}

export class Engine {
  private readonly log: Logger
  private readonly sender: Sender
  /** By control key: the page-less binding and the bindings per page. */
  private controls = new Map<string, { all?: Bound; pages: Map<string, Bound> }>()
  private readonly pages = new Map<string, PageState>()
  /** The binding that took each held control's down. */
  private readonly heldBy = new Map<string, Bound>()
  /** Rotary controls in a burst on a binding a reload replaced. */
  private readonly burstOn = new Map<string, Bound>()
  /** What each control shows now (as drawn), by key. */
  private readonly shown = new Map<string, { feedback: Feedback; hash: string }>()
  /** When each control's latest event reached the engine (`performance.now()`), for the event → request metric. */
  private readonly lastEventAt = new Map<string, number>()
  private streamingPoll: NodeJS.Timeout | undefined
  private stopped = false
  private readonly unsubscribe: () => void

  constructor(private readonly options: EngineOptions) {
    this.log = options.logger ?? createLogger('engine')
    this.sender = new Sender(options.client, options.state, this.log, options.onSend)
    const state = options.state
    const onTitle = (): void => this.redrawWhere((b) => b.binding.feedback?.title !== undefined)
    const onAll = (): void =>
      this.redrawWhere((b) => b.binding.feedback !== undefined || b.binding.toggle !== undefined)
    const onReplay = (): void =>
      this.redrawWhere(
        (b) =>
          b.binding.feedback?.replay_state !== undefined ||
          b.binding.jog !== undefined ||
          b.binding.shuttle !== undefined,
      )
    const onStreaming = (): void => this.redrawWhere((b) => b.binding.feedback?.streaming !== undefined)
    const onTally = (): void => this.redrawWhere((b) => b.binding.feedback?.input !== undefined)
    state.on('title', onTitle)
    state.on('titlesReset', onTitle)
    state.on('link', onAll)
    state.on('replay', onReplay)
    state.on('streaming', onStreaming)
    state.on('tally', onTally)
    this.unsubscribe = () => {
      state.off('title', onTitle)
      state.off('titlesReset', onTitle)
      state.off('link', onAll)
      state.off('replay', onReplay)
      state.off('streaming', onStreaming)
      state.off('tally', onTally)
    }
  }

  /**
   * Applies a mapping as a diff against the running one. Bindings whose definition is unchanged keep
   * their runtime; changed and removed ones are retired (one still held or mid-burst finishes first).
   */
  apply(config: Config): void {
    if (this.stopped) return
    const previous = new Map<string, Bound>()
    for (const slot of this.controls.values()) {
      for (const b of [slot.all, ...slot.pages.values()]) if (b) previous.set(b.identity, b)
    }
    const next = new Map<string, { all?: Bound; pages: Map<string, Bound> }>()
    for (const binding of config.bindings) {
      const identity = JSON.stringify(binding)
      const [surface, control] = splitKey(binding.on)
      const key = keyOf(surface, control)
      let bound = previous.get(identity)
      if (bound) previous.delete(identity)
      else bound = this.create(binding, identity, key)
      let slot = next.get(key)
      if (!slot) next.set(key, (slot = { pages: new Map() }))
      if (binding.page !== undefined) slot.pages.set(binding.page, bound)
      else slot.all = bound
    }
    const oldKeys = [...this.controls.keys()]
    this.controls = next
    for (const b of previous.values()) this.retire(b)

    // Pages: the current page of a surface survives when it is still listed.
    const seen = new Set<string>()
    for (const [surface, list] of Object.entries(config.pages)) {
      seen.add(surface)
      const old = this.pages.get(surface)
      const current = old && list.includes(old.current) ? old.current : list[0]!
      this.pages.set(surface, { list, current, history: old ? old.history.filter((p) => list.includes(p)) : [] })
    }
    for (const surface of [...this.pages.keys()]) if (!seen.has(surface)) this.pages.delete(surface)

    for (const key of new Set([...oldKeys, ...next.keys()])) this.redraw(key)
    this.updateStreamingPoll()
  }

  /** One event from a surface (the manager's `input`, under the configured surface name). */
  handle(event: SurfaceEvent): void {
    if (this.stopped) return
    const key = keyOf(event.surface, event.control)
    // Input that waited too long (a stalled loop, a burst replayed by a driver) is not acted on: a press
    // fired late is worse than a press shown as lost. An up always gets through, to end a hold.
    if (event.type !== 'up' && performance.now() - event.at > MAX_INPUT_AGE_MS) {
      this.log.once(`stale-input:${key}`, 'warn', 'input arrived too late and was dropped', { control: key })
      return
    }
    if (this.options.onRequest) this.lastEventAt.set(key, event.at)
    switch (event.type) {
      case 'down': {
        const b = this.active(key)
        if (!b?.behaviour?.down) return
        this.heldBy.set(key, b)
        b.behaviour.down()
        return
      }
      case 'up': {
        const b = this.heldBy.get(key)
        this.heldBy.delete(key)
        b?.behaviour?.up?.()
        if (b && !this.isCurrent(b)) this.finishRetired(b)
        return
      }
      case 'rotate': {
        const retired = this.burstOn.get(key)
        if (retired?.behaviour?.busy()) {
          retired.behaviour.rotate?.(event.delta)
          return
        }
        if (retired) this.finishRetired(retired)
        this.burstOn.delete(key)
        this.active(key)?.behaviour?.rotate?.(event.delta)
        return
      }
      case 'value':
        this.active(key)?.behaviour?.value?.(event.value)
        return
    }
  }

  /** The current page of a paged surface. */
  pageOf(surface: string): string | undefined {
    return this.pages.get(surface)?.current
  }

  /** What a control shows now (for the remote API), or undefined when nothing was drawn on it. */
  controlView(surface: string, control: ControlId): ControlView | undefined {
    const shown = this.shown.get(keyOf(surface, control))
    if (!shown) return undefined
    return { surface, control, page: this.pageOf(surface) ?? null, feedback: shown.feedback }
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
    for (const slot of this.controls.values())
      for (const b of [slot.all, ...slot.pages.values()]) b?.behaviour?.dispose()
    for (const b of [...this.heldBy.values(), ...this.burstOn.values()]) b.behaviour?.dispose()
  }

  // ---- internals -------------------------------------------------------------------------------

  private create(binding: Binding, identity: string, key: string): Bound {
    const bound = new Bound(binding, identity)
    const [surface] = splitKey(key)
    const host: BehaviourHost = {
      origin: key,
      state: this.options.state,
      send: (command, params) => {
        const at = this.lastEventAt.get(key)
        if (at !== undefined && this.options.onRequest) {
          this.lastEventAt.delete(key)
          this.options.onRequest(performance.now() - at)
        }
        return this.sender.send(command, params, key)
      },
      changed: () => {
        if (this.isCurrent(bound)) this.redraw(key)
      },
      setPage: (page) => this.setPage(surface, page),
      titleContext: () => titleContext(followedTitle(binding, this.options.state)),
    }
    if (binding.press || binding.toggle || binding.steps || binding.hold) {
      bound.behaviour = new PressBehaviour(binding, host, () => indicatorOn(binding, this.options.state))
    } else if (binding.jog) bound.behaviour = new JogScrub(binding.jog.scrub, host)
    else if (binding.shuttle) bound.behaviour = new ShuttleSpeed(binding.shuttle, host)
    else if (binding.value) bound.behaviour = new ValueSetter(binding.value, host)
    else if (binding.rotate) bound.behaviour = new RotateSender(binding.rotate, host)
    return bound
  }

  /** A binding a reload removed: one still held or mid-burst finishes on its old definition first. */
  private retire(b: Bound): void {
    const key = b.binding.on
    if ([...this.heldBy.values()].includes(b)) return // disposed when its up arrives
    if (b.behaviour?.busy() && (b.binding.jog || b.binding.rotate || b.binding.shuttle || b.binding.value)) {
      this.burstOn.set(key, b)
      return
    }
    b.behaviour?.dispose()
  }

  private finishRetired(b: Bound): void {
    if (this.isCurrent(b) || [...this.heldBy.values()].includes(b)) return
    b.behaviour?.dispose()
  }

  /** Whether a binding is part of the running mapping. */
  private isCurrent(b: Bound): boolean {
    const slot = this.controls.get(b.binding.on)
    return slot !== undefined && (slot.all === b || [...slot.pages.values()].includes(b))
  }

  private active(key: string): Bound | undefined {
    const slot = this.controls.get(key)
    if (!slot) return undefined
    const page = this.pageOf(splitKey(key)[0])
    return (page !== undefined ? slot.pages.get(page) : undefined) ?? slot.all
  }

  private setPage(surface: string, page: string): void {
    const p = this.pages.get(surface)
    if (!p) return
    let target = page
    if (page === PAGE_PREVIOUS) {
      const back = p.history.pop()
      if (back === undefined) return
      target = back
    } else if (page === PAGE_NEXT) {
      target = p.list[(p.list.indexOf(p.current) + 1) % p.list.length]!
    } else if (!p.list.includes(page)) return
    if (target === p.current) return
    if (page !== PAGE_PREVIOUS) {
      p.history.push(p.current)
      if (p.history.length > PAGE_HISTORY) p.history.shift()
    }
    p.current = target
    this.log.debug('page', { surface, page: target })
    for (const key of this.controls.keys()) if (splitKey(key)[0] === surface) this.redraw(key)
    this.updateStreamingPoll()
  }

  private redrawWhere(match: (b: Bound) => boolean): void {
    if (this.stopped) return
    for (const key of this.controls.keys()) {
      const b = this.active(key)
      if (b && match(b)) this.redraw(key)
    }
  }

  /** Draws a control when its look changed. A control without a binding on this page is blanked. */
  private redraw(key: string): void {
    if (this.stopped) return
    const b = this.active(key)
    const feedback: Feedback = b
      ? computeFeedback({
          binding: b.binding,
          label: b.label,
          look: b.behaviour?.look() ?? EMPTY_LOOK,
          state: this.options.state,
        })
      : {}
    const hash = JSON.stringify(feedback)
    const before = this.shown.get(key)
    if (before?.hash === hash) return
    if (!b && !before) return
    if (b) this.shown.set(key, { feedback, hash })
    else this.shown.delete(key)
    const [surface, control] = splitKey(key)
    this.options.surfaces.setFeedback(surface, control, feedback)
  }

  /** Polls the streaming state while a control on a current page shows it. */
  private updateStreamingPoll(): void {
    const needed = [...this.controls.keys()].some((k) => this.active(k)?.binding.feedback?.streaming !== undefined)
    if (needed && !this.streamingPoll) {
      const poll = (): void => void this.sender.send('getStreamHostServer', {}, 'streaming poll')
      poll()
      this.streamingPoll = setInterval(poll, STREAMING_POLL_MS)
    } else if (!needed && this.streamingPoll) {
      clearInterval(this.streamingPoll)
      this.streamingPoll = undefined
    }
  }
}
