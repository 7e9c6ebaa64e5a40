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
import { EventEmitter } from 'eventemitter3'
import type { PlayState, ReplayState } from './protocol.js'

/** What the link is doing while the state is not (yet) trustworthy. */
export type LinkPhase = 'stopped' | 'connecting' | 'resynchronising' | 'waiting-to-retry'

export type LinkStatus =
  /** Connected, subscribed and resynchronised: the titles reflect the application. */
  | { status: 'connected'; since: number }
  /** The titles may be out of date; `phase` says what the link is doing about it. */
  | { status: 'stale'; phase: LinkPhase; since: number; error?: string }

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
  /** One title changed; `changes` holds only what changed since the previous event. */
  title: [change: { id: string; changes: TitleChanges }]
  /** The whole title list was replaced (after a resynchronisation). */
  titlesReset: [titles: readonly TitleState[]]
  link: [status: LinkStatus]
  replay: [changes: ReplayInfo]
  streaming: [changes: StreamingInfo]
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
  variables: Record<string, string>
}

export class AppState extends EventEmitter<AppStateEvents> {
  private readonly titleMap = new Map<string, MutableTitle>()
  private readonly pendingTitles = new Map<string, TitleChanges>()
  private flushScheduled: NodeJS.Immediate | undefined
  private linkStatus: LinkStatus = { status: 'stale', phase: 'stopped', since: Date.now() }
  private replayInfo: ReplayInfo = {}
  private streamingInfo: StreamingInfo = {}

  get link(): LinkStatus {
    return this.linkStatus
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
  titleByName(name: string): TitleState | undefined {
    for (const t of this.titleMap.values()) if (t.name === name) return t
    return undefined
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
    }
    return true
  }

  /** Updates some of a title's variables. Returns false when the title is unknown. */
  setTitleVariables(id: string, variables: Readonly<Record<string, string>>): boolean {
    const t = this.titleMap.get(id)
    if (!t) return false
    let changed: Record<string, string> | undefined
    for (const [name, value] of Object.entries(variables)) {
      if (t.variables[name] === value) continue
      t.variables[name] = value
      ;(changed ??= this.pending(id).variables ??= {})[name] = value
    }
    return true
  }

  /** Replaces every title (a resynchronisation). Pending title changes are superseded and dropped. */
  resetTitles(titles: readonly TitleSnapshot[]): void {
    this.cancelFlush()
    this.pendingTitles.clear()
    this.titleMap.clear()
    for (const t of titles) {
      this.titleMap.set(t.id, { id: t.id, name: t.name, play: t.play, variables: { ...(t.variables ?? {}) } })
    }
    this.emit('titlesReset', this.titles())
  }

  setLink(status: LinkStatus): void {
    const prev = this.linkStatus
    if (
      prev.status === status.status &&
      (prev.status === 'connected' ||
        (status.status === 'stale' && prev.phase === status.phase && prev.error === status.error))
    ) {
      return
    }
    // A stale period keeps its start time while its phase changes: "stale since the link dropped".
    if (prev.status === 'stale' && status.status === 'stale') status = { ...status, since: prev.since }
    this.linkStatus = status
    this.emit('link', status)
  }

  /** Records what an HTTP command (or a reply) says of replay; emits only the fields that changed. */
  setReplay(info: ReplayInfo): void {
    const changes = diff(this.replayInfo, info)
    if (!changes) return
    this.replayInfo = { ...this.replayInfo, ...changes }
    this.emit('replay', changes)
  }

  setStreaming(info: StreamingInfo): void {
    const changes = diff(this.streamingInfo, info)
    if (!changes) return
    this.streamingInfo = { ...this.streamingInfo, ...changes }
    this.emit('streaming', changes)
  }

  /** Emits the batched title changes now (tests and shutdown; normally the next loop turn does it). */
  flush(): void {
    this.cancelFlush()
    if (this.pendingTitles.size === 0) return
    const batch = [...this.pendingTitles]
    this.pendingTitles.clear()
    for (const [id, changes] of batch) this.emit('title', { id, changes })
  }

  /** Drops a scheduled flush (stop()). */
  dispose(): void {
    this.cancelFlush()
    this.pendingTitles.clear()
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
