/**
 * `panelbridge probe`'s session with a real application: read-only, over both transports, with the
 * daemon's own pieces (the command client, the QWebChannel client, the one reply reader).
 *
 * What it sends, and nothing else (issue 20 Build 5, issue 30 Build 5; each one reads):
 * - over HTTP and through `scheduleCommand` on the socket: PROBE_COMMANDS;
 * - on the socket: `notifyClientConnected` (as the daemon announces itself), `getValueForKey` for the
 *   layer state and `_cmp_v1_query` for the automation registry, when the init reply publishes them;
 * - a second socket connection that only runs the init exchange, to compare method indexes.
 *
 * It does not `subscribe`: a subscribe adds a sender to the application's table (harmless, but a
 * change, and not on the issue's list). The notes say all clients receive the notifications of every
 * subscription (2.1), so probe listens to what other clients' subscriptions (and the default sender)
 * carry, and reports whether any arrived and whether a subscription covers each event.
 *
 * Then it listens to every signal the init reply lists for the time asked, reading the titles (and
 * the layer state) every POLL, so that a play change shows even when no notification announces it.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { CommandClient } from '../api/client.js'
import { isCommandError } from '../api/errors.js'
import { SCHEDULER_CHANNEL, QWC_MESSAGE } from '../api/protocol.js'
import { QWebChannelClient, type QwcSignalEvent } from '../api/qwebchannel.js'
import { readReply, ReplyShapeError } from '../api/reply.js'
import { CaptureRecorder, redactCaptureText, redactValue } from './probe-capture.js'
import {
  checkAssumptions,
  observeFacts,
  PROBE_ICON_SIDE,
  type AssumptionCheck,
  type FactObservation,
  type ProbeObservations,
  type ReplySeen,
  type TitlePoll,
} from './probe-facts.js'
import { isRecord, jsonDepthExceeds, jsonSnippet } from '../wire.js'

/** The commands probe runs over both transports: each one reads, none changes anything. */
const PROBE_COMMANDS: readonly {
  command: string
  /** Parameters for the command client (catalogue types). */
  http: Record<string, unknown>
  /** `scheduleCommand`'s parameters, as the application's own clients send them. */
  socket: Record<string, unknown>
}[] = [
  // As the daemon's link reads titles (no icons)...
  { command: 'getTitleControlInfo', http: { icon: false }, socket: { icon: '0' } },
  // ...and as NewBlue's module does (protocol notes 1.3: icon 1, 72×72, numbers).
  {
    command: 'getTitleControlInfo',
    http: { icon: true, width: PROBE_ICON_SIDE, height: PROBE_ICON_SIDE },
    socket: { icon: 1, width: PROBE_ICON_SIDE, height: PROBE_ICON_SIDE },
  },
  { command: 'getAllVideoIns', http: {}, socket: {} },
  { command: 'getOutputDevice', http: {}, socket: {} },
  { command: 'replay_get_play_info', http: {}, socket: {} },
  { command: 'replay_get_settings', http: {}, socket: {} },
  { command: 'replay_is_trial_mode', http: {}, socket: {} },
  { command: 'getSubscriptions', http: {}, socket: {} },
]

/** The registry's kinds `_cmp_v1_query` is asked for (issue 30 Build 5; S1 `requestCompanionDefinition`). */
const REGISTRY_KINDS = ['actions', 'feedbacks', 'presets'] as const
/** How probe announces itself: as the daemon does, so the application answers as it would answer panelbridge. */
const PROBE_CLIENT_VERSION = 'probe'
/** Time one call may take, ms: generous, as a user's application may be busy rendering. */
const PROBE_CALL_TIMEOUT_MS = 5000
/**
 * How often the titles are read during the listen window, ms (at most half the window): a title taken
 * to air and off again within one read of the next shows no change where no notification says it.
 */
