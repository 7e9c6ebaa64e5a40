/**
 * The notification link: keeps an `AppState` in step with the application over its QWebChannel
 * WebSocket (protocol notes 1.3 and 2; decisions: Notifications).
 *
 * One reconnect state machine. "Want connected" (`wanted`, set by start()/stop()) is kept apart from
 * "is connected" (`phase`). Every attempt makes a fresh QWebChannel client and runs the whole session:
 * init → connect `onNotify` → `notifyClientConnected` → `subscribe` (own sender; play, data, control)
 * → resynchronise every title from `getTitleControlInfo`. Only then is the store `connected`; from
 * the moment a socket drops it is `stale`, with the link's phase as detail. A failure at any step closes
 * the client and arms the one retry timer (backoff 250 ms doubling to 1 s). A socket that stays silent
 * past the liveness time-out (it is pinged well within it) is treated as dead.
 *
 * Every client receives every notification and none names its sender, so the link keeps what concerns
 * it by title id (and input, where a notification has one), through a configurable filter.
 */
import { Announcer } from '../events.js'
import { createLogger, type Logger } from '../log.js'
import { APP_STATE_MAX_VARIABLE_VALUE_CHARS, type AppState, type LinkPhase, type TitleSnapshot } from './app-state.js'
import {
  CLIENT_APP_ID,
  NOTIFICATION_EVENTS,
  QWC_NOTIFY_SIGNAL,
  QWC_SCHEDULER_OBJECT,
  parsePlayState,
  type PlayState,
} from './protocol.js'
import { QWebChannelClient, QWebChannelError } from './qwebchannel.js'
import { readReply, ReplyShapeError, type ReadReply } from './reply.js'
import { isRecord, jsonDepthExceeds, jsonSnippet } from '../wire.js'

/** Reconnect back-off: first retry after this long, doubling per failed attempt... */
export const LINK_BACKOFF_INITIAL_MS = 250
/** ...up to this cap. */
export const LINK_BACKOFF_MAX_MS = 1000
/** A socket silent for this long (no frame, no pong) is dead. */
export const LINK_LIVENESS_TIMEOUT_MS = 4000
/** Time allowed for the socket to open and for each method call of the session. */
export const LINK_CALL_TIMEOUT_MS = 3000
/** `{control:'addTitle'}`, `{data:'Update'}` and unknown title ids resynchronise after this quiet time. */
export const LINK_RESYNC_DEBOUNCE_MS = 150
/** The subscription sender panelbridge creates for itself. */
export const LINK_DEFAULT_SENDER = 'panelbridge'
/** Version announced with `notifyClientConnected`. */
export const LINK_CLIENT_VERSION = '0.1.0'
/**
 * A variable value that is JSON (not text) nested deeper than this is dropped, with a log line; a
 * shallower one becomes its JSON text. Title variables are text; a deep value is never meant.
 */
export const NOTIFY_MAX_VALUE_DEPTH = 32

/** The link's phases: the store's `LinkPhase`s plus `connected`. */
export const LINK_PHASE = {
  stopped: 'stopped',
  connecting: 'connecting',
  resynchronising: 'resynchronising',
  waitingToRetry: 'waiting-to-retry',
  connected: 'connected',
} as const satisfies Record<string, LinkPhase | 'connected'>
export type LinkState = (typeof LINK_PHASE)[keyof typeof LINK_PHASE]

export interface LinkTiming {
  backoffInitialMs: number
  backoffMaxMs: number
  livenessTimeoutMs: number
  callTimeoutMs: number
  resyncDebounceMs: number
}

/** What the link keeps: titles by id or name, and inputs. Empty or absent lists mean "all". */
export interface NotificationFilter {
  titles?: readonly string[]
  inputs?: readonly string[]
}

export interface NotificationLinkOptions {
  /** `ws://host:9023`. */
  url: string
  state: AppState
  filter?: NotificationFilter
  sender?: string
  version?: string
  timing?: Partial<LinkTiming>
  /**
   * Subscribes the sender. Default: `scheduleCommand('subscribe', ...)` over the socket. Injected when
   * the daemon prefers the HTTP client; called on every (re)connect.
   */
  subscribe?: (sender: string, events: string) => Promise<void>
  logger?: Logger
}

/** The five notification shapes of decisions.md, normalised. */
export type Notification =
  | { kind: 'play'; id: string; play: PlayState; input?: string }
  | { kind: 'data'; id: string; variables: Record<string, string>; input?: string }
  /** `{control: 'addTitle'}` (and other `control` values, such as the simulator's `removeTitle`). */
  | { kind: 'control'; control: string }
  /** `{data: 'Update'}`, the older Titler Live data notification. */
  | { kind: 'update' }

