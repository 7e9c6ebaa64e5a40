/**
 * The application-state cache: titles (id, name, play state, variables), the notification link's
 * status, and what is known of replay and streaming state.
 *
 * Writers are the notification link (titles, link status) and the daemon (replay/streaming state,
 * after its HTTP commands). Readers are the feedback engine: it listens to typed change events that
 * carry only what changed. Title changes are batched: everything that happens to a title before the
 * next turn of the event loop (`setImmediate`) becomes one `title` event, so a burst of notifications
 * is a handful of surface updates, not one per message.
 */
import { Announcer } from '../events.js'
import { createLogger, type Logger } from '../log.js'
import type { PlayState, ReplayState } from './protocol.js'

/**
 * Bounds on what the store keeps of the application's titles. Every name and value comes from the
 * application (or whoever answers on its port), so none of them may grow memory without limit: past
 * a bound the new entry is dropped, what is already held is kept, and the first drop is logged.
 */
export const APP_STATE_LIMITS = {
  /** Most titles kept; a snapshot with more keeps the first ones. */
  maxTitles: 2000,
  /** Most variables kept per title; new names past it are dropped, known ones still update. */
  maxVariablesPerTitle: 500,
  /** A variable name longer than this is dropped (cutting it could merge two names). */
  maxVariableNameChars: 256,
  /** A variable value longer than this is cut to it. */
  maxVariableValueChars: 64 * 1024,
} as const

export interface AppStateLimits {
  maxTitles: number
  maxVariablesPerTitle: number
  maxVariableNameChars: number
  maxVariableValueChars: number
}

export interface AppStateOptions {
  limits?: Partial<AppStateLimits>
  logger?: Logger
}

/** What the notification link is doing (the one name for it: `NotificationLink.state`, its `phase` event). */
export type LinkPhase = 'stopped' | 'connecting' | 'resynchronising' | 'waiting-to-retry' | 'connected'

/** Whether the state reflects the application, as the link last said (`AppState.link`, its `link` event). */
export type LinkFreshness =
  /** Connected, subscribed and resynchronised: the titles reflect the application. */
  | { status: 'connected'; since: number }
  /** The titles may be out of date; `phase` says what the link is doing about it. */
  | { status: 'stale'; phase: Exclude<LinkPhase, 'connected'>; since: number; error?: string }

export interface TitleState {
  readonly id: string
  readonly name: string
  readonly play: PlayState
  /** Variable name → value (values are text, as the application sends them). */
  readonly variables: Readonly<Record<string, string>>
}

export interface TitleChanges {
  name?: string
  play?: PlayState
  /** Only the variables whose value changed. */
  variables?: Record<string, string>
}

export interface ReplayInfo {
  state?: ReplayState
  /** 1 = normal, 0.5 = half, negative = reverse. */
  speed?: number
  /** Scrub position, seconds in the buffer. */
  position?: number
  inPoint?: number
  outPoint?: number
}

export interface StreamingInfo {
  streaming?: boolean
  device?: string
}

export interface AppStateEvents {
  /** A title's play state or variables written (its id), or every title replaced: before `title` or `titlesReset`. */
  applied: [id: string | undefined]
  /** One title changed; `changes` holds only what changed since the previous event. */
  title: [change: { id: string; changes: TitleChanges }]
  /** The whole title list was replaced (after a resynchronisation). */
  titlesReset: [titles: readonly TitleState[]]
  link: [status: LinkFreshness]
  replay: [changes: ReplayInfo]
  streaming: [changes: StreamingInfo]
  /** Which input is live on a channel (known from panelbridge's own successful `switchVideoIn`). */
  tally: [change: { channel: number; input: string }]
}

export interface TitleSnapshot {
  id: string
  name: string
  play: PlayState
  variables?: Record<string, string>
}

interface MutableTitle {
  id: string
  name: string
  play: PlayState
  /** Null prototype: names such as `__proto__` or `constructor` are plain entries. */
  variables: Record<string, string>
}

export class AppState extends Announcer<AppStateEvents> {
  readonly limits: Readonly<AppStateLimits>
  private readonly log: Logger
  private readonly titleMap = new Map<string, MutableTitle>()
  /**
   * Title ids by name: bindings name titles, notifications carry ids, and ids change when the
   * application restarts. Names are not unique in the application; the first title by id order wins.
   */
  private readonly byName = new Map<string, Set<string>>()
  /** Variables held per title, so that the limit check does not count keys on every new name. */
  private readonly variableCounts = new WeakMap<MutableTitle, number>()
  private readonly pendingTitles = new Map<string, TitleChanges>()
  private flushScheduled: NodeJS.Immediate | undefined
  private linkFreshness: LinkFreshness = { status: 'stale', phase: 'stopped', since: Date.now() }
  private replayInfo: ReplayInfo = {}
  private streamingInfo: StreamingInfo = {}
  private readonly tallies = new Map<number, string>()

