/**
 * The notification parsers' edges, pinned where mutation testing found them unwatched: value text and
 * its limits, which fields make each shape, the input and id rules, and the snapshot reader's defaults.
 * Then the link's state machine, against a QWebChannel scheduler on a real socket written here: back-off
 * and its reset, liveness, the resynchronisation debounce and when it is skipped, the session's steps,
 * and what the link tells the store and the log. Time is a fake clock wherever it is the subject.
 */
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import { APP_STATE_MAX_VARIABLE_VALUE_CHARS, AppState } from '../../src/api/app-state.js'
import {
  LINK_BACKOFF_INITIAL_MS,
  LINK_RESYNC_DEBOUNCE_MS,
  NOTIFY_MAX_VALUE_DEPTH,
  NotificationLink,
  parseNotification,
  parseTitleControlInfo,
  type Notification,
  type NotificationLinkEvents,
  type NotificationLinkOptions,
} from '../../src/api/notifications.js'
import { QWC_MESSAGE } from '../../src/api/protocol.js'
import { QWebChannelClient, QWebChannelError } from '../../src/api/qwebchannel.js'
import { setLogLevel, setLogSink, type LogLevel, type LogRecord } from '../../src/log.js'
import { thrownBy } from '../helpers/thrown.js'
import { closedPort, nextPhase } from '../helpers/link.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  vi.useRealTimers()
  vi.restoreAllMocks()
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** How long and how often `expect.poll` looks (real timers only: with fake ones it moves the clock). */
const WAIT = { timeout: 5000, interval: 5 }

function captureLogs(): LogRecord[] {
  const records: LogRecord[] = []
  const prev = setLogSink((r) => records.push(r))
  cleanups.push(() => void setLogSink(prev))
  return records
}

/** The log level the process started with (`PANELBRIDGE_LOG_LEVEL`, else info). */
function levelBefore(): LogLevel {
  const env = process.env.PANELBRIDGE_LOG_LEVEL
  return env === 'debug' || env === 'warn' || env === 'error' ? env : 'info'
}

/** Every QWebChannelClient that connects from here on, in order (the link makes a new one per attempt). */
function trackClients(): QWebChannelClient[] {
  const clients: QWebChannelClient[] = []
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the client as `this`
  const connect = QWebChannelClient.prototype.connect
  vi.spyOn(QWebChannelClient.prototype, 'connect').mockImplementation(function (this: QWebChannelClient) {
    clients.push(this)
    return connect.call(this)
  })
  return clients
}

/** The variables of a data notification carrying one variable `v` with `value`. */
function valueOf(value: unknown): string | undefined {
  const n = parseNotification({ event: 'data', id: 't', variables: [{ name: 'v', value }] })
  return n?.kind === 'data' ? n.variables.v : 'not data'
}

function nested(levels: number): unknown {
  let v: unknown = 1
  for (let i = 0; i < levels; i++) v = [v]
  return v
}

const bad = (f: () => unknown): QWebChannelError => thrownBy(f, QWebChannelError)

describe('variable values', () => {
  it('keeps text up to the limit and cuts longer text to it', () => {
    const max = APP_STATE_MAX_VARIABLE_VALUE_CHARS
    expect(valueOf('a'.repeat(max))).toHaveLength(max)
    expect(valueOf('b'.repeat(max + 5))).toBe('b'.repeat(max))
  })

  it('turns null and a missing value into empty text, numbers and booleans into their text', () => {
    expect([valueOf(null), valueOf(undefined), valueOf(0), valueOf(false), valueOf(true)]).toEqual([
      '',
      '',
      '0',
      'false',
      'true',
    ])
  })

  it('turns JSON into its text, cut to the limit; drops JSON nested past the limit and says why', () => {
    expect(valueOf({ a: [1] })).toBe('{"a":[1]}')
    const long = valueOf(['c'.repeat(APP_STATE_MAX_VARIABLE_VALUE_CHARS)])
    expect(long).toHaveLength(APP_STATE_MAX_VARIABLE_VALUE_CHARS)
    expect(valueOf(nested(NOTIFY_MAX_VALUE_DEPTH))).toBe(JSON.stringify(nested(NOTIFY_MAX_VALUE_DEPTH)))
    const dropped: string[] = []
    const n = parseNotification(
      { event: 'data', id: 't', variables: [{ name: 'deep', value: nested(NOTIFY_MAX_VALUE_DEPTH + 1) }] },
      (name, why) => dropped.push(`${name}: ${why}`),
    )
    expect(n).toEqual({ kind: 'data', id: 't', variables: {} })
    expect(dropped).toEqual([`deep: value nested deeper than ${NOTIFY_MAX_VALUE_DEPTH} levels`])
  })

  it('keeps the own text of values JSON cannot write (NaN, Infinity, a bigint), and never throws on them', () => {
    expect([valueOf(Number.NaN), valueOf(-Infinity), valueOf(10n)]).toEqual(['NaN', '-Infinity', '10'])
  })

  it('drops a value nested too deep without throwing when nobody asked to hear about it', () => {
    const deep = { event: 'data', id: 't', variables: [{ name: 'deep', value: nested(NOTIFY_MAX_VALUE_DEPTH + 1) }] }
    expect(parseNotification(deep)).toEqual({ kind: 'data', id: 't', variables: {} })
    const title = { id: 'a', variables: [{ variable: 'deep', value: nested(NOTIFY_MAX_VALUE_DEPTH + 1) }] }
    expect(parseTitleControlInfo({ result: { titles: [title] } })[0]?.variables).toEqual({})
  })

  it('keeps a variable named __proto__ as an entry', () => {
    const n = parseNotification({ event: 'data', id: 't', variables: [{ name: '__proto__', value: 'x' }] })
    expect(n?.kind === 'data' && Object.entries(n.variables)).toEqual([['__proto__', 'x']])
  })
})