const PROBE_POLL_MS = 1000
/** Signal lines printed during the listen window; past it they are counted only (the capture keeps them). */
const PROBE_MAX_PRINTED_SIGNALS = 200
/** Signals kept for the analysis (the capture keeps its own, bounded copy). */
const MAX_SIGNALS_KEPT = 5000
/** Characters of one signal's frame past which its arguments are not kept for the analysis. */
const MAX_SIGNAL_CHARS_KEPT = 64 * 1024
/** Polls kept for the analysis. */
const MAX_POLLS_KEPT = 2000
/** Qt's client never connects to `destroyed` (the object going away is handled by the channel itself). */
const SKIPPED_SIGNALS = new Set(['destroyed'])

export interface ProbeOptions {
  /** The HTTP command interface, e.g. `http://127.0.0.1:9022`. */
  httpUrl: string
  /** The QWebChannel socket, e.g. `ws://127.0.0.1:9023`. */
  socketUrl: string
  /** How long to listen to the signals, ms. */
  listenMs: number
  /** Receives each progress line and each signal line during the listen window. */
  onLine?: (line: string) => void
  /** Ends the listen window early (Ctrl-C); the report follows. */
  signal?: AbortSignal
  callTimeoutMs?: number
  pollMs?: number
  toolVersion?: string
  now?: () => number
}

export interface ProbeResult {
  reached: { http: boolean; socket: boolean }
  observations: ProbeObservations
  facts: FactObservation[]
  assumptions: AssumptionCheck[]
  recorder: CaptureRecorder
}

/** Text for a failure of a call or a connection (a code when there is one). */
function why(err: unknown): string {
  const code = isRecord(err) && typeof err.code === 'string' ? `${err.code}: ` : ''
  return redactCaptureText(`${code}${err instanceof Error ? err.message : String(err)}`).slice(0, 300)
}

/** A title list's states for a poll. */
function pollOf(t: number, fields: Record<string, unknown> | undefined, layer: unknown): TitlePoll {
  const titles = Array.isArray(fields?.titles) ? fields.titles.filter(isRecord) : []
  const poll: TitlePoll = {
    t,
    titles: titles.map((x) => ({
      id: typeof x.id === 'string' ? x.id : jsonSnippet(x.id, 60),
      ...('status' in x ? { status: x.status } : {}),
      variables: jsonSnippet(x.variables, 4000),
    })),
  }
  if (isRecord(layer)) {
    poll.layer = {}
    for (const [id, v] of Object.entries(layer)) {
      const s = isRecord(v) ? v.playState : v
      poll.layer[id] = typeof s === 'string' ? s : jsonSnippet(s, 30)
    }
  }
  return poll
}

/** One probe session. Never throws for what the application does; unreachable transports are reported. */
export async function runProbe(options: ProbeOptions): Promise<ProbeResult> {
  const session = new ProbeSession(options)
  return session.run()
}

class ProbeSession {
  private readonly recorder: CaptureRecorder
  private readonly obs: ProbeObservations = {
    http: { reached: false },
    socket: { reached: false, scheduler: false },
    replies: [],
    inits: [],
    layerReads: [],
    registry: [],
    signals: [],
    polls: [],
    listened: false,
  }
  private readonly line: (line: string) => void
  private readonly timeoutMs: number
  private socketSeq = 0
  private printed = 0
  /** The frame being handled on each connection: a reply's raw `data` is read from it. */
  private readonly lastFrame = new Map<number, string>()

  constructor(private readonly options: ProbeOptions) {
    this.line = options.onLine ?? (() => undefined)
    this.timeoutMs = options.callTimeoutMs ?? PROBE_CALL_TIMEOUT_MS
    this.recorder = new CaptureRecorder(
      { http: options.httpUrl, socket: options.socketUrl, listenS: options.listenMs / 1000 },
      options.toolVersion ?? 'unknown',
      options.now,
    )
  }

