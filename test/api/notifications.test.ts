import { afterEach, describe, expect, it } from 'vitest'
import { AppState, type AppStateEvents } from '../../src/api/app-state.js'
import {
  NotificationLink,
  parseNotification,
  parseTitleControlInfo,
  type LinkTiming,
  type NotificationFilter,
} from '../../src/api/notifications.js'
import { CLIENT_APP_ID, type PlayState } from '../../src/api/protocol.js'
import { QWebChannelError } from '../../src/api/qwebchannel.js'
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js'
import { QWebChannelServer } from '../../src/simulator/qwebchannel-server.js'

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
}
const SILENCE: Partial<LinkTiming> = { livenessTimeoutMs: 300, callTimeoutMs: 300 }

const LOWER_THIRD = '{3f2b8c1e-7a4d-4e52-9b1a-5c6d7e8f9a01}'
const SCORE_BUG = '{9c0e4a7b-2d15-4f3e-8a6c-0b1d2e3f4a02}'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
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
  cleanups.push(() => sim.close())
  // Without the application's default sender, notifications flow only if the link's own subscribe worked.
  if (opts.defaultSender === false) sim.state.senders = sim.state.senders.filter((s) => !s.isDefault)
  const store = new AppState()
  const link = new NotificationLink({
    url: sim.wsUrl,
    state: store,
    timing: { ...FAST, ...opts.timing },
    ...(opts.filter ? { filter: opts.filter } : {}),
  })
  cleanups.push(() => link.stop())
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
    await waitFor(() => store.link.status === 'connected')
  }
  return { sim, store, link, plays, titleEvents, resyncs } satisfies Setup
}

