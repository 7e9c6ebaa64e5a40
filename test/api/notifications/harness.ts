/**
 * The notification link's test bench, shared by the files of this folder: a QWebChannel scheduler on a real
 * loopback socket (written here, so that each test decides what the application publishes and answers),
 * the link's clocks faked, and the small waits on the link's own events. Everything it starts stops when
 * the test finishes (`onTestFinished`).
 */
import type { AddressInfo } from 'node:net'
import { onTestFinished, vi } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import { AppState } from '../../../src/api/app-state.js'
import {
  NotificationLink,
  type NotificationLinkEvents,
  type NotificationLinkOptions,
} from '../../../src/api/notifications.js'
import { QWC_MESSAGE, SCHEDULER_CHANNEL } from '../../../src/api/protocol.js'
import { QWebChannelClient } from '../../../src/api/qwebchannel.js'
import { nextPhase } from '../../helpers/link.js'

/** How long and how often `expect.poll` looks (real timers only: with fake ones it moves the clock). */
export const WAIT = { timeout: 5000, interval: 5 }

/** Every clock the link and its client use, faked; sockets stay real. */
export const ALL_CLOCKS: Parameters<typeof vi.useFakeTimers>[0] = {
  toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
}

/** The scheduler's methods and signals with the indexes its init reply gives them (not 0-based, on purpose). */
export const METHODS = ['notifyClientConnected', 'scheduleCommand', 'getValueForKey'] as const
/** `onOther` stands for a signal of the scheduler the link has no use for. */
export const SIGNALS = [
  'onNotify',
  ...SCHEDULER_CHANNEL.changeSignals,
  '_cmp_v1_handleActorRegistryChangeEvent',
  'onOther',
] as const
export type Method = (typeof METHODS)[number]
export type Signal = (typeof SIGNALS)[number]
export const methodIndex = (m: Method): number => 40 + METHODS.indexOf(m)
export const signalIndex = (s: Signal): number => 5 + SIGNALS.indexOf(s)

export interface Title {
  id: string
  name: string
  status?: string
  variables: unknown[]
  input?: string
}

export interface Call {
  method: Method
  command?: string
  args: unknown[]
  /** `Date.now()` when the call reached the scheduler (the fake clock, when one is installed). */
  at: number
}

/** A test's own reply to `command` (a scheduleCommand name, or a method): undefined for the default. */
export type Answer = (command: string, socket: WebSocket) => unknown

export interface SchedulerOptions {
  /** The methods published (default: all of METHODS). */
  methods?: readonly Method[]
  /** The scheduler's signals published (default: all of SIGNALS but `onOther`). */
  signals?: readonly Signal[]
  /** Publish a second object, `other`, with an `onNotify` of its own (same index as the scheduler's). */
  other?: boolean
  /**
   * How replies look by default. flat (the default): `getTitleControlInfo` as `{titles}` (protocol notes
   * 1.3), any other command `{success: true}`. wrapped: `{result: {titles}}`, `subscribe` `{result: {}}`,
   * any other `{}`.
   */
  replies?: 'flat' | 'wrapped'
  /** The titles at the start (default: one, `{A}` Alpha, Off). */
  titles?: Title[]
  /**
   * Overrides a reply: undefined keeps the default; text and null go as the reply's data as they are, any
   * other value as its JSON text; a promise delays the reply until it settles.
   */
  answer?: Answer
  /** Runs just after a reply is sent (frames it sends follow the reply in the same read). */
  after?: (command: string, socket: WebSocket) => void
  /** false: pings stay unanswered. */
  pongs?: boolean
}

/**
 * A QWebChannel scheduler on a real loopback socket. Answers init from `methods` and `signals`,
 * `getTitleControlInfo` as JSON text from `titles` (flat, protocol notes 1.3, or wrapped), `subscribe`
 * with an empty result, `getValueForKey` with `state.layers` as it is (an object, or text sent as text),
 * anything else with `{success: true}`. Records every call and every signal a client connected to.
 * `hold(command)` keeps the next reply to that command until released; `close()` stops listening and
 * `open()` listens again on the same port.
 */