export interface NotificationLinkEvents {
  /** The link's phase changed. */
  phase: [phase: LinkState]
  /**
   * A notification was understood and kept (after the filter), and the store's data already reflect it
   * (its batched `title` event follows on the next turn of the event loop).
   */
  notification: [notification: Notification]
  /** A resynchronisation finished; `titles` is how many the store now holds. */
  resynchronised: [info: { titles: number }]
}

/** Called with the name of a variable whose value a parser dropped, and why. */
export type DroppedVariable = (name: string, why: string) => void

/**
 * A variable value as text, at most APP_STATE_MAX_VARIABLE_VALUE_CHARS long; undefined when it is
 * JSON nested deeper than NOTIFY_MAX_VALUE_DEPTH (stringifying it could overflow the stack).
 */
function valueText(v: unknown): string | undefined {
  const max = APP_STATE_MAX_VARIABLE_VALUE_CHARS
  if (typeof v === 'string') return v.length > max ? v.slice(0, max) : v
  if (v === undefined || v === null) return ''
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v)
  if (jsonDepthExceeds(v, NOTIFY_MAX_VALUE_DEPTH)) return undefined
  return (JSON.stringify(v) ?? '').slice(0, max)
}

/** A null-prototype record: a variable named `__proto__` is an entry like any other. */
function variableRecord(): Record<string, string> {
  return Object.create(null) as Record<string, string>
}

/** Reads one variable into `into`, or reports it dropped. */
function readVariable(into: Record<string, string>, name: string, value: unknown, onDropped?: DroppedVariable): void {
  const t = valueText(value)
  if (t === undefined) onDropped?.(name, `value nested deeper than ${NOTIFY_MAX_VALUE_DEPTH} levels`)
  else into[name] = t
}

/**
 * Parses one `onNotify` argument (JSON text or an object) into one of the five shapes; anything else
 * (including the other command-bus traffic `onNotify` carries) gives undefined. Never throws: a
 * variable whose value is nested too deep is left out and reported to `onDropped`.
 */
export function parseNotification(raw: unknown, onDropped?: DroppedVariable): Notification | undefined {
  let msg: unknown = raw
  if (typeof raw === 'string') {
    try {
      msg = JSON.parse(raw)
    } catch {
      return undefined
    }
  }
  if (!isRecord(msg)) return undefined
  const input = typeof msg.input === 'string' && msg.input !== '' ? { input: msg.input } : {}
  const id = typeof msg.id === 'string' && msg.id !== '' ? msg.id : undefined
  if (msg.event === 'data') {
    if (!id || !Array.isArray(msg.variables)) return undefined
    const variables = variableRecord()
    for (const v of msg.variables as unknown[]) {
      if (isRecord(v) && typeof v.name === 'string') readVariable(variables, v.name, v.value, onDropped)
    }
    return { kind: 'data', id, variables, ...input }
  }
  if (msg.event === 'play') {
    // The field carrying the state in Captivate's `event: 'play'` form is unknown (protocol notes 2.3):
    // take the first of the likely names that parses.
    const play = [msg.play, msg.state, msg.status, msg.playState].map(parsePlayState).find((p) => p !== undefined)
    if (!id || !play) return undefined
    return { kind: 'play', id, play, ...input }
  }
  if (msg.event === undefined && 'play' in msg) {
    const play = parsePlayState(msg.play)
    if (!id || !play) return undefined
    return { kind: 'play', id, play, ...input }
  }
  // decisions.md names `addTitle`; any other control event (a title removed, say) is just as much a
  // reason to resynchronise, so every string `control` is kept.
  if (typeof msg.control === 'string' && msg.control !== '') return { kind: 'control', control: msg.control }
  if (msg.data === 'Update') return { kind: 'update' }
  return undefined
}

/**
 * Reads a `getTitleControlInfo` reply through the one reply reader (`src/api/reply.ts`): JSON text or an
 * object, `{result: {titles}}` or flat `{titles}` (as NewBlue's own module reads it over the socket,
 * protocol notes 1.3 [code S1]), `error` at either level. Throws only `BAD_REPLY`; a variable whose
 * value is nested too deep is left out and reported to `onDropped`.
 */
