/**
 * What a command's outcome implies of state the application does not notify (src/api/implied-state.ts),
 * read with the one coercion rule of src/wire.ts.
 */
import { describe, expect, it } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import { applyImpliedState } from '../../src/api/implied-state.js'
import { APP_ERRORS, refusalText } from '../../src/api/protocol.js'

const ok = { ok: true, reply: {} } as const

describe('applyImpliedState', () => {
  it('reads flags, speeds and channels sent as text as the client reads them', () => {
    const state = new AppState()
    applyImpliedState(state, 'replay_enable_scrubbing', { enable: 'true' }, ok)
    expect(state.replay.state).toBe('replay')
    applyImpliedState(state, 'replay_enable_scrubbing', { enable: 0 }, ok)
    expect(state.replay.state).toBe('recording')
    applyImpliedState(state, 'replay_set_replay_speed', { speed: ' 2.5 ' }, ok)
    expect(state.replay.speed).toBe(2.5)
    applyImpliedState(state, 'switchVideoIn', { channel: '1', video: 'Camera 2' }, ok)
    expect(state.tally.get(1)).toBe('Camera 2')
    applyImpliedState(state, 'getStreamHostServer', {}, { ok: true, reply: { streaming: ' TRUE ' } })
    expect(state.streaming.streaming).toBe(true)
  })

  it('leaves the state alone for values that say nothing', () => {
    const state = new AppState()
    applyImpliedState(state, 'replay_set_replay_speed', { speed: '' }, ok)
    applyImpliedState(state, 'switchVideoIn', { channel: '1.5', video: 'Camera 2' }, ok)
    applyImpliedState(state, 'getStreamHostServer', {}, { ok: true, reply: { streaming: 'maybe' } })
    expect(state.replay.speed).toBeUndefined()
    expect(state.tally.size).toBe(0)
    expect(state.streaming.streaming).toBeUndefined()
  })

  it('forgets the replay mode when a scrub is refused as a bad request in replay mode', () => {
    const state = new AppState()
    applyImpliedState(state, 'replay_set_scrub_position', { position: 1 }, ok)
    expect(state.replay.state).toBe('replay')
    applyImpliedState(
      state,
      'replay_set_scrub_position',
      { position: 1 },
      { ok: false, appMessage: APP_ERRORS.badRequest },
    )
    expect(state.replay.state).toBeUndefined()
  })

  it('reads a refusal with its reason as the same refusal; another error is not one', () => {
    const state = new AppState()
    const scrub = (outcome: Parameters<typeof applyImpliedState>[3]): void =>
      applyImpliedState(state, 'replay_set_scrub_position', { position: 1 }, outcome)
    scrub(ok)
    scrub({ ok: false, appMessage: 'bad requests: not a refusal' })
    scrub({ ok: false, appMessage: APP_ERRORS.invalidParams })
    expect(state.replay.state).toBe('replay')
    scrub({ ok: false, appMessage: refusalText('instant replay is not in replay mode') })
    expect(state.replay.state).toBeUndefined()
  })
})