describe('notification shapes', () => {
  it('reads JSON text and objects alike; JSON that is not an object is nothing', () => {
    expect(parseNotification('{"control":"addTitle"}')).toEqual({ kind: 'control', control: 'addTitle' })
    expect(parseNotification('"addTitle"')).toBeUndefined()
  })

  it('keeps a non-empty string input; an empty or non-string input is left out', () => {
    expect(parseNotification({ id: 't', play: 'Running', input: 'Cam' })).toEqual({
      kind: 'play',
      id: 't',
      play: 'Running',
      input: 'Cam',
    })
    for (const input of ['', 5]) {
      expect(parseNotification({ id: 't', play: 'Running', input })).toEqual({ kind: 'play', id: 't', play: 'Running' })
    }
    expect(parseNotification({ event: 'data', id: 't', variables: [], input: 'Cam' })).toEqual({
      kind: 'data',
      id: 't',
      variables: {},
      input: 'Cam',
    })
  })

  it('needs a non-empty string id for play and data', () => {
    for (const id of ['', 5, undefined]) {
      expect(parseNotification({ id, play: 'Running' })).toBeUndefined()
      expect(parseNotification({ event: 'play', id, play: 'Running' })).toBeUndefined()
      expect(parseNotification({ event: 'data', id, variables: [] })).toBeUndefined()
    }
  })

  it("event 'play' takes the first field that parses: play, state, status, then playState", () => {
    const play = (fields: Record<string, unknown>) => parseNotification({ event: 'play', id: 't', ...fields })
    expect(play({ play: 'x', state: 'Paused', status: 'Running' })).toEqual({ kind: 'play', id: 't', play: 'Paused' })
    expect(play({ status: 'running' })).toEqual({ kind: 'play', id: 't', play: 'Running' })
    expect(play({ playState: 'off' })).toEqual({ kind: 'play', id: 't', play: 'Off' })
    expect(play({ play: 'nonsense' })).toBeUndefined()
  })

  it('a play field with another event, or an unreadable play state, is nothing', () => {
    expect(parseNotification({ event: 'other', id: 't', play: 'Running' })).toBeUndefined()
    expect(parseNotification({ id: 't', play: 'sideways' })).toBeUndefined()
  })

  it('data needs a variables list; variables without a string name are skipped', () => {
    expect(parseNotification({ event: 'data', id: 't', variables: {} })).toBeUndefined()
    expect(
      parseNotification({ event: 'data', id: 't', variables: [{ name: 5, value: 'x' }, 'junk', { name: 'ok' }] }),
    ).toEqual({ kind: 'data', id: 't', variables: { ok: '' } })
  })

  it("keeps any non-empty control; an empty one, or data other than 'Update', is nothing", () => {
    expect(parseNotification({ control: 'removeTitle' })).toEqual({ kind: 'control', control: 'removeTitle' })
    expect(parseNotification({ control: '' })).toBeUndefined()
    expect(parseNotification({ control: 5 })).toBeUndefined()
    expect(parseNotification({ data: 'update' })).toBeUndefined()
  })
})

