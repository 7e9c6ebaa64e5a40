/**
 * The status strip's replay line (issue 43): read from `/api/status`'s `replay` as untrusted JSON, shown
 * while the replay is on with the playhead, in, out and clip length in seconds, hidden while it is off.
 */
import { describe, expect, it } from 'vitest'
import { readStrip, viewStrip } from '../../src/page/strip-state.js'

const view = (replay: unknown) => viewStrip(readStrip({ replay }, undefined), undefined, 0)

describe('the strip’s replay line', () => {
  it('while it plays: the playhead, in, out and the clip length, one decimal', () => {
    const v = view({ state: 'playback', position: 12, in: 7.5, out: 12, length: 4.5, speed: 0.5 })
    expect(v.reading.replay).toEqual({ state: 'playback', position: 12, in: 7.5, out: 12, length: 4.5, speed: 0.5 })
    expect(v.replayText).toBe('Replay ▶ 12.0 s  in 7.5  out 12.0  clip 4.5 s')
    expect(v.replayTitle).toBe('replay: playback, speed 0.5; times in seconds in the replay buffer')
  })

  it('in replay mode, not playing: a pause mark; values not known yet are –', () => {
    expect(view({ state: 'replay', position: 3.25 }).replayText).toBe('Replay ‖ 3.3 s  in –  out –  clip –')
    expect(view({ state: 'armed' }).replayText).toBe('Replay ‖ –  in –  out –  clip –')
  })

  it('the clip length from the marks when the reply gives them alone', () => {
    expect(view({ state: 'replay', in: 7.5, out: 12 }).replayText).toBe('Replay ‖ –  in 7.5  out 12.0  clip 4.5 s')
  })

  it('hidden while the replay is off or its state is unknown', () => {
    for (const replay of [
      undefined,
      {},
      { state: 'disabled', in: 1 },
      { state: 'off' },
      { state: 3 },
      'playback',
      [],
    ]) {
      const v = view(replay)
      expect(v.reading.replay).toBeUndefined()
      expect(v.replayText).toBeUndefined()
    }
  })

  it('takes only sane numbers: not finite, huge or not a number is unknown; the state is cut', () => {
    const v = view({ state: 'x'.repeat(500), position: Number.NaN, in: '7.5', out: 1e300, length: null, speed: -1 })
    expect(v.reading.replay).toEqual({ state: 'x'.repeat(40), speed: -1 })
    expect(v.replayText).toBe('Replay ‖ –  in –  out –  clip –')
    expect(view({ state: 'replay', position: -0.01 }).replayText).toBe('Replay ‖ 0.0 s  in –  out –  clip –')
  })
})