export async function scheduler(opts: SchedulerOptions = {}) {
  const methods = opts.methods ?? METHODS
  const signals = opts.signals ?? SIGNALS.filter((s) => s !== 'onOther')
  const init = {
    scheduler: {
      methods: methods.map((m) => [m, methodIndex(m)]),
      signals: signals.map((s) => [s, signalIndex(s)]),
      properties: [],
    },
    ...(opts.other ? { other: { methods: [], signals: [['onNotify', signalIndex('onNotify')]], properties: [] } } : {}),
  }
  const titles: Title[] = opts.titles ?? [{ id: '{A}', name: 'Alpha', status: 'Off', variables: [] }]
  const state = { layers: {} as unknown }
  const calls: Call[] = []
  const connected: string[] = []
  const holds = new Map<string, Promise<void>>()
  const arrivals: { command: string; resolve: () => void }[] = []
  let wss: WebSocketServer | undefined
  let port = 0
  const send = (ws: WebSocket, frame: unknown): void => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame))
  }
  const wrapped = opts.replies === 'wrapped'
  const defaultData = (call: Call): unknown => {
    if (call.method === 'getValueForKey') return state.layers
    if (call.command === 'getTitleControlInfo') {
      const list = structuredClone(titles)
      return JSON.stringify(wrapped ? { result: { titles: list } } : { titles: list })
    }
    if (!wrapped) return JSON.stringify({ success: true })
    return JSON.stringify(call.command === 'subscribe' ? { result: {} } : {})
  }
  const onMessage = (ws: WebSocket, raw: WebSocket.RawData): void => {
    const msg = JSON.parse((raw as Buffer).toString()) as {
      type: number
      id?: number
      method?: number
      signal?: number
      args?: unknown[]
    }
    if (msg.type === QWC_MESSAGE.init) return send(ws, { type: QWC_MESSAGE.response, id: msg.id, data: init })
    if (msg.type === QWC_MESSAGE.connectToSignal) {
      connected.push(SIGNALS.find((s) => signalIndex(s) === msg.signal) ?? `#${msg.signal}`)
      return
    }
    if (msg.type !== QWC_MESSAGE.invokeMethod) return
    const method = METHODS.find((m) => methodIndex(m) === msg.method)!
    const args = msg.args ?? []
    const command = method === 'scheduleCommand' ? String(args[0]) : undefined
    const call: Call = { method, ...(command !== undefined ? { command } : {}), args, at: Date.now() }
    calls.push(call)
    const key = command ?? method
    for (const a of arrivals.splice(0)) {
      if (a.command === key) a.resolve()
      else arrivals.push(a)
    }
    const held = holds.get(key)
    holds.delete(key)
    // The default reply is taken as the call arrives, before a test's answer runs ("the snapshot as it was
    // when asked for"); a held reply is taken when released, so that it carries what the titles are by then.
    const take = (): [unknown, unknown] => [defaultData(call), opts.answer?.(key, ws)]
    const taken = held ? held.then(take) : Promise.resolve(take())
    void taken.then(async ([fallback, answer]) => {
      const data = await answer
      const out = data === undefined ? fallback : data
      const text = out === null || typeof out === 'string' || data === undefined ? out : JSON.stringify(out)
      send(ws, { type: QWC_MESSAGE.response, id: msg.id, data: text })
      opts.after?.(key, ws)
    })
  }
  const listen = async (): Promise<void> => {
    const server = new WebSocketServer({ host: '127.0.0.1', port, autoPong: false })
    await new Promise<void>((r) => server.once('listening', () => r()))
    port = (server.address() as AddressInfo).port
    wss = server
    server.on('connection', (ws) => {
      ws.on('ping', () => opts.pongs !== false && ws.pong())
      ws.on('message', (raw: WebSocket.RawData) => onMessage(ws, raw))
    })
  }
  const sockets = (): WebSocket[] => [...(wss?.clients ?? [])]
  const close = (): Promise<void> =>
    new Promise<void>((r) => {
      const server = wss
      wss = undefined
      if (!server) return r()
      for (const ws of server.clients) ws.terminate()
      server.close(() => r())
    })
  await listen()
  onTestFinished(close)
  return {
    url: `ws://127.0.0.1:${port}`,
    titles,
    state,
    calls,
    connected,
    /** The second argument of every scheduleCommand call, with its command. */
    get params(): [string, unknown][] {
      return calls.map((c) => [c.command ?? c.method, c.args[1]])
    },
    reads: (): Call[] => calls.filter((c) => c.command === 'getTitleControlInfo'),
    /** How many calls of `name` (a method, or a scheduleCommand name) reached the scheduler. */
    count: (name: string): number => calls.filter((c) => c.method === name || c.command === name).length,
    get sockets() {
      return sockets().length
    },
    /** Keeps the next reply to `command` (a scheduleCommand name or a method) until the returned function runs. */
    hold(command: string): () => void {
      let release: () => void = () => undefined
      holds.set(command, new Promise<void>((r) => (release = r)))
      return () => release()
    },
    /** Resolves when the next call of `command` (a scheduleCommand name or a method) reaches the scheduler. */
    arrival(command: string): Promise<void> {
      return new Promise<void>((r) => arrivals.push({ command, resolve: r }))
    },
    /** A signal of the scheduler to every socket, its arguments as given (onNotify's one argument is JSON text). */
    signal(signal: Signal, args: unknown[]): void {
      for (const ws of sockets())
        send(ws, { type: QWC_MESSAGE.signal, object: 'scheduler', signal: signalIndex(signal), args })
    },
    /** A signal frame as written (any object, an index or a name) with `payload` as its one argument, as JSON text. */
    frame(object: string, signal: number | string, payload: unknown): void {
      for (const ws of sockets())
        send(ws, { type: QWC_MESSAGE.signal, object, signal, args: [JSON.stringify(payload)] })
    },
    /** onNotify with `payload`. */
    notify(payload: unknown): void {
      this.frame('scheduler', signalIndex('onNotify'), payload)
    },
    /** Drops every socket without a close handshake. */
    drop(): void {
      for (const ws of sockets()) ws.terminate()
    },
    close,
    open: listen,
  }
}

