/**
 * When the notification link reads the titles again: the resynchronisation debounce, what the session's
 * snapshot covers, a refused read, setFilter(), and the filters on notifications. Against the scheduler of
 * ./harness.ts on a real socket; time is a fake clock wherever it is the subject.
 * Cases from the former notifications-mutants.test.ts (mutation survivors).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type WebSocket from 'ws'
import { LINK_TUNABLES, type Notification } from '../../../src/api/notifications.js'
import { QWC_MESSAGE } from '../../../src/api/protocol.js'
import { nextPhase } from '../../helpers/link.js'
import { WAIT, linkTo, next, plainScheduler, signalIndex } from './harness.js'

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

const NOTIFY = signalIndex('onNotify')

/** An addTitle notification on one socket (the scheduler's onNotify signal frame), ahead of what follows on it. */
function sendAddTitle(ws: WebSocket): void {
  ws.send(
    JSON.stringify({ type: QWC_MESSAGE.signal, object: 'scheduler', signal: NOTIFY, args: ['{"control":"addTitle"}'] }),
  )
}

describe('resynchronisation', () => {
  it('debounces a burst of addTitle into one snapshot, LINK_TUNABLES.resyncDebounceMs after the first', async () => {
    const server = await plainScheduler()
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
    vi.advanceTimersByTime(LINK_TUNABLES.resyncDebounceMs - 1)
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
    const server = await plainScheduler({
      // Each of these answers is preceded by an addTitle on the same socket.
      answer: (command, ws) => {
        if (command === 'notifyClientConnected' || command === 'getTitleControlInfo') {
          sendAddTitle(ws)
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
    const server = await plainScheduler({
      after: (command, ws) => {
        if (command !== 'getTitleControlInfo' || server.count(command) > 1) return
        server.titles.push({ id: 'B', name: 'Beta', status: 'Off', variables: [] })
        sendAddTitle(ws)
      },
    })
    const { store, link } = linkTo(server, { timing: { resyncDebounceMs: 10 } })
    link.start()
    await expect.poll(() => store.title('B'), WAIT).toMatchObject({ name: 'Beta' })
    expect(server.count('getTitleControlInfo')).toBe(2)
  })

  it('an addTitle during a later resynchronisation on an open link, before its reply, asks for one more', async () => {
    // The snapshot under way was taken before the title was added, so it cannot cover it.
    const server = await plainScheduler({
      answer: (command, ws) => {
        if (command !== 'getTitleControlInfo' || server.count(command) !== 2) return undefined
        server.titles.push({ id: 'C', name: 'Gamma', status: 'Off', variables: [] })
        sendAddTitle(ws)
        return undefined // the snapshot as it was when asked for: without Gamma
      },
    })
    const { store, link } = linkTo(server, { timing: { resyncDebounceMs: 10 } })
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    server.titles.push({ id: 'B', name: 'Beta', status: 'Off', variables: [] })
    server.frame('scheduler', NOTIFY, { control: 'addTitle' })
    await expect.poll(() => store.title('C'), WAIT).toMatchObject({ name: 'Gamma' })
    expect(store.title('B')).toMatchObject({ name: 'Beta' })
    expect(server.count('getTitleControlInfo')).toBe(3)
  })

  it('learns a title it did not know from a notification about it, by resynchronising', async () => {
    const server = await plainScheduler()
    const { store, link } = linkTo(server, { timing: { resyncDebounceMs: 10 } })
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    server.titles.push({ id: 'B', name: 'Beta', status: 'Paused', variables: [] })
    server.notify({ id: 'B', play: 'Paused' })
    await expect.poll(() => store.title('B'), WAIT).toMatchObject({ name: 'Beta', play: 'Paused' })
    expect(server.count('getTitleControlInfo')).toBe(2)
  })

  it('a resynchronisation refused on an open link drops the session, says why, and reconnects', async () => {
    const server = await plainScheduler({
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
    const server = await plainScheduler()
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

describe('filters on the link', () => {
  it('drops a notification on an input outside the filter, keeps one on a listed input', async () => {
    const server = await plainScheduler()
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
    const server = await plainScheduler()
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