export function parseTitleControlInfo(
  reply: unknown,
  onDropped?: DroppedVariable,
): (TitleSnapshot & { inputs: string[] })[] {
  const result = readSchedulerReply('getTitleControlInfo', reply)
  if (!Array.isArray(result.titles)) throw new QWebChannelError('BAD_REPLY', 'getTitleControlInfo: no titles array')
  const out: (TitleSnapshot & { inputs: string[] })[] = []
  for (const t of result.titles) {
    if (!isRecord(t) || typeof t.id !== 'string') continue
    const variables = variableRecord()
    if (Array.isArray(t.variables)) {
      for (const v of t.variables as unknown[]) {
        if (isRecord(v) && typeof v.variable === 'string') readVariable(variables, v.variable, v.value, onDropped)
      }
    }
    out.push({
      id: t.id,
      name: typeof t.name === 'string' ? t.name : t.id,
      play: parsePlayState(t.status) ?? 'Off',
      variables,
      inputs: typeof t.input === 'string' && t.input !== '' ? t.input.split(',').map((s) => s.trim()) : [],
    })
  }
  return out
}

/**
 * A `scheduleCommand` reply over the socket, through the one reply reader: its fields, or `BAD_REPLY`
 * naming the command (an unreadable reply, or the application's `error`; `refused` words a refusal).
 */
function readSchedulerReply(command: string, reply: unknown, refused?: string): Record<string, unknown> {
  let read: ReadReply
  try {
    read = readReply(reply)
  } catch (err) {
    if (err instanceof ReplyShapeError) throw new QWebChannelError('BAD_REPLY', `${command}: ${err.message}`)
    throw err
  }
  if (read.error !== undefined) {
    // The application's text: quoted and cut for a read, as it came for a refusal of ours.
    const why = refused === undefined ? `${command}: ${jsonSnippet(read.error, 200)}` : `${refused}: ${read.error}`
    throw new QWebChannelError('BAD_REPLY', why)
  }
  return read.fields
}

function replyReadable(reply: unknown): boolean {
  try {
    readReply(reply)
    return true
  } catch (err) {
    if (err instanceof ReplyShapeError) return false
    throw err
  }
}

export class NotificationLink extends Announcer<NotificationLinkEvents> {
  private readonly log: Logger
  private readonly timing: LinkTiming
  private readonly sender: string
  private titleFilter: ReadonlySet<string> | undefined
  private inputFilter: ReadonlySet<string> | undefined

  /** "Want connected": set by start(), cleared by stop(). */
  private wanted = false
  /** "Is connected" and what the link is doing: `connected` only once resynchronised. */
  private phase: LinkState = LINK_PHASE.stopped
  /** Bumped whenever a session ends; async steps of an older session see it and stop. */
  private generation = 0
  private failures = 0
  private client: QWebChannelClient | undefined
  private detachClient: (() => void) | undefined
  private retryTimer: NodeJS.Timeout | undefined
  private livenessTimer: NodeJS.Timeout | undefined
  private resyncTimer: NodeJS.Timeout | undefined
  /** Set once the current resync's snapshot is in the store (before the await continues). */
  private snapshotApplied = false
  /** Titles the last snapshot had but the filter leaves out: their notifications change nothing. */
  private ignoredIds = new Set<string>()
  private lastError: string | undefined

  constructor(private readonly options: NotificationLinkOptions) {
    super()
    this.log = options.logger ?? createLogger('notifications')
    this.timing = {
      backoffInitialMs: LINK_BACKOFF_INITIAL_MS,
      backoffMaxMs: LINK_BACKOFF_MAX_MS,
      livenessTimeoutMs: LINK_LIVENESS_TIMEOUT_MS,
      callTimeoutMs: LINK_CALL_TIMEOUT_MS,
      resyncDebounceMs: LINK_RESYNC_DEBOUNCE_MS,
      ...options.timing,
    }
    this.sender = options.sender ?? LINK_DEFAULT_SENDER
    this.applyFilter(options.filter)
  }

  /**
   * Changes which titles and inputs the link keeps, without a new socket: a reload whose bindings
   * follow another title resynchronises on the open connection (debounced), and the snapshot is
   * filtered anew.
   */
  setFilter(filter: NotificationFilter | undefined): void {
    this.applyFilter(filter)
    this.requestResync()
  }

  private applyFilter(filter: NotificationFilter | undefined): void {
    const titles = filter?.titles ?? []
    const inputs = filter?.inputs ?? []
    this.titleFilter = titles.length > 0 ? new Set(titles) : undefined
    this.inputFilter = inputs.length > 0 ? new Set(inputs) : undefined
  }

  get state(): LinkState {
    return this.phase
  }
  get isConnected(): boolean {
    return this.phase === LINK_PHASE.connected
  }
  /** Calls awaiting a reply on the current socket (the bench watches it for growth). */
  get pendingCalls(): number {
    return this.client?.pendingCount ?? 0
  }