async function waitFor(cond: () => boolean, what = 'condition', timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function command(sim: SimulatorHandle, name: string, params: Record<string, string>): Promise<unknown> {
  const res = await fetch(`${sim.httpUrl}/api/command/${name}?${new URLSearchParams(params).toString()}`)
  return res.json()
}

describe('NotificationLink against the simulator', () => {
  it('handshakes: init, onNotify, notifyClientConnected, subscribe, resynchronise', async () => {
    const { sim, store, link } = await setup({ defaultSender: false })
    expect(link.isConnected).toBe(true)
    expect(sim.wsAnnouncements).toEqual([{ appId: CLIENT_APP_ID, version: '0.1.0' }])
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
    await waitFor(() => plays.get(LOWER_THIRD)?.at(-1) === 'Paused', 'Paused')
    expect(store.title(LOWER_THIRD)?.play).toBe('Paused')
    await command(sim, 'schedule', { action: 'cutout', id: LOWER_THIRD })
    await waitFor(() => plays.get(LOWER_THIRD)?.at(-1) === 'Off', 'Off')
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
    await waitFor(() => titleEvents.length > 0, 'title event')
    expect(store.title(SCORE_BUG)?.variables['Home Score']).toBe('3')
    expect(titleEvents).toEqual([{ id: SCORE_BUG, changes: { variables: { 'Home Score': '3' } } }])
    expect(store.title(SCORE_BUG)?.variables['Away Score']).toBe('1')
  })

  it('understands each of the five notification shapes and ignores others', async () => {
    const { sim, store, resyncs, titleEvents } = await setup()
    const emit = (payload: object) => sim.state.notifications.emit('notify', payload)

    emit({ id: LOWER_THIRD, play: 'Running' })
    await waitFor(() => store.title(LOWER_THIRD)?.play === 'Running', '{id, play}')
    emit({ event: 'play', id: LOWER_THIRD, play: 'Paused' })
    await waitFor(() => store.title(LOWER_THIRD)?.play === 'Paused', '{event: play}')
    emit({ event: 'data', id: LOWER_THIRD, variables: [{ name: 'Name', value: 'Sam Lee' }] })
    await waitFor(() => store.title(LOWER_THIRD)?.variables.Name === 'Sam Lee', '{event: data}')

    // addTitle: a title added behind the link's back appears after the debounced resynchronisation.
    const before = resyncs.count
    sim.state.titles.push({ ...sim.state.titles[0]!, id: '{added}', name: 'Added', variables: [] })
    emit({ control: 'addTitle' })
    await waitFor(() => store.title('{added}') !== undefined, 'addTitle resync')
    expect(resyncs.count).toBe(before + 1)

    sim.state.titles = sim.state.titles.filter((t) => t.id !== '{added}')
    emit({ data: 'Update' })
    await waitFor(() => store.title('{added}') === undefined, 'Update resync')
    expect(resyncs.count).toBe(before + 2)

    const events = titleEvents.length
    emit({ something: 'else' })
    emit({ event: 'chat', id: LOWER_THIRD })
    emit({ id: LOWER_THIRD, play: 'Exploded' })
    sim.ws.emitSignal('scheduler', 'onNotify', ['not json at all'])
    await sleep(60)
    expect(titleEvents.length).toBe(events)
    expect(store.link.status).toBe('connected')
  })

  it('detects a silent socket and replaces it', async () => {
    const { sim, store, link } = await setup({ timing: SILENCE })
    const phases: string[] = []
    link.on('phase', (p) => phases.push(p))
    sim.ws.setSilent(true)
    await waitFor(() => store.link.status === 'stale', 'stale')
    expect(store.link).toMatchObject({ status: 'stale' })
    sim.ws.setSilent(false)
    await waitFor(() => store.link.status === 'connected', 'reconnected')
    expect(phases[0]).toBe('waiting-to-retry')
    expect(phases).toContain('connecting')
    expect(phases.at(-1)).toBe('connected')
    // The silent socket was closed by the link, not left hanging beside the new one.
    await waitFor(() => sim.ws.clientCount === 1, 'one client')
    await command(sim, 'schedule', { action: 'cutin', id: SCORE_BUG })
    await waitFor(() => store.title(SCORE_BUG)?.play === 'Paused', 'works after replacement')
  })

  it('reports stale while the simulator is down, then reconnects, resubscribes and resynchronises (methods shuffled)', async () => {
    const { sim, store, link, resyncs } = await setup({ defaultSender: false })
    const layoutBefore = JSON.stringify(sim.ws.layout('scheduler'))
    const stale: string[] = []
    store.on('link', (l) => stale.push(l.status === 'stale' ? l.phase : l.status))

    await sim.ws.stop()
    await waitFor(() => store.link.status === 'stale', 'stale')
    // Let several attempts fail against the closed port.
    await sleep(200)
    expect(store.link.status).toBe('stale')
    expect(link.isConnected).toBe(false)

    // While the link is down: the application forgets subscriptions and a title changes.
    sim.state.senders = sim.state.senders.filter((s) => s.name !== 'panelbridge')
    await command(sim, 'schedule', { action: 'cutin', id: LOWER_THIRD })
    expect(store.title(LOWER_THIRD)?.play).toBe('Off')

    sim.ws.setShuffle(true)
    await sim.ws.start()
    expect(JSON.stringify(sim.ws.layout('scheduler'))).not.toBe(layoutBefore)
    await waitFor(() => store.link.status === 'connected', 'connected again')

    expect(stale).toContain('waiting-to-retry')
    expect(stale).toContain('connecting')
    expect(stale.at(-2)).toBe('resynchronising')
    expect(stale.at(-1)).toBe('connected')
    expect(store.title(LOWER_THIRD)?.play).toBe('Paused') // resynchronised
    expect(resyncs.count).toBe(2)
    expect(sim.state.senders.some((s) => s.name === 'panelbridge')).toBe(true) // resubscribed
    expect(sim.wsAnnouncements).toHaveLength(2)

    await command(sim, 'schedule', { action: 'cutout', id: LOWER_THIRD })
    await waitFor(() => store.title(LOWER_THIRD)?.play === 'Off', 'notifications after restart')
  })

  it('keeps a quiet but healthy socket (pings answered)', async () => {
    const { link } = await setup({ timing: SILENCE })
    const phases: string[] = []
    link.on('phase', (p) => phases.push(p))
    await sleep(1000) // more than three liveness time-outs with no notification at all
    expect(phases).toEqual([])
    expect(link.isConnected).toBe(true)
  })

  it('applies a notification that follows the snapshot reply on top of the snapshot', async () => {
    // A scheduler whose getTitleControlInfo reply is followed at once by a play notification: both
    // frames usually reach the client in one read, so the snapshot must be applied in frame order.
    let server: QWebChannelServer | undefined = undefined
    const snapshot = { result: { titles: [{ id: '{x}', name: 'X', status: 'Off', variables: [] }] } }
    server = new QWebChannelServer({
      port: 0,
      objects: {
        scheduler: {
          signals: ['onNotify'],
          methods: {
            notifyClientConnected: () => '{}',
            scheduleCommand: (command: unknown) => {
              if (command !== 'getTitleControlInfo') return '{}'
              setImmediate(() => server?.emitSignal('scheduler', 'onNotify', ['{"id":"{x}","play":"Running"}']))
              return JSON.stringify(snapshot)
            },
          },
        },
      },
    })
    await server.start()
    cleanups.push(() => server?.stop())
    const store = new AppState()
    const link = new NotificationLink({ url: server.url, state: store, timing: FAST })
    cleanups.push(() => link.stop())
    const seen = new Promise<void>((r) => link.once('notification', () => r()))
    link.start()
    await seen
    expect(store.title('{x}')?.play).toBe('Running')
    await sleep(30)
    expect(store.title('{x}')?.play).toBe('Running')
  })

  it('reconnects after every socket is dropped', async () => {
    const { sim, store } = await setup()
    sim.ws.dropAll()
    await waitFor(() => store.link.status === 'stale', 'stale')
    await waitFor(() => store.link.status === 'connected', 'connected again')
    expect(sim.wsAnnouncements).toHaveLength(2)
  })

  it('is not broken by a garbage frame', async () => {
    const { sim, store, link } = await setup()
    const phases: string[] = []
    link.on('phase', (p) => phases.push(p))
    sim.ws.sendGarbage()
    sim.ws.sendGarbage('{"type":')
    await command(sim, 'schedule', { action: 'cutin', id: LOWER_THIRD })
    await waitFor(() => store.title(LOWER_THIRD)?.play === 'Paused', 'play after garbage')
    expect(phases).toEqual([])
    expect(link.isConnected).toBe(true)
  })

  it('changes nothing for filtered-out titles', async () => {
    const { sim, store, titleEvents, resyncs } = await setup({ filter: { titles: ['Lower Third'] } })
    expect(store.titles().map((t) => t.id)).toEqual([LOWER_THIRD])
    await command(sim, 'schedule', { action: 'cutin', id: SCORE_BUG })
    sim.state.notifications.emit('notify', {
      event: 'data',
      id: SCORE_BUG,
      variables: [{ name: 'Period', value: '3rd' }],
    })
    await command(sim, 'schedule', { action: 'cutin', id: LOWER_THIRD })
    await waitFor(() => titleEvents.length > 0, 'kept title')
    await sleep(60)
    expect(titleEvents.map((e) => e.id)).toEqual([LOWER_THIRD])
    expect(store.title(SCORE_BUG)).toBeUndefined()
    expect(resyncs.count).toBe(1) // the filtered title's notifications did not trigger resyncs either
  })

  it('drops notifications for inputs outside the filter', async () => {
    const { sim, store, titleEvents } = await setup({ filter: { inputs: ['Newsroom'] } })
    expect(store.title(LOWER_THIRD)).toBeDefined()
    sim.state.notifications.emit('notify', { id: LOWER_THIRD, play: 'Running', input: 'Scoreboard' })
    sim.state.notifications.emit('notify', { id: LOWER_THIRD, play: 'Paused', input: 'Newsroom' })
    await waitFor(() => titleEvents.length > 0, 'kept input')
    expect(titleEvents).toEqual([{ id: LOWER_THIRD, changes: { play: 'Paused' } }])
  })

  it('stop() closes the socket, stops retrying and leaves the store stale', async () => {
    const { sim, store, link } = await setup()
    link.stop()
    expect(store.link).toMatchObject({ status: 'stale', phase: 'stopped' })
    await waitFor(() => sim.ws.clientCount === 0, 'socket closed')
    await sleep(100)
    expect(sim.wsAnnouncements).toHaveLength(1)
    expect(link.state).toBe('stopped')
    // start() after stop() connects again.
    link.start()
    await waitFor(() => store.link.status === 'connected', 'restarted')
  })

  it('does not connect in its constructor, and retries with back-off while nothing listens', async () => {
    const { sim, store, link } = await setup({ start: false })
    await sleep(50)
    expect(sim.ws.clientCount).toBe(0)
    expect(store.link).toMatchObject({ status: 'stale', phase: 'stopped' })
    await sim.ws.stop()
    const phases: string[] = []
    link.on('phase', (p) => phases.push(p))
    link.start()
    await sleep(300)
    const attempts = phases.filter((p) => p === 'connecting').length
    // 20, 40, 80, 80 ms ... back-off: a handful of attempts in 300 ms, not hundreds.
    expect(attempts).toBeGreaterThanOrEqual(2)
    expect(attempts).toBeLessThan(10)
    await sim.ws.start()
    await waitFor(() => store.link.status === 'connected', 'connected once the server is up')
  })
})

describe('notification parsing', () => {
  it('normalises the five shapes', () => {
    expect(parseNotification('{"id":"{a}","play":"Running"}')).toEqual({ kind: 'play', id: '{a}', play: 'Running' })
    expect(parseNotification({ event: 'play', id: '{a}', state: 'paused', input: 'Cam' })).toEqual({
      kind: 'play',
      id: '{a}',
      play: 'Paused',
      input: 'Cam',
    })
    expect(parseNotification({ event: 'data', id: '{a}', variables: [{ name: 'n', value: 2 }, { bad: 1 }] })).toEqual({
      kind: 'data',
      id: '{a}',
      variables: { n: '2' },
    })
    expect(parseNotification({ control: 'addTitle' })).toEqual({ kind: 'control', control: 'addTitle' })
    expect(parseNotification({ data: 'Update' })).toEqual({ kind: 'update' })
  })

  it('ignores everything else', () => {
    for (const raw of [
      '',
      'x',
      '[]',
      'null',
      42,
      null,
      {},
      { id: '{a}' },
      { play: 'Running' },
      { event: 'data', id: '{a}' },
    ]) {
      expect(parseNotification(raw)).toBeUndefined()
    }
  })

  it('reads getTitleControlInfo and refuses a reply without titles', () => {
    const titles = parseTitleControlInfo({
      result: {
        titles: [
          { id: '{a}', name: 'A', status: 'Running', variables: [{ variable: 'x', value: '1', type: 'text' }] },
          { id: '{b}', name: 'B', status: 'Done' },
          'junk',
        ],
      },
    })
    expect(titles.map((t) => [t.id, t.play, t.variables])).toEqual([
      ['{a}', 'Running', { x: '1' }],
      ['{b}', 'Off', {}],
    ])
    expect(() => parseTitleControlInfo({ result: { error: 'nope' } })).toThrow(QWebChannelError)
    expect(() => parseTitleControlInfo({})).toThrow(QWebChannelError)
  })
})
