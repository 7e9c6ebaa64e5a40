/**
 * The instant-replay state machine: every row of the contract's transition table, and each refusal with
 * its reason ('bad request: <reason>', the reasons ASSUMED in src/app-kit/simulator/refusals.ts).
 */
import { describe, expect, it } from 'vitest'
import { APP_ERRORS, SIM_ASSUMED_DEFAULTS } from '../../../src/api/protocol.js'
import { REFUSALS } from '../../../src/app-kit/simulator/refusals.js'
import { useTestSim, type Json, pluck } from './helpers.js'

const t = useTestSim()

const state = (): string => t.sim.state.replay.state
/** The error of a refusal for this reason. */
const BAD = (reason: string): string => `bad request: ${reason}`

async function toRecording(): Promise<void> {
  await t.ok('replay_arm_inputs', { inputs: 'Camera 1,Camera 2' })
  await t.ok('replay_enable')
}
async function toReplay(): Promise<void> {
  await toRecording()
  await t.ok('replay_enable_scrubbing', { enable: 'true' })
}

describe('replay transition table', () => {
  it('not armed → replay_arm_inputs with a list → armed; the buffer starts', async () => {
    expect(state()).toBe('disabled')
    await t.ok('replay_arm_inputs', { inputs: 'Camera 1,Camera 2' })
    expect(state()).toBe('armed')
    const settings = (await t.ok('replay_get_settings')).settings
    expect(settings.armedPortList).toEqual([{ name: 'Camera 1' }, { name: 'Camera 2' }])
    const inputs = (await t.ok('replay_get_inputs')).inputs
    expect(
      pluck(
        inputs.filter((i: Json) => i.armed === true),
        'name',
      ),
    ).toEqual(['Camera 1', 'Camera 2'])
  })

  it('arming with no list or an unknown input is refused', async () => {
    expect((await t.cmd('replay_arm_inputs')).error).toBe(APP_ERRORS.invalidParams)
    expect((await t.cmd('replay_arm_inputs', { inputs: 'Camera 9' })).error).toBe(APP_ERRORS.invalidParams)
    expect(state()).toBe('disabled')
  })

  it('armed → replay_disarm_inputs of the last armed input → disabled', async () => {
    await t.ok('replay_arm_inputs', { inputs: 'Camera 1,Camera 2' })
    await t.ok('replay_disarm_inputs', { inputs: 'Camera 1' })
    expect(state()).toBe('armed')
    await t.ok('replay_disarm_inputs', { inputs: 'Camera 2' })
    expect(state()).toBe('disabled')
    expect((await t.cmd('replay_disarm_inputs', { inputs: 'Camera 2' })).error).toBe(BAD(REFUSALS.replayNotArmed))
  })

  it('armed → replay_enable with an armed input → started (recording)', async () => {
    expect((await t.cmd('replay_enable')).error).toBe('bad request: instant replay is not armed: no input is armed')
    await toRecording()
    expect(state()).toBe('recording')
  })

  it('recording → replay_enable_scrubbing true → replay mode; false → scrubbing off (recording)', async () => {
    await toRecording()
    await t.ok('replay_enable_scrubbing', { enable: 'true' })
    expect(state()).toBe('replay')
    await t.ok('replay_enable_scrubbing', { enable: 'false' })
    expect(state()).toBe('recording')
    expect((await t.cmd('replay_enable_scrubbing', { enable: 'maybe' })).error).toBe(APP_ERRORS.invalidParams)
  })

  it('scrubbing outside an enabled replay is refused: not enabled', async () => {
    expect((await t.cmd('replay_enable_scrubbing', { enable: 'true' })).error).toBe(
      'bad request: instant replay is not enabled',
    )
    await t.ok('replay_arm_inputs', { inputs: 'Camera 1' })
    expect((await t.cmd('replay_enable_scrubbing', { enable: 'true' })).error).toBe(BAD(REFUSALS.replayNotEnabled))
    expect(state()).toBe('armed')
  })

  it('enabled → replay_enter_playback → playback; replay_exit_playback → back', async () => {
    expect((await t.cmd('replay_enter_playback')).error).toBe(BAD(REFUSALS.replayNotEnabled))
    await toRecording()
    await t.ok('replay_enter_playback')
    expect(state()).toBe('playback')
    expect((await t.cmd('replay_enter_playback')).error).toBe('bad request: instant replay is in playback mode')
    expect((await t.cmd('replay_enable_scrubbing', { enable: 'true' })).error).toBe(BAD(REFUSALS.inPlayback))
    await t.ok('replay_exit_playback')
    expect(state()).toBe('recording')
    expect((await t.cmd('replay_exit_playback')).error).toBe('bad request: instant replay is not in playback mode')
    await t.ok('replay_enable_scrubbing', { enable: 'true' })
    await t.ok('replay_enter_playback')
    await t.ok('replay_exit_playback')
    expect(state()).toBe('replay')
  })

  it('replay mode → replay_play_pause toggles play/pause; elsewhere refused: not in replay mode', async () => {
    expect((await t.cmd('replay_play_pause')).error).toBe(BAD(REFUSALS.notInReplayMode))
    await toRecording()
    expect((await t.cmd('replay_play_pause')).error).toBe('bad request: instant replay is not in replay mode')
    await t.ok('replay_enable_scrubbing', { enable: 'true' })
    await t.ok('replay_play_pause')
    expect(t.sim.state.replay.playing).toBe(true)
    await t.ok('replay_play_pause')
    expect(t.sim.state.replay.playing).toBe(false)
  })

  it('disarming the last input from replay mode disables replay', async () => {
    await toReplay()
    await t.ok('replay_disarm_inputs', { inputs: 'Camera 1,Camera 2' })
    expect(state()).toBe('disabled')
  })
})