  /** Starts connecting (and keeps reconnecting until stop()). Idempotent. */
  start(): void {
    if (this.wanted) return
    this.wanted = true
    this.failures = 0
    this.connectNow()
  }

  /** Closes the socket, cancels every timer and removes every listener the link added. Idempotent. */
  stop(): void {
    this.wanted = false
    this.generation++
    this.clearTimer('retryTimer')
    this.endSession()
    this.setPhase(LINK_PHASE.stopped)
  }

  /** Asks for a full resynchronisation soon (debounced). Used for addTitle / Update / unknown titles. */
  requestResync(): void {
    if (this.phase === LINK_PHASE.resynchronising && !this.snapshotApplied) return // the snapshot under way covers it
    if (this.phase !== LINK_PHASE.connected && this.phase !== LINK_PHASE.resynchronising) return
    if (this.resyncTimer) return
    const gen = this.generation
    this.resyncTimer = setTimeout(() => {
      this.resyncTimer = undefined
      if (gen !== this.generation || !this.client) return
      const client = this.client
      this.resync(client, gen).then(
        () => undefined,
        (err: unknown) => this.fail(gen, err),
      )
    }, this.timing.resyncDebounceMs)
  }

  // ---- the state machine --------------------------------------------------------------------------

  private connectNow(): void {
    if (!this.wanted) return
    const gen = ++this.generation
    this.setPhase(LINK_PHASE.connecting)
    const client = new QWebChannelClient({
      url: this.options.url,
      callTimeoutMs: this.timing.callTimeoutMs,
      connectTimeoutMs: this.timing.callTimeoutMs,
      logger: this.log.child('qwc'),
    })
    const onClose = (info: { code: number; reason: string }): void =>
      this.fail(gen, new QWebChannelError('DISCONNECTED', `socket closed (${info.code})`))
    const onSignal = (e: { object: string; signal: string; args: unknown[] }): void => {
      if (e.object === QWC_SCHEDULER_OBJECT && e.signal === QWC_NOTIFY_SIGNAL) this.onNotify(e.args[0])
    }
    client.on('close', onClose)
    client.on('signal', onSignal)
    this.client = client
    this.detachClient = () => {
      client.off('close', onClose)
      client.off('signal', onSignal)
    }
    this.runSession(client, gen).then(
      () => undefined,
      (err: unknown) => this.fail(gen, err),
    )
  }

  private async runSession(client: QWebChannelClient, gen: number): Promise<void> {
    await client.connect()
    if (gen !== this.generation) return
    this.startLiveness(client, gen)
    client.connectSignal(QWC_SCHEDULER_OBJECT, QWC_NOTIFY_SIGNAL)
    const info = await client.invoke(QWC_SCHEDULER_OBJECT, 'notifyClientConnected', [
      CLIENT_APP_ID,
      this.options.version ?? LINK_CLIENT_VERSION,
      {},
    ])
    if (gen !== this.generation) return
    this.log.debug('application announced', { info: isRecord(info) ? info : jsonSnippet(info, 200) })
    const events = NOTIFICATION_EVENTS.join(',')
    if (this.options.subscribe) {
      await this.options.subscribe(this.sender, events)
    } else {
      const reply = await client.invoke(QWC_SCHEDULER_OBJECT, 'scheduleCommand', [
        'subscribe',
        { sender: this.sender, events, id: '', input: '' },
        {},
      ])
      // Only an explicit refusal fails the session: Qt answers `null` for a method that failed, and the
      // contract shows subscribe answering a bare `{}`.
      if (replyReadable(reply)) readSchedulerReply('subscribe', reply, 'subscribe refused')
    }
    if (gen !== this.generation) return
    await this.resync(client, gen)
  }

  /** Replaces the store's titles from `getTitleControlInfo`; the first one of a session makes it `connected`. */
  private async resync(client: QWebChannelClient, gen: number): Promise<void> {
    if (this.phase !== LINK_PHASE.connected) this.setPhase(LINK_PHASE.resynchronising)
    this.snapshotApplied = false
    let count = 0
    // icon=0: the title icons (data URLs) are of no use to the link and would make each resync heavy.
    await client.invoke(QWC_SCHEDULER_OBJECT, 'scheduleCommand', ['getTitleControlInfo', { icon: '0' }, {}], {
      // Applied as the reply frame is handled, so that notifications after it land on the new snapshot.
      onReply: (reply) => {
        if (gen !== this.generation) return
        count = this.applySnapshot(reply)
        this.snapshotApplied = true
      },
    })
    if (gen !== this.generation) return
    if (this.phase !== LINK_PHASE.connected) {
      this.failures = 0
      this.lastError = undefined
      if (!this.log.once('link-up', 'info', 'notification link up', { url: this.options.url, titles: count })) {
        this.log.debug('notification link up again', { titles: count })
      }
      this.log.clear('link-down')
      this.setPhase(LINK_PHASE.connected)
    }
    this.announce('resynchronised', { titles: count })
  }

