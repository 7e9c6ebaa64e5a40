/**
 * Issue 43 item 4, the jog's feel pinned: `frames_per_turn` (a share of a turn per detent, fractions kept),
 * a held `fine` key dividing the step, the acceleration curve as data. The property: n detents forward
 * then n back return the playhead exactly where it was, for any n, rate (detents per report),
 * `frames_per_turn`, curve, and fine or not.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { fc } from '../fuzz/harness.js'
import { AppState } from '../../src/api/app-state.js'
import { APP_ERRORS } from '../../src/api/protocol.js'
import { ENGINE_TUNABLES } from '../../src/mappings/constants.js'
import { JogScrub } from '../../src/mappings/behaviours/jog.js'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'
import type { BehaviourHost } from '../../src/mappings/behaviours/types.js'
import { binding as bindingSchema, type Binding } from '../../src/mappings/schema.js'

type Scrub = NonNullable<Binding['jog']>['scrub']

/**
 * A host whose application holds a scrub position (seconds) and answers at once; the commands in
 * `refuse` are refused as outside replay mode. Each command's clock time is kept in `sent`.
 */
function fakeApp(
  startFrames: number,
  fps: number,
  fineHeld: boolean,
  refuse: ReadonlySet<string> = new Set(),
  /** A scrub's reply comes this long after it was sent (0: at once). */
  scrubReplyMs = 0,
) {
  let position = startFrames / fps
  let scrubs = 0
  let draws = 0
  /** Called at each draw (a test reads the jog's look there). */
  const onDraw: { fn?: () => void } = {}
  const sent: { command: string; at: number }[] = []
  const host: BehaviourHost = {
    origin: 'test/jog',
    state: new AppState(),
    send: (command, params) => {
      sent.push({ command, at: performance.now() })
      if (refuse.has(command)) return Promise.resolve({ ok: false, code: 'APP_ERROR', message: APP_ERRORS.badRequest })
      if (command === 'replay_get_play_info')
        return Promise.resolve({ ok: true, reply: { replayTime: position, frameRate: fps } })
      if (command === 'replay_get_settings')
        return Promise.resolve({ ok: true, reply: { settings: { bufferLength: 1_000_000 } } })
      if (command === 'replay_set_scrub_position') {
        scrubs++
        position = params.position as number
        if (scrubReplyMs > 0)
          return new Promise((resolve) => setTimeout(() => resolve({ ok: true, reply: {} }), scrubReplyMs))
        return Promise.resolve({ ok: true, reply: {} })
      }
      return Promise.resolve({ ok: false, code: 'APP_ERROR', message: `unexpected ${command}` })
    },
    changed: () => {
      draws++
      onDraw.fn?.()
    },
    setPage: () => undefined,
    titleContext: () => ({}),
    isHeld: (on) => fineHeld && on === 'desk/key:7',
  }
  const times = (command: string): number[] => sent.filter((c) => c.command === command).map((c) => c.at)
  return { host, frames: () => Math.round(position * fps), scrubs: () => scrubs, times, draws: () => draws, onDraw }
}

/** Lets every reply and the sends that follow run (the last position may wait out the jog's interval). */
async function settle(jog: JogScrub): Promise<void> {
  for (let i = 0; i < 1000 && jog.look().pending; i++) await new Promise((resolve) => setTimeout(resolve, 1))
  expect(jog.look().pending).toBe(false)
}

/** Turns `n` detents in reports of `rate` detents each (the last report the rest), `sign` the direction. */
function turn(jog: JogScrub, n: number, rate: number, sign: 1 | -1): void {
  for (let left = n; left > 0; left -= rate) jog.rotate(sign * Math.min(rate, left))
}

function scrubOf(raw: unknown): Scrub {
  return bindingSchema.parse({ on: 'desk/jog', jog: { scrub: raw } }).jog!.scrub
}