describe('getTitleControlInfo', () => {
  it('defaults the name to the id and the play state to Off, and splits inputs on commas', () => {
    const titles = parseTitleControlInfo({
      result: {
        titles: [
          { id: 'a', name: 5, status: 'nonsense', input: ' Cam 1 , Cam 2' },
          { id: 'b', input: '' },
          { id: 'c', input: 7, variables: 'x' },
          { id: 5 },
        ],
      },
    })
    expect(titles.map((t) => [t.id, t.name, t.play, t.inputs])).toEqual([
      ['a', 'a', 'Off', ['Cam 1', 'Cam 2']],
      ['b', 'b', 'Off', []],
      ['c', 'c', 'Off', []],
    ])
  })

  it('reads variables by their "variable" name, skipping others, and reports deep values', () => {
    const dropped: string[] = []
    const [t] = parseTitleControlInfo(
      {
        result: {
          titles: [
            {
              id: 'a',
              variables: [
                { variable: 'x', value: 1 },
                { name: 'y', value: 2 },
                'junk',
                { variable: 'deep', value: nested(NOTIFY_MAX_VALUE_DEPTH + 1) },
              ],
            },
          ],
        },
      },
      (name) => dropped.push(name),
    )
    expect(t!.variables).toEqual({ x: '1' })
    expect(dropped).toEqual(['deep'])
  })

  it('names why a reply is refused', () => {
    expect(bad(() => parseTitleControlInfo({ result: 5 })).message).toBe('getTitleControlInfo: result is not an object')
    expect(bad(() => parseTitleControlInfo(null)).code).toBe('BAD_REPLY')
    const long = 'e'.repeat(300)
    // The application's error text, quoted and cut to 200 characters.
    expect(bad(() => parseTitleControlInfo({ result: { error: long } })).message).toBe(
      `getTitleControlInfo: "${'e'.repeat(199)}`,
    )
    expect(bad(() => parseTitleControlInfo({ result: { titles: {} } })).message).toBe(
      'getTitleControlInfo: no titles array',
    )
    for (const reply of [{ result: { error: 'x' } }, { result: { titles: {} } }]) {
      expect(bad(() => parseTitleControlInfo(reply)).code).toBe('BAD_REPLY')
    }
    // One reader for both transports: an `error` of any type fails the reply, as it does over HTTP.
    expect(bad(() => parseTitleControlInfo({ result: { error: 5, titles: [] } })).message).toBe(
      'getTitleControlInfo: "5"',
    )
  })
})

// ---- the link's state machine, against a scheduler written here ------------------------------------

const NOTIFY = 7
const OTHER_SIGNAL = 8
const INIT = {
  scheduler: {
    methods: [
      ['notifyClientConnected', 40],
      ['scheduleCommand', 41],
    ],
    signals: [
      ['onNotify', NOTIFY],
      ['onOther', OTHER_SIGNAL],
    ],
    properties: [],
  },
  other: { methods: [], signals: [['onNotify', NOTIFY]], properties: [] },
}

type Answer = (command: string, socket: WebSocket) => unknown

/**
 * A QWebChannel scheduler on a real loopback socket: answers init, `notifyClientConnected` and
 * `scheduleCommand` (`getTitleControlInfo` from `titles`, `subscribe` with an empty result), records
 * every call, and lets the test push signals. `answer` overrides a command's reply (undefined: the
 * default; text and null go as the reply's data as they are); a promise delays it. `after` runs just after a reply is sent (frames it sends follow the reply
 * in the same read). `pongs: false` leaves pings unanswered. `close()` stops listening and `open()`
 * listens again on the same port.
 */