describe('replay positions inside the buffer', () => {
  it('the scrub position set is the one play info reports (numbers)', async () => {
    await toReplay()
    await t.ok('replay_set_scrub_position', { position: 10 })
    const info = await t.ok('replay_get_play_info')
    expect(info.replayScrubStart).toBe(10)
    expect(info.replayTime).toBe(10)
    for (const k of ['frameRate', 'replayDuration', 'replayEnd', 'replayScrubStart', 'replayStart', 'replayTime']) {
      expect(typeof info[k]).toBe('number')
    }
  })

  it('scrubbing needs replay mode; positions are clamped to the buffer; text is invalid', async () => {
    await toRecording()
    expect((await t.cmd('replay_set_scrub_position', { position: 3 })).error).toBe(BAD(REFUSALS.notInReplayMode))
    await t.ok('replay_enable_scrubbing', { enable: 'true' })
    await t.ok('replay_set_scrub_position', { position: 99 })
    expect((await t.ok('replay_get_play_info')).replayTime).toBe(SIM_ASSUMED_DEFAULTS.replayBufferSeconds)
    await t.ok('replay_set_scrub_position', { position: -4 })
    expect((await t.ok('replay_get_play_info')).replayTime).toBe(0)
    expect((await t.cmd('replay_set_scrub_position', { position: 'middle' })).error).toBe(APP_ERRORS.invalidParams)
  })

  it('in and out points work in any enabled state and keep start ≤ end', async () => {
    expect((await t.cmd('replay_set_in_point', { position: 2 })).error).toBe(BAD(REFUSALS.replayNotEnabled))
    await toRecording()
    await t.ok('replay_set_in_point', { position: 4 })
    await t.ok('replay_enter_playback')
    await t.ok('replay_set_out_point', { position: 12.5 })
    let info = await t.ok('replay_get_play_info')
    expect([info.replayStart, info.replayEnd, info.replayDuration]).toEqual([4, 12.5, 8.5])
    await t.ok('replay_set_in_point', { position: 15 })
    info = await t.ok('replay_get_play_info')
    expect([info.replayStart, info.replayEnd, info.replayDuration]).toEqual([15, 15, 0])
  })
})

describe('replay settings and listings', () => {
  it('replay_set_settings takes JSON text and replay_get_settings reflects it', async () => {
    const settings = {
      bufferLength: 30,
      playSpeed: 0.5,
      muteGraphicsOnReplay: true,
      transIn: 'Fade',
      armedPortList: [{ name: 'HDMI Capture' }],
    }
    await t.ok('replay_set_settings', { settings: JSON.stringify(settings) })
    const got = (await t.ok('replay_get_settings')).settings
    expect(got).toMatchObject({ ...settings, transOut: 'Cut', usesExternalSwitcher: false })
    expect((await t.ok('replay_get_replay_speed')).speed).toBe(0.5)
    expect(state()).toBe('armed')
  })

  it('bad settings change nothing', async () => {
    expect((await t.cmd('replay_set_settings', { settings: '{not json' })).error).toBe(APP_ERRORS.invalidParams)
    expect((await t.cmd('replay_set_settings', { settings: '{"bufferLength":"long","playSpeed":3}' })).error).toBe(
      APP_ERRORS.invalidParams,
    )
    expect((await t.ok('replay_get_settings')).settings.playSpeed).toBe(1)
  })

  it('replay_commands lists the replay commands; replay_is_trial_mode is a boolean', async () => {
    const commands = (await t.ok('replay_commands')).commands as string[]
    expect(commands).toContain('replay_is_trial_mode')
    expect(commands).toHaveLength(18)
    expect(commands.every((c) => c.startsWith('replay_'))).toBe(true)
    expect((await t.ok('replay_is_trial_mode')).isTrial).toBe(false)
  })
})
