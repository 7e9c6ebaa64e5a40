/**
 * The page's dial math (`src/page/angle.ts`): the angle around a centre, the short way between two
 * angles, and a drag followed around a dial giving whole steps that sum to its turn.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  angleAround,
  ENCODER_STEPS_PER_TURN,
  JOG_STEPS_PER_TURN,
  TurnTracker,
  turnBetween,
} from '../../src/page/angle.js'

/** A point `radius` from the centre at `degrees` clockwise from twelve o'clock, in screen coordinates. */
function at(degrees: number, radius = 50): [number, number] {
  const r = (degrees * Math.PI) / 180
  return [radius * Math.sin(r), -radius * Math.cos(r)]
}

/** Drags a tracker from `from` to `to` degrees in moves of `by` degrees; the steps it gives. */
function drag(tracker: TurnTracker, from: number, to: number, by = 5, radius = 50): number[] {
  tracker.start(...at(from, radius))
  const steps: number[] = []
  const n = Math.ceil(Math.abs(to - from) / by)
  for (let i = 1; i <= n; i++) steps.push(tracker.move(...at(from + ((to - from) * i) / n, radius)))
  return steps
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0)

describe('angleAround', () => {
  it('is clockwise from twelve o’clock in screen coordinates (y down)', () => {
    expect(angleAround(0, -10)).toBe(0)
    expect(angleAround(10, 0)).toBe(90)
    expect(angleAround(0, 10)).toBe(180)
    expect(angleAround(-10, 0)).toBe(270)
    expect(angleAround(10, -10)).toBeCloseTo(45)
  })

  it('is always in [0, 360) and agrees with the point it came from', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -720, max: 720, noNaN: true }),
        fc.double({ min: 1, max: 500, noNaN: true }),
        (deg, radius) => {
          const a = angleAround(...at(deg, radius))
          expect(a).toBeGreaterThanOrEqual(0)
          expect(a).toBeLessThan(360)
          expect(Math.abs(turnBetween(a, deg))).toBeLessThan(1e-6)
        },
      ),
    )
  })
})

describe('turnBetween', () => {
  it('takes the short way round, across twelve o’clock too', () => {
    expect(turnBetween(350, 10)).toBe(20)
    expect(turnBetween(10, 350)).toBe(-20)
    expect(turnBetween(90, 180)).toBe(90)
    expect(turnBetween(180, 0)).toBe(180)
    expect(turnBetween(0, 180)).toBe(180)
  })

  it('is in (-180, 180] and lands on the target', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 359.999, noNaN: true }),
        fc.double({ min: 0, max: 359.999, noNaN: true }),
        (a, b) => {
          const d = turnBetween(a, b)
          expect(d).toBeGreaterThan(-180)
          expect(d).toBeLessThanOrEqual(180)
          expect((((a + d - b) % 360) + 540) % 360).toBeCloseTo(180, 6)
        },
      ),
    )
  })
})

describe('TurnTracker', () => {
  it('a full clockwise circle is one turn forward; anticlockwise one back', () => {
    expect(sum(drag(new TurnTracker(JOG_STEPS_PER_TURN, 5), 0, 360))).toBe(JOG_STEPS_PER_TURN)
    expect(sum(drag(new TurnTracker(JOG_STEPS_PER_TURN, 5), 0, -360))).toBe(-JOG_STEPS_PER_TURN)
    expect(sum(drag(new TurnTracker(ENCODER_STEPS_PER_TURN, 5), 123, 123 + 720))).toBe(2 * ENCODER_STEPS_PER_TURN)
  })

  it('a quarter turn clockwise from any start turns forward, and the part of a step left over is carried', () => {
    for (const start of [0, 90, 180, 270, 300]) {
      const tracker = new TurnTracker(JOG_STEPS_PER_TURN, 5)
      // 2.5 steps: two now, the half carried into the next quarter.
      expect(sum(drag(tracker, start, start + 90))).toBe(2)
      const more: number[] = []
      for (let i = 1; i <= 18; i++) more.push(tracker.move(...at(start + 90 + i * 5)))
      expect(sum(more)).toBe(3)
      expect(tracker.turned).toBeCloseTo(180)
    }
  })

  it('steps sum to the turn whatever the moves: always within a step of it', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 360, noNaN: true }),
        fc.array(fc.double({ min: -170, max: 170, noNaN: true }), { minLength: 1, maxLength: 60 }),
        fc.double({ min: 20, max: 300, noNaN: true }),
        (start, moves, radius) => {
          const tracker = new TurnTracker(JOG_STEPS_PER_TURN, 5)
          tracker.start(...at(start, radius))
          let angle = start
          let steps = 0
          for (const m of moves) {
            angle += m
            steps += tracker.move(...at(angle, radius))
          }
          const expected = ((angle - start) * JOG_STEPS_PER_TURN) / 360
          // Within one step, not "never over": a step taken at a click stop is not taken back by a hand
          // that then eases back a hair (seed 877180819: -35.99996 deg, then +0.0003 deg, gave 1 step for 0.99999).
          expect(Math.abs(expected - steps)).toBeLessThan(1)
          expect(tracker.turned).toBeCloseTo(angle - start, 6)
        },
      ),
    )
  })

  it('reads nothing near the centre, and starts afresh when the pointer leaves it', () => {
    const tracker = new TurnTracker(JOG_STEPS_PER_TURN, 10)
    tracker.start(...at(0))
    expect(tracker.move(...at(30))).toBe(0)
    // Through the centre to the other side: the half turn the angle jumps is not a turn of the hand.
    expect(tracker.move(2, 3)).toBe(0)
    expect(tracker.move(...at(200))).toBe(0)
    expect(tracker.turned).toBeCloseTo(30)
    // From there on it turns again.
    expect(sum([40, 80, 110].map((deg) => tracker.move(...at(200 + deg))))).toBe(3)
  })

  it('a drag begun at the centre turns from the first move outside it', () => {
    const tracker = new TurnTracker(JOG_STEPS_PER_TURN, 10)
    tracker.start(0, 0)
    expect(tracker.move(...at(90))).toBe(0)
    expect(tracker.move(...at(130))).toBe(1)
  })
})
