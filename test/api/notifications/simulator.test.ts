/**
 * The notification link against the simulator (a real QWebChannel server on loopback): the handshake,
 * play and data notifications, a silent or dropped socket, stale while down and the recovery, filters,
 * stop(), and the back-off while nothing listens. The parsers' cases are in parse.test.ts.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { AppState, type AppStateEvents } from '../../../src/api/app-state.js'
import {
  LINK_TUNABLES,
  NotificationLink,
  type LinkTiming,
  type NotificationFilter,
} from '../../../src/api/notifications.js'
import { SCHEDULER_CHANNEL, type PlayState } from '../../../src/api/protocol.js'
import { QWebChannelClient } from '../../../src/api/qwebchannel.js'
import { startSimulator, type SimulatorHandle } from '../../../src/app-kit/simulator/index.js'
import { QWebChannelServer } from '../../../src/app-kit/simulator/qwebchannel-server.js'
import { closedPort, nextPhase } from '../../helpers/link.js'

/**
 * Small timing so that failures and recoveries happen quickly; nothing below asserts on speed. The
 * liveness and call time-outs stay generous (a loaded CI box must not see a healthy socket as dead),
 * except in the test about silence, which uses SILENCE.
 */
const FAST: LinkTiming = {
  backoffInitialMs: 20,
  backoffMaxMs: 80,
  livenessTimeoutMs: 2000,
  callTimeoutMs: 2000,
  resyncDebounceMs: 20,
  changeDebounceMs: 20,
  maxReadsPerSecond: LINK_TUNABLES.maxReadsPerSecond,
}
const SILENCE: Partial<LinkTiming> = { livenessTimeoutMs: 300, callTimeoutMs: 300 }

const LOWER_THIRD = '{3f2b8c1e-7a4d-4e52-9b1a-5c6d7e8f9a01}'
const SCORE_BUG = '{9c0e4a7b-2d15-4f3e-8a6c-0b1d2e3f4a02}'

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

interface Setup {
  sim: SimulatorHandle
  store: AppState
  link: NotificationLink
  /** Every play state the store reported per title id, in order. */
  plays: Map<string, PlayState[]>
  titleEvents: AppStateEvents['title'][0][]
  resyncs: { count: number }
}

async function setup(
  opts: { filter?: NotificationFilter; defaultSender?: boolean; start?: boolean; timing?: Partial<LinkTiming> } = {},
) {
  const sim = await startSimulator({ animationMs: 40 })
  onTestFinished(() => sim.close())
  // Without the application's default sender, notifications flow only if the link's own subscribe worked.
  if (opts.defaultSender === false) sim.state.senders = sim.state.senders.filter((s) => !s.isDefault)
  const store = new AppState()
  const link = new NotificationLink({
    url: sim.wsUrl,
    state: store,
    timing: { ...FAST, ...opts.timing },
    ...(opts.filter ? { filter: opts.filter } : {}),
  })
  onTestFinished(() => link.stop())
  const plays = new Map<string, PlayState[]>()
  const titleEvents: AppStateEvents['title'][0][] = []
  store.on('title', (e) => {
    titleEvents.push(e)
    if (e.changes.play) plays.set(e.id, [...(plays.get(e.id) ?? []), e.changes.play])
  })
  const resyncs = { count: 0 }
  link.on('resynchronised', () => resyncs.count++)
  if (opts.start !== false) {
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
  }
  return { sim, store, link, plays, titleEvents, resyncs } satisfies Setup
}

/** How long and how often `vi.waitFor` / `expect.poll` look (real timers only: with fake ones they move the clock). */
const WAIT = { timeout: 5000, interval: 5 }

async function command(sim: SimulatorHandle, name: string, params: Record<string, string>): Promise<unknown> {
  const res = await fetch(`${sim.httpUrl}/api/command/${name}?${new URLSearchParams(params).toString()}`)
  return res.json()
}

/**
 * A scheduler of the test's own on loopback (onNotify, notifyClientConnected, and `scheduleCommand` as
 * given: for replies the simulator does not make) and a link to it with FAST timing, not started; both
 * stopped when the test ends, the link first.
 */