  async run(): Promise<ProbeResult> {
    const socket = await this.openSocket()
    try {
      await this.runHttp()
      if (socket) await this.runSocket(socket)
      if (socket && this.obs.socket.scheduler) await this.compareIndexes()
      if (socket?.isOpen) await this.listen(socket)
      else if (this.obs.http.reached) await this.pollOnce(undefined)
    } finally {
      socket?.close()
    }
    const facts = observeFacts(this.obs)
    const assumptions = checkAssumptions(this.obs)
    return {
      reached: { http: this.obs.http.reached, socket: this.obs.socket.reached },
      observations: this.obs,
      facts,
      assumptions,
      recorder: this.recorder,
    }
  }

  // ---- HTTP -----------------------------------------------------------------------------------------

  private async runHttp(): Promise<void> {
    const bodies = new Map<string, { status: number; text: string }>()
    const client = new CommandClient({
      baseUrl: this.options.httpUrl,
      connections: 1,
      timeoutMs: this.timeoutMs,
      onReply: (r) => bodies.set(r.requestId, { status: r.status, text: r.text }),
    })
    try {
      for (const c of PROBE_COMMANDS) {
        if ((await this.httpCall(client, c.command, c.http, bodies)) === 'unreachable') break
      }
    } finally {
      await client.close()
    }
    const answered = this.obs.replies.filter((r) => r.transport === 'http').length
    this.line(
      this.obs.http.reached
        ? `http   ${this.options.httpUrl}: ${answered} of ${PROBE_COMMANDS.length} commands answered`
        : `http   ${this.options.httpUrl}: not reached (${this.obs.http.failure ?? 'no answer'})`,
    )
  }

  /** One HTTP command; 'unreachable' when nothing answered (the rest would fail alike). */
  private async httpCall(
    client: CommandClient,
    command: string,
    params: Record<string, unknown>,
    bodies: Map<string, { status: number; text: string }>,
    poll = false,
  ): Promise<Record<string, unknown> | 'failed' | 'unreachable'> {
    const entry = this.recorder.request('http', command, params)
    let requestId: string | undefined
    let failure: string | undefined
    try {
      const result = await client.callByName(command, params)
      requestId = result.requestId
    } catch (err) {
      requestId = isCommandError(err) ? err.requestId : undefined
      failure = isCommandError(err) ? err.code : 'NETWORK'
      if (requestId === undefined || !bodies.has(requestId)) {
        this.recorder.failed(entry, why(err))
        if (failure === 'REPLY_TOO_LARGE') {
          // It answered: too much for the client's cap (the capture says so, the report too).
          this.obs.http.reached = true
          this.obs.replies.push({ transport: 'http', command, unreadable: failure, clientFailure: failure })
          return 'failed'
        }
        if (!this.obs.http.reached) this.obs.http.failure = why(err)
        // Refused or cut off: the next commands would fail alike. A time-out only stops a probe that
        // has had no answer yet (one slow command of an application that answers is worth waiting past).
        const down =
          failure === 'CONNECTION_REFUSED' || failure === 'NETWORK' || (failure === 'TIMEOUT' && !this.obs.http.reached)
        return down ? 'unreachable' : 'failed'
      }
    }
    if (entry && requestId !== undefined) entry.requestId = requestId
    const body = requestId !== undefined ? bodies.get(requestId) : undefined
    if (!body) return 'failed'
    bodies.delete(requestId)
    this.obs.http.reached = true
    this.recorder.reply(entry, body.text, body.status)
    const seen = this.read('http', command, body.status === 200 ? body.text : undefined, requestId)
    if (poll) seen.poll = true
    if (failure !== undefined) seen.clientFailure = failure
    if (body.status !== 200) seen.unreadable = `HTTP status ${body.status}`
    if (!poll || this.obs.replies.length < MAX_POLLS_KEPT) this.obs.replies.push(seen)
    return seen.fields ?? 'failed'
  }

