/** The store of what the application shows: titles, play states, variables, the link's freshness, and its events. */
import { describe, expect, it } from 'vitest'
import { AppState, type AppStateEvents, type LinkFreshness } from '../../../src/api/app-state.js'

const tick = () => new Promise<void>((r) => setImmediate(r))

function withTitles(): AppState {
  const s = new AppState()
  s.resetTitles([
    { id: '{a}', name: 'Lower Third', play: 'Off', variables: { Name: 'Ann', Role: 'Host' } },
    { id: '{b}', name: 'Bug', play: 'Paused' },
  ])
  return s
}

function record<K extends keyof AppStateEvents>(s: AppState, event: K): AppStateEvents[K][0][] {
  const out: AppStateEvents[K][0][] = []
  s.on(event, (arg: AppStateEvents[K][0]) => out.push(arg))
  return out
}

describe('AppState', () => {
  it('holds titles by id and by name', () => {
    const s = withTitles()
    expect(s.title('{a}')).toEqual({
      id: '{a}',
      name: 'Lower Third',
      play: 'Off',
      variables: { Name: 'Ann', Role: 'Host' },
    })
    expect(s.titleByName('Bug')?.id).toBe('{b}')
    expect(s.titles()).toHaveLength(2)
    expect(s.title('{zz}')).toBeUndefined()
  })

  it('batches a burst of changes into one event per title carrying only what changed', async () => {
    const s = withTitles()
    const events = record(s, 'title')
    s.setTitlePlay('{a}', 'Running')
    s.setTitlePlay('{a}', 'Paused')
    s.setTitleVariables('{a}', { Name: 'Bob', Role: 'Host' })
    s.setTitleVariables('{a}', { Name: 'Cy' })
    s.setTitlePlay('{b}', 'Paused') // no change
    expect(events).toHaveLength(0)
    expect(s.pendingCount).toBe(1)
    await tick()
    expect(events).toEqual([{ id: '{a}', changes: { play: 'Paused', variables: { Name: 'Cy' } } }])
    expect(s.pendingCount).toBe(0)
    expect(s.title('{a}')?.variables).toEqual({ Name: 'Cy', Role: 'Host' })
  })

  it('emits nothing for changes that change nothing', async () => {
    const s = withTitles()
    const events = record(s, 'title')
    s.setTitlePlay('{a}', 'Off')
    s.setTitleVariables('{a}', { Name: 'Ann' })
    s.setTitlePlay('{b}', 'Running') // the one real change: its event proves the batch was flushed
    await tick()
    expect(events).toEqual([{ id: '{b}', changes: { play: 'Running' } }])
  })

  it('refuses changes to unknown titles', () => {
    const s = withTitles()
    expect(s.setTitlePlay('{nope}', 'Running')).toBe(false)
    expect(s.setTitleVariables('{nope}', { x: '1' })).toBe(false)
    expect(s.pendingCount).toBe(0)
  })

  it('replaces every title on reset, dropping pending changes', async () => {
    const s = withTitles()
    const titles = record(s, 'title')
    const resets = record(s, 'titlesReset')
    s.setTitlePlay('{a}', 'Running')
    s.resetTitles([{ id: '{c}', name: 'New', play: 'Running' }])
    await tick()
    expect(titles).toHaveLength(0)
    expect(resets).toHaveLength(1)
    expect(resets[0]!.map((t) => t.id)).toEqual(['{c}'])
    expect(s.title('{a}')).toBeUndefined()
  })

  it('reports the link: stale with a phase (keeping when it went stale), then connected', () => {
    const s = new AppState()
    const links: LinkFreshness[] = record(s, 'link')
    expect(s.link.status).toBe('stale')
    s.setLink({ status: 'stale', phase: 'connecting', since: 1 })
    s.setLink({ status: 'stale', phase: 'resynchronising', since: 2 })
    s.setLink({ status: 'stale', phase: 'resynchronising', since: 3 }) // same: no event
    s.setLink({ status: 'connected', since: 4 })
    s.setLink({ status: 'connected', since: 5 }) // same: no event
    s.setLink({ status: 'stale', phase: 'waiting-to-retry', since: 6, error: 'socket closed' })
    expect(links.map((l) => (l.status === 'stale' ? l.phase : l.status))).toEqual([
      'connecting',
      'resynchronising',
      'connected',
      'waiting-to-retry',
    ])
    expect(links[1]!.since).toBe(links[0]!.since)
    expect(s.link).toMatchObject({ status: 'stale', phase: 'waiting-to-retry', since: 6, error: 'socket closed' })
  })

  it('records replay and streaming state, emitting only what changed', () => {
    const s = new AppState()
    const replay = record(s, 'replay')
    const streaming = record(s, 'streaming')
    s.setReplay({ state: 'armed', speed: 1 })
    s.setReplay({ state: 'armed', speed: 0.5 })
    s.setReplay({ state: 'armed' })
    s.setStreaming({ streaming: true })
    s.setStreaming({ streaming: true })
    expect(replay).toEqual([{ state: 'armed', speed: 1 }, { speed: 0.5 }])
    expect(streaming).toEqual([{ streaming: true }])
    expect(s.replay).toEqual({ state: 'armed', speed: 0.5 })
  })

  it('flush() emits at once and dispose() drops pending changes', async () => {
    const s = withTitles()
    const events = record(s, 'title')
    s.setTitlePlay('{a}', 'Running')
    s.flush()
    expect(events).toHaveLength(1)
    s.setTitlePlay('{a}', 'Off')
    s.dispose()
    await tick()
    expect(events).toHaveLength(1)
  })
})