async function ownScheduler(scheduleCommand: (command: unknown) => string, filter?: NotificationFilter) {
  const server = new QWebChannelServer({
    port: 0,
    objects: { scheduler: { signals: ['onNotify'], methods: { notifyClientConnected: () => '{}', scheduleCommand } } },
  })
  await server.start()
  onTestFinished(() => server.stop())
  const store = new AppState()
  const link = new NotificationLink({ url: server.url, state: store, timing: FAST, ...(filter ? { filter } : {}) })
  onTestFinished(() => link.stop())
  return { server, store, link }
}

describe('NotificationLink against the simulator', () => {
  it('handshakes: init, onNotify, notifyClientConnected, subscribe, resynchronise', async () => {
    const { sim, store, link } = await setup({ defaultSender: false })
    expect(link.isConnected).toBe(true)
    expect(sim.wsAnnouncements).toEqual([{ appId: SCHEDULER_CHANNEL.clientAppId, version: '0.1.0' }])
    const sender = sim.state.senders.find((s) => s.name === 'panelbridge')
    expect(sender?.events).toEqual(['play', 'data', 'control'])
    expect(
      store
        .titles()
        .map((t) => t.id)
        .sort(),
    ).toEqual(sim.state.titles.map((t) => t.id).sort())
    expect(store.title(LOWER_THIRD)).toMatchObject({ name: 'Lower Third', play: 'Off' })
    expect(store.title(LOWER_THIRD)?.variables.Name).toBe('Alex Morgan')
    expect(store.link.status).toBe('connected')
  })

  it('follows a title played with schedule over HTTP: Running, then Paused, then Off', async () => {
    const { sim, store, link, plays } = await setup({ defaultSender: false })
    // What the store holds right after each play notification is handled.
    const afterEach: (PlayState | undefined)[] = []
    link.on('notification', (n) => {
      if (n.kind === 'play') afterEach.push(store.title(n.id)?.play)
    })
    await command(sim, 'schedule', { action: 'animateIn', id: LOWER_THIRD })
    await expect.poll(() => plays.get(LOWER_THIRD)?.at(-1), WAIT).toBe('Paused')
    expect(store.title(LOWER_THIRD)?.play).toBe('Paused')
    await command(sim, 'schedule', { action: 'cutout', id: LOWER_THIRD })
    await expect.poll(() => plays.get(LOWER_THIRD)?.at(-1), WAIT).toBe('Off')
    expect(store.title(LOWER_THIRD)?.play).toBe('Off')
    // The store follows within one notification...
    expect(afterEach).toEqual(['Running', 'Paused', 'Off'])
    // ...and its batched events carry the same sequence (Running and Paused may share one event when
    // both arrive within one turn of the event loop, as on a loaded machine).
    const events = plays.get(LOWER_THIRD)!
    expect([
      ['Running', 'Paused', 'Off'],
      ['Paused', 'Off'],
    ]).toContainEqual(events)
  })

  it('updates variables from a data notification', async () => {
    const { sim, store, titleEvents } = await setup({ defaultSender: false })
    const res = await fetch(`${sim.httpUrl}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        command: 'schedule',
        parameters: { action: 'update', id: SCORE_BUG },
        variables: { 'Home Score': '3' },
      }),
    })
    expect(res.status).toBe(200)
    await expect.poll(() => titleEvents.length, WAIT).toBeGreaterThan(0)
    expect(store.title(SCORE_BUG)?.variables['Home Score']).toBe('3')
    expect(titleEvents).toEqual([{ id: SCORE_BUG, changes: { variables: { 'Home Score': '3' } } }])
    expect(store.title(SCORE_BUG)?.variables['Away Score']).toBe('1')
  })

  it('understands each of the five notification shapes; any other form makes it read the titles again', async () => {
    const { sim, store, resyncs, titleEvents } = await setup()
    const emit = (payload: object) => sim.state.notifications.emit('notify', payload)

    emit({ id: LOWER_THIRD, play: 'Running' })
    await expect.poll(() => store.title(LOWER_THIRD)?.play, WAIT).toBe('Running')
    emit({ event: 'play', id: LOWER_THIRD, play: 'Paused' })
    await expect.poll(() => store.title(LOWER_THIRD)?.play, WAIT).toBe('Paused')
    emit({ event: 'data', id: LOWER_THIRD, variables: [{ name: 'Name', value: 'Sam Lee' }] })
    await expect.poll(() => store.title(LOWER_THIRD)?.variables.Name, WAIT).toBe('Sam Lee')

    // addTitle: a title added behind the link's back appears after the debounced resynchronisation.
    const before = resyncs.count
    sim.state.titles.push({ ...sim.state.titles[0]!, id: '{added}', name: 'Added', variables: [] })
    emit({ control: 'addTitle' })
    await expect.poll(() => store.title('{added}'), WAIT).toBeDefined()
    // The snapshot lands as its reply frame is read; the read's `resynchronised` follows a tick later.
    await expect.poll(() => resyncs.count, WAIT).toBe(before + 1)

    sim.state.titles = sim.state.titles.filter((t) => t.id !== '{added}')
    emit({ data: 'Update' })
    await expect.poll(() => store.title('{added}'), WAIT).toBeUndefined()
    await expect.poll(() => resyncs.count, WAIT).toBe(before + 2)

    // Forms the link does not read change nothing by themselves: together they make it read the titles
    // once more (debounced), and the store shows what the application holds.
    const events = titleEvents.length
    emit({ something: 'else' })
    emit({ event: 'chat', id: LOWER_THIRD })
    emit({ id: LOWER_THIRD, play: 'Exploded' })
    sim.ws.emitSignal('scheduler', 'onNotify', ['not json at all'])
    await expect.poll(() => resyncs.count, WAIT).toBe(before + 3)
    expect(store.title(LOWER_THIRD)?.play).toBe('Off') // as the application holds it
    expect(titleEvents.length).toBe(events)
    emit({ id: LOWER_THIRD, play: 'Running' })
    await expect.poll(() => titleEvents.length, WAIT).toBe(events + 1)
    expect(titleEvents.at(-1)).toEqual({ id: LOWER_THIRD, changes: { play: 'Running' } })
    expect(store.link.status).toBe('connected')
  })

  it('detects a silent socket and replaces it', async () => {
    const { sim, store, link } = await setup({ timing: SILENCE })
    const phases: string[] = []
    link.on('phase', (p) => phases.push(p))
    sim.ws.setSilent(true)
    await expect.poll(() => store.link.status, WAIT).toBe('stale')
    expect(store.link).toMatchObject({ status: 'stale' })
    sim.ws.setSilent(false)
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(phases[0]).toBe('waiting-to-retry')
    expect(phases).toContain('connecting')
    expect(phases.at(-1)).toBe('connected')
    // The silent socket was closed by the link, not left hanging beside the new one.
    await expect.poll(() => sim.ws.clientCount, WAIT).toBe(1)
    await command(sim, 'schedule', { action: 'cutin', id: SCORE_BUG })
    await expect.poll(() => store.title(SCORE_BUG)?.play, WAIT).toBe('Paused')
  })

  it('reports stale while the simulator is down, then reconnects, resubscribes and resynchronises (methods shuffled)', async () => {
    const { sim, store, link, resyncs } = await setup({ defaultSender: false })
    const layoutBefore = JSON.stringify(sim.ws.layout('scheduler'))
    const stale: string[] = []
    store.on('link', (l) => stale.push(l.status === 'stale' ? l.phase : l.status))

    await sim.ws.stop()
    await expect.poll(() => store.link.status, WAIT).toBe('stale')
    // Several attempts fail against the closed port.
    await expect.poll(() => stale.filter((p) => p === 'connecting').length, WAIT).toBeGreaterThanOrEqual(3)
    expect(store.link.status).toBe('stale')
    expect(link.isConnected).toBe(false)

    // While the link is down: the application forgets subscriptions and a title changes.
    sim.state.senders = sim.state.senders.filter((s) => s.name !== 'panelbridge')
    await command(sim, 'schedule', { action: 'cutin', id: LOWER_THIRD })
    expect(store.title(LOWER_THIRD)?.play).toBe('Off')

    sim.ws.setShuffle(true)
    await sim.ws.start()
    expect(JSON.stringify(sim.ws.layout('scheduler'))).not.toBe(layoutBefore)
    await expect.poll(() => store.link.status, WAIT).toBe('connected')

    expect(stale).toContain('waiting-to-retry')
    expect(stale).toContain('connecting')
    expect(stale.at(-2)).toBe('resynchronising')
    expect(stale.at(-1)).toBe('connected')
    expect(store.title(LOWER_THIRD)?.play).toBe('Paused') // resynchronised
    expect(resyncs.count).toBe(2)
    expect(sim.state.senders.some((s) => s.name === 'panelbridge')).toBe(true) // resubscribed
    expect(sim.wsAnnouncements).toHaveLength(2)

    await command(sim, 'schedule', { action: 'cutout', id: LOWER_THIRD })
    await expect.poll(() => store.title(LOWER_THIRD)?.play, WAIT).toBe('Off')
  })

  it('keeps a quiet but healthy socket (pings answered)', async () => {
    // Real sockets, so a time-out with room for a busy machine: a pong late by SILENCE's time-out would
    // drop this healthy socket. The exact ping and drop times are pinned with fake timers in
    // reconnect.test.ts.
    const { link } = await setup({ timing: { livenessTimeoutMs: 1200, callTimeoutMs: 1200 } })
    const phases: string[] = []
    link.on('phase', (p) => phases.push(p))
    // The liveness check pings only after finding the socket alive: eight pings at 400 ms span more
    // than two liveness time-outs (1200 ms) with no notification at all.
    const pings = vi.spyOn(QWebChannelClient.prototype, 'ping')
    await expect.poll(() => pings.mock.calls.length, { timeout: 15_000, interval: 20 }).toBeGreaterThanOrEqual(8)
    expect(phases).toEqual([])
    expect(link.isConnected).toBe(true)
  })

  it('applies a notification that follows the snapshot reply on top of the snapshot', async () => {
    // A scheduler whose getTitleControlInfo reply is followed at once by a play notification: both
    // frames usually reach the client in one read, so the snapshot must be applied in frame order.
    const snapshot = { result: { titles: [{ id: '{x}', name: 'X', status: 'Off', variables: [] }] } }
    const { server, store, link } = await ownScheduler((command) => {
      if (command !== 'getTitleControlInfo') return '{}'
      setImmediate(() => server.emitSignal('scheduler', 'onNotify', ['{"id":"{x}","play":"Running"}']))
      return JSON.stringify(snapshot)
    })
    const seen = new Promise<void>((r) => link.once('notification', () => r()))
    const connected = nextPhase(link, 'connected')
    link.start()
    await seen
    expect(store.title('{x}')?.play).toBe('Running')
    // The resynchronisation finishes after the notification: it must not put the snapshot back.
    await connected
    expect(store.title('{x}')?.play).toBe('Running')
  })

  it('reconnects after every socket is dropped', async () => {
    const { sim, store } = await setup()
    sim.ws.dropAll()
    await expect.poll(() => store.link.status, WAIT).toBe('stale')
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(sim.wsAnnouncements).toHaveLength(2)
  })

  it('is not broken by a garbage frame', async () => {
    const { sim, store, link } = await setup()
    const phases: string[] = []
    link.on('phase', (p) => phases.push(p))
    sim.ws.sendGarbage()
    sim.ws.sendGarbage('{"type":')
    await command(sim, 'schedule', { action: 'cutin', id: LOWER_THIRD })
    await expect.poll(() => store.title(LOWER_THIRD)?.play, WAIT).toBe('Paused')
    expect(phases).toEqual([])
    expect(link.isConnected).toBe(true)
  })

  it('changes nothing for filtered-out titles', async () => {
    const { sim, store, link, titleEvents, resyncs } = await setup({ filter: { titles: ['Lower Third'] } })
    expect(store.titles().map((t) => t.id)).toEqual([LOWER_THIRD])
    // From here the link's resync debounce runs on a fake clock: a resync it armed shows as a pending timer.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const kept = new Promise((r) => link.once('notification', r))
    sim.state.notifications.emit('notify', { id: SCORE_BUG, play: 'Paused' })
    sim.state.notifications.emit('notify', {
      event: 'data',
      id: SCORE_BUG,
      variables: [{ name: 'Period', value: '3rd' }],
    })
    sim.state.notifications.emit('notify', { id: LOWER_THIRD, play: 'Paused' })
    // The socket keeps order: the kept title's notification comes after the filtered ones were handled.
    expect(await kept).toEqual({ kind: 'play', id: LOWER_THIRD, play: 'Paused' })
    expect(vi.getTimerCount()).toBe(0)
    vi.useRealTimers()
    await expect.poll(() => titleEvents.length, WAIT).toBe(1)
    expect(titleEvents.map((e) => e.id)).toEqual([LOWER_THIRD])
    expect(store.title(SCORE_BUG)).toBeUndefined()
    expect(resyncs.count).toBe(1) // the filtered title's notifications did not trigger resyncs either
  })

  it('keeps from the snapshot only the titles on a filtered input, and those on no input', async () => {
    // Why a scheduler of its own: the snapshot's parser reads a title's `input` (a comma list, as
    // readTitle gives it), which neither the simulator's getTitleControlInfo nor protocol notes 4.2 carry.
    const title = (id: string, input?: string) => ({ id, name: id, status: 'Off', variables: [], input })
    const snapshot = {
      result: {
        titles: [title('{news}', 'Newsroom'), title('{both}', 'Scoreboard, Newsroom'), title('{score}', 'Scoreboard')],
      },
    }
    snapshot.result.titles.push(title('{none}', ''), title('{absent}'))
    const { server, store, link } = await ownScheduler(
      (command) => (command === 'getTitleControlInfo' ? JSON.stringify(snapshot) : '{}'),
      { inputs: ['Newsroom'] },
    )
    const connected = nextPhase(link, 'connected')
    link.start()
    await connected
    expect(
      store
        .titles()
        .map((t) => t.id)
        .sort(),
    ).toEqual(['{absent}', '{both}', '{news}', '{none}'])
    // A left-out title's notifications (the application's carry no input) change nothing.
    const kept = new Promise((r) => link.once('notification', r))
    server.emitSignal('scheduler', 'onNotify', [JSON.stringify({ id: '{score}', play: 'Running' })])
    server.emitSignal('scheduler', 'onNotify', [JSON.stringify({ id: '{news}', play: 'Running' })])
    expect(await kept).toEqual({ kind: 'play', id: '{news}', play: 'Running' })
    expect(store.title('{score}')).toBeUndefined()
  })

  it('drops notifications for inputs outside the filter', async () => {
    const { sim, store, titleEvents } = await setup({ filter: { inputs: ['Newsroom'] } })
    expect(store.title(LOWER_THIRD)).toBeDefined()
    sim.state.notifications.emit('notify', { id: LOWER_THIRD, play: 'Running', input: 'Scoreboard' })
    sim.state.notifications.emit('notify', { id: LOWER_THIRD, play: 'Paused', input: 'Newsroom' })
    await expect.poll(() => titleEvents.length, WAIT).toBeGreaterThan(0)
    expect(titleEvents).toEqual([{ id: LOWER_THIRD, changes: { play: 'Paused' } }])
  })

  it('stop() closes the socket, stops retrying and leaves the store stale', async () => {
    const { sim, store, link } = await setup()
    link.stop()
    expect(store.link).toMatchObject({ status: 'stale', phase: 'stopped' })
    await expect.poll(() => sim.ws.clientCount, WAIT).toBe(0)
    // No timer of the link is left to fire: the longest back-off passes and nothing reconnects.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
    vi.advanceTimersByTime(10 * FAST.backoffMaxMs)
    expect(link.state).toBe('stopped')
    vi.useRealTimers()
    expect(sim.wsAnnouncements).toHaveLength(1)
    // start() after stop() connects again.
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
  })

  it('does not connect in its constructor', async () => {
    const { sim, store, link } = await setup({ start: false })
    // connectNow() sets the phase before its first await: a constructor that connected would show it.
    expect(link.state).toBe('stopped')
    expect(store.link).toMatchObject({ status: 'stale', phase: 'stopped' })
    link.start()
    expect(link.state).toBe('connecting')
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(sim.wsAnnouncements).toHaveLength(1)
  })

  it('retries after 250 and 500 ms, then every 1000 ms while nothing listens (the back-off is capped)', async () => {
    expect([LINK_TUNABLES.backoffInitialMs, LINK_TUNABLES.backoffMaxMs]).toEqual([250, 1000])
    const url = `ws://127.0.0.1:${await closedPort()}`
    // The refusals are real socket events; only the retry timer runs on the fake clock.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
    const link = new NotificationLink({ url, state: new AppState() })
    onTestFinished(() => link.stop())
    let failed = nextPhase(link, 'waiting-to-retry')
    link.start()
    for (const delay of [250, 500, 1000, 1000, 1000, 1000]) {
      await failed
      failed = nextPhase(link, 'waiting-to-retry')
      vi.advanceTimersByTime(delay - 1)
      expect(link.state).toBe('waiting-to-retry')
      vi.advanceTimersByTime(1)
      expect(link.state).toBe('connecting')
    }
  })
})
