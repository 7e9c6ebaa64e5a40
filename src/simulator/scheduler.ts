/**
 * The application's `scheduler` object, published over the simulator's QWebChannel server
 * (`qwebchannel-server.ts`, the protocol core): its methods and signals as the profile being played
 * says the application has them (protocol notes 1.3, 2.1; `src/simulator/profile.ts`), on top of the
 * simulator's state (`dispatch` + `notifications`).
 */
import { APP_ERRORS, QWC_NOTIFY_SIGNAL, QWC_SCHEDULER_OBJECT } from '../api/protocol.js'
import { isRecord } from '../wire.js'
import type { CommandTransport } from './hooks.js'
import { toText } from './params.js'
import { getProfile, type SimProfile } from './profile.js'
import { QWebChannelServer, type QwcPublishedObject } from './qwebchannel-server.js'
import { CommandError, envelope } from './types.js'

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
  /** The variant of the application being played. Default: the default profile. */
  readonly profile?: SimProfile
}

/** Records one call that reached the application over the socket (the command log: `transport: qwebchannel`). */
export type SocketCommandLog = (name: string, parameters: Record<string, unknown>, transport: CommandTransport) => void

/** What `notifyClientConnected` answers by default (protocol notes 1.3): the default profile's `client_info`. */
export const SIM_CLIENT_INFO = getProfile().clientInfo

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
 * throws CommandError('invalid params').
 */
function toStringRecord(v: unknown): Record<string, string> {
  const out = Object.create(null) as Record<string, string>
  if (!isRecord(v)) return out
  for (const [k, val] of Object.entries(v)) {
    if (val === undefined || val === null) continue
    try {
      out[k] = toText(val)
    } catch (err) {
      if (err instanceof RangeError) throw new CommandError(APP_ERRORS.invalidParams)
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
 * Runs `fn`; a CommandError from reading the arguments (a value too deep to write as text) becomes
 * the same error reply HTTP gives, instead of a failed method.
 */
function orInvalidParams(command: string, fn: () => unknown): unknown {
  try {
    return fn()
  } catch (err) {
    if (!(err instanceof CommandError)) throw err
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

/** The `scheduler` object: `scheduleCommand`, `scheduleAction`, `notifyClientConnected`, `onNotify`. */
export function createScheduler(
  backend: SchedulerBackend,
  announcements: ClientAnnouncement[] = [],
  log?: SocketCommandLog,
): QwcPublishedObject {
  const profile = backend.profile ?? getProfile()
  return {
    signals: [QWC_NOTIFY_SIGNAL],
    methods: {
      scheduleCommand: (command: unknown, params: unknown, variables: unknown) => {
        const name = text(command)
        return socketReply(
          orInvalidParams(name, () => {
            const vars = variablesOrNone(variables)
            const p = toStringRecord(params)
            log?.(name, { ...p, ...(vars ? { variables: vars } : {}) }, 'qwebchannel')
            return vars ? backend.dispatch(name, p, vars) : backend.dispatch(name, p)
          }),
          profile,
        )
      },
      scheduleAction: (action: unknown, inputName: unknown, titleId: unknown, variables: unknown) =>
        socketReply(
          orInvalidParams('schedule', () => {
            const vars = variablesOrNone(variables)
            log?.(
              'scheduleAction',
              {
                action: text(action),
                inputName: text(inputName),
                titleId: text(titleId),
                ...(vars ? { variables: vars } : {}),
              },
              'qwebchannel',
            )
            return backend.scheduleAction(text(action), text(inputName), text(titleId), vars)
          }),
          profile,
        ),
      notifyClientConnected: (appId: unknown, version: unknown) => {
        announcements.push({ appId: text(appId), version: text(version) })
        return JSON.stringify(profile.clientInfo)
      },
    },
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
  close(): Promise<void>
}

/** Starts the `scheduler` QWebChannel server over a simulator backend and forwards its notifications. */
export async function startQWebChannelSimulator(opts: QWebChannelSimulatorOptions): Promise<QWebChannelSimulator> {
  const announcements: ClientAnnouncement[] = []
  const facts = (opts.backend.profile ?? getProfile()).facts
  const server = new QWebChannelServer({
    objects: { [QWC_SCHEDULER_OBJECT]: createScheduler(opts.backend, announcements, opts.log) },
    // How the profile lets methods be called and ordered (profile facts method_calls, method_order).
    methodCalls: facts.method_calls,
    shuffle: facts.method_order === 'shuffled-per-start',
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.host !== undefined ? { host: opts.host } : {}),
    ...(opts.allowedHosts !== undefined ? { allowedHosts: opts.allowedHosts } : {}),
  })
  // Each notification is sent once to every connected client (decisions: Notifications).
  const onNotify = (payload: unknown): void => {
    server.emitSignal(QWC_SCHEDULER_OBJECT, QWC_NOTIFY_SIGNAL, [
      typeof payload === 'string' ? payload : JSON.stringify(payload),
    ])
  }
  opts.backend.notifications.on('notify', onNotify)
  try {
    await server.start()
  } catch (err) {
    opts.backend.notifications.off('notify', onNotify)
    throw err
  }
  return {
    server,
    get url() {
      return server.url
    },
    announcements,
    async close() {
      opts.backend.notifications.off('notify', onNotify)
      await server.stop()
    },
  }
}