export type Scheduler = Awaited<ReturnType<typeof scheduler>>

/** The application as the link's older tests knew it: two methods, onNotify and one other signal, replies wrapped. */
export function plainScheduler(opts: SchedulerOptions = {}): Promise<Scheduler> {
  return scheduler({
    methods: ['notifyClientConnected', 'scheduleCommand'],
    signals: ['onNotify', 'onOther'],
    other: true,
    replies: 'wrapped',
    titles: [{ id: 'A', name: 'Alpha', status: 'Off', variables: [] }],
    ...opts,
  })
}

/** A value nested `levels` arrays deep. */
export function nested(levels: number): unknown {
  let v: unknown = 1
  for (let i = 0; i < levels; i++) v = [v]
  return v
}

/** Every QWebChannelClient that connects from here on, in order (the link makes a new one per attempt). */
export function trackClients(): QWebChannelClient[] {
  const clients: QWebChannelClient[] = []
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the client as `this`
  const connect = QWebChannelClient.prototype.connect
  vi.spyOn(QWebChannelClient.prototype, 'connect').mockImplementation(function (this: QWebChannelClient) {
    clients.push(this)
    return connect.call(this)
  })
  return clients
}

export function next<E extends keyof NotificationLinkEvents>(link: NotificationLink, event: E) {
  return new Promise<NotificationLinkEvents[E][0]>((resolve) => {
    link.once(event, (...args) => resolve(args[0]))
  })
}

/** A link to `server` (not started) with its store and the phases it announces; stopped when the test ends. */
export function linkTo(server: Scheduler | string, extra: Partial<NotificationLinkOptions> = {}) {
  const store = new AppState()
  const link = new NotificationLink({ url: typeof server === 'string' ? server : server.url, state: store, ...extra })
  onTestFinished(() => link.stop())
  const phases: string[] = []
  link.on('phase', (p) => phases.push(p))
  return { store, link, phases }
}

/**
 * Starts a link to `server` and waits until it is connected, with the fake clock installed first; returns
 * the link, its store and `arrive(send)`: runs `send` and resolves once the link's client has handled the
 * signal it caused (the link's own listener runs before this one).
 */
export async function connectedLink(server: Scheduler, extra: Partial<NotificationLinkOptions> = {}) {
  vi.useFakeTimers(ALL_CLOCKS)
  const clients = trackClients()
  const { link, store } = linkTo(server, extra)
  const connected = nextPhase(link, 'connected')
  link.start()
  await connected
  const client = clients[0]!
  const arrive = async (send: () => void): Promise<void> => {
    const seen = new Promise<void>((r) => client.once('signal', () => r()))
    send()
    await seen
  }
  /**
   * Moves the clock by `ms`; when that starts a read, waits until the read is done. A read armed at once
   * (an immediate, not a timer) goes out first, on the real turn this waits for.
   */
  const advance = async (ms: number): Promise<void> => {
    await new Promise<void>((r) => setImmediate(r))
    const before = server.reads().length
    vi.advanceTimersByTime(ms)
    if (link.pendingCalls > 0 || server.reads().length > before) await next(link, 'resynchronised')
  }
  return { link, store, arrive, advance }
}
