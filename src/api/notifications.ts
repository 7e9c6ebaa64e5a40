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
 *
 * Whatever says "something changed" without saying what (a notification of another shape, the scheduler's
 * `_cmp_v1_handleFeedbackChangeEvent`, `variablesChanged`, `messageIn`: protocol notes 2.1) re-reads the
 * titles: at once on a quiet link, else debounced, at most LINK_TUNABLES.maxReadsPerSecond debounced reads a second, and
 * a change during a read leads to one more read after it. Where the title list carries no play state, each
 * read also takes it from the layer state (`getValueForKey('newblue.automation.layerstate')`, protocol notes 2.4 [code S1]).
 */
import { Announcer } from '../events.js'
import { createLogger, type Logger } from '../log.js'
import { APP_STATE_LIMITS, type AppState, type LinkPhase, type TitleSnapshot } from './app-state.js'
import { SCHEDULER_CHANNEL, SENDER_EVENTS, parsePlayState, type PlayState } from './protocol.js'
import { QWebChannelClient, QWebChannelError } from './qwebchannel.js'
import { readReply, ReplyShapeError, type ReadReply } from './reply.js'
import { isRecord, jsonDepthExceeds, jsonSnippet } from '../wire.js'
import { PANELBRIDGE_VERSION } from '../version.js'

/** The link's timings and bounds. */
export const LINK_TUNABLES = {
  /** Reconnect back-off: first retry after this long, doubling per failed attempt... */
  backoffInitialMs: 250,
  /** ...up to this cap. */
  backoffMaxMs: 1000,
  /** A socket silent for this long (no frame, no pong) is dead. */
  livenessTimeoutMs: 4000,
  /** Time allowed for the socket to open and for each method call of the session. */
  callTimeoutMs: 3000,
  /** `{control:'addTitle'}`, `{data:'Update'}` and unknown title ids resynchronise after this quiet time. */
  resyncDebounceMs: 150,
  /**
   * A change signal, or a notification of a shape the link does not read, re-reads the titles after this
   * quiet time when a read started within it (a quiet link reads at once): NewBlue's own module debounces
   * a feedback change by 100 ms (protocol notes 5.9 [code S1]).
   */
  changeDebounceMs: 100,
  /**
   * At most this many debounced title reads start within any 1000 ms, however many signals arrive: one per
   * 250 ms, the lifetime NewBlue's module gives a cached feedback state (protocol notes 5.9 [code S1]). A
   * quiet link's read (at most one per `changeDebounceMs`: a press's light) does not wait for it.
   */
  maxReadsPerSecond: 4,
  /**
   * A variable value that is JSON (not text) nested deeper than this is dropped, with a log line; a
   * shallower one becomes its JSON text. Title variables are text; a deep value is never meant.
   */
  maxValueDepth: 32,
} as const
/** The scheduler method that reads the layer state (protocol notes 1.3 [code S1]). */
const GET_VALUE_FOR_KEY = 'getValueForKey'
const CHANGE_SIGNALS: ReadonlySet<string> = new Set(SCHEDULER_CHANNEL.changeSignals)
/** The subscription sender panelbridge creates for itself. */
const LINK_DEFAULT_SENDER = 'panelbridge'
/** Version announced with `notifyClientConnected`: panelbridge's own (package.json's). */
export const LINK_CLIENT_VERSION = PANELBRIDGE_VERSION

/** The link's phases by name (`LinkPhase`). */
const LINK_PHASE = {
  stopped: 'stopped',
  connecting: 'connecting',
  resynchronising: 'resynchronising',
  waitingToRetry: 'waiting-to-retry',
  connected: 'connected',
} as const satisfies Record<string, LinkPhase>

/** The link's timings, each as LINK_TUNABLES says. */
export type LinkTiming = Record<Exclude<keyof typeof LINK_TUNABLES, 'maxValueDepth'>, number>

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
  phase: [phase: LinkPhase]
  /**
   * A notification was understood and kept (after the filter), and the store's data already reflect it
   * (its batched `title` event follows on the next turn of the event loop).
   */
  notification: [notification: Notification]
  /** A resynchronisation finished; `titles` is how many the store now holds. */
  resynchronised: [info: { titles: number }]
  /** The scheduler sent a notification or a change signal, before the link reads it (the press trace). */
  heard: []
}

/** Called with the name of a variable whose value a parser dropped, and why. */
export type DroppedVariable = (name: string, why: string) => void

