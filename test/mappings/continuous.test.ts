/**
 * Jog, shuttle, faders and encoders through the engine against the simulator: latest wins, nothing
 * lost, nothing queued.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { shuttleSpeed } from '../../src/mappings/behaviours/continuous.js'
import { ENGINE_TUNABLES } from '../../src/mappings/constants.js'
import { until } from '../helpers/until.js'
import { CONSOLE, engineHarness, WAIT, type EngineHarness } from './helpers.js'

let h: EngineHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

/**
 * `performance.now()` (the clock the jog measures its rest with) running `ms` ahead of the real one from now on,
 * as if the wheel had rested that long; the sockets and the simulator keep their real timers.
 */
function restFor(ms: number): void {
  const real = performance.now.bind(performance)
  const spy = vi.spyOn(performance, 'now').mockImplementation(() => real() + ms)
  onTestFinished(() => spy.mockRestore())
}

/** Arms Camera 1 and enters replay (scrub) mode, with a 60 s buffer and the scrub at 5 s. */
async function replayMode(x: EngineHarness, position = 5): Promise<void> {
  await x.client.call('replay_arm_inputs', { inputs: ['Camera 1'] })
  await x.client.call('replay_enable')
  await x.client.call('replay_set_settings', { settings: { bufferLength: 60 } })
  await x.client.call('replay_enable_scrubbing', { enable: true })
  await x.client.call('replay_set_scrub_position', { position })
  x.sim.http.reset()
}

describe('jog scrubbing', () => {
  it('1,000 deltas at one per ms with 20 ms replies: one scrub in flight, at most 2 after the last delta, nothing lost', async () => {
    h = await engineHarness(CONSOLE + `bindings:\n  - on: console/jog\n    jog: { scrub: { step_frames: 1 } }\n`)
    await replayMode(h)
    h.sim.http.setDelay('replay_set_scrub_position', 20)
    const frameRate = (await h.client.call('replay_get_play_info')).frameRate
    h.sim.http.reset()
    const scrubs = () => h!.sim.http.commands('replay_set_scrub_position')
    let lastDeltaAt = 0
    // Twenty deltas at a time, the next twenty only once another scrub has reached the simulator (each waits
    // 20 ms for its reply): the wheel keeps turning while a scrub is in flight, without a sleep.
    for (let i = 0; i < 1000; i++) {
      const before = scrubs().length
      h.rotate('console/jog', 1)
      lastDeltaAt = Date.now()
      if (i % 20 === 19) await until('the next scrub at the simulator', () => scrubs().length > before)
    }
    // The cursor is in whole frames, seeded from the play position.
    const expected = (Math.round(5 * frameRate) + 1000) / frameRate
    await expect.poll(() => h!.sim.state.replay.scrubPosition, WAIT).toBeCloseTo(expected, 6)
    // Requests went out while the wheel was still moving.
    expect(scrubs().filter((e) => Date.parse(e.time) < lastDeltaAt - 100).length).toBeGreaterThan(5)
    expect(h.sim.http.highWater('replay_set_scrub_position')).toBe(1)
    expect(scrubs().filter((e) => Date.parse(e.time) > lastDeltaAt).length).toBeLessThanOrEqual(2)
    // Far fewer requests than deltas: the latest position wins.
    expect(scrubs().length).toBeLessThan(1000)
    expect(Number(scrubs().at(-1)!.parameters.position)).toBeCloseTo(expected, 6)
  })

  it('clamps at each step to the replay buffer, and seeds from the play position', async () => {
    h = await engineHarness(CONSOLE + `bindings:\n  - on: console/jog\n    jog: { scrub: { step_seconds: 1 } }\n`)
    await replayMode(h, 58)
    const fps = (await h.client.call('replay_get_play_info')).frameRate
    const end = Math.floor(60 * fps) // the last whole frame of the 60 s buffer
    const step = Math.round(fps) // step_seconds: 1, in whole frames
    h.sim.http.reset()
    h.rotate('console/jog', 5) // 58 s → the end, not 63 s
    await expect.poll(() => h!.sim.state.replay.scrubPosition, WAIT).toBeCloseTo(end / fps, 6)
    h.rotate('console/jog', -3) // from the end stop, three steps back
    await expect.poll(() => h!.sim.state.replay.scrubPosition, WAIT).toBeCloseTo((end - 3 * step) / fps, 6)
    expect(h.sent('replay_get_play_info')).toHaveLength(1)
  })

  it('says so in detail when the replay is not in replay mode; enter: true turns scrubbing on first', async () => {
    h = await engineHarness(
      CONSOLE +
        `bindings:
  - on: console/jog
    label: "{{position}}"
    jog: { scrub: { step_frames: 1 } }
  - on: console/encoder:0
    jog: { scrub: { step_frames: 5, enter: true } }
`,
    )
    await h.client.call('replay_arm_inputs', { inputs: ['Camera 1'] })
    await h.client.call('replay_enable')
    h.rotate('console/jog', 1)
    await expect.poll(() => h!.surfaces.of('console/jog')?.detail, WAIT).toBe('not in replay mode')
    expect(h.surfaces.of('console/jog')!.badge).toBe('failed')
    h.rotate('console/encoder:0', 2)
    await expect.poll(() => h!.sim.state.replay.state, WAIT).toBe('replay')
    const fps = (await h.client.call('replay_get_play_info')).frameRate
    await expect.poll(() => h!.sim.state.replay.scrubPosition, WAIT).toBeCloseTo(10 / fps, 6)
    expect(h.sent('replay_enable_scrubbing')).toEqual([expect.objectContaining({ enable: 'true' })])
  })

  it('seeds again after the wheel has rested: playback moved the position meanwhile', async () => {
    h = await engineHarness(CONSOLE + `bindings:\n  - on: console/jog\n    jog: { scrub: { step_frames: 1 } }\n`)
    await replayMode(h, 5)
    const fps = (await h.client.call('replay_get_play_info')).frameRate
    h.sim.http.reset()
    h.rotate('console/jog', 2)
    await expect.poll(() => h!.sim.state.replay.scrubPosition, WAIT).toBeCloseTo((Math.round(5 * fps) + 2) / fps, 6)
    // Playback (or another operator) moves the position while the wheel rests.
    await h.client.call('replay_set_scrub_position', { position: 12 })
    restFor(ENGINE_TUNABLES.jogReseedAfterMs + 100)
    h.rotate('console/jog', 1)
    await expect.poll(() => h!.sim.state.replay.scrubPosition, WAIT).toBeCloseTo((Math.round(12 * fps) + 1) / fps, 6)
    expect(h.sent('replay_get_play_info')).toHaveLength(2)
  })
})

