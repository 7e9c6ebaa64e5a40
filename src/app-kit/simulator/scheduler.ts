/**
 * The application's `scheduler` object, published over the simulator's QWebChannel server
 * (`qwebchannel-server.ts`, the protocol core): exactly the methods and signals the profile being
 * played says the application has (`schedulerMethods`, `schedulerSignals` in `profile.ts`; protocol
 * notes 1.3, 2.1), on top of the simulator's state (`dispatch`, `notifications`, `changes`):
 *
 * - commands: `scheduleCommand`, `scheduleAction`, `scheduleCommandXml` (`xml.ts`), and the automation
 *   registry's `_cmp_v1_performAction` (`registry.ts`), all through the one dispatcher HTTP uses;
 * - reads: `notifyClientConnected`, `getValueForKey` (the layer state), `getImageSet`, `_cmp_v1_query`,
 *   `_cmp_v1_queryFeedbackState`;
 * - signals: `onNotify`, `newCommandXML`, `variablesChanged`, `messageIn`,
 *   `_cmp_v1_handleActorRegistryChangeEvent`, `_cmp_v1_handleFeedbackChangeEvent`.
 *
 * Every method call that reaches the application is written to the command log with transport
 * `qwebchannel` (the `log` option). NewBlue's Captivate Companion module (S1, d064e20) runs against this
 * object in `test/app-kit/interop/`; the lines of S1 each piece follows are cited where it is built.
 */
import { APP_ERRORS, SCHEDULER_CHANNEL } from '../../api/protocol.js'
import type { EventEmitter } from 'eventemitter3'
import { isRecord } from '../../wire.js'
import type { CommandTransport } from './hooks.js'
import { toText } from './params.js'
import { getProfile, schedulerMethods, schedulerSignals, type ProfileFacts, type SimProfile } from './profile.js'
import { QWebChannelServer, type QwcMethodHandler, type QwcPublishedObject } from './qwebchannel-server.js'
import {
  actorIdOf,
  AutomationRegistry,
  imageSet,
  readOptions,
  REGISTRY_NAMES,
  RegistryError,
  scopedId,
  stateOf,
} from './registry.js'
import type { ChangeEvents } from './model.js'
import { HandlerError, envelope, type SimTitle } from './types.js'
import { commandXml, errorReplyXml, scheduleCommandXml, type XmlCommand } from './xml.js'

/** What the scheduler needs from the simulator's state (the HTTP side owns the implementation). */
export interface SchedulerBackend {
  /** Runs a command as HTTP would; returns the same reply object (`{result: {...}}`, or `{}`). */
  dispatch(command: string, params: Record<string, string>, variables?: Record<string, string>): unknown
  /** The WebSocket's scheduleAction(action, inputName, titleId, variables). */
  scheduleAction(action: string, inputName: string, titleId: string, variables: unknown): unknown
  /** Emits `notify` once per notification, already filtered by subscriptions. */
  readonly notifications: {
    on(event: 'notify', fn: (payload: unknown) => void): unknown
    off(event: 'notify', fn: (payload: unknown) => void): unknown
  }
  /** Every change of play state, variables and titles (the registry's signals follow these). */
  readonly changes: Pick<EventEmitter<ChangeEvents>, 'on' | 'off'>
  /** The titles, current at every read (the automation registry is generated from them). */
  readonly titles: readonly SimTitle[]
  /** The variant of the application being played. Default: the default profile. */
  readonly profile?: SimProfile
}

/** Records one call that reached the application over the socket (the command log: `transport: qwebchannel`). */
export type SocketCommandLog = (name: string, parameters: Record<string, unknown>, transport: CommandTransport) => void

export interface ClientAnnouncement {
  appId: string
  version: string
}

function text(v: unknown): string {
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return ''
}

/**
 * A JSON object's values as text (strings as they are, anything else as JSON); `null`s are left out.
 * The result has no prototype, so a `__proto__` key is kept as a name; a value too deep to write
 * throws HandlerError('invalid params').
 */
function toStringRecord(v: unknown): Record<string, string> {
  const out = Object.create(null) as Record<string, string>
  if (!isRecord(v)) return out
  for (const [k, val] of Object.entries(v)) {
    if (val === undefined || val === null) continue
    try {
      out[k] = toText(val)
    } catch (err) {
      if (err instanceof RangeError) throw new HandlerError(APP_ERRORS.invalidParams)
      throw err
    }
  }
  return out
}