  private applySnapshot(reply: unknown): number {
    const all = parseTitleControlInfo(reply, this.onDropped)
    const kept: TitleSnapshot[] = []
    this.ignoredIds = new Set()
    for (const t of all) {
      const byTitle = !this.titleFilter || this.titleFilter.has(t.id) || this.titleFilter.has(t.name)
      const byInput = !this.inputFilter || t.inputs.length === 0 || t.inputs.some((i) => this.inputFilter?.has(i))
      if (byTitle && byInput) kept.push(t)
      else this.ignoredIds.add(t.id)
    }
    this.options.state.resetTitles(kept)
    return kept.length
  }

  private fail(gen: number, err: unknown): void {
    if (gen !== this.generation || !this.wanted) return
    this.generation++
    this.endSession()
    const message = err instanceof Error ? err.message : jsonSnippet(err, 200)
    const code = err instanceof QWebChannelError ? err.code : undefined
    this.lastError = message
    this.log.once('link-down', 'warn', 'notification link down; retrying', { url: this.options.url, code, message })
    this.log.clear('link-up')
    this.setPhase(LINK_PHASE.waitingToRetry)
    this.scheduleRetry()
  }

  /** The one retry timer, guarded: never two. */
  private scheduleRetry(): void {
    if (this.retryTimer || !this.wanted) return
    const delay = Math.min(this.timing.backoffInitialMs * 2 ** this.failures, this.timing.backoffMaxMs)
    this.failures++
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined
      this.connectNow()
    }, delay)
  }

  /** A socket with no frame and no pong for the liveness time-out is dead; it is pinged well within it. */
  private startLiveness(client: QWebChannelClient, gen: number): void {
    this.clearTimer('livenessTimer')
    const every = Math.max(10, Math.floor(this.timing.livenessTimeoutMs / 3))
    this.livenessTimer = setInterval(() => {
      if (gen !== this.generation) return
      const silentFor = Date.now() - client.lastActivity
      if (silentFor > this.timing.livenessTimeoutMs) {
        this.fail(gen, new QWebChannelError('TIMEOUT', `socket silent for ${silentFor} ms`))
        return
      }
      client.ping()
    }, every)
  }

  private endSession(): void {
    this.clearTimer('livenessTimer')
    this.clearTimer('resyncTimer')
    this.detachClient?.()
    this.detachClient = undefined
    this.client?.close()
    this.client = undefined
    this.snapshotApplied = false
  }

  private clearTimer(which: 'retryTimer' | 'livenessTimer' | 'resyncTimer'): void {
    const t = this[which]
    if (t) clearTimeout(t)
    this[which] = undefined
  }

  private setPhase(phase: LinkState): void {
    const changed = phase !== this.phase
    this.phase = phase
    this.options.state.setLink(
      phase === LINK_PHASE.connected
        ? { status: 'connected', since: Date.now() }
        : { status: 'stale', phase, since: Date.now(), ...(this.lastError ? { error: this.lastError } : {}) },
    )
    if (changed) this.announce('phase', phase)
  }

  // ---- notifications ------------------------------------------------------------------------------

  /** One log line per variable value a parser dropped (the logger rate-limits a flood of them). */
  private readonly onDropped: DroppedVariable = (name, why) =>
    this.log.warn('dropped a variable value the application sent', { variable: name, why })

  private onNotify(raw: unknown): void {
    const n = parseNotification(raw, this.onDropped)
    if (!n) {
      this.log.once('unknown-notification', 'debug', 'ignoring a notification of another shape', {
        sample: jsonSnippet(raw, 120),
      })
      return
    }
    if (n.kind === 'control' || n.kind === 'update') {
      this.announce('notification', n)
      this.requestResync()
      return
    }
    if (n.input !== undefined && this.inputFilter && !this.inputFilter.has(n.input)) return
    if (this.ignoredIds.has(n.id)) return
    const state = this.options.state
    const known = n.kind === 'play' ? state.setTitlePlay(n.id, n.play) : state.setTitleVariables(n.id, n.variables)
    if (!known) {
      // A title the last snapshot did not have: it was added since. Learn its name before keeping it.
      this.requestResync()
      return
    }
    this.announce('notification', n)
  }
}