describe('shuttle', () => {
  it('maps zones: 8 entries mirrored, 15 as written, centre is 0, max_speed caps', () => {
    const eight = [0, 0.1, 0.25, 0.5, 1, 2, 4, 8]
    expect(shuttleSpeed(0, eight)).toBe(0)
    expect(shuttleSpeed(1 / 7, eight)).toBe(0.1)
    expect(shuttleSpeed(-3 / 7, eight)).toBe(-0.5)
    expect(shuttleSpeed(1, eight)).toBe(8)
    expect(shuttleSpeed(-1, eight, 2)).toBe(-2)
    expect(shuttleSpeed(0.04, eight)).toBe(0) // rounds to the centre
    const fifteen = [-9, -8, -7, -6, -5, -4, -3, 0, 3, 4, 5, 6, 7, 8, 9]
    expect(shuttleSpeed(-1, fifteen)).toBe(-9)
    expect(shuttleSpeed(2 / 7, fifteen)).toBe(4)
  })

  it('sends the speed latest-wins, and speed 0 when the ring returns to centre', async () => {
    h = await engineHarness(
      CONSOLE +
        `bindings:\n  - on: console/shuttle\n    label: "{{speed}}x"\n    shuttle: { speeds: [0, 0.1, 0.25, 0.5, 1, 2, 4, 8] }\n`,
    )
    h.sim.http.setDelay('replay_set_replay_speed', 30)
    for (const v of [1 / 7, 2 / 7, 3 / 7, 4 / 7, 5 / 7]) h.value('console/shuttle', v)
    await expect.poll(() => h!.sim.state.replay.speed, WAIT).toBe(2)
    // The first went out; the three between were replaced by the newest.
    expect(h.sent('replay_set_replay_speed').map((p) => p.speed)).toEqual(['0.1', '2'])
    h.value('console/shuttle', 0)
    await expect.poll(() => h!.sim.state.replay.speed, WAIT).toBe(0)
    expect(h.surfaces.of('console/shuttle')!.text).toBe('0x')
    expect(h.sim.http.highWater('replay_set_replay_speed')).toBe(1)
  })
})