describe('the jog feel', () => {
  it('n detents forward then n back return the playhead exactly, at any rate, frames_per_turn, curve, fine or not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 360 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(25, 29.97, 30, 50, 59.94),
        fc.boolean(),
        async (n, rate, framesPerTurn, detentsPerTurn, fine, accelerate, fps, backFirst) => {
          const scrub = scrubOf({
            frames_per_turn: framesPerTurn,
            detents_per_turn: detentsPerTurn,
            fine: { key: 'desk/key:7', divide: 3 },
            ...(accelerate
              ? {
                  acceleration: [
                    [1, 1],
                    [3, 2],
                    [6, 4.5],
                  ],
                }
              : {}),
          })
          const startFrames = 2_000_000
          const app = fakeApp(startFrames, fps, fine)
          const jog = new JogScrub(scrub, app.host)
          turn(jog, n, rate, backFirst ? -1 : 1)
          await settle(jog)
          turn(jog, n, rate, backFirst ? 1 : -1)
          await settle(jog)
          expect(app.frames()).toBe(startFrames)
          expect(jog.look().context.position).toBeCloseTo(startFrames / fps, 9)
          jog.dispose()
        },
      ),
      { numRuns: 200 },
    )
  })

  it('frames_per_turn: a full turn moves exactly that many frames; fine divides it; the curve multiplies a fast report', async () => {
    const moved = async (raw: unknown, reports: number[], fine = false): Promise<number> => {
      const app = fakeApp(1000, 30, fine)
      const jog = new JogScrub(scrubOf(raw), app.host)
      for (const d of reports) jog.rotate(d)
      await settle(jog)
      jog.dispose()
      return app.frames() - 1000
    }
    // A Contour jog: 10 detents a turn; 25 frames a turn is 2.5 a detent, the half kept.
    expect(await moved({ frames_per_turn: 25 }, Array(10).fill(1))).toBe(25)
    expect(await moved({ frames_per_turn: 25 }, Array(5).fill(1))).toBe(13) // 12.5 frames, sent as a whole frame
    expect(await moved({ frames_per_turn: 24, fine: { key: 'desk/key:7' } }, Array(10).fill(1), true)).toBe(6)
    const curve = {
      step_frames: 2,
      acceleration: [
        [1, 1],
        [4, 3],
      ],
    }
    expect(await moved(curve, [1, 1, 1])).toBe(6)
    expect(await moved(curve, [4])).toBe(24)
    expect(await moved(curve, [-4, 4])).toBe(0)
  })

  it('check refuses a fine key on a surface the file does not have', async () => {
    const text = `version: 1
surfaces:
  console: { driver: web, rows: 1, columns: 4, jog: true }
bindings:
  - on: console/jog
    jog: { scrub: { frames_per_turn: 25, fine: { key: consle/key:3 } } }
`
    expect((await loadConfigText(text, 'c.yaml')).problems.map(formatProblem)).toEqual([
      'c.yaml:6:55: fine: consle/key:3: no surface consle (did you mean console?)',
    ])
  })

  it('the schema takes one of step_frames, step_seconds and frames_per_turn', () => {
    expect(() => scrubOf({ step_frames: 1, frames_per_turn: 10 })).toThrow(
      /one of step_frames, step_seconds and frames_per_turn/,
    )
  })
})

