/**
 * Issue 22, items 9 and 11, on what a control is told to show (`computeFeedback`): "application gone"
 * (`stale`) and "not seen yet" (`unknown`) are told apart; `{{play}}` in the binding's own words
 * (`labels:`); a fader that has not moved says its value is unknown instead of showing nothing.
 */
import { describe, expect, it } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import type { BehaviourLook } from '../../src/mappings/behaviours/types.js'
import { FEEDBACK_COLORS } from '../../src/mappings/constants.js'
import { computeFeedback } from '../../src/mappings/feedback.js'
import { binding as bindingSchema, configSchema, type Binding } from '../../src/mappings/schema.js'
import { parseTemplate, renderTemplate, UNKNOWN_VALUE_TEXT } from '../../src/mappings/template.js'

const TITLE = '{3f2b8c1e-7a4d-4e52-9b1a-5c6d7e8f9a01}'
const idle: BehaviourLook = { pending: false, failed: false, context: {} }

function connected(play: 'Running' | 'Paused' | 'Off' = 'Off'): AppState {
  const state = new AppState()
  state.resetTitles([{ id: TITLE, name: 'Lower Third', play }])
  state.setLink({ status: 'connected', since: 1 })
  return state
}

function show(
  b: Record<string, unknown>,
  state: AppState,
  look: BehaviourLook = idle,
): ReturnType<typeof computeFeedback> {
  const binding: Binding = bindingSchema.parse({ on: 'console/key:0', ...b })
  const label = binding.label === undefined ? undefined : parseTemplate(binding.label).template
  return computeFeedback({ binding, label, look, state })
}

describe('stale (the application is gone) and unknown (not seen yet)', () => {
  it('a replay key before any replay command is unknown, in its off colour; with the link down it is stale', () => {
    const state = connected()
    const replay = { label: 'Replay', feedback: { replay_state: 'replay' } }
    expect(show(replay, state)).toMatchObject({ badge: 'unknown', color: FEEDBACK_COLORS.indicatorOff })
    state.setReplay({ state: 'replay' })
    expect(show(replay, state).badge).toBeUndefined()
    state.setLink({ status: 'stale', phase: 'connecting', since: 2 })
    expect(show(replay, state).badge).toBe('stale')
    // Gone beats not seen: a stale link with a replay state never seen is still stale.
    expect(show(replay, connectedThenLost()).badge).toBe('stale')
  })

  it('a title the application does not have is unknown, with the reason; an on-air title whose link dropped is stale', () => {
    const state = connected('Running')
    expect(show({ feedback: { title: 'Lower Thrid' } }, state)).toMatchObject({
      badge: 'unknown',
      detail: 'no such title',
    })
    const onAir = { label: '{{play}}', feedback: { title: 'Lower Third' } }
    expect(show(onAir, state)).toMatchObject({ color: FEEDBACK_COLORS.play.Running, text: 'Running' })
    expect(show(onAir, state).badge).toBeUndefined()
    state.setLink({ status: 'stale', phase: 'waiting-to-retry', since: 3, error: 'socket closed' })
    const stale = show(onAir, state)
    expect(stale.badge).toBe('stale')
    // No "no such title" while the link is down: the title may well exist.
    expect(stale.detail).toBeUndefined()
  })

  it('a key following a title the application does not have keeps the name it follows, and the reason', () => {
    const b = { label: '{{name}}\n{{play}}', feedback: { title: 'Lower Thrid' } }
    expect(show(b, connected('Running'))).toMatchObject({
      text: 'Lower Thrid\n',
      badge: 'unknown',
      detail: 'no such title',
    })
    // Before the link is up, the titles are not known yet: the key still says which one it follows.
    expect(show({ ...b, feedback: { title: 'Lower Third' } }, new AppState())).toMatchObject({
      text: 'Lower Third\n',
      badge: 'stale',
    })
    // Found, the application's own name is shown (a title followed by its id shows its name).
    expect(show({ ...b, feedback: { title: TITLE } }, connected('Running')).text).toBe('Lower Third\nRunning')
  })

  it('a failure and a command in flight still show over stale and unknown', () => {
    const state = connected()
    const replay = { feedback: { replay_state: 'replay' } }
    expect(show(replay, state, { ...idle, pending: true }).badge).toBe('pending')
    expect(show(replay, state, { ...idle, failed: true, detail: 'bad request' })).toMatchObject({
      badge: 'failed',
      detail: 'bad request',
    })
  })
})

describe('labels: {{play}} in the binding’s own words', () => {
  const onAir = {
    label: '{{name}}\n{{play}}',
    labels: { Running: 'ON AIR', Paused: 'ON AIR', Off: 'off' },
    feedback: { title: 'Lower Third' },
  }

  it('each play state shows its word; a state left out shows its own name', () => {
    expect(show(onAir, connected('Running')).text).toBe('Lower Third\nON AIR')
    expect(show(onAir, connected('Paused')).text).toBe('Lower Third\nON AIR')
    expect(show(onAir, connected('Off')).text).toBe('Lower Third\noff')
    const some = { ...onAir, labels: { Running: 'LIVE' } }
    expect(show(some, connected('Paused')).text).toBe('Lower Third\nPaused')
    expect(show(some, connected('Running')).text).toBe('Lower Third\nLIVE')
  })

  it('the schema takes play states only, and labels only beside a followed title', () => {
    const file = (b: Record<string, unknown>) => ({
      version: 1,
      bindings: [{ on: 'console/key:0', feedback: { title: 'Lower Third' }, ...b }],
    })
    expect(configSchema.safeParse(file({ labels: { Running: 'ON AIR' } })).success).toBe(true)
    const misspelt = configSchema.safeParse(file({ labels: { Runing: 'ON AIR' } }))
    expect(misspelt.success).toBe(false)
    const alone = configSchema.safeParse({
      version: 1,
      bindings: [{ on: 'console/key:0', labels: { Running: 'ON AIR' }, feedback: { streaming: true } }],
    })
    expect(alone.success).toBe(false)
    expect(alone.error?.issues.map((i) => i.message).join()).toMatch(
      /labels gives words for \{\{play\}\}.*feedback\.title/,
    )
  })
})

describe('a fader whose value is unknown', () => {
  const fader = {
    label: 'Speed\n{{value}}',
    value: { command: 'replay_set_replay_speed', param: 'speed', range: [-2, 2] },
  }

  it('says so until it moves: the label marks the value unknown and the badge is unknown', () => {
    const before = show(fader, connected())
    expect(before.text).toBe(`Speed\n${UNKNOWN_VALUE_TEXT}`)
    expect(before.badge).toBe('unknown')
    expect(before.value).toBeUndefined()
    const moved = show(fader, connected(), { ...idle, value: 0.25, context: { value: -1 } })
    expect(moved).toMatchObject({ text: 'Speed\n-1', value: 0.25 })
    expect(moved.badge).toBeUndefined()
  })

  it('only labels mark an unknown value: a template renders a missing value empty otherwise', () => {
    const { template } = parseTemplate('v={{value}} p={{play}}')
    expect(renderTemplate(template, {})).toBe('v= p=')
    expect(renderTemplate(template, {}, { value: '?' })).toBe('v=? p=')
    expect(renderTemplate(template, { value: 0 }, { value: '?' })).toBe('v=0 p=')
  })
})

function connectedThenLost(): AppState {
  const state = connected()
  state.setLink({ status: 'stale', phase: 'connecting', since: 9 })
  return state
}