  /** A reply through the one reader, as an observation. */
  private read(transport: 'http' | 'socket', command: string, raw: unknown, requestId?: string): ReplySeen {
    const seen: ReplySeen = { transport, command, ...(requestId !== undefined ? { requestId } : {}) }
    if (raw === undefined) return seen
    try {
      const r = readReply(raw)
      seen.shape = r.shape
      seen.fields = r.fields
      if (r.error !== undefined) seen.error = r.error
    } catch (err) {
      seen.unreadable = err instanceof ReplyShapeError ? err.problem : why(err)
    }
    return seen
  }

  // ---- the socket -----------------------------------------------------------------------------------

  private newClient(connection: number): QWebChannelClient {
    let initPending = true
    return new QWebChannelClient({
      url: this.options.socketUrl,
      callTimeoutMs: this.timeoutMs,
      connectTimeoutMs: this.timeoutMs,
      onFrame: (text) => {
        this.lastFrame.set(connection, text)
        this.recorder.frame(connection, text)
        if (!initPending) return
        // The first reply on a connection is the init reply: kept whole (redacted) in the capture.
        try {
          const msg: unknown = JSON.parse(text)
          if (isRecord(msg) && msg.type === QWC_MESSAGE.response) {
            initPending = false
            this.recorder.init(connection, msg.data)
          }
        } catch {
          // Not JSON: the client reports it; the capture has the frame.
        }
      },
    })
  }

  private async openSocket(): Promise<QWebChannelClient | undefined> {
    const client = this.newClient(1)
    try {
      const objects = await client.connect()
      this.obs.socket.reached = true
      const scheduler = objects.get(SCHEDULER_CHANNEL.object)
      if (scheduler) {
        this.obs.socket.scheduler = true
        this.obs.inits.push({ methods: scheduler.methods, signals: scheduler.signals })
      }
      client.on('signal', (ev) => this.onSignal(ev))
      // Every signal of every object the init reply lists (Qt's client too connects per signal).
      for (const [name, info] of objects) {
        for (const signal of info.signals.keys()) {
          if (!SKIPPED_SIGNALS.has(signal)) client.connectSignal(name, signal)
        }
      }
      const count = (m: ReadonlyMap<string, number> | undefined): number => m?.size ?? 0
      this.line(
        scheduler
          ? `socket ${this.options.socketUrl}: scheduler with ${count(scheduler.methods)} methods and ${count(scheduler.signals)} signals`
          : `socket ${this.options.socketUrl}: connected, but no scheduler object (objects: ${[...objects.keys()].join(', ') || 'none'})`,
      )
      return client
    } catch (err) {
      this.obs.socket.failure = why(err)
      this.line(`socket ${this.options.socketUrl}: not reached (${this.obs.socket.failure})`)
      client.close()
      return undefined
    }
  }

  private has(client: QWebChannelClient, method: string): boolean {
    return client.published.get(SCHEDULER_CHANNEL.object)?.methods.has(method) === true
  }

  /** Calls a scheduler method; resolves with the reply's data as received (JSON text stays text). */
  private async invoke(
    client: QWebChannelClient,
    method: string,
    args: unknown[],
    requestId?: string,
  ): Promise<{ raw: unknown } | undefined> {
    const entry = this.recorder.request('socket', method, args, {
      connection: 1,
      ...(requestId !== undefined ? { requestId } : {}),
    })
    let raw: unknown
    try {
      await client.invoke(SCHEDULER_CHANNEL.object, method, args, {
        // Runs as the reply frame is handled: the frame is the one this call's reply came in.
        onReply: () => {
          raw = rawReplyData(this.lastFrame.get(1))
        },
      })
    } catch (err) {
      this.recorder.failed(entry, why(err))
      return undefined
    }
    this.recorder.reply(entry, raw)
    return { raw }
  }