  constructor(options: AppStateOptions = {}) {
    super()
    this.limits = {
      maxTitles: APP_STATE_LIMITS.maxTitles,
      maxVariablesPerTitle: APP_STATE_LIMITS.maxVariablesPerTitle,
      maxVariableNameChars: APP_STATE_LIMITS.maxVariableNameChars,
      maxVariableValueChars: APP_STATE_LIMITS.maxVariableValueChars,
      ...options.limits,
    }
    this.log = options.logger ?? createLogger('app-state')
  }

  get link(): LinkFreshness {
    return this.linkFreshness
  }
  get replay(): Readonly<ReplayInfo> {
    return this.replayInfo
  }
  get streaming(): Readonly<StreamingInfo> {
    return this.streamingInfo
  }
  /** Titles whose changes wait for the next flush (the bench watches this for growth). */
  get pendingCount(): number {
    return this.pendingTitles.size
  }

  title(id: string): TitleState | undefined {
    return this.titleMap.get(id)
  }
  /** The title of this name (the first one, when the application has several of the same name). */
  titleByName(name: string): TitleState | undefined {
    const ids = this.byName.get(name)
    if (!ids) return undefined
    for (const id of ids) return this.titleMap.get(id)
    return undefined
  }
  /** A title by name or by id: what a binding's `title:` may hold. */
  findTitle(nameOrId: string): TitleState | undefined {
    return this.titleByName(nameOrId) ?? this.titleMap.get(nameOrId)
  }

  /**
   * Renames a title: the name index moves with it, and readers get a `title` change with `name`.
   * Returns false when the title is unknown.
   */
  setTitleName(id: string, name: string): boolean {
    const t = this.titleMap.get(id)
    if (!t) return false
    if (t.name === name) return true
    this.unindex(t)
    t.name = name
    this.index(t)
    this.pending(id).name = name
    return true
  }
  titles(): TitleState[] {
    return [...this.titleMap.values()]
  }

  /** Sets a title's play state. Returns false when the title is unknown (the caller may resynchronise). */
  setTitlePlay(id: string, play: PlayState): boolean {
    const t = this.titleMap.get(id)
    if (!t) return false
    if (t.play !== play) {
      t.play = play
      this.pending(id).play = play
      this.announce('applied', id)
    }
    return true
  }

  /**
   * Updates some of a title's variables, within the store's limits (see APP_STATE_MAX_*). Returns false
   * when the title is unknown.
   */
  setTitleVariables(id: string, variables: Readonly<Record<string, string>>): boolean {
    const t = this.titleMap.get(id)
    if (!t) return false
    let changed: Record<string, string> | undefined
    for (const name of Object.keys(variables)) {
      const value = this.boundedValue(variables[name]!)
      if (t.variables[name] === value) continue
      if (!this.setVariable(t, name, value)) continue
      ;(changed ??= this.pending(id).variables ??= Object.create(null) as Record<string, string>)[name] = value
    }
    if (changed) this.announce('applied', id)
    return true
  }

  /** Replaces every title (a resynchronisation). Pending title changes are superseded and dropped. */
  resetTitles(titles: readonly TitleSnapshot[]): void {
    this.cancelFlush()
    this.pendingTitles.clear()
    this.titleMap.clear()
    this.byName.clear()
    for (const t of titles) {
      if (this.titleMap.size >= this.limits.maxTitles && !this.titleMap.has(t.id)) {
        this.log.once('titles-full', 'warn', 'title limit reached; further titles are not followed', {
          limit: this.limits.maxTitles,
          titles: titles.length,
        })
        break
      }
      const title: MutableTitle = {
        id: t.id,
        name: t.name,
        play: t.play,
        variables: Object.create(null) as Record<string, string>,
      }
      const vars = t.variables ?? {}
      for (const name of Object.keys(vars)) this.setVariable(title, name, this.boundedValue(vars[name]!))
      this.titleMap.set(t.id, title)
      this.index(title)
    }
    this.announce('applied', undefined)
    this.announce('titlesReset', this.titles())
  }