/** Variables as the backend takes them: none rather than an empty object. */
function variablesOrNone(v: unknown): Record<string, string> | undefined {
  const vars = toStringRecord(v)
  return Object.keys(vars).length > 0 ? vars : undefined
}

/**
 * Runs `fn`; a HandlerError from reading the arguments (a value too deep to write as text) becomes
 * the same error reply HTTP gives, instead of a failed method.
 */
function orInvalidParams(command: string, fn: () => unknown): unknown {
  try {
    return fn()
  } catch (err) {
    if (!(err instanceof HandlerError)) throw err
    return { result: { ...envelope(command, undefined), error: err.message } }
  }
}

/**
 * A command's reply as the profile says the socket carries it (`socket_reply`): the dispatcher's
 * `{result: {...}}` flat or wrapped, as JSON text or an object. The current application answers flat
 * JSON text (protocol notes 1.3 [code S1]).
 */
export async function socketReply(reply: unknown, profile: SimProfile): Promise<unknown> {
  const value = await Promise.resolve(reply)
  const shape = profile.facts.socket_reply
  const flat = shape.startsWith('flat-') && isRecord(value) && isRecord(value.result) ? value.result : (value ?? {})
  return shape.endsWith('-string') ? (typeof flat === 'string' ? flat : JSON.stringify(flat)) : flat
}

/** Longest id, key or name argument read (an actor, a feedback, a target, a key), characters. */
const MAX_ID_CHARS = 1024

/** An id-like argument as text, bounded. */
function id(v: unknown): string {
  return text(v).slice(0, MAX_ID_CHARS)
}

/**
 * Commands that only read: they are not announced on `newCommandXML` (a client that re-reads on that
 * signal, as the 2019 Titler Live module did with `readTitle`, S2 4f39275, would otherwise loop).
 * ASSUMED: the notes say only "XML of last executed command" (2.1).
 */
export function isReadCommand(name: string): boolean {
  return /^(get|read)/i.test(name)
}

/** Whether a dispatcher reply (wrapped or flat) carries an `error`. */
function failed(reply: unknown): boolean {
  const fields = isRecord(reply) && isRecord(reply.result) ? reply.result : reply
  return isRecord(fields) && fields.error !== undefined
}

/** Sends one signal of the scheduler to every client connected to it. */
export type SignalSink = (signal: string, args: unknown[]) => void

export interface SchedulerOptions {
  /** Every `notifyClientConnected` call is appended here. */
  announcements?: ClientAnnouncement[]
  /** Records every call that reaches the application. */
  log?: SocketCommandLog
  /** Where the methods' own signals go (`newCommandXML`). */
  emit?: SignalSink
  /** The automation registry (one per simulator, shared with the signals). Default: a new one over the backend. */
  registry?: AutomationRegistry
}

/** What every method of the scheduler shares: the backend, its profile, the registry and the log. */
interface SchedulerContext {
  backend: SchedulerBackend
  profile: SimProfile
  facts: SimProfile['facts']
  registry: AutomationRegistry
  announcements: ClientAnnouncement[]
  log: (name: string, parameters: Record<string, unknown>) => void
  /** A command ran: `newCommandXML` carries it as XML, unless it only read or failed. */
  announce: (command: XmlCommand, reply: unknown) => void
}

/**
 * The `scheduler` object: every method `schedulerMethods(profile.facts)` names, in that order, and
 * the signals `schedulerSignals(profile.facts)` names.
 */
export function createScheduler(backend: SchedulerBackend, options: SchedulerOptions = {}): QwcPublishedObject {
  const profile = backend.profile ?? getProfile()
  const facts = profile.facts
  const ctx: SchedulerContext = {
    backend,
    profile,
    facts,
    registry: options.registry ?? new AutomationRegistry(backend),
    announcements: options.announcements ?? [],
    log: (name, parameters) => options.log?.(name, parameters, 'qwebchannel'),
    announce: (command, reply) => {
      if (!facts.xml_commands || isReadCommand(command.command) || failed(reply)) return
      options.emit?.('newCommandXML', [commandXml(command)])
    },
  }
  const all: Record<string, QwcMethodHandler> = { ...commandMethods(ctx), ...registryMethods(ctx) }
  const methods: Record<string, QwcMethodHandler> = {}
  for (const name of schedulerMethods(facts)) {
    const handler = all[name]
    if (!handler) throw new Error(`the scheduler has no method ${name}`)
    methods[name] = handler
  }
  return { methods, signals: schedulerSignals(facts) }
}

