/**
 * The Replay Editor as a replay desk (issue 43, item 5), through the real library over the in-memory
 * device, the real engine and the simulator's state (`replay-editor-helpers.ts`), on fake timers: the jog
 * storm ends exact and soon with at most one scrub in flight; a lever sweep sends at most one speed a
 * frame and ends on the exact speed; the lever LEDs show the speed, whoever set it; the camera keys
 * follow the tally; unplugged and replugged mid-storm, nothing late is sent.
 */
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { JOG_UNITS_PER_STEP, TBAR_FRAME_MS, TBAR_RAW_MAX } from '../../src/families/replay-editor.js'
import { captureLogs } from '../helpers/logs.js'
import { editorButton, editorDesk, SCRUB, SEED_SECONDS, SPEED, type Desk } from './replay-editor-helpers.js'

/** The simulator's answer time of a scrub and of a speed, ms. */
const SCRUB_DELAY_MS = 5
const SPEED_DELAY_MS = 2
/** The storm: reports a second, for how long. */
const REPORTS_PER_S = 2000
const STORM_S = 10
/** How soon after the last report the simulator must hold the final position. */
const FINAL_WITHIN_MS = 25

beforeEach(() => {
  captureLogs()
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] })
})
afterEach(() => {
  vi.useRealTimers()
})

async function desk(): Promise<Desk> {
  const d = await editorDesk({ delays: { [SCRUB]: SCRUB_DELAY_MS, [SPEED]: SPEED_DELAY_MS } })
  onTestFinished(() => d.close())
  return d
}

/** A hand on the wheel: a varying movement per report, mostly forward, sometimes back. */
const units = (i: number): number => ((i * 37) % 101) - 20

/** Sends `count` jog reports at REPORTS_PER_S on the fake clock from report `from`; returns their sum. */
async function storm(d: Desk, from: number, count: number): Promise<number> {
  const perMs = REPORTS_PER_S / 1000
  let sum = 0
  for (let i = from; i < from + count; i++) {
    d.hid.jog(units(i))
    sum += units(i)
    if ((i - from + 1) % perMs === 0) await vi.advanceTimersByTimeAsync(1)
  }
  return sum
}

/** Moves the fake clock a millisecond at a time until `done`, at most `ms`; returns the time it took. */
async function until(done: () => boolean, ms: number): Promise<number | undefined> {
  for (let t = 0; t <= ms; t++) {
    if (done()) return t
    await vi.advanceTimersByTimeAsync(1)
  }
  return undefined
}

const frameRate = (d: Desk): number => Number(d.sim.replay.playInfo().frameRate)
const scrubPosition = (d: Desk): number => d.sim.replay.scrubPosition

describe('Replay Editor desk: the jog', () => {
  it(`a storm of ${REPORTS_PER_S} reports a second for ${STORM_S} s ends at the exact integrated position within ${FINAL_WITHIN_MS} ms, one scrub in flight at most`, async () => {
    const d = await desk()
    const fps = frameRate(d)
    const sum = await storm(d, 0, REPORTS_PER_S * STORM_S)
    const expected = (Math.round(SEED_SECONDS * fps) + Math.floor(sum / JOG_UNITS_PER_STEP)) / fps
    const took = await until(() => scrubPosition(d) === expected && d.scrubsInFlight === 0, FINAL_WITHIN_MS)
    expect(took).toBeDefined()
    expect(took!).toBeLessThanOrEqual(FINAL_WITHIN_MS)
    expect(d.scrubHighWater).toBe(1)
    // Coalesced: far fewer scrubs than reports, and none after the final one.
    const scrubs = d.arrived.filter((c) => c.name === SCRUB).length
    expect(scrubs).toBeLessThan((REPORTS_PER_S * STORM_S) / 4)
    await vi.advanceTimersByTimeAsync(1000)
    expect(d.arrived.filter((c) => c.name === SCRUB)).toHaveLength(scrubs)
    expect(scrubPosition(d)).toBe(expected)
  })

  it('unplugged and replugged mid-storm: the position is exactly what the reports delivered, and nothing late is sent', async () => {
    const d = await desk()
    const fps = frameRate(d)
    const half = (REPORTS_PER_S * STORM_S) / 4
    const before = await storm(d, 0, half)
    const old = d.hid
    await d.unplug()
    // The unplugged device's reports (a late read) reach nothing.
    for (let i = 0; i < 100; i++) old.jog(JOG_UNITS_PER_STEP)
    const settled = (Math.round(SEED_SECONDS * fps) + Math.floor(before / JOG_UNITS_PER_STEP)) / fps
    expect(await until(() => scrubPosition(d) === settled && d.scrubsInFlight === 0, FINAL_WITHIN_MS)).toBeDefined()
    const sentWhileAway = d.arrived.length
    await vi.advanceTimersByTimeAsync(2000)
    expect(d.arrived.length).toBe(sentWhileAway)
    await d.replug()
    expect(d.hid).not.toBe(old)
    const after = await storm(d, half, half)
    const expected =
      (Math.round(SEED_SECONDS * fps) +
        Math.floor(before / JOG_UNITS_PER_STEP) +
        Math.floor(after / JOG_UNITS_PER_STEP)) /
      fps
    expect(await until(() => scrubPosition(d) === expected && d.scrubsInFlight === 0, FINAL_WITHIN_MS)).toBeDefined()
    expect(d.scrubHighWater).toBe(1)
  })

  it('n steps forward then n back returns the playhead to where it started', async () => {
    const d = await desk()
    const start = scrubPosition(d)
    for (let i = 0; i < 40; i++) d.hid.jog(3 * JOG_UNITS_PER_STEP + 7)
    await vi.advanceTimersByTimeAsync(50)
    expect(scrubPosition(d)).toBeGreaterThan(start)
    for (let i = 0; i < 40; i++) d.hid.jog(-(3 * JOG_UNITS_PER_STEP + 7))
    await vi.advanceTimersByTimeAsync(50)
    expect(scrubPosition(d)).toBe(start)
  })
})