  setLink(status: LinkFreshness): void {
    const prev = this.linkFreshness
    if (
      prev.status === status.status &&
      (prev.status === 'connected' ||
        (status.status === 'stale' && prev.phase === status.phase && prev.error === status.error))
    ) {
      return
    }
    // A stale period keeps its start time while its phase changes: "stale since the link dropped".
    if (prev.status === 'stale' && status.status === 'stale') status = { ...status, since: prev.since }
    this.linkFreshness = status
    this.announce('link', status)
  }

  /** Records what an HTTP command (or a reply) says of replay; emits only the fields that changed. */
  setReplay(info: ReplayInfo): void {
    const changes = diff(this.replayInfo, info)
    if (!changes) return
    this.replayInfo = { ...this.replayInfo, ...changes }
    this.announce('replay', changes)
  }

  /**
   * Forgets the replay state: a reply said it is not what panelbridge believed (a scrub answered
   * `bad request`), and the application does not say what it is instead.
   */
  forgetReplayState(): void {
    if (this.replayInfo.state === undefined) return
    const { state: _forgotten, ...rest } = this.replayInfo
    this.replayInfo = rest
    this.announce('replay', { state: undefined })
  }

  /** Which input is live on each channel, as far as panelbridge's own switches tell. */
  get tally(): ReadonlyMap<number, string> {
    return this.tallies
  }

  setTally(channel: number, input: string): void {
    if (this.tallies.get(channel) === input) return
    this.tallies.set(channel, input)
    this.announce('tally', { channel, input })
  }

  setStreaming(info: StreamingInfo): void {
    const changes = diff(this.streamingInfo, info)
    if (!changes) return
    this.streamingInfo = { ...this.streamingInfo, ...changes }
    this.announce('streaming', changes)
  }

  /** Emits the batched title changes now (tests and shutdown; normally the next loop turn does it). */
  flush(): void {
    this.cancelFlush()
    if (this.pendingTitles.size === 0) return
    const batch = [...this.pendingTitles]
    this.pendingTitles.clear()
    for (const [id, changes] of batch) this.announce('title', { id, changes })
  }

  /** Drops a scheduled flush (stop()). */
  dispose(): void {
    this.cancelFlush()
    this.pendingTitles.clear()
  }

  private index(t: MutableTitle): void {
    let ids = this.byName.get(t.name)
    if (!ids) this.byName.set(t.name, (ids = new Set()))
    ids.add(t.id)
  }

  private unindex(t: MutableTitle): void {
    const ids = this.byName.get(t.name)
    ids?.delete(t.id)
    if (ids?.size === 0) this.byName.delete(t.name)
  }

  /** Sets one variable within the limits; false (and one log line per title) when it is dropped. */
  private setVariable(t: MutableTitle, name: string, value: string): boolean {
    if (name.length > this.limits.maxVariableNameChars) {
      this.log.once('variable-name-too-long', 'warn', 'dropping a variable whose name is too long', {
        title: t.id,
        limit: this.limits.maxVariableNameChars,
        length: name.length,
      })
      return false
    }
    if (!Object.hasOwn(t.variables, name)) {
      const count = this.variableCounts.get(t) ?? 0
      if (count >= this.limits.maxVariablesPerTitle) {
        this.log.once(`variables-full:${t.id}`, 'warn', 'variable limit reached; new variables are dropped', {
          title: t.id,
          limit: this.limits.maxVariablesPerTitle,
        })
        return false
      }
      this.variableCounts.set(t, count + 1)
    }
    t.variables[name] = value
    return true
  }

  private boundedValue(value: string): string {
    const max = this.limits.maxVariableValueChars
    return value.length > max ? value.slice(0, max) : value
  }

  private pending(id: string): TitleChanges {
    let p = this.pendingTitles.get(id)
    if (!p) {
      p = {}
      this.pendingTitles.set(id, p)
    }
    this.flushScheduled ??= setImmediate(() => {
      this.flushScheduled = undefined
      this.flush()
    })
    return p
  }

  private cancelFlush(): void {
    if (this.flushScheduled) clearImmediate(this.flushScheduled)
    this.flushScheduled = undefined
  }
}

function diff<T extends object>(current: T, next: T): Partial<T> | undefined {
  const out: Partial<T> = {}
  let changed = false
  for (const key of Object.keys(next) as (keyof T)[]) {
    const v = next[key]
    if (v === undefined || current[key] === v) continue
    out[key] = v
    changed = true
  }
  return changed ? out : undefined
}