/** The command methods: `scheduleCommand`, `scheduleAction`, `notifyClientConnected`, `scheduleCommandXml`. */
function commandMethods(ctx: SchedulerContext): Record<string, QwcMethodHandler> {
  const { backend, profile, announcements, log, announce } = ctx
  return {
    scheduleCommand: (command: unknown, params: unknown, variables: unknown) => {
      const name = text(command)
      return socketReply(
        orInvalidParams(name, () => {
          const vars = variablesOrNone(variables)
          const p = toStringRecord(params)
          log(name, { ...p, ...(vars ? { variables: vars } : {}) })
          const reply = vars ? backend.dispatch(name, p, vars) : backend.dispatch(name, p)
          announce({ command: name, params: p, variables: vars ?? {} }, reply)
          return reply
        }),
        profile,
      )
    },
    scheduleAction: (action: unknown, inputName: unknown, titleId: unknown, variables: unknown) =>
      socketReply(
        orInvalidParams('schedule', () => {
          const vars = variablesOrNone(variables)
          const args = { action: text(action), inputName: text(inputName), titleId: text(titleId) }
          log('scheduleAction', { ...args, ...(vars ? { variables: vars } : {}) })
          const reply = backend.scheduleAction(args.action, args.inputName, args.titleId, vars)
          const params = {
            action: args.action,
            ...(args.titleId ? { id: args.titleId } : {}),
            ...(args.inputName ? { input: args.inputName } : {}),
          }
          announce({ command: 'schedule', params, variables: vars ?? {} }, reply)
          return reply
        }),
        profile,
      ),
    notifyClientConnected: (appId: unknown, version: unknown) => {
      const announced = { appId: id(appId), version: id(version) }
      log('notifyClientConnected', announced)
      announcements.push(announced)
      return JSON.stringify(profile.clientInfo)
    },
    /**
     * The legacy XML command set (`xml.ts`): XML text in, XML text out, an error reply for anything it
     * cannot read; never a failed call.
     */
    scheduleCommandXml: async (xml: unknown) => {
      let reply: unknown
      const outcome = await scheduleCommandXml(xml, (cmd) => {
        log('scheduleCommandXml', {
          command: cmd.command,
          ...cmd.params,
          ...(Object.keys(cmd.variables).length > 0 ? { variables: cmd.variables } : {}),
        })
        const vars = Object.keys(cmd.variables).length > 0 ? cmd.variables : undefined
        reply = vars ? backend.dispatch(cmd.command, cmd.params, vars) : backend.dispatch(cmd.command, cmd.params)
        return reply
      }).catch((err: unknown) => ({
        reply: errorReplyXml(`internal error: ${err instanceof Error ? err.message : String(err)}`),
        command: undefined,
      }))
      if (outcome.command) announce(outcome.command, await Promise.resolve(reply))
      else log('scheduleCommandXml', { xml: typeof xml === 'string' ? xml.slice(0, MAX_ID_CHARS) : '' })
      return outcome.reply
    },
  }
}

