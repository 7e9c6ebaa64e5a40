/**
 * The notification link re-reads the truth on any change signal (issue 30, item 4) and takes play states
 * from the layer state where the title list has none (protocol notes 2.4 [code S1]), against a
 * QWebChannel scheduler on a real loopback socket (./harness.ts, shared with the other link tests):
 * which signals it connects, the debounce, the bound on reads in a storm, the read after a read, the
 * layer state and which source wins. Time is a fake clock wherever it is the subject; sockets stay real.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { LINK_TUNABLES } from '../../../src/api/notifications.js'
import { AppState } from '../../../src/api/app-state.js'
import { NotificationLink } from '../../../src/api/notifications.js'
import { SCHEDULER_CHANNEL, type PlayState } from '../../../src/api/protocol.js'
import { nextPhase } from '../../helpers/link.js'
import { SAFETY_MS } from '../../helpers/until.js'
import { captureLogs } from '../../helpers/logs.js'
import { ALL_CLOCKS, trackClients, connectedLink, next, scheduler, type Scheduler } from './harness.js'

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

/** What each change signal carries, as the notes show it (2.1): the content never matters to the link. */
const SIGNAL_ARGS: Record<(typeof SCHEDULER_CHANNEL.changeSignals)[number], unknown[]> = {
  _cmp_v1_handleFeedbackChangeEvent: ['title:{A}', 'playState', { id: '{A}' }, {}],
  variablesChanged: ['all', { Name: 'x' }],
  messageIn: ['other-client', 'companion-module', '{"reload":true}'],
}

/**
 * Title {A} goes Running in the application, then `send` makes a signal arrive: the link reads the titles
 * once more exactly LINK_TUNABLES.changeDebounceMs later (not a millisecond before), and the store follows.
 */
async function expectRereadAfterDebounce(
  server: Scheduler,
  { store, arrive, advance }: Awaited<ReturnType<typeof connectedLink>>,
  send: () => void,
): Promise<void> {
  server.titles[0]!.status = 'Running'
  await arrive(send)
  await advance(LINK_TUNABLES.changeDebounceMs - 1)
  expect(server.reads()).toHaveLength(1)
  await advance(1)
  expect(server.reads()).toHaveLength(2)
  expect(store.title('{A}')?.play).toBe('Running')
}

describe('which signals the link connects', () => {
  it('connects onNotify and each change signal the init reply lists, and no other', async () => {
    const server = await scheduler()
    await connectedLink(server)
    expect(server.connected.sort()).toEqual(['onNotify', ...SCHEDULER_CHANNEL.changeSignals].sort())
  })

  it('never fails when the scheduler has none of them (an older build): onNotify alone, connected', async () => {
    const server = await scheduler({ signals: ['onNotify'], methods: ['notifyClientConnected', 'scheduleCommand'] })
    const { link } = await connectedLink(server)
    expect(link.state).toBe('connected')
    expect(server.connected).toEqual(['onNotify'])
    // Without getValueForKey published, the layer state is never asked for.
    expect(server.count('getValueForKey')).toBe(0)
  })

  it('connects a subset as listed', async () => {
    const server = await scheduler({ signals: ['onNotify', 'variablesChanged'] })
    await connectedLink(server)
    expect(server.connected).toEqual(['onNotify', 'variablesChanged'])
  })
})