async function scheduler(
  opts: { answer?: Answer; after?: (command: string, socket: WebSocket) => void; pongs?: boolean } = {},
) {
  const titles: { id: string; name: string; status: string; variables: unknown[]; input?: string }[] = [
    { id: 'A', name: 'Alpha', status: 'Off', variables: [] },
  ]
  const calls: string[] = []
  const params: [string, unknown][] = []
  let wss: WebSocketServer | undefined
  let port = 0
  const reply = (ws: WebSocket, id: unknown, data: unknown): void => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: QWC_MESSAGE.response, id, data }))
  }
  const listen = async (): Promise<void> => {
    const server = new WebSocketServer({ host: '127.0.0.1', port, autoPong: false })
    await new Promise<void>((r) => server.once('listening', () => r()))
    port = (server.address() as AddressInfo).port
    wss = server
    server.on('connection', (ws) => {
      ws.on('ping', () => opts.pongs !== false && ws.pong())
      ws.on('message', (raw: WebSocket.RawData) => {
        const msg = JSON.parse((raw as Buffer).toString()) as {
          type: number
          id?: number
          method?: number
          args?: unknown[]
        }
        if (msg.type === QWC_MESSAGE.init) return reply(ws, msg.id, INIT)
        if (msg.type !== QWC_MESSAGE.invokeMethod) return
        const command = msg.method === 40 ? 'notifyClientConnected' : String(msg.args?.[0])
        calls.push(command)
        params.push([command, msg.args?.[1]])
        const fallback =
          command === 'getTitleControlInfo'
            ? { result: { titles: structuredClone(titles) } }
            : command === 'subscribe'
              ? { result: {} }
              : {}
        void Promise.resolve(opts.answer?.(command, ws)).then((data) => {
          const out = data === undefined ? fallback : data
          reply(ws, msg.id, out === null || typeof out === 'string' ? out : JSON.stringify(out))
          opts.after?.(command, ws)
        })
      })
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
  cleanups.push(close)
  return {
    url: `ws://127.0.0.1:${port}`,
    titles,
    calls,
    /** The second argument of every call, with its command. */
    params,
    /** How many `command` calls reached the scheduler. */
    count: (command: string) => calls.filter((c) => c === command).length,
    get sockets() {
      return sockets().length
    },
    /** A signal frame to every socket; `payload` goes as the one argument, as JSON text. */
    signal(object: string, signal: number | string, payload: unknown): void {
      const frame = JSON.stringify({ type: QWC_MESSAGE.signal, object, signal, args: [JSON.stringify(payload)] })
      for (const ws of sockets()) ws.send(frame)
    },
    notify(payload: unknown): void {
      this.signal('scheduler', NOTIFY, payload)
    },
    /** Drops every socket without a close handshake. */
    drop(): void {
      for (const ws of sockets()) ws.terminate()
    },
    close,
    open: listen,
  }
}

type Scheduler = Awaited<ReturnType<typeof scheduler>>

/** Every clock the link and its client use, faked; sockets stay real. */
const ALL_CLOCKS: Parameters<typeof vi.useFakeTimers>[0] = {
  toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
}

function linkTo(server: Scheduler | string, extra: Partial<NotificationLinkOptions> = {}) {
  const store = new AppState()
  const link = new NotificationLink({ url: typeof server === 'string' ? server : server.url, state: store, ...extra })
  cleanups.push(() => link.stop())
  const phases: string[] = []
  link.on('phase', (p) => phases.push(p))
  return { store, link, phases }
}

function next<E extends keyof NotificationLinkEvents>(link: NotificationLink, event: E) {
  return new Promise<NotificationLinkEvents[E][0]>((resolve) => {
    link.once(event, (...args) => resolve(args[0]))
  })
}

/**
 * Starts a link whose application is down and lets it fail three times (its retries after 250 and 500
 * ms fail too, on fake timers); returns once the third failure is in, the next retry due in 1000 ms.
 */
async function startAndFailThrice(link: NotificationLink): Promise<void> {
  let failed = nextPhase(link, 'waiting-to-retry')
  link.start()
  for (const delay of [250, 500]) {
    await failed
    failed = nextPhase(link, 'waiting-to-retry')
    vi.advanceTimersByTime(delay)
  }
  await failed
}

describe('reconnect back-off', () => {
  it('starts again at the initial delay once a session was up: a new outage retries after 250 ms', async () => {
    const server = await scheduler()
    await server.close()
    vi.useFakeTimers(ALL_CLOCKS)
    const { link } = linkTo(server)
    await startAndFailThrice(link)
    // Three failures in: the next retry waits 1000 ms. The application comes back meanwhile.
    await server.open()
    const connected = nextPhase(link, 'connected')
    vi.advanceTimersByTime(1000)
    await connected
    const failed = nextPhase(link, 'waiting-to-retry')
    server.drop()
    await failed
    vi.advanceTimersByTime(LINK_BACKOFF_INITIAL_MS - 1)
    expect(link.state).toBe('waiting-to-retry')
    vi.advanceTimersByTime(1)
    expect(link.state).toBe('connecting')
  })

  it('stop() then start() begins a fresh back-off: the old retry timer is gone and the first retry is after 250 ms', async () => {
    const url = `ws://127.0.0.1:${await closedPort()}`
    vi.useFakeTimers(ALL_CLOCKS)
    const { link } = linkTo(url)
    await startAndFailThrice(link)
    // A retry is due in 1000 ms; 900 of them pass before the restart.
    vi.advanceTimersByTime(900)
    link.stop()
    expect(link.state).toBe('stopped')
    const failed = nextPhase(link, 'waiting-to-retry')
    link.start()
    expect(link.state).toBe('connecting')
    await failed
    vi.advanceTimersByTime(LINK_BACKOFF_INITIAL_MS - 1)
    expect(link.state).toBe('waiting-to-retry')
    vi.advanceTimersByTime(1)
    expect(link.state).toBe('connecting')
  })
})

describe('liveness', () => {
  it('pings every third of the time-out and drops a socket silent for longer than the time-out, not at it', async () => {
    const records = captureLogs()
    const server = await scheduler({ pongs: false })
    vi.useFakeTimers(ALL_CLOCKS)
    const pings = vi.spyOn(QWebChannelClient.prototype, 'ping')
    const { store, link } = linkTo(server, { timing: { livenessTimeoutMs: 3000 } })
    const connected = nextPhase(link, 'connected')
    link.start()
    await connected
    // Checked every 1000 ms: at 3000 ms the socket has been silent for exactly the time-out, still alive.
    vi.advanceTimersByTime(3999)
    expect(pings).toHaveBeenCalledTimes(3)
    expect(link.state).toBe('connected')
    vi.advanceTimersByTime(1)
    expect(link.state).toBe('waiting-to-retry')
    expect(pings).toHaveBeenCalledTimes(3)
    expect(store.link).toMatchObject({ status: 'stale', error: 'socket silent for 4000 ms' })
    expect(records.find((r) => r.level === 'warn')?.fields).toMatchObject({ code: 'TIMEOUT' })
    await expect.poll(() => server.sockets).toBe(0)
  })

  it('checks at most every 10 ms, however short the time-out', async () => {
    const server = await scheduler({ pongs: false })
    vi.useFakeTimers(ALL_CLOCKS)
    const pings = vi.spyOn(QWebChannelClient.prototype, 'ping')
    const { link } = linkTo(server, { timing: { livenessTimeoutMs: 12 } })
    const connected = nextPhase(link, 'connected')
    link.start()
    await connected
    vi.advanceTimersByTime(19)
    expect(pings).toHaveBeenCalledTimes(1)
    expect(link.state).toBe('connected')
    vi.advanceTimersByTime(1)
    expect(link.state).toBe('waiting-to-retry')
  })

  it('a stopped link holds no timer, so it never keeps the process alive', async () => {
    const server = await scheduler()
    vi.useFakeTimers(ALL_CLOCKS)
    const { link } = linkTo(server)
    const connected = nextPhase(link, 'connected')
    link.start()
    await connected
    expect(vi.getTimerCount()).toBe(1) // the liveness check
    const seen = next(link, 'notification')
    server.notify({ control: 'addTitle' })
    await seen
    expect(vi.getTimerCount()).toBe(2) // and the debounced resynchronisation
    link.stop()
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('resynchronisation', () => {
  it('debounces a burst of addTitle into one snapshot, LINK_RESYNC_DEBOUNCE_MS after the first', async () => {
    const server = await scheduler()
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const { store, link } = linkTo(server)
    const connected = nextPhase(link, 'connected')
    link.start()
    await connected
    server.titles.push({ id: 'B', name: 'Beta', status: 'Running', variables: [] })
    const seen: Notification[] = []
    link.on('notification', (n) => seen.push(n))
    server.notify({ control: 'addTitle' })
    server.notify({ data: 'Update' })
    server.notify({ control: 'addTitle' })
    await expect.poll(() => seen.length).toBe(3)
    expect(seen).toEqual([
      { kind: 'control', control: 'addTitle' },
      { kind: 'update' },
      { kind: 'control', control: 'addTitle' },
    ])
    expect(vi.getTimerCount()).toBe(1) // one resynchronisation armed, not three
    vi.advanceTimersByTime(LINK_RESYNC_DEBOUNCE_MS - 1)
    expect(server.count('getTitleControlInfo')).toBe(1)
    const resynced = next(link, 'resynchronised')
    vi.advanceTimersByTime(1)
    expect(await resynced).toEqual({ titles: 2 })
    expect(server.count('getTitleControlInfo')).toBe(2)
    expect(store.title('B')).toMatchObject({ name: 'Beta', play: 'Running' })
    // Without the title icons (data URLs), which would make every snapshot heavy.
    expect(server.params.filter(([c]) => c === 'getTitleControlInfo').map(([, p]) => p)).toEqual([
      { icon: '0' },
      { icon: '0' },
    ])
  })

  it('an addTitle while connecting or before the snapshot reply is covered by the session snapshot', async () => {
    const server = await scheduler({
      // Each of these answers is preceded by an addTitle on the same socket.
      answer: (command, ws) => {
        if (command === 'notifyClientConnected' || command === 'getTitleControlInfo') {
          ws.send(
            JSON.stringify({
              type: QWC_MESSAGE.signal,
              object: 'scheduler',
              signal: NOTIFY,
              args: ['{"control":"addTitle"}'],
            }),
          )
        }
        return undefined
      },
    })
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const { link } = linkTo(server)
    const seen: Notification[] = []
    link.on('notification', (n) => seen.push(n))
    const connected = nextPhase(link, 'connected')
    link.start()
    await connected
    expect(seen).toEqual([
      { kind: 'control', control: 'addTitle' },
      { kind: 'control', control: 'addTitle' },
    ])
    // No resynchronisation is armed: the snapshot the session just took already follows both.
    expect(vi.getTimerCount()).toBe(0)
    expect(server.count('getTitleControlInfo')).toBe(1)
  })

  it('an addTitle right after the snapshot reply, before the session is up, still resynchronises', async () => {
    const server = await scheduler({
      after: (command, ws) => {
        if (command !== 'getTitleControlInfo' || server.count(command) > 1) return
        server.titles.push({ id: 'B', name: 'Beta', status: 'Off', variables: [] })
        ws.send(
          JSON.stringify({
            type: QWC_MESSAGE.signal,
            object: 'scheduler',
            signal: NOTIFY,
            args: ['{"control":"addTitle"}'],
          }),
        )
      },
    })
    const { store, link } = linkTo(server, { timing: { resyncDebounceMs: 10 } })
    link.start()
    await expect.poll(() => store.title('B'), WAIT).toMatchObject({ name: 'Beta' })
    expect(server.count('getTitleControlInfo')).toBe(2)
  })

  it('an addTitle during a later resynchronisation on an open link, before its reply, asks for one more', async () => {
    // The snapshot under way was taken before the title was added, so it cannot cover it.
    const signal = (ws: WebSocket): void =>
      ws.send(
        JSON.stringify({
          type: QWC_MESSAGE.signal,
          object: 'scheduler',
          signal: NOTIFY,
          args: ['{"control":"addTitle"}'],
        }),
      )
    const server = await scheduler({
      answer: (command, ws) => {
        if (command !== 'getTitleControlInfo' || server.count(command) !== 2) return undefined
        server.titles.push({ id: 'C', name: 'Gamma', status: 'Off', variables: [] })
        signal(ws)
        return undefined // the snapshot as it was when asked for: without Gamma
      },
    })
    const { store, link } = linkTo(server, { timing: { resyncDebounceMs: 10 } })
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    server.titles.push({ id: 'B', name: 'Beta', status: 'Off', variables: [] })
    server.signal('scheduler', NOTIFY, { control: 'addTitle' })
    await expect.poll(() => store.title('C'), WAIT).toMatchObject({ name: 'Gamma' })
    expect(store.title('B')).toMatchObject({ name: 'Beta' })
    expect(server.count('getTitleControlInfo')).toBe(3)
  })

  it('learns a title it did not know from a notification about it, by resynchronising', async () => {
    const server = await scheduler()
    const { store, link } = linkTo(server, { timing: { resyncDebounceMs: 10 } })
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    server.titles.push({ id: 'B', name: 'Beta', status: 'Paused', variables: [] })
    server.notify({ id: 'B', play: 'Paused' })
    await expect.poll(() => store.title('B'), WAIT).toMatchObject({ name: 'Beta', play: 'Paused' })
    expect(server.count('getTitleControlInfo')).toBe(2)
  })

  it('a resynchronisation refused on an open link drops the session, says why, and reconnects', async () => {
    const server = await scheduler({
      answer: (command) =>
        command === 'getTitleControlInfo' && server.count(command) === 2 ? { result: { error: 'busy' } } : undefined,
    })
    const { store, link, phases } = linkTo(server, { timing: { resyncDebounceMs: 10, backoffInitialMs: 10 } })
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    const down = nextPhase(link, 'waiting-to-retry')
    server.notify({ data: 'Update' })
    await down
    expect(store.link).toMatchObject({
      status: 'stale',
      phase: 'waiting-to-retry',
      error: 'getTitleControlInfo: "busy"',
    })
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(phases).toEqual([
      'connecting',
      'resynchronising',
      'connected',
      'waiting-to-retry',
      'connecting',
      'resynchronising',
      'connected',
    ])
    expect(server.count('notifyClientConnected')).toBe(2)
  })

  it('setFilter() on an open link resynchronises and keeps the newly chosen title, by id or by name', async () => {
    const server = await scheduler()
    server.titles.push({ id: 'B', name: 'Beta', status: 'Off', variables: [] })
    const { store, link } = linkTo(server, { filter: { titles: ['A'] }, timing: { resyncDebounceMs: 10 } })
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(store.titles().map((t) => t.id)).toEqual(['A'])
    link.setFilter({ titles: ['Beta'] })
    await expect.poll(() => store.titles().map((t) => t.id), WAIT).toEqual(['B'])
    link.setFilter(undefined)
    await expect
      .poll(
        () =>
          store
            .titles()
            .map((t) => t.id)
            .sort(),
        WAIT,
      )
      .toEqual(['A', 'B'])
  })
})

describe('session', () => {
  it('reads only scheduler.onNotify: the same payload on another signal or object changes nothing', async () => {
    const server = await scheduler()
    const { store, link } = linkTo(server)
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    const seen: Notification[] = []
    link.on('notification', (n) => seen.push(n))
    server.signal('other', 'onNotify', { id: 'A', play: 'Running' })
    server.signal('scheduler', 'onOther', { id: 'A', play: 'Running' })
    server.notify({ id: 'A', play: 'Paused' })
    await expect.poll(() => seen.length, WAIT).toBe(1)
    expect(seen).toEqual([{ kind: 'play', id: 'A', play: 'Paused' }])
  })

  it('start() twice opens one socket and one session', async () => {
    const server = await scheduler()
    const { store, link } = linkTo(server)
    link.start()
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(server.count('notifyClientConnected')).toBe(1)
    expect(server.sockets).toBe(1)
  })

  it('an injected subscribe is called with the sender and events on every connect, instead of the socket', async () => {
    const server = await scheduler()
    const subscribed: [string, string][] = []
    const { store, link } = linkTo(server, {
      sender: 'deck-1',
      timing: { backoffInitialMs: 10 },
      subscribe: (sender, events) => {
        subscribed.push([sender, events])
        return Promise.resolve()
      },
    })
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    server.drop()
    await expect.poll(() => subscribed.length, WAIT).toBe(2)
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(subscribed).toEqual([
      ['deck-1', 'play,data,control'],
      ['deck-1', 'play,data,control'],
    ])
    expect(server.count('subscribe')).toBe(0)
  })

  it("a refused subscription fails the session with the application's reason", async () => {
    const records = captureLogs()
    const server = await scheduler({
      answer: (command) => (command === 'subscribe' ? { result: { error: 'no such sender' } } : undefined),
    })
    const { store, link } = linkTo(server)
    const down = nextPhase(link, 'waiting-to-retry')
    link.start()
    await down
    expect(store.link).toMatchObject({ status: 'stale', error: 'subscribe refused: no such sender' })
    expect(records.find((r) => r.level === 'warn')?.fields).toMatchObject({ code: 'BAD_REPLY' })
    expect(server.count('getTitleControlInfo')).toBe(0)
  })

  it('a socket lost while an injected subscribe is pending: the late subscribe does not revive the session', async () => {
    let release: () => void = () => undefined
    const server = await scheduler()
    const subscribed = new Promise<void>((r) => (release = r))
    let asked = 0
    const subscribe = (): Promise<void> => (asked++, subscribed)
    const { link, phases } = linkTo(server, { timing: { backoffInitialMs: 60_000 }, subscribe })
    link.start()
    await expect.poll(() => asked, WAIT).toBe(1)
    const down = nextPhase(link, 'waiting-to-retry')
    server.drop()
    await down
    release()
    await subscribed
    // The session's next step would run a turn after the subscribe resolved.
    await new Promise((r) => setImmediate(r))
    expect(phases).toEqual(['connecting', 'waiting-to-retry'])
    expect(server.count('getTitleControlInfo')).toBe(0)
  })

  it('a subscribe that rejects with something other than an Error is reported as its JSON text', async () => {
    const server = await scheduler()
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the case under test
    const { store, link } = linkTo(server, { subscribe: () => Promise.reject({ why: 'nope' }) })
    const down = nextPhase(link, 'waiting-to-retry')
    link.start()
    await down
    expect(store.link).toMatchObject({ status: 'stale', error: '{"why":"nope"}' })
  })

  it('counts the calls awaiting a reply on the current socket, and none once stopped', async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((r) => (release = r))
    const server = await scheduler({
      answer: (command) => (command === 'getTitleControlInfo' ? held.then(() => undefined) : undefined),
    })
    const { link } = linkTo(server)
    expect(link.pendingCalls).toBe(0)
    link.start()
    await expect.poll(() => server.count('getTitleControlInfo'), WAIT).toBe(1)
    expect(link.pendingCalls).toBe(1)
    link.stop()
    expect(link.pendingCalls).toBe(0)
    release()
  })
})

describe('what the link tells the store and the log', () => {
  it('a dropped socket shows as stale with its close code; a recovery clears the error', async () => {
    const server = await scheduler()
    const { store, link } = linkTo(server, { timing: { backoffInitialMs: 10 } })
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    const down = nextPhase(link, 'waiting-to-retry')
    server.drop()
    await down
    expect(store.link).toMatchObject({ status: 'stale', phase: 'waiting-to-retry', error: 'socket closed (1006)' })
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    link.stop()
    expect(store.link).toEqual({ status: 'stale', phase: 'stopped', since: expect.any(Number) })
  })

  it('stop() on a stopped link announces no phase', async () => {
    const server = await scheduler()
    const { store, link, phases } = linkTo(server)
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    link.stop()
    link.stop()
    expect(phases).toEqual(['connecting', 'resynchronising', 'connected', 'stopped'])
  })

  it('logs one warning per outage (not per retry) and one "up" line per recovery, with the reason and the title count', async () => {
    const records = captureLogs()
    const server = await scheduler()
    const { store, link } = linkTo(server, { timing: { backoffInitialMs: 10, backoffMaxMs: 10 } })
    const mine = () => records.filter((r) => r.scope === 'notifications' && r.level !== 'debug')
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(mine()).toEqual([
      {
        level: 'info',
        scope: 'notifications',
        message: 'notification link up',
        fields: { url: server.url, titles: 1 },
      },
    ])
    await server.close()
    await expect.poll(() => link.state, WAIT).toBe('waiting-to-retry')
    // Several refused attempts, one warning.
    const failures = { n: 0 }
    link.on('phase', (p) => p === 'waiting-to-retry' && failures.n++)
    await expect.poll(() => failures.n, WAIT).toBeGreaterThanOrEqual(3)
    await server.open()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    server.drop()
    await expect.poll(() => store.link.status, WAIT).toBe('stale')
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    const warn = (message: string) => ({
      level: 'warn',
      scope: 'notifications',
      message: 'notification link down; retrying',
      fields: { url: server.url, code: 'DISCONNECTED', message },
    })
    const up = {
      level: 'info',
      scope: 'notifications',
      message: 'notification link up',
      fields: { url: server.url, titles: 1 },
    }
    expect(mine()).toEqual([up, warn('socket closed (1006)'), up, warn('socket closed (1006)'), up])
  })
})

describe('filters on the link', () => {
  it('drops a notification on an input outside the filter, keeps one on a listed input', async () => {
    const server = await scheduler()
    const { store, link } = linkTo(server, { filter: { inputs: ['Cam'] } })
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    const seen: Notification[] = []
    link.on('notification', (n) => seen.push(n))
    server.notify({ id: 'A', play: 'Running', input: 'Other' })
    server.notify({ id: 'A', play: 'Paused', input: 'Cam' })
    await expect.poll(() => seen.length, WAIT).toBe(1)
    expect(seen).toEqual([{ kind: 'play', id: 'A', play: 'Paused', input: 'Cam' }])
  })

  it('a title filter alone keeps its titles on any input, and their notifications from any input', async () => {
    const server = await scheduler()
    server.titles[0]!.input = 'Cam 1'
    const { store, link } = linkTo(server, { filter: { titles: ['A'] } })
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(store.titles().map((t) => t.id)).toEqual(['A'])
    const seen = next(link, 'notification')
    server.notify({ id: 'A', play: 'Running', input: 'Cam 1' })
    expect(await seen).toEqual({ kind: 'play', id: 'A', play: 'Running', input: 'Cam 1' })
  })
})

describe('stopping', () => {
  it('stop() on a link never started is a no-op', () => {
    const { store, link, phases } = linkTo('ws://127.0.0.1:1')
    expect(() => link.stop()).not.toThrow()
    expect(store.link).toMatchObject({ status: 'stale', phase: 'stopped' })
    expect(phases).toEqual([])
  })

  it('stop() while a call is pending stays stopped when that call then fails', async () => {
    const records = captureLogs()
    const server = await scheduler({
      answer: (command) => (command === 'getTitleControlInfo' ? new Promise(() => undefined) : undefined),
    })
    const clients = trackClients()
    const { link } = linkTo(server)
    link.start()
    await expect.poll(() => server.count('getTitleControlInfo'), WAIT).toBe(1)
    const closed = new Promise((r) => clients[0]!.once('close', r))
    link.stop()
    await closed
    // The pending call is rejected as the socket closes; its failure reaches the link a turn later.
    await new Promise((r) => setImmediate(r))
    expect(link.state).toBe('stopped')
    expect(records.filter((r) => r.level === 'warn')).toEqual([])
  })

  it('stop() and start() at once while a call is pending: the old call failing does not touch the new session', async () => {
    const server = await scheduler({
      answer: (command) =>
        command === 'getTitleControlInfo' && server.count(command) === 1 ? new Promise(() => undefined) : undefined,
    })
    const { store, link, phases } = linkTo(server)
    link.start()
    await expect.poll(() => server.count('getTitleControlInfo'), WAIT).toBe(1)
    link.stop()
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(phases).toEqual(['connecting', 'resynchronising', 'stopped', 'connecting', 'resynchronising', 'connected'])
    expect(server.count('notifyClientConnected')).toBe(2)
  })

  it('stop() removes every listener the link added to its client', async () => {
    const server = await scheduler()
    const clients = trackClients()
    const { store, link } = linkTo(server)
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    const [client] = clients
    expect([client!.listenerCount('close'), client!.listenerCount('signal')]).toEqual([1, 1])
    link.stop()
    expect([client!.listenerCount('close'), client!.listenerCount('signal')]).toEqual([0, 0])
  })
})

describe('replies and log lines of a session', () => {
  it('accepts a subscribe reply without a result object, even null (as Qt answers a failed method)', async () => {
    const server = await scheduler({ answer: (command) => (command === 'subscribe' ? null : undefined) })
    const { store, link } = linkTo(server)
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(server.count('subscribe')).toBe(1)
  })

  it("names the client's log lines under the link's scope, and each dropped variable with why", async () => {
    const records = captureLogs()
    const server = await scheduler()
    const { store, link } = linkTo(server)
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    server.signal('scheduler', 99, {})
    const seen = next(link, 'notification')
    server.notify({ event: 'data', id: 'A', variables: [{ name: 'deep', value: nested(NOTIFY_MAX_VALUE_DEPTH + 1) }] })
    await seen
    expect(records.filter((r) => r.level === 'warn').map((r) => [r.scope, r.message, r.fields])).toEqual([
      ['notifications/qwc', 'ignoring a signal not named in the init reply', { object: 'scheduler', signal: '99' }],
      [
        'notifications',
        'dropped a variable value the application sent',
        { variable: 'deep', why: `value nested deeper than ${NOTIFY_MAX_VALUE_DEPTH} levels` },
      ],
    ])
  })

  it('at debug level: the announcement, a notification of another shape once (it re-reads), and "up again" only after a restart', async () => {
    const records = captureLogs()
    setLogLevel('debug')
    cleanups.push(() => setLogLevel(levelBefore()))
    const server = await scheduler({
      answer: (command) => (command === 'notifyClientConnected' ? { app: 'sim' } : undefined),
    })
    const { store, link } = linkTo(server, { timing: { resyncDebounceMs: 10 } })
    const mine = () => records.filter((r) => r.scope === 'notifications').map((r) => [r.level, r.message, r.fields])
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    server.notify({ chat: 1 })
    server.notify({ chat: 2 })
    const resynced = next(link, 'resynchronised')
    server.notify({ control: 'addTitle' })
    await resynced
    link.stop()
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(mine()).toEqual([
      ['debug', 'application announced', { info: { app: 'sim' } }],
      ['info', 'notification link up', { url: server.url, titles: 1 }],
      ['debug', 'a notification of another shape; re-reading the titles', { sample: '"{\\"chat\\":1}"' }],
      ['debug', 'application announced', { info: { app: 'sim' } }],
      ['debug', 'notification link up again', { titles: 1 }],
    ])
    expect(records.filter((r) => r.level === 'warn')).toEqual([])
  })
})