/** The automation registry's methods (protocol notes 1.3 [code S1]): layer state, images, `_cmp_v1_*`. */
function registryMethods(ctx: SchedulerContext): Record<string, QwcMethodHandler> {
  const { backend, profile, facts, registry, log, announce } = ctx
  return {
    /**
     * An object, not text: the layer state `{<title id>: {playState: 'running'|'paused'}}` for the titles
     * on air (notes 2.4; S1 indexes it by the title id and compares lowercase, captivate.js 597-626).
     * Any other key has no value: null, as Qt sends an invalid QVariant (ASSUMED).
     */
    getValueForKey: (key: unknown) => {
      const k = id(key)
      log('getValueForKey', { key: k })
      return k === SCHEDULER_CHANNEL.layerStateKey && facts.layer_state ? registry.layerState() : null
    },
    /** Image name → base64 PNG, an object (captivate.js 304-312 stores each under its name). */
    getImageSet: (name: unknown, includeMimePrefix: unknown) => {
      const prefix =
        includeMimePrefix === true ||
        includeMimePrefix === 1 ||
        includeMimePrefix === 'true' ||
        includeMimePrefix === '1'
      log('getImageSet', { name: id(name), includeMimePrefix: prefix })
      return imageSet(id(name), prefix)
    },
    /** `{companion_actions | companion_feedbacks | companion_presets | companion_lastUpdateTime}`, an object (captivate.js 559-573). */
    _cmp_v1_query: (kind: unknown) => {
      log('_cmp_v1_query', { kind: id(kind) })
      return registry.query(id(kind))
    },
    /** JSON text of the feedback's state, as S1 parses it (captivate.js 942-947); `{}` for one the registry lacks. */
    _cmp_v1_queryFeedbackState: (actorId: unknown, feedbackId: unknown, opts: unknown) => {
      const args = { actorId: id(actorId), feedbackId: id(feedbackId), options: readOptions(opts) }
      log('_cmp_v1_queryFeedbackState', args)
      return JSON.stringify(registry.feedbackState(args.actorId, args.feedbackId, args.options) ?? {})
    },
    /**
     * Runs a registry action through the same handler as `schedule` (lib/actions.js 62-66 calls it with
     * the action's target and the button's options); answers like `scheduleAction`.
     */
    _cmp_v1_performAction: (target: unknown, opts: unknown) => {
      const args = { target: id(target), options: readOptions(opts) }
      log('_cmp_v1_performAction', args)
      let resolved
      try {
        resolved = registry.resolveAction(args.target, args.options)
      } catch (err) {
        if (!(err instanceof RegistryError)) throw err
        return socketReply({ result: { ...envelope('_cmp_v1_performAction', undefined), error: err.message } }, profile)
      }
      const reply = backend.scheduleAction(resolved.action, '', resolved.title.id, resolved.variables)
      announce(
        {
          command: 'schedule',
          params: { action: resolved.action, id: resolved.title.id },
          variables: resolved.variables ?? {},
        },
        reply,
      )
      return socketReply(reply, profile)
    },
  }
}

/**
 * How many feedback keys `mixed` remembers (per title, feedback and options) before it starts over:
 * bounded however many titles and variables come and go.
 */
const MAX_MIXED_KEYS = 4096

/**
 * Sends the scheduler's signals for what changes in the backend, as the profile says (facts
 * `feedback_signal`, `variables_signal`, `companion_registry`): returns the function that stops.
 *
 * - a play change: `_cmp_v1_handleFeedbackChangeEvent` for the title's play feedbacks (on air, play
 *   state), with options `{}` as the instances from the registry's presets hold them;
 * - a variable change: the variable feedback with options `{variable: <name>}` (S1's cache key is the
 *   id and the md5 of the options' JSON, lib/cache.js 33-43, so the options must be what the feedback
 *   holds), and `variablesChanged(<input>|'all', {name: value})`;
 * - a title added: `_cmp_v1_handleActorRegistryChangeEvent` for `actions`, `feedbacks` and `presets`;
 *   removed: `actorDelete` (the categories of captivate.js 423).
 */