  private async scheduleCommand(
    client: QWebChannelClient,
    command: string,
    params: Record<string, unknown>,
    poll = false,
  ): Promise<Record<string, unknown> | undefined> {
    // A requestId of its own on every socket command, to see whether the socket echoes it as HTTP does.
    const requestId = `probe-s${++this.socketSeq}`
    const reply = await this.invoke(client, 'scheduleCommand', [command, { ...params, requestId }, {}], requestId)
    if (!reply) return undefined
    const seen = this.read('socket', command, reply.raw, requestId)
    if (poll) seen.poll = true
    if (!poll || this.obs.replies.length < MAX_POLLS_KEPT) this.obs.replies.push(seen)
    return seen.fields
  }

  private async runSocket(client: QWebChannelClient): Promise<void> {
    if (!this.obs.socket.scheduler) return
    if (this.has(client, 'notifyClientConnected')) {
      const info = await this.invoke(client, 'notifyClientConnected', [
        SCHEDULER_CHANNEL.clientAppId,
        PROBE_CLIENT_VERSION,
        {},
      ])
      if (info) {
        this.obs.clientInfo = info.raw
        this.recorder.application(info.raw)
        this.line(`application: ${describeClientInfo(info.raw)}`)
      }
    }
    if (this.has(client, 'scheduleCommand')) {
      for (const c of PROBE_COMMANDS) await this.scheduleCommand(client, c.command, c.socket)
    }
    await this.readLayerState(client)
    if (this.has(client, '_cmp_v1_query')) {
      for (const kind of REGISTRY_KINDS) {
        const reply = await this.invoke(client, '_cmp_v1_query', [kind])
        if (reply) this.obs.registry.push({ kind, reply: reply.raw })
      }
    }
    // The first read of the titles is the listen window's starting point.
    const first = this.obs.replies.find((r) => r.transport === 'socket' && r.command === 'getTitleControlInfo')
    this.obs.polls.push(pollOf(this.recorder.elapsed(), first?.fields, this.obs.layerReads.at(-1)))
  }

