/** The model alone: notification emission and sender matching, play states, dispatch robustness. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { APP_ERRORS } from '../../../src/api/protocol.js'
import { createDefaultSender, senderMatches, type Sender } from '../../../src/app-kit/simulator/model.js'
import { SimulatorState } from '../../../src/app-kit/simulator/state.js'

const ANIMATION_MS = 1000
const LOWER_THIRD = '{3f2b8c1e-7a4d-4e52-9b1a-5c6d7e8f9a01}' // input Newsroom
const SCORE_BUG = '{9c0e4a7b-2d15-4f3e-8a6c-0b1d2e3f4a02}' // input Scoreboard

function newState(defaultSender = true): SimulatorState {
  return new SimulatorState({
    dataDir: mkdtempSync(join(tmpdir(), 'pb-state-')),
    animationMs: ANIMATION_MS,
    defaultSender,
  })
}

function collect(state: SimulatorState): object[] {
  const seen: object[] = []
  state.notifications.on('notify', (payload) => seen.push(payload))
  return seen
}

function sender(partial: Partial<Sender>): Sender {
  return { name: 'x', ids: [], inputs: [], events: ['play'], isDefault: false, ...partial }
}

describe('senderMatches', () => {
  const topic = { event: 'play', titleId: LOWER_THIRD, inputs: ['Newsroom'] }
  it('matches on event type', () => {
    expect(senderMatches(sender({ events: ['play'] }), topic)).toBe(true)
    expect(senderMatches(sender({ events: ['data'] }), topic)).toBe(false)
    expect(senderMatches(sender({ events: ['event.*'] }), { event: 'event.onchatmessageevent' })).toBe(true)
  })
  it('empty or "all" ids and inputs match every title; otherwise the id must be listed (braces optional)', () => {
    expect(senderMatches(sender({ ids: ['all'] }), topic)).toBe(true)
    expect(senderMatches(sender({ ids: [LOWER_THIRD.slice(1, -1).toUpperCase()] }), topic)).toBe(true)
    expect(senderMatches(sender({ ids: [SCORE_BUG] }), topic)).toBe(false)
    expect(senderMatches(sender({ inputs: ['all'] }), topic)).toBe(true)
    expect(senderMatches(sender({ inputs: ['Scoreboard', 'Newsroom'] }), topic)).toBe(true)
    expect(senderMatches(sender({ inputs: ['Scoreboard'] }), topic)).toBe(false)
  })
  it('the default sender matches play, control and data of every title', () => {
    for (const event of ['play', 'control', 'data'])
      expect(senderMatches(createDefaultSender(), { ...topic, event })).toBe(true)
  })
})

describe('notification emission', () => {
  it('emits once even when several senders match (the default sender included)', () => {
    const state = newState()
    state.senders.push(sender({ name: 'a' }), sender({ name: 'b', ids: [LOWER_THIRD] }))
    const seen = collect(state)
    state.dispatch('schedule', { action: 'cutin', id: LOWER_THIRD })
    expect(seen).toEqual([{ id: LOWER_THIRD, play: 'Paused' }])
  })

  it('without the default sender, only subscribed titles are announced', () => {
    const state = newState(false)
    const seen = collect(state)
    expect(state.dispatch('subscribe', { sender: 'deck', events: 'play,data', id: LOWER_THIRD })).toEqual({})
    state.dispatch('schedule', { action: 'cutin', id: SCORE_BUG })
    state.dispatch('schedule', { action: 'cutin', id: LOWER_THIRD })
    state.dispatch('schedule', { action: 'still', id: SCORE_BUG }, { 'Home Score': '3' })
    state.dispatch('schedule', { action: 'still', id: LOWER_THIRD }, [{ name: 'Name', value: 'Sam Reyes' }])
    expect(seen).toEqual([
      { id: LOWER_THIRD, play: 'Paused' },
      { event: 'data', id: LOWER_THIRD, variables: [{ name: 'Name', value: 'Sam Reyes' }] },
    ])
  })

  it('filters by input: a sender on Scoreboard hears the Score Bug only', () => {
    const state = newState(false)
    const seen = collect(state)
    state.dispatch('subscribe', { sender: 'scores', events: 'play', input: 'Scoreboard' })
    state.dispatch('schedule', { action: 'cutin', id: LOWER_THIRD })
    state.dispatch('schedule', { action: 'cutin', id: SCORE_BUG })
    expect(seen).toEqual([{ id: SCORE_BUG, play: 'Paused' }])
  })

  it('no matching sender: nothing is emitted', () => {
    const state = newState(false)
    const seen = collect(state)
    state.dispatch('schedule', { action: 'cutin', id: LOWER_THIRD })
    expect(seen).toEqual([])
  })

  it('control notifications on title add and remove', () => {
    const state = newState()
    const seen = collect(state)
    state.dispatch('newTitle', { newName: 'Promo', newId: '{12345678-1234-4234-8234-123456789abc}' })
    state.dispatch('deleteTitle', { title: 'Promo' })
    expect(seen).toEqual([
      { control: 'addTitle' },
      { control: 'removeTitle', id: '{12345678-1234-4234-8234-123456789abc}' },
    ])
  })

  it('data notifications list only the variables that changed; unknown names are ignored', () => {
    const state = newState()
    const seen = collect(state)
    state.dispatch('schedule', {
      action: 'update',
      title: 'Score Bug',
      'Home Score': '2',
      'Away Score': '4',
      Nope: 'x',
    })
    expect(seen).toEqual([{ event: 'data', id: SCORE_BUG, variables: [{ name: 'Away Score', value: '4' }] }])
  })
})

describe('schedule play states (decisions: Title play state)', () => {
  let state: SimulatorState
  let plays: string[]
  beforeEach(() => {
    vi.useFakeTimers()
    state = newState()
    plays = []
    state.notifications.on('notify', (p) => {
      if ('play' in p) plays.push(String(p.play))
    })
  })
  afterEach(() => {
    state.close()
    vi.useRealTimers()
  })
  const play = (action: string): void => {
    const r = state.dispatch('schedule', { action, id: LOWER_THIRD })
    expect('result' in r && r.result.error).toBeFalsy()
  }
  const current = (): string => state.titleById(LOWER_THIRD)!.playState
  /** Moves the clock by `ms`; the title's play state is then `expected`. */
  const after = (ms: number, expected: string): void => {
    vi.advanceTimersByTime(ms)
    expect(current()).toBe(expected)
  }

  it('animateIn: Running, then Paused after the animation; animateOut: Running, then Off', () => {
    play('animateIn')
    expect(current()).toBe('Running')
    after(ANIMATION_MS - 1, 'Running')
    after(1, 'Paused')
    play('animateOut')
    expect(current()).toBe('Running')
    after(ANIMATION_MS, 'Off')
    expect(plays).toEqual(['Running', 'Paused', 'Running', 'Off'])
  })

  it('cutin → Paused and cutout → Off at once', () => {
    play('cutin')
    expect(current()).toBe('Paused')
    play('cutout')
    expect(current()).toBe('Off')
    expect(plays).toEqual(['Paused', 'Off'])
  })

  it('automatic toggles in and out; action names are case-insensitive', () => {
    play('AUTOMATIC')
    after(ANIMATION_MS, 'Paused')
    play('automatic')
    after(ANIMATION_MS, 'Off')
  })

  it('alert: in, hold for one animation length, out', () => {
    play('alert')
    after(ANIMATION_MS, 'Paused')
    after(ANIMATION_MS, 'Running')
    after(ANIMATION_MS, 'Off')
    expect(plays).toEqual(['Running', 'Paused', 'Running', 'Off'])
  })

  it('a cutout during the in-animation wins over the pending Paused', () => {
    play('animateIn')
    play('cutout')
    after(ANIMATION_MS * 3, 'Off')
  })

  it('update, still and render change variables, never the play state', () => {
    for (const action of ['update', 'still', 'render']) {
      state.dispatch('schedule', { action, id: LOWER_THIRD, Name: `N-${action}` })
      expect(current()).toBe('Off')
      expect(state.titleById(LOWER_THIRD)!.variables[0]!.value).toBe(`N-${action}`)
    }
  })

  it('schedule without id or title acts on every title of the channel; unknown actions are refused', () => {
    state.dispatch('schedule', { action: 'cutin', channel: 0 })
    expect(state.titles.every((x) => x.playState === 'Paused')).toBe(true)
    const r = state.dispatch('schedule', { action: 'dance', id: LOWER_THIRD })
    expect('result' in r && r.result.error).toBe(APP_ERRORS.invalidParams)
  })

  it('scheduleAction (the socket method) targets a title, an input, or everything', () => {
    state.scheduleAction('cutin', 'Scoreboard', '', {})
    expect(state.titles.filter((x) => x.playState === 'Paused').map((x) => x.id)).toEqual([SCORE_BUG])
    state.scheduleAction('still', '', LOWER_THIRD, { Name: 'Via WS' })
    expect(state.titleById(LOWER_THIRD)!.variables[0]!.value).toBe('Via WS')
    state.scheduleAction('cutout', '', '', null)
    expect(state.titles.every((x) => x.playState === 'Off')).toBe(true)
  })

  it('close() cancels pending animations', () => {
    play('animateIn')
    state.close()
    vi.advanceTimersByTime(ANIMATION_MS * 2)
    expect(current()).toBe('Running')
  })
})