export function connectSchedulerSignals(
  backend: SchedulerBackend,
  registry: AutomationRegistry,
  emit: SignalSink,
): () => void {
  const facts: ProfileFacts = (backend.profile ?? getProfile()).facts
  const sent = new Map<string, number>()
  const feedback = (title: SimTitle, feedbackId: string, options: Record<string, string>): void => {
    if (!facts.companion_registry || facts.feedback_signal === 'none') return
    const full = stateOf(title, feedbackId, options, title.playState) ?? {}
    let state: object
    switch (facts.feedback_signal) {
      case 'with-state':
        state = full
        break
      case 'empty-state':
        // S1 treats an empty state as "re-query" (captivate.js 453-464).
        state = {}
        break
      case 'mixed': {
        // Both forms, alternating per feedback: S1 drops a second signal for the same id within 100 ms
        // (captivate.js 446-451), so sending both at once would exercise only the first.
        const key = `${title.id}\u0000${feedbackId}\u0000${JSON.stringify(options)}`
        const n = sent.get(key) ?? 0
        if (sent.size >= MAX_MIXED_KEYS && !sent.has(key)) sent.clear()
        sent.set(key, n + 1)
        state = n % 2 === 0 ? full : {}
        break
      }
    }
    emit('_cmp_v1_handleFeedbackChangeEvent', [actorIdOf(title), scopedId(feedbackId), options, state])
  }
  const onPlay = (title: SimTitle): void => {
    feedback(title, REGISTRY_NAMES.feedbacks.onAir, {})
    feedback(title, REGISTRY_NAMES.feedbacks.playState, {})
  }
  const onVariables = (title: SimTitle, changed: readonly { name: string; value: string }[]): void => {
    for (const { name } of changed) feedback(title, REGISTRY_NAMES.feedbacks.variable, { variable: name })
    if (!facts.variables_signal) return
    // ASSUMED: one signal per input of the title, 'all' for a title on none (notes 2.1 give the signature only).
    const map = Object.fromEntries(changed.map((c) => [c.name, c.value]))
    for (const input of title.inputs.length > 0 ? title.inputs : ['all']) emit('variablesChanged', [input, map])
  }
  const onTitle = (change: 'added' | 'removed', title: SimTitle): void => {
    registry.touch()
    for (const key of sent.keys()) if (key.startsWith(`${title.id}\u0000`)) sent.delete(key)
    if (!facts.companion_registry) return
    const actor = actorIdOf(title)
    const categories = change === 'added' ? ['actions', 'feedbacks', 'presets'] : ['actorDelete']
    for (const category of categories) emit('_cmp_v1_handleActorRegistryChangeEvent', [category, actor])
  }
  const onNotify = (payload: unknown): void => {
    emit(SCHEDULER_CHANNEL.notifySignal, [typeof payload === 'string' ? payload : JSON.stringify(payload)])
  }
  backend.notifications.on('notify', onNotify)
  backend.changes.on('play', onPlay)
  backend.changes.on('variables', onVariables)
  backend.changes.on('title', onTitle)
  return () => {
    backend.notifications.off('notify', onNotify)
    backend.changes.off('play', onPlay)
    backend.changes.off('variables', onVariables)
    backend.changes.off('title', onTitle)
  }
}

export interface QWebChannelSimulatorOptions {
  backend: SchedulerBackend
  /** Records every call that reaches the application over the socket. */
  log?: SocketCommandLog
  port?: number
  host?: string
  /** DNS names besides `localhost` accepted in `Host`. */
  allowedHosts?: string[]
}

export interface QWebChannelSimulator {
  readonly server: QWebChannelServer
  readonly url: string
  /** Every `notifyClientConnected` call seen, oldest first. */
  readonly announcements: ClientAnnouncement[]
  /** The automation registry the scheduler answers from. */
  readonly registry: AutomationRegistry
  /**
   * Sends `messageIn(from, to, data)` to every client connected to it (a data controller's message,
   * notes 2.1; S1 reloads on `{"reload": true}` to `companion-module`, captivate.js 406-415). Returns
   * how many clients it went to: 0 where the profile has no `messageIn`.
   */
  message(from: string, to: string, data: string): number
  close(): Promise<void>
}

/** Starts the `scheduler` QWebChannel server over a simulator backend and sends its signals. */
export async function startQWebChannelSimulator(opts: QWebChannelSimulatorOptions): Promise<QWebChannelSimulator> {
  const announcements: ClientAnnouncement[] = []
  const facts = (opts.backend.profile ?? getProfile()).facts
  const registry = new AutomationRegistry(opts.backend)
  // The server is made after the object it publishes; signals go out through it (only ever called
  // once it exists: methods and changes run after start).
  const emit: SignalSink = (signal, args) => {
    server.emitSignal(SCHEDULER_CHANNEL.object, signal, args)
  }
  const server = new QWebChannelServer({
    objects: {
      [SCHEDULER_CHANNEL.object]: createScheduler(opts.backend, {
        announcements,
        registry,
        emit,
        ...(opts.log ? { log: opts.log } : {}),
      }),
    },
    // How the profile lets methods be called and ordered (profile facts method_calls, method_order).
    methodCalls: facts.method_calls,
    shuffle: facts.method_order === 'shuffled-per-start',
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.host !== undefined ? { host: opts.host } : {}),
    ...(opts.allowedHosts !== undefined ? { allowedHosts: opts.allowedHosts } : {}),
  })
  // Each notification is sent once to every connected client (decisions: Notifications).
  const disconnect = connectSchedulerSignals(opts.backend, registry, emit)
  try {
    await server.start()
  } catch (err) {
    disconnect()
    throw err
  }
  return {
    server,
    get url() {
      return server.url
    },
    announcements,
    registry,
    message(from, to, data) {
      return server.emitSignal(SCHEDULER_CHANNEL.object, 'messageIn', [from, to, data])
    },
    async close() {
      disconnect()
      await server.stop()
    },
  }
}