describe('the jog paces what it sends', () => {
  afterEach(() => {
    vi.useRealTimers()
  })
  const SCRUB = 'replay_set_scrub_position'
  const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
  /** Two detents a millisecond for `ms` on the fake clock (the application answers at once). */
  async function spin(jog: JogScrub, ms: number, delta = 1): Promise<void> {
    for (let t = 0; t < ms; t++) {
      jog.rotate(delta)
      jog.rotate(delta)
      await vi.advanceTimersByTimeAsync(1)
    }
  }

  it('a wheel spun against an application that answers at once: positions at least the interval apart, the last one exact', async () => {
    fakeClock()
    const app = fakeApp(1000, 30, false)
    const jog = new JogScrub(scrubOf({ step_frames: 1 }), app.host)
    await spin(jog, 200)
    await vi.advanceTimersByTimeAsync(ENGINE_TUNABLES.jogMinIntervalMs)
    expect(app.frames()).toBe(1400)
    expect(jog.look().pending).toBe(false)
    const times = app.times(SCRUB)
    // One position per reply would be one a millisecond here; the interval holds it to one per interval and the last.
    expect(times.length).toBeGreaterThan(10)
    expect(times.length).toBeLessThanOrEqual(Math.ceil(200 / ENGINE_TUNABLES.jogMinIntervalMs) + 2)
    for (let i = 1; i < times.length; i++)
      expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(ENGINE_TUNABLES.jogMinIntervalMs)
    // Drawn when a position's reply comes (and, as this application answers before the next turn, when
    // that turn makes a position wait again), not at each of the 400 turns.
    expect(app.draws()).toBeGreaterThanOrEqual(times.length)
    expect(app.draws()).toBeLessThanOrEqual(2 * times.length + 2)
    expect(jog.look().context.position).toBeCloseTo(1400 / 30, 9)
    jog.dispose()
  })

  it('a wheel spun against an application that answers in 3 ms: pending from the first position to the last, each reply drawn once', async () => {
    fakeClock()
    const app = fakeApp(1000, 30, false, new Set(), 3)
    const jog = new JogScrub(scrubOf({ step_frames: 1 }), app.host)
    const looks: boolean[] = []
    app.onDraw.fn = () => looks.push(jog.look().pending)
    await spin(jog, 100)
    await vi.advanceTimersByTimeAsync(ENGINE_TUNABLES.jogMinIntervalMs + 3)
    expect(app.frames()).toBe(1200)
    const sent = app.times(SCRUB).length
    expect(sent).toBeGreaterThan(5)
    // Every draw but the last shows pending; the last, after the last reply, does not.
    expect(looks.at(-1)).toBe(false)
    expect(looks.slice(0, -1).filter((p) => !p)).toEqual([])
    // The seed read, the first position going, then one draw a reply.
    expect(looks.length).toBeLessThanOrEqual(sent + 2)
    jog.dispose()
  })

  it('after a refusal nothing is asked until the retry time has passed; the next turn then sends the newest position', async () => {
    fakeClock()
    const refuse = new Set([SCRUB])
    const app = fakeApp(1000, 30, false, refuse)
    const jog = new JogScrub(scrubOf({ step_frames: 1 }), app.host)
    await spin(jog, ENGINE_TUNABLES.jogRetryAfterRefusalMs - 10)
    // Without the wait, every reply to a refusal would have let the next turn ask again: one a millisecond.
    expect(app.times(SCRUB)).toHaveLength(1)
    expect(jog.look().failed).toBe(true)
    expect(jog.look().detail).toBe('not in replay mode')
    refuse.clear()
    await vi.advanceTimersByTimeAsync(20)
    jog.rotate(1)
    await vi.advanceTimersByTimeAsync(ENGINE_TUNABLES.jogMinIntervalMs)
    expect(app.times(SCRUB)).toHaveLength(2)
    // Every turn moved the cursor, sent or not.
    expect(app.frames()).toBe(1000 + 2 * (ENGINE_TUNABLES.jogRetryAfterRefusalMs - 10) + 1)
    jog.dispose()
  })

  it('a refused seed is not asked again at every turn', async () => {
    fakeClock()
    const app = fakeApp(1000, 30, false, new Set(['replay_get_play_info']))
    const jog = new JogScrub(scrubOf({ step_frames: 1 }), app.host)
    await spin(jog, ENGINE_TUNABLES.jogRetryAfterRefusalMs - 10)
    expect(app.times('replay_get_play_info')).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(20)
    jog.rotate(1)
    expect(app.times('replay_get_play_info')).toHaveLength(2)
    expect(app.times(SCRUB)).toHaveLength(0)
    jog.dispose()
  })
})