describe('a change re-reads the titles', () => {
  it.each(SCHEDULER_CHANNEL.changeSignals)(
    '%s re-reads LINK_TUNABLES.changeDebounceMs after it, and the store follows',
    async (signal) => {
      const server = await scheduler()
      const rig = await connectedLink(server)
      const plays: PlayState[] = []
      rig.store.on('title', (e) => e.changes.play && plays.push(e.changes.play))
      expect(rig.store.title('{A}')?.play).toBe('Off')
      await expectRereadAfterDebounce(server, rig, () => server.signal(signal, SIGNAL_ARGS[signal]))
    },
  )

  it('a feedback signal updates the keys: the store announces the re-read titles with the new play state', async () => {
    const server = await scheduler()
    const { store, arrive, advance } = await connectedLink(server)
    const reset = vi.fn()
    store.on('titlesReset', reset)
    server.titles[0]!.status = 'Paused'
    await arrive(() =>
      server.signal('_cmp_v1_handleFeedbackChangeEvent', SIGNAL_ARGS._cmp_v1_handleFeedbackChangeEvent),
    )
    await advance(LINK_TUNABLES.changeDebounceMs)
    expect(reset).toHaveBeenCalledTimes(1)
    expect(reset.mock.calls[0]![0]).toEqual([expect.objectContaining({ id: '{A}', play: 'Paused' })])
  })

  it.each([
    ['a Captivate play form with another field', { event: 'play', id: '{A}', playing: true }],
    ['command-bus traffic', { command: 'schedule', action: 'cutin', id: '{A}' }],
    ['text that is not JSON', 'not json at all'],
    ['a play notification with a state nobody listed', { id: '{A}', play: 'Cued' }],
  ])('an onNotify of a form the link does not read (%s) re-reads', async (_what, payload) => {
    const server = await scheduler()
    const text = typeof payload === 'string' ? payload : JSON.stringify(payload)
    await expectRereadAfterDebounce(server, await connectedLink(server), () => server.signal('onNotify', [text]))
  })

  it('the five known shapes keep their own handling: a play or data notification reads nothing', async () => {
    const server = await scheduler()
    const { store, arrive, advance } = await connectedLink(server)
    await arrive(() => server.signal('onNotify', [JSON.stringify({ id: '{A}', play: 'Running' })]))
    await arrive(() =>
      server.signal('onNotify', [JSON.stringify({ event: 'data', id: '{A}', variables: [{ name: 'v', value: '1' }] })]),
    )
    expect(store.title('{A}')).toMatchObject({ play: 'Running', variables: { v: '1' } })
    await advance(2000)
    expect(server.reads()).toHaveLength(1)
    // addTitle keeps its own quiet time.
    await arrive(() => server.signal('onNotify', [JSON.stringify({ control: 'addTitle' })]))
    await advance(LINK_TUNABLES.resyncDebounceMs - 1)
    expect(server.reads()).toHaveLength(1)
    await advance(1)
    expect(server.reads()).toHaveLength(2)
  })

  it('another scheduler signal (the registry change) reads nothing', async () => {
    const server = await scheduler()
    const { arrive, advance } = await connectedLink(server)
    await arrive(() => server.signal('_cmp_v1_handleActorRegistryChangeEvent', ['actions', 'x']))
    await advance(2000)
    expect(server.reads()).toHaveLength(1)
  })
})

describe('a change on a quiet link lights its key without waiting (issue 45)', () => {
  it('the read starts at once, not after the debounce, and the store has the new play state', async () => {
    const server = await scheduler()
    const { store, arrive, advance } = await connectedLink(server)
    // Quiet: the session's first read is older than the debounce.
    await advance(LINK_TUNABLES.changeDebounceMs)
    const plays: PlayState[] = []
    store.on('title', (e) => e.changes.play && plays.push(e.changes.play))
    store.on('titlesReset', (titles) => plays.push(titles[0]!.play))
    server.titles[0]!.status = 'Running'
    // Two signals of one change (the on-air and the play-state feedbacks) start one read between them.
    await arrive(() =>
      server.signal('_cmp_v1_handleFeedbackChangeEvent', SIGNAL_ARGS._cmp_v1_handleFeedbackChangeEvent),
    )
    await arrive(() =>
      server.signal('_cmp_v1_handleFeedbackChangeEvent', SIGNAL_ARGS._cmp_v1_handleFeedbackChangeEvent),
    )
    await advance(1)
    expect(server.reads()).toHaveLength(2)
    expect(store.title('{A}')?.play).toBe('Running')
    expect(plays).toContain('Running')
    // A signal right after that read is debounced again, and the bound still holds.
    await arrive(() => server.signal('variablesChanged', SIGNAL_ARGS.variablesChanged))
    await advance(LINK_TUNABLES.changeDebounceMs - 1)
    expect(server.reads()).toHaveLength(2)
    await advance(1)
    expect(server.reads()).toHaveLength(3)
  })
})