describe('faders and encoders', () => {
  it('a fader maps its value to the range and sends only on change, latest wins', async () => {
    h = await engineHarness(
      CONSOLE +
        `bindings:\n  - on: console/fader:0\n    value: { command: replay_set_replay_speed, param: speed, range: [-2, 2] }\n`,
    )
    h.value('console/fader:0', 0.75)
    await expect.poll(() => h!.sim.state.replay.speed, WAIT).toBe(1)
    h.value('console/fader:0', 0.75)
    h.value('console/fader:0', 0.5)
    await expect.poll(() => h!.sim.state.replay.speed, WAIT).toBe(0)
    expect(h.sent('replay_set_replay_speed').map((p) => p.speed)).toEqual(['1', '0'])
    expect(h.surfaces.of('console/fader:0')!.value).toBe(0.5)
  })

  it('a replay-speed fader shows the speed the shuttle set: no longer unknown, its label the speed', async () => {
    h = await engineHarness(
      CONSOLE +
        `bindings:
  - on: console/shuttle
    shuttle: { speeds: [0, 0.1, 0.25, 0.5, 1, 2, 4, 8] }
  - on: console/fader:0
    label: "Speed {{value}}"
    value: { command: replay_set_replay_speed, param: speed, range: [-2, 2] }
`,
    )
    await until('the fader drawn', () => h!.surfaces.of('console/fader:0') !== undefined)
    expect(h.surfaces.of('console/fader:0')).toMatchObject({ badge: 'unknown', text: 'Speed ?' })
    h.value('console/shuttle', 4 / 7) // speed 1
    await expect.poll(() => h!.surfaces.of('console/fader:0')?.value, WAIT).toBe(0.75)
    expect(h.surfaces.of('console/fader:0')).toMatchObject({ text: 'Speed 1' })
    expect(h.surfaces.of('console/fader:0')!.badge).toBeUndefined()
    h.value('console/shuttle', -1) // speed -8: the fader's bottom
    await expect.poll(() => h!.surfaces.of('console/fader:0')?.value, WAIT).toBe(0)
    expect(h.surfaces.of('console/fader:0')).toMatchObject({ text: 'Speed -8' })
    // The fader's own move shows as before.
    h.value('console/fader:0', 0.625)
    await expect.poll(() => h!.sim.state.replay.speed, WAIT).toBe(0.5)
    await expect.poll(() => h!.surfaces.of('console/fader:0')?.text, WAIT).toBe('Speed 0.5')
    expect(h.surfaces.of('console/fader:0')!.value).toBe(0.625)
  })

  it('an encoder sends {{delta}}, summing turns that arrive while a request is in flight', async () => {
    h = await engineHarness(
      CONSOLE +
        `bindings:\n  - on: console/encoder:0\n    rotate: { command: replay_set_in_point, params: { position: "{{delta}}" }, acceleration: false }\n`,
    )
    await h.client.call('replay_arm_inputs', { inputs: ['Camera 1'] })
    await h.client.call('replay_enable')
    h.sim.http.reset()
    h.sim.http.setDelay('replay_set_in_point', 30)
    h.rotate('console/encoder:0', 1)
    h.rotate('console/encoder:0', 2)
    h.rotate('console/encoder:0', 3)
    await expect.poll(() => h!.sent('replay_set_in_point').length, WAIT).toBe(2)
    expect(h.sent('replay_set_in_point').map((p) => p.position)).toEqual(['1', '5'])
  })
})