/**
 * A variable value as text, at most APP_STATE_LIMITS.maxVariableValueChars long; undefined when it is
 * JSON nested deeper than LINK_TUNABLES.maxValueDepth (stringifying it could overflow the stack).
 */
function valueText(v: unknown): string | undefined {
  const max = APP_STATE_LIMITS.maxVariableValueChars
  if (typeof v === 'string') return v.length > max ? v.slice(0, max) : v
  if (v === undefined || v === null) return ''
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v)
  if (jsonDepthExceeds(v, LINK_TUNABLES.maxValueDepth)) return undefined
  return (JSON.stringify(v) ?? '').slice(0, max)
}

/** A null-prototype record: a variable named `__proto__` is an entry like any other. */
function variableRecord(): Record<string, string> {
  return Object.create(null) as Record<string, string>
}

/** Reads one variable into `into`, or reports it dropped. */
function readVariable(into: Record<string, string>, name: string, value: unknown, onDropped?: DroppedVariable): void {
  const t = valueText(value)
  if (t === undefined) onDropped?.(name, `value nested deeper than ${LINK_TUNABLES.maxValueDepth} levels`)
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

/** One title of a `getTitleControlInfo` reply; `status` is undefined where the reply gives no readable one. */
interface ListedTitle {
  id: string
  name: string
  status: PlayState | undefined
  variables: Record<string, string>
  inputs: string[]
}

/**
 * Reads a `getTitleControlInfo` reply through the one reply reader (`src/api/reply.ts`): JSON text or an
 * object, `{result: {titles}}` or flat `{titles}` (as NewBlue's own module reads it over the socket,
 * protocol notes 1.3 [code S1]), `error` at either level. Throws only `BAD_REPLY`; a variable whose
 * value is nested too deep is left out and reported to `onDropped`.
 */
function readTitleList(reply: unknown, onDropped?: DroppedVariable): ListedTitle[] {
  const result = readSchedulerReply('getTitleControlInfo', reply)
  if (!Array.isArray(result.titles)) throw new QWebChannelError('BAD_REPLY', 'getTitleControlInfo: no titles array')
  const out: ListedTitle[] = []
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
      status: parsePlayState(t.status),
      variables,
      inputs: typeof t.input === 'string' && t.input !== '' ? t.input.split(',').map((s) => s.trim()) : [],
    })
  }
  return out
}

/** The titles of a `getTitleControlInfo` reply (see readTitleList); a title without a readable status is Off. */
export function parseTitleControlInfo(
  reply: unknown,
  onDropped?: DroppedVariable,
): (TitleSnapshot & { inputs: string[] })[] {
  return readTitleList(reply, onDropped).map(({ status, ...t }) => ({ ...t, play: status ?? 'Off' }))
}

/**
 * Reads a `getValueForKey('newblue.automation.layerstate')` reply: `{<title id>: {playState}}` with
 * lowercase `running` / `paused` (protocol notes 2.4 [code S1]), as an object (S1 uses it as one) or as
 * JSON text (1.3: results are often text, and text once more encoded is read too). Returns a lookup by
 * title id, or undefined when the reply is no such map. Bounded: the frame it came in is (the client's
 * size and depth limits), and only the ids asked for are looked up, two levels deep, never walked.
 */
export function readLayerState(reply: unknown): ((id: string) => PlayState | undefined) | undefined {
  let value = reply
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value)
    } catch {
      return undefined
    }
  }
  if (!isRecord(value)) return undefined
  const layers = value
  return (id) => {
    if (!Object.hasOwn(layers, id)) return undefined
    const layer = layers[id]
    // S1 reads `playState` of the title's entry; a bare state string is read as well.
    return parsePlayState(isRecord(layer) ? layer.playState : layer)
  }
}

/**
 * A title's play state from the two places the application may give it: the title list's `status` and
 * the layer state (`undefined` when the layer state was not read, or could not be).
 *
 * ASSUMED (protocol notes 2.4 and 4.2; sources S1, S2), in this one place:
 * - Where the title list carries a readable `status` [code S2 fccf77c], it wins over the layer state: it
 *   comes with the very titles read, one per title, and no source says the two ever disagree.
 * - Where it carries none (profile fact `title_status: layer-state-only`), the layer state gives the play
 *   state [code S1]; a title the layer state does not name, or names with another state, is Off (S1
 *   calls it `unknown`: neither running nor paused, so never lit).
 * - With neither, the title is Off (as the list's placeholder status `Done` is, notes 2.4).
 */