describe('a re-read never comes before a key a notification decided (issue 45)', () => {
  it('where no notification has decided a key (changes announced by signals alone), the read goes on the next turn, before any timer', async () => {
    const server = await scheduler()
    const { link, store, arrive } = await connectedLink(server)
    vi.advanceTimersByTime(LINK_TUNABLES.changeDebounceMs)
    const clock = Date.now()
    server.titles[0]!.status = 'Running'
    const done = next(link, 'resynchronised')
    await arrive(() =>
      server.signal('_cmp_v1_handleFeedbackChangeEvent', SIGNAL_ARGS._cmp_v1_handleFeedbackChangeEvent),
    )
    // Real turns only: the fake clock stands still, so no timer (not even one of 0 ms) can fire.
    for (let i = 0; i < 1000 && server.reads().length < 2; i++) await new Promise<void>((r) => setImmediate(r))
    expect(server.reads()).toHaveLength(2)
    await done
    expect(store.title('{A}')?.play).toBe('Running')
    expect(Date.now()).toBe(clock)
  })

  it.each([
    ['the signal first, as the simulator sends them', ['signal', 'play']],
    ['the notification first', ['play', 'signal']],
  ])(
    'a play notification and a feedback signal of one change (%s): the store has it, the read waits',
    async (_what, order) => {
      const server = await scheduler()
      const { store, arrive, advance } = await connectedLink(server)
      // An application that notifies play states: it has done so once already on this session.
      await arrive(() => server.signal('onNotify', [JSON.stringify({ id: '{A}', play: 'Off' })]))
      await advance(LINK_TUNABLES.changeDebounceMs)
      expect(server.reads()).toHaveLength(1)
      const titleEvents = vi.fn()
      store.on('title', titleEvents)
      server.titles[0]!.status = 'Running'
      for (const what of order)
        await arrive(() =>
          what === 'play'
            ? server.signal('onNotify', [JSON.stringify({ id: '{A}', play: 'Running' })])
            : server.signal('_cmp_v1_handleFeedbackChangeEvent', SIGNAL_ARGS._cmp_v1_handleFeedbackChangeEvent),
        )
      expect(store.title('{A}')?.play).toBe('Running')
      await advance(LINK_TUNABLES.changeDebounceMs - 1)
      expect(server.reads()).toHaveLength(1)
      store.flush()
      expect(titleEvents).toHaveBeenCalledWith({ id: '{A}', changes: { play: 'Running' } })
      await advance(1)
      expect(server.reads()).toHaveLength(2)
    },
  )
})