describe('dispatch never throws', () => {
  it('a handler that fails on odd input answers with an error reply', () => {
    const state = newState()
    const circular: Record<string, unknown> = {}
    circular.self = circular
    const r = state.dispatch('setTitleName', { id: circular, newName: 'x', requestId: 'r9' })
    expect('result' in r && r.result.requestId).toBe('r9')
    expect('result' in r && r.result.error).toMatch(/^internal error: /)
    // and the state still answers
    expect(state.dispatch('getOutputDevice', {})).toMatchObject({ result: { device: 'NDI' } })
  })

  it('parameters that are not an object count as none', () => {
    const state = newState()
    for (const params of [null, 'text', 42, ['a']]) {
      const r = state.dispatch('getOutputDevice', params as never)
      expect(r).toMatchObject({ result: { command: 'getOutputDevice', device: 'NDI' } })
    }
  })

  it('numbers, booleans and arrays from a JSON transport are read like their GET text', () => {
    const state = newState()
    state.dispatch('replay_arm_inputs', { inputs: ['Camera 1', 'Camera 2'] })
    state.dispatch('replay_enable', {})
    state.dispatch('replay_enable_scrubbing', { enable: true })
    state.dispatch('replay_set_scrub_position', { position: 7.5 })
    expect(state.replay.playInfo().replayTime).toBe(7.5)
    state.dispatch('replay_set_settings', { settings: { bufferLength: 40 } })
    expect(state.replay.bufferLength).toBe(40)
  })
})