export function titlePlay(
  status: PlayState | undefined,
  layers: ((id: string) => PlayState | undefined) | undefined,
  id: string,
): PlayState {
  return status ?? layers?.(id) ?? 'Off'
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
  private phase: LinkPhase = LINK_PHASE.stopped
  /** Bumped whenever a session ends; async steps of an older session see it and stop. */
  private generation = 0
  private failures = 0
  private client: QWebChannelClient | undefined
  private detachClient: (() => void) | undefined
  private retryTimer: NodeJS.Timeout | undefined
  private livenessTimer: NodeJS.Timeout | undefined
  /** Cancels the armed read (a timer's, or an immediate's at once). */
  private cancelRead: (() => void) | undefined
  /** Set once the current resync's snapshot is in the store (before the await continues). */
  private snapshotApplied = false
  /** A read of the titles is under way (from its request until the store has all of it). */
  private readInFlight = false
  /** Something changed during the read under way: one more read follows it, after this quiet time. */
  private readAgainMs: number | undefined
  /** When the last reads started (`Date.now()`), at most `maxReadsPerSecond` of them: the rate bound. */
  private readStarts: number[] = []
  /** The armed read is a quiet link's, at once (`requestChangeRead`). */
  private readAtOnce = false
  /** Play or data notifications put in the store so far, and when the last one was (`Date.now()`). */
  private decisions = { count: 0, at: -Infinity }
  /** A notification decided a key this session: a quiet link's read waits a timer's turn for one, else goes at once. */
  private notifies = false
  /** Titles the last snapshot had but the filter leaves out: their notifications change nothing. */
  private ignoredIds = new Set<string>()
  private lastError: string | undefined

  constructor(private readonly options: NotificationLinkOptions) {
    super()
    this.log = options.logger ?? createLogger('notifications')
    const { maxValueDepth: _notTiming, ...timing } = LINK_TUNABLES
    this.timing = { ...timing, ...options.timing }
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

  get state(): LinkPhase {
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
    // The session's first snapshot, not yet in, covers what was announced before it (decisions: Notifications).
    if (this.phase === LINK_PHASE.resynchronising && !this.snapshotApplied) return
    this.requestRead(this.timing.resyncDebounceMs)
  }

  /**
   * Re-reads the titles after a change the link cannot apply by itself (a change signal, a notification
   * of a shape it does not read). On a quiet link (no read started and no notification decided within
   * `changeDebounceMs`) at once, on the next turn: where the application sends no play notification the
   * read is the only way to the light of a press. Otherwise debounced, like every `requestRead`.
   */
  private requestChangeRead(): void {
    const quiet = Date.now() - Math.max(this.readStarts.at(-1) ?? -Infinity, this.decisions.at)
    this.requestRead(this.timing.changeDebounceMs, quiet >= this.timing.changeDebounceMs ? 0 : undefined)
  }

  /** A play or data notification decided its key: a read at once, armed by a signal of the same change, waits. */
  private decided(): void {
    this.decisions = { count: this.decisions.count + 1, at: Date.now() }
    this.notifies = true
    if (!this.readAtOnce || !this.cancelRead) return
    this.clearRead()
    this.requestRead(this.timing.changeDebounceMs)
  }

  /**
   * The one way to a read of the titles on an open session: one timer at a time (a request while one is
   * armed joins it), armed for `firstAfterMs`; one more read after a read under way (`debounceMs` after
   * it), never more than `maxReadsPerSecond` starting within any 1000 ms but for a read at once
   * (`firstAfterMs` 0). Before the session's first read is sent, that read covers every request.
   */
  private requestRead(debounceMs: number, firstAfterMs = debounceMs): void {
    if (this.phase !== LINK_PHASE.connected && this.phase !== LINK_PHASE.resynchronising) return
    if (this.readInFlight) {
      this.readAgainMs = Math.min(this.readAgainMs ?? debounceMs, debounceMs)
      return
    }
    if (this.cancelRead) return
    const gen = this.generation
    const wait = firstAfterMs === 0 ? 0 : Math.max(firstAfterMs, this.rateWait())
    this.readAtOnce = wait < debounceMs
    const read = (): void => {
      this.cancelRead = undefined
      if (gen !== this.generation || !this.client) return
      this.resync(this.client, gen).catch((err: unknown) => this.fail(gen, err))
    }
    if (wait === 0 && !this.notifies) {
      const at = setImmediate(read)
      this.cancelRead = () => clearImmediate(at)
    } else {
      const at = setTimeout(read, wait)
      this.cancelRead = () => clearTimeout(at)
    }
  }

  /** How long until one more read may start without more than `maxReadsPerSecond` in any 1000 ms. */
  private rateWait(): number {
    const max = Math.max(1, this.timing.maxReadsPerSecond)
    if (this.readStarts.length < max) return 0
    const oldest = this.readStarts[this.readStarts.length - max]!
    return Math.max(0, oldest + 1000 - Date.now())
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
      if (e.object !== SCHEDULER_CHANNEL.object) return
      this.announce('heard')
      if (e.signal === SCHEDULER_CHANNEL.notifySignal) this.onNotify(e.args[0])
      else if (CHANGE_SIGNALS.has(e.signal)) this.onChangeSignal(e.signal)
    }
    client.on('close', onClose)
    client.on('signal', onSignal)
    this.client = client
    this.detachClient = () => {
      client.off('close', onClose)
      client.off('signal', onSignal)
    }
    this.runSession(client, gen).catch((err: unknown) => this.fail(gen, err))
  }

  private async runSession(client: QWebChannelClient, gen: number): Promise<void> {
    await client.connect()
    if (gen !== this.generation) return
    this.startLiveness(client, gen)
    client.connectSignal(SCHEDULER_CHANNEL.object, SCHEDULER_CHANNEL.notifySignal)
    // Each change signal only where the application publishes it: older builds have none (notes 2.1).
    const published = client.published.get(SCHEDULER_CHANNEL.object)?.signals
    for (const signal of SCHEDULER_CHANNEL.changeSignals) {
      if (published?.has(signal)) client.connectSignal(SCHEDULER_CHANNEL.object, signal)
    }
    const info = await client.invoke(SCHEDULER_CHANNEL.object, 'notifyClientConnected', [
      SCHEDULER_CHANNEL.clientAppId,
      this.options.version ?? LINK_CLIENT_VERSION,
      {},
    ])
    if (gen !== this.generation) return
    this.log.debug('application announced', { info: isRecord(info) ? info : jsonSnippet(info, 200) })
    const events = SENDER_EVENTS.subscribed.join(',')
    if (this.options.subscribe) {
      await this.options.subscribe(this.sender, events)
    } else {
      const reply = await client.invoke(SCHEDULER_CHANNEL.object, 'scheduleCommand', [
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

  /**
   * Replaces the store's titles from `getTitleControlInfo` (and, where the scheduler publishes
   * `getValueForKey`, the play states of titles listed without one from the layer state); the first one
   * of a session makes it `connected`.
   */
  private async resync(client: QWebChannelClient, gen: number): Promise<void> {
    if (this.phase !== LINK_PHASE.connected) this.setPhase(LINK_PHASE.resynchronising)
    this.snapshotApplied = false
    this.readInFlight = true
    this.readStarts.push(Date.now())
    this.readStarts = this.readStarts.slice(-Math.max(1, this.timing.maxReadsPerSecond))
    const layered = client.published.get(SCHEDULER_CHANNEL.object)?.methods.has(GET_VALUE_FOR_KEY) === true
    let snapshot: { count: number; statusless: string[] } = { count: 0, statusless: [] }
    // The layer state is asked for with the title list, not after its reply (one round trip, not two), and
    // applied after it whichever comes first. A notification that came after the layer state's reply is
    // newer than it: then the layers are not applied, and the titles are read once more.
    let layers: { value: unknown; decisions: number } | undefined
    const applyLayers = (): void => {
      if (gen !== this.generation || !this.snapshotApplied || !layers) return
      if (layers.decisions === this.decisions.count) this.applyLayerState(layers.value, snapshot.statusless)
      else this.requestRead(this.timing.changeDebounceMs)
    }
    // icon=0: the title icons (data URLs) are of no use to the link and would make each resync heavy.
    const list = client.invoke(
      SCHEDULER_CHANNEL.object,
      'scheduleCommand',
      ['getTitleControlInfo', { icon: '0' }, {}],
      {
        // Applied as the reply frame is handled, so that notifications after it land on the new snapshot.
        onReply: (reply) => {
          if (gen !== this.generation) return
          snapshot = this.applySnapshot(reply, layered)
          this.snapshotApplied = true
          applyLayers()
        },
      },
    )
    const layerRead = layered
      ? client.invoke(SCHEDULER_CHANNEL.object, GET_VALUE_FOR_KEY, [SCHEDULER_CHANNEL.layerStateKey], {
          onReply: (value) => ((layers = { value, decisions: this.decisions.count }), applyLayers()),
        })
      : undefined
    await Promise.all([list, layerRead])
    if (gen !== this.generation) return
    const count = snapshot.count
    if (this.phase !== LINK_PHASE.connected) {
      this.failures = 0
      this.lastError = undefined
      if (!this.log.once('link-up', 'info', 'notification link up', { url: this.options.url, titles: count })) {
        this.log.debug('notification link up again', { titles: count })
      }
      this.log.clear('link-down')
      this.setPhase(LINK_PHASE.connected)
    }
    this.readInFlight = false
    const again = this.readAgainMs
    this.readAgainMs = undefined
    if (again !== undefined) this.requestRead(again)
    this.announce('resynchronised', { titles: count })
  }

  /**
   * Puts a `getTitleControlInfo` reply in the store, filtered. With the layer state to follow (`layered`),
   * a title listed without a play state keeps the one the store shows until that read lands (a moment
   * later, in the same read): a lit key does not blink dark on every re-read. Returns how many titles
   * were kept and which of them had no play state.
   */
  private applySnapshot(reply: unknown, layered: boolean): { count: number; statusless: string[] } {
    const all = readTitleList(reply, this.onDropped)
    const kept: TitleSnapshot[] = []
    const statusless: string[] = []
    this.ignoredIds = new Set()
    for (const t of all) {
      const byTitle = !this.titleFilter || this.titleFilter.has(t.id) || this.titleFilter.has(t.name)
      const byInput = !this.inputFilter || t.inputs.length === 0 || t.inputs.some((i) => this.inputFilter?.has(i))
      if (!(byTitle && byInput)) {
        this.ignoredIds.add(t.id)
        continue
      }
      if (t.status === undefined) statusless.push(t.id)
      const shown = layered && t.status === undefined ? this.options.state.title(t.id)?.play : undefined
      kept.push({ id: t.id, name: t.name, variables: t.variables, play: shown ?? titlePlay(t.status, undefined, t.id) })
    }
    this.options.state.resetTitles(kept)
    return { count: kept.length, statusless }
  }

  /** Sets the play state of each title listed without one from a layer-state reply (see titlePlay). */
  private applyLayerState(reply: unknown, statusless: readonly string[]): void {
    const layers = readLayerState(reply)
    if (!layers) {
      // Titles keep what they showed; the next read tries again.
      this.log.once('layer-state-unreadable', 'warn', 'the layer state is not a map of title ids; play states kept', {
        sample: jsonSnippet(reply, 120),
      })
      return
    }
    this.log.clear('layer-state-unreadable')
    for (const id of statusless) this.options.state.setTitlePlay(id, titlePlay(undefined, layers, id))
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
    this.clearRead()
    this.readInFlight = false
    this.readAgainMs = undefined
    this.detachClient?.()
    this.detachClient = undefined
    this.client?.close()
    this.client = undefined
    this.snapshotApplied = false
    this.notifies = false
  }

  private clearTimer(which: 'retryTimer' | 'livenessTimer'): void {
    const t = this[which]
    if (t) clearTimeout(t)
    this[which] = undefined
  }

  private clearRead(): void {
    this.cancelRead?.()
    this.cancelRead = undefined
  }

  private setPhase(phase: LinkPhase): void {
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
      // `onNotify` carries the whole command bus (notes 2.1) and Captivate's play form is unknown (2.3):
      // what the link cannot read may still be a change, so the titles are read again.
      this.log.once('unknown-notification', 'debug', 'a notification of another shape; re-reading the titles', {
        sample: jsonSnippet(raw, 120),
      })
      this.requestChangeRead()
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
    this.decided()
    this.announce('notification', n)
  }

  /** A change signal (SCHEDULER_CHANNEL.changeSignals): what changed is not said, so the titles are read again. */
  private onChangeSignal(signal: string): void {
    this.log.once(`change-signal-${signal}`, 'debug', 'a change signal; re-reading the titles', { signal })
    this.requestChangeRead()
  }
}