describe('the bound on reads', () => {
  it(`a storm of signals costs at most LINK_TUNABLES.maxReadsPerSecond (${LINK_TUNABLES.maxReadsPerSecond}) reads in any second, and the last change is read`, async () => {
    const server = await scheduler()
    const { store, arrive, advance } = await connectedLink(server)
    const stormStart = Date.now()
    const STEP = 10
    const SECONDS = 3
    let last = 0
    for (let t = 0; t < SECONDS * 1000; t += STEP) {
      // The application's state changes with every signal; the last one leaves the title Paused.
      server.titles[0]!.status = t + STEP >= SECONDS * 1000 ? 'Paused' : t % 20 === 0 ? 'Running' : 'Off'
      const signal = SCHEDULER_CHANNEL.changeSignals[(t / STEP) % SCHEDULER_CHANNEL.changeSignals.length]!
      await arrive(() => server.signal(signal, SIGNAL_ARGS[signal]))
      last = Date.now()
      await advance(STEP)
    }
    await advance(2000)
    const starts = server
      .reads()
      .map((c) => c.at)
      .filter((at) => at >= stormStart)
    for (const at of starts) {
      expect(starts.filter((s) => s >= at && s < at + 1000).length).toBeLessThanOrEqual(LINK_TUNABLES.maxReadsPerSecond)
    }
    // Bounded, and yet reading all along at the bound (not starved by the debounce).
    expect(starts.length).toBeGreaterThanOrEqual(SECONDS * LINK_TUNABLES.maxReadsPerSecond - 1)
    expect(starts.length).toBeLessThanOrEqual(SECONDS * LINK_TUNABLES.maxReadsPerSecond + 1)
    // No change is lost: a read starts after the last signal, and the store shows the last state.
    expect(starts.at(-1)).toBeGreaterThanOrEqual(last)
    expect(store.title('{A}')?.play).toBe('Paused')
  })

  it('presses a moment apart on a quiet link each read at once: the bound holds back only reads that waited', async () => {
    const server = await scheduler()
    const { store, arrive, advance } = await connectedLink(server)
    await advance(1000)
    // A press every 150 ms (more than the debounce apart, so each finds the link quiet), ten of them: more
    // than LINK_TUNABLES.maxReadsPerSecond within a second.
    const GAP = LINK_TUNABLES.changeDebounceMs + 50
    const lag: number[] = []
    for (let i = 0; i < 10; i++) {
      const play = i % 2 === 0 ? 'Running' : 'Off'
      server.titles[0]!.status = play
      const before = server.reads().length
      const at = Date.now()
      await arrive(() =>
        server.signal('_cmp_v1_handleFeedbackChangeEvent', SIGNAL_ARGS._cmp_v1_handleFeedbackChangeEvent),
      )
      await advance(1)
      expect(server.reads()).toHaveLength(before + 1)
      lag.push(server.reads().at(-1)!.at - at)
      expect(store.title('{A}')?.play).toBe(play)
      await advance(GAP - 1)
    }
    expect(Math.max(...lag)).toBeLessThanOrEqual(1)
  })

  it('a signal during a read leads to exactly one more read after it', async () => {
    const server = await scheduler()
    const { link, store, arrive, advance } = await connectedLink(server)
    await arrive(() => server.signal('variablesChanged', SIGNAL_ARGS.variablesChanged))
    const release = server.hold('getTitleControlInfo')
    const asked = server.arrival('getTitleControlInfo')
    vi.advanceTimersByTime(LINK_TUNABLES.changeDebounceMs)
    await asked
    expect(server.reads()).toHaveLength(2)
    // While the second read is held: three signals, and the title changes.
    server.titles[0]!.status = 'Running'
    for (let i = 0; i < 3; i++) await arrive(() => server.signal('messageIn', SIGNAL_ARGS.messageIn))
    const done = next(link, 'resynchronised')
    release()
    await done
    // The held read answered with the new state already; one more read follows all the same, and only one.
    expect(store.title('{A}')?.play).toBe('Running')
    await advance(LINK_TUNABLES.changeDebounceMs - 1)
    expect(server.reads()).toHaveLength(2)
    await advance(1)
    expect(server.reads()).toHaveLength(3)
    await advance(5000)
    expect(server.reads()).toHaveLength(3)
  })

  it("a signal during the session's first read leads to one more read once connected", async () => {
    const server = await scheduler()
    vi.useFakeTimers(ALL_CLOCKS)
    const clients = trackClients()
    const store = new AppState()
    const link = new NotificationLink({ url: server.url, state: store })
    onTestFinished(() => link.stop())
    const release = server.hold('getTitleControlInfo')
    const asked = server.arrival('getTitleControlInfo')
    link.start()
    await asked
    const seen = new Promise<void>((r) => clients[0]!.once('signal', () => r()))
    server.signal('_cmp_v1_handleFeedbackChangeEvent', SIGNAL_ARGS._cmp_v1_handleFeedbackChangeEvent)
    await seen
    const connected = nextPhase(link, 'connected')
    release()
    await connected
    expect(server.reads()).toHaveLength(1)
    vi.advanceTimersByTime(LINK_TUNABLES.changeDebounceMs - 1)
    expect(server.reads()).toHaveLength(1)
    const again = next(link, 'resynchronised')
    vi.advanceTimersByTime(1)
    await again
    expect(server.reads()).toHaveLength(2)
  })

  it('a link that stops drops the read it owed: no timer is left', async () => {
    const server = await scheduler()
    const { link, arrive } = await connectedLink(server)
    await arrive(() => server.signal('messageIn', SIGNAL_ARGS.messageIn))
    expect(vi.getTimerCount()).toBe(2) // the liveness check and the armed read
    link.stop()
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('the layer state (getValueForKey)', () => {
  /** Three titles listed without a status, as `title_status: layer-state-only` lists them. */
  function statusless(server: Scheduler): void {
    server.titles.splice(
      0,
      server.titles.length,
      { id: '{A}', name: 'Alpha', variables: [] },
      { id: '{B}', name: 'Beta', variables: [] },
      { id: '{C}', name: 'Gamma', variables: [] },
    )
  }
  const plays = (store: AppState): [string, PlayState][] => store.titles().map((t) => [t.id, t.play])

  it.each([
    ['an object', { '{A}': { playState: 'running' }, '{B}': { playState: 'paused' } }],
    ['JSON text', JSON.stringify({ '{A}': { playState: 'running' }, '{B}': { playState: 'paused' } })],
    [
      'JSON text encoded twice',
      JSON.stringify(JSON.stringify({ '{A}': { playState: 'running' }, '{B}': { playState: 'paused' } })),
    ],
  ])(
    'gives the play state of titles listed without one, from %s; a title it does not name is Off',
    async (_what, layers) => {
      const server = await scheduler()
      statusless(server)
      server.state.layers = layers
      const { link, store } = await connectedLink(server)
      expect(link.state).toBe('connected')
      expect(plays(store)).toEqual([
        ['{A}', 'Running'],
        ['{B}', 'Paused'],
        ['{C}', 'Off'],
      ])
      expect(server.calls.filter((c) => c.method === 'getValueForKey').map((c) => c.args)).toEqual([
        [SCHEDULER_CHANNEL.layerStateKey],
      ])
    },
  )

  it('is read on every re-read, after the title list, and a play change reaches the store', async () => {
    const server = await scheduler()
    statusless(server)
    const { store, arrive, advance } = await connectedLink(server)
    expect(plays(store).map(([, p]) => p)).toEqual(['Off', 'Off', 'Off'])
    server.state.layers = { '{C}': { playState: 'running' } }
    await arrive(() => server.signal('_cmp_v1_handleFeedbackChangeEvent', ['a', 'b', {}, {}]))
    await advance(LINK_TUNABLES.changeDebounceMs)
    expect(store.title('{C}')?.play).toBe('Running')
    // The first read at connect, then the re-read the signal asked for: each the title list, then the layer state.
    const read = ['getTitleControlInfo', 'getValueForKey']
    const calls = server.calls.map((c) => c.command ?? c.method)
    expect(calls).toEqual(['notifyClientConnected', 'subscribe', ...read, ...read])
  })

  it('is asked with the title list, not a round trip after it, and applied after it whichever answers first', async () => {
    const server = await scheduler()
    statusless(server)
    const { link, store, arrive } = await connectedLink(server)
    server.state.layers = { '{B}': { playState: 'running' } }
    const release = server.hold('getTitleControlInfo')
    let asked = false
    void server.arrival('getValueForKey').then(() => (asked = true))
    await arrive(() => server.signal('variablesChanged', SIGNAL_ARGS.variablesChanged))
    vi.advanceTimersByTime(LINK_TUNABLES.changeDebounceMs)
    // Real I/O while the title list's reply is held (the clocks are fake; the safety bound is real time).
    const end = performance.now() + SAFETY_MS
    while (!asked && performance.now() < end) await new Promise((r) => setImmediate(r))
    expect(asked).toBe(true)
    // The layer state answered first: it waits for the title list, then gives {B} its play state.
    expect(store.title('{B}')?.play).toBe('Off')
    const done = next(link, 'resynchronised')
    release()
    await done
    expect(plays(store)).toEqual([
      ['{A}', 'Off'],
      ['{B}', 'Running'],
      ['{C}', 'Off'],
    ])
  })

  it('a play notification that comes after the layer state answered wins over it, and the titles are read once more', async () => {
    const server = await scheduler()
    statusless(server)
    const { link, store, arrive } = await connectedLink(server)
    server.state.layers = { '{B}': { playState: 'running' } }
    const release = server.hold('getTitleControlInfo')
    const layersAnswered = server.arrival('getValueForKey')
    await arrive(() => server.signal('variablesChanged', SIGNAL_ARGS.variablesChanged))
    vi.advanceTimersByTime(LINK_TUNABLES.changeDebounceMs)
    const end = performance.now() + SAFETY_MS
    let answered = false
    void layersAnswered.then(() => (answered = true))
    while (!answered && performance.now() < end) await new Promise((r) => setImmediate(r))
    expect(answered).toBe(true)
    // Newer than the layer state's reply (which said Running): {B} was paused since.
    server.state.layers = { '{B}': { playState: 'paused' } }
    await arrive(() => server.notify({ id: '{B}', play: 'Paused' }))
    expect(store.title('{B}')?.play).toBe('Paused')
    const done = next(link, 'resynchronised')
    release()
    await done
    expect(store.title('{B}')?.play).toBe('Paused')
    const reads = (): number => server.calls.filter((c) => c.method === 'getValueForKey').length
    const before = reads()
    const again = next(link, 'resynchronised')
    vi.advanceTimersByTime(LINK_TUNABLES.changeDebounceMs)
    await again
    expect(reads()).toBe(before + 1)
    expect(store.title('{B}')?.play).toBe('Paused')
  })

  it('a title that stays on air never shows Off between the title list and the layer state', async () => {
    const server = await scheduler()
    statusless(server)
    server.state.layers = { '{A}': { playState: 'paused' } }
    const { store, arrive, advance } = await connectedLink(server)
    // The store announces the session's own changes on the next turn; those are not the subject.
    await new Promise((r) => setImmediate(r))
    const shown: PlayState[] = []
    store.on('titlesReset', (titles) => shown.push(titles.find((t) => t.id === '{A}')!.play))
    store.on('title', (e) => e.id === '{A}' && e.changes.play && shown.push(e.changes.play))
    await arrive(() => server.signal('variablesChanged', SIGNAL_ARGS.variablesChanged))
    await advance(LINK_TUNABLES.changeDebounceMs)
    await new Promise((r) => setImmediate(r))
    expect(server.reads()).toHaveLength(2)
    expect(shown).toEqual(['Paused'])
  })

  it('where the title list has a status, it wins over the layer state (ASSUMED, titlePlay)', async () => {
    const server = await scheduler()
    server.titles.splice(
      0,
      server.titles.length,
      { id: '{A}', name: 'Alpha', status: 'Off', variables: [] },
      { id: '{B}', name: 'Beta', status: 'Running', variables: [] },
      { id: '{C}', name: 'Gamma', variables: [] },
    )
    server.state.layers = {
      '{A}': { playState: 'running' },
      '{B}': { playState: 'paused' },
      '{C}': { playState: 'paused' },
    }
    const { store } = await connectedLink(server)
    expect(plays(store)).toEqual([
      ['{A}', 'Off'],
      ['{B}', 'Running'],
      ['{C}', 'Paused'],
    ])
  })

  it('without getValueForKey published, titles listed without a status are Off and nothing more is asked', async () => {
    const server = await scheduler({ methods: ['notifyClientConnected', 'scheduleCommand'] })
    statusless(server)
    server.state.layers = { '{A}': { playState: 'running' } }
    const { store } = await connectedLink(server)
    expect(plays(store).map(([, p]) => p)).toEqual(['Off', 'Off', 'Off'])
    expect(server.count('getValueForKey')).toBe(0)
  })

  it('a layer state that is no map keeps the play states, warns once, and the link stays up', async () => {
    const server = await scheduler()
    statusless(server)
    server.state.layers = { '{A}': { playState: 'running' } }
    const records = captureLogs()
    const { link, store, arrive, advance } = await connectedLink(server)
    expect(store.title('{A}')?.play).toBe('Running')
    for (const junk of ['not json', [1, 2], null, 5]) {
      server.state.layers = junk
      await arrive(() => server.signal('messageIn', SIGNAL_ARGS.messageIn))
      await advance(1000)
    }
    expect(server.count('getValueForKey')).toBe(5)
    expect(link.state).toBe('connected')
    expect(store.title('{A}')?.play).toBe('Running')
    expect(records.filter((r) => r.level === 'warn').map((r) => r.message)).toEqual([
      'the layer state is not a map of title ids; play states kept',
    ])
  })
})