describe('Replay Editor desk: the speed lever', () => {
  it('a sweep from 0 to full in 1 s sends at most one speed a frame and ends on the exact speed; its LEDs show it', async () => {
    const d = await desk()
    const speeds: { at: number; speed: unknown }[] = []
    const arrive = d.arrived.push.bind(d.arrived)
    d.arrived.push = (...items) => {
      for (const c of items) if (c.name === SPEED) speeds.push({ at: performance.now(), speed: c.params.speed })
      return arrive(...items)
    }
    // A report a millisecond, as the lever moves: 1000 reports from 0 to 4096.
    for (let ms = 0; ms <= 1000; ms++) {
      d.hid.tbar(Math.round((ms / 1000) * TBAR_RAW_MAX))
      await vi.advanceTimersByTimeAsync(1)
    }
    await vi.advanceTimersByTimeAsync(TBAR_FRAME_MS + SPEED_DELAY_MS)
    expect(speeds.length).toBeGreaterThan(5)
    for (let i = 1; i < speeds.length; i++)
      expect(speeds[i]!.at - speeds[i - 1]!.at).toBeGreaterThanOrEqual(TBAR_FRAME_MS)
    expect(speeds.at(-1)!.speed).toBe(1)
    expect(d.sim.replay.speed).toBe(1)
    expect(d.state.replay.speed).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(d.hid.tbarLeds()).toBe('1'.repeat(16))
  })

  it('a speed set elsewhere (the app state: the page, another panel) lights the same LEDs', async () => {
    const d = await desk()
    d.state.setReplay({ speed: 0.5 })
    await vi.advanceTimersByTimeAsync(1)
    expect(d.hid.tbarLeds()).toBe('1'.repeat(8) + '0'.repeat(8))
    d.state.setReplay({ speed: 0.25 })
    await vi.advanceTimersByTimeAsync(1)
    expect(d.hid.tbarLeds()).toBe('1'.repeat(4) + '0'.repeat(12))
  })

  it('unplugged with a lever value waiting for its frame: it is never sent', async () => {
    const d = await desk()
    d.hid.tbar(1000)
    await vi.advanceTimersByTimeAsync(SPEED_DELAY_MS + 1)
    d.hid.tbar(3000)
    const speedsBefore = d.arrived.filter((c) => c.name === SPEED).map((c) => c.params.speed)
    expect(speedsBefore).toEqual([Number((1000 / TBAR_RAW_MAX).toFixed(4))])
    await d.unplug()
    await vi.advanceTimersByTimeAsync(TBAR_FRAME_MS * 5)
    expect(d.arrived.filter((c) => c.name === SPEED).map((c) => c.params.speed)).toEqual(speedsBefore)
  })
})

describe('Replay Editor desk: keys', () => {
  it('the camera keys switch and are lit by the tally; Cue and Run send their commands', async () => {
    const d = await desk()
    d.hid.buttons('cam2')
    d.hid.buttons()
    await vi.advanceTimersByTimeAsync(5)
    expect(d.arrived.filter((c) => c.name === 'switchVideoIn').map((c) => c.params.video)).toEqual(['Camera 2'])
    expect(d.hid.led('cam2')).toBe(true)
    expect(d.hid.led('cam1')).toBe(false)
    // The tally from elsewhere (another panel switched): the keys follow.
    d.state.setTally(0, 'Camera 1')
    await vi.advanceTimersByTimeAsync(1)
    expect(d.hid.led('cam1')).toBe(true)
    expect(d.hid.led('cam2')).toBe(false)
    d.hid.buttons('cue')
    d.hid.buttons()
    d.hid.buttons('run')
    d.hid.buttons()
    await vi.advanceTimersByTimeAsync(SCRUB_DELAY_MS + 1)
    expect(d.arrived.filter((c) => c.name === SCRUB || c.name === 'replay_play_pause').map((c) => c.name)).toEqual([
      SCRUB,
      'replay_play_pause',
    ])
    expect(editorButton('cue')).toBe('button:2')
  })
})