  private async readLayerState(client: QWebChannelClient): Promise<unknown> {
    if (!this.has(client, 'getValueForKey')) return undefined
    const reply = await this.invoke(client, 'getValueForKey', [SCHEDULER_CHANNEL.layerStateKey])
    if (!reply) return undefined
    let value = reply.raw
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value)
      } catch {
        // Kept as the text it is.
      }
    }
    if (this.obs.layerReads.length < MAX_POLLS_KEPT) this.obs.layerReads.push(value)
    return value
  }

  /** A second connection: the init exchange only, to compare the method indexes. */
  private async compareIndexes(): Promise<void> {
    const second = this.newClient(2)
    try {
      const objects = await second.connect()
      const scheduler = objects.get(SCHEDULER_CHANNEL.object)
      if (scheduler) this.obs.inits.push({ methods: scheduler.methods, signals: scheduler.signals })
    } catch (err) {
      this.line(`socket: a second connection failed (${why(err)})`)
    } finally {
      second.close()
    }
  }

  // ---- listening ------------------------------------------------------------------------------------

  private onSignal(ev: QwcSignalEvent): void {
    const t = this.recorder.elapsed()
    this.recorder.signal(1, ev.object, ev.signal, ev.args)
    // A signal whose frame is large is kept for the analysis as a marker only (the capture has its head).
    const large = (this.lastFrame.get(1)?.length ?? 0) > MAX_SIGNAL_CHARS_KEPT
    const args = large ? ['(large)'] : ev.args
    if (this.obs.signals.length < MAX_SIGNALS_KEPT) this.obs.signals.push({ t, signal: ev.signal, args })
    if (this.printed++ < PROBE_MAX_PRINTED_SIGNALS) {
      this.line(`  +${(t / 1000).toFixed(1)}s ${ev.signal} ${argsText(ev.args)}`)
    } else if (this.printed === PROBE_MAX_PRINTED_SIGNALS + 1) {
      this.line(`  (more signals: counted, not printed; the capture keeps them)`)
    }
  }

  private async listen(client: QWebChannelClient): Promise<void> {
    const ms = this.options.listenMs
    this.obs.listened = true
    this.line(
      `listening ${ms / 1000} s to every signal: in the application, play a title (leave it on air a second or two), change a variable, add a title${
        this.options.signal ? ' (Ctrl-C ends early)' : ''
      }`,
    )
    const pollMs = Math.max(50, Math.min(this.options.pollMs ?? PROBE_POLL_MS, ms / 2))
    const end = this.recorder.elapsed() + ms
    const before = this.obs.signals.length
    for (;;) {
      const left = end - this.recorder.elapsed()
      if (left <= 0 || this.options.signal?.aborted || !client.isOpen) break
      try {
        await sleep(Math.min(pollMs, left), undefined, this.options.signal ? { signal: this.options.signal } : {})
      } catch {
        // Aborted: one last read below, then the report.
      }
      await this.pollOnce(client)
    }
    const got = this.obs.signals.slice(before)
    const counts = new Map<string, number>()
    for (const s of got) counts.set(s.signal, (counts.get(s.signal) ?? 0) + 1)
    this.line(
      got.length === 0
        ? `listened: no signal arrived`
        : `listened: ${got.length} signals (${[...counts].map(([s, n]) => `${s} ${n}`).join(', ')})`,
    )
  }

  /** One read of the titles (socket when open, else HTTP) and of the layer state. */
  private async pollOnce(client: QWebChannelClient | undefined): Promise<void> {
    if (this.obs.polls.length >= MAX_POLLS_KEPT) return
    const t = this.recorder.elapsed()
    if (client?.isOpen && this.has(client, 'scheduleCommand')) {
      const fields = await this.scheduleCommand(client, 'getTitleControlInfo', { icon: '0' }, true)
      const layer = await this.readLayerState(client)
      if (fields) this.obs.polls.push(pollOf(t, fields, layer))
      return
    }
    const bodies = new Map<string, { status: number; text: string }>()
    const http = new CommandClient({
      baseUrl: this.options.httpUrl,
      connections: 1,
      timeoutMs: this.timeoutMs,
      onReply: (r) => bodies.set(r.requestId, { status: r.status, text: r.text }),
    })
    try {
      const fields = await this.httpCall(http, 'getTitleControlInfo', { icon: false }, bodies, true)
      if (typeof fields === 'object') this.obs.polls.push(pollOf(t, fields, undefined))
    } finally {
      await http.close()
    }
  }
}

/** The `data` of the reply frame being handled (the client has parsed and depth-checked it already). */
function rawReplyData(frame: string | undefined): unknown {
  if (frame === undefined) return undefined
  try {
    const msg: unknown = JSON.parse(frame)
    return isRecord(msg) ? msg.data : undefined
  } catch {
    return undefined
  }
}

/** A signal's arguments for one line: JSON text shown as its content, redacted, cut. */
function argsText(args: unknown[]): string {
  const parts = args.map((a) => {
    if (typeof a === 'string') return redactValue(a) as string
    return jsonDepthExceeds(a, 32) ? '[deep value]' : JSON.stringify(redactValue(a))
  })
  const text = parts.join(' ')
  return text.length > 160 ? `${text.slice(0, 160)}…` : text
}

/** `Captivate 5.9.240213 (linux, sku X)` from notifyClientConnected's reply. */
function describeClientInfo(raw: unknown): string {
  let info = raw
  if (typeof raw === 'string') {
    try {
      info = JSON.parse(raw)
    } catch {
      return jsonSnippet(raw, 80)
    }
  }
  if (!isRecord(info)) return jsonSnippet(info, 80)
  const text = (k: string): string => (typeof info[k] === 'string' ? info[k] : '?')
  return redactCaptureText(`${text('host')} ${text('version')} (${text('platform')}, built ${text('buildDate')})`)
}
