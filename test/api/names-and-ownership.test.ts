/**
 * Groundwork items 3 and 4 on the application side: titles by name (a rename moves the index and
 * reaches readers), a filter that changes without a new socket, and stores that readers cannot emit on.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { AppState, type AppStateEvents } from '../../src/api/app-state.js'
import { NotificationLink } from '../../src/api/notifications.js'
import type { PlayState } from '../../src/api/protocol.js'
import { QWebChannelClient } from '../../src/api/qwebchannel.js'
import { startSimulator } from '../../src/app-kit/simulator/index.js'

const WAIT = { timeout: 5000, interval: 5 }

/** A store holding these titles, each given as id, name and play state. */
function storeOf(...titles: [id: string, name: string, play: PlayState][]): AppState {
  const store = new AppState()
  store.resetTitles(titles.map(([id, name, play]) => ({ id, name, play })))
  return store
}

describe('titles by name', () => {
  it('finds a title by name or id, and a rename moves the index and reaches readers as a change with name', () => {
    const store = storeOf(['{a}', 'Lower Third', 'Off'], ['{b}', 'Score Bug', 'Paused'])
    expect(store.titleByName('Score Bug')?.id).toBe('{b}')
    expect(store.findTitle('{a}')?.name).toBe('Lower Third')
    expect(store.findTitle('Lower Third')?.id).toBe('{a}')

    const changes: AppStateEvents['title'][0][] = []
    store.on('title', (c) => changes.push(c))
    expect(store.setTitleName('{b}', 'Scoreboard')).toBe(true)
    expect(store.setTitleName('{zzz}', 'X')).toBe(false)
    store.flush()
    expect(changes).toEqual([{ id: '{b}', changes: { name: 'Scoreboard' } }])
    expect(store.titleByName('Score Bug')).toBeUndefined()
    expect(store.titleByName('Scoreboard')?.id).toBe('{b}')
  })

  it('keeps the first of two titles of one name, and the other when the first is renamed away', () => {
    const store = storeOf(['{1}', 'Twin', 'Off'], ['{2}', 'Twin', 'Off'])
    expect(store.titleByName('Twin')?.id).toBe('{1}')
    store.setTitleName('{1}', 'Solo')
    expect(store.titleByName('Twin')?.id).toBe('{2}')
    // A resynchronisation (ids change when the application restarts) rebuilds the index.
    store.resetTitles([{ id: '{9}', name: 'Twin', play: 'Running' }])
    expect(store.titleByName('Twin')?.id).toBe('{9}')
    expect(store.titleByName('Solo')).toBeUndefined()
  })
})

describe('a filter that changes without a new socket', () => {
  it('follows another title after setFilter, on the same connection', async () => {
    const sim = await startSimulator({ animationMs: 40 })
    onTestFinished(() => sim.close())
    const store = new AppState()
    const link = new NotificationLink({
      url: sim.wsUrl,
      state: store,
      filter: { titles: ['Lower Third'] },
      timing: { resyncDebounceMs: 10 },
    })
    onTestFinished(() => link.stop())
    const phases: string[] = []
    link.on('phase', (p) => phases.push(p))
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(store.titles().map((t) => t.name)).toEqual(['Lower Third'])
    expect(sim.ws.clientCount).toBe(1)

    let resyncs = 0
    link.on('resynchronised', () => resyncs++)
    link.setFilter({ titles: ['Score Bug'] })
    await expect.poll(() => resyncs, WAIT).toBe(1)
    expect(store.titles().map((t) => t.name)).toEqual(['Score Bug'])
    // No reconnect: the link never left `connected`, and the server still has the one socket.
    expect(phases).toEqual(['connecting', 'resynchronising', 'connected'])
    expect(sim.ws.clientCount).toBe(1)
  })
})

describe('stores and links: readers cannot emit', () => {
  it('AppState, NotificationLink and QWebChannelClient expose on/off but no emit', () => {
    const store = new AppState()
    const link = new NotificationLink({ url: 'ws://127.0.0.1:1', state: store })
    const client = new QWebChannelClient({ url: 'ws://127.0.0.1:1' })
    for (const o of [store, link, client]) {
      expect('emit' in o).toBe(false)
      expect(typeof o.on).toBe('function')
      expect(typeof o.off).toBe('function')
    }
    const seen: string[] = []
    const l = (s: { status: string }): void => void seen.push(s.status)
    store.on('link', l)
    store.setLink({ status: 'connected', since: 1 })
    store.off('link', l)
    store.setLink({ status: 'stale', phase: 'connecting', since: 2 })
    expect(seen).toEqual(['connected'])
    expect(store.listenerCount('link')).toBe(0)
  })
})
