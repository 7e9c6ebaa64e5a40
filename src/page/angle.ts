/**
 * Turning a dial on the page by angle: a pointer that circles a dial's centre turns it as a finger on
 * a real wheel would, so a full clockwise circle is one turn forward whatever size the dial is drawn
 * at, and a straight swipe turns it the way it would turn a wheel (rightwards above the centre is
 * clockwise, rightwards below it anticlockwise). Pure math, no DOM: unit-tested in Node.
 *
 * Angles are in degrees, clockwise from twelve o'clock, in screen coordinates (y grows downwards).
 */

/**
 * Steps a full turn of the page's jog gives: the ShuttlePro's jog wheel has 10 click stops per turn,
 * and the page's jog turns like it (ASSUMED from Contour's jog as commonly documented, not measured
 * here; a jog binding's `step_frames` sets how far one step scrubs).
 */
export const JOG_STEPS_PER_TURN = 10
/**
 * Steps a full turn of an encoder gives: 24 click stops, the common detented encoder of control
 * surfaces (ASSUMED: EC11-type encoders have 20 or 24; the Stream Deck + dial's count is not
 * published).
 */
export const ENCODER_STEPS_PER_TURN = 24
/**
 * Within this fraction of the dial's radius from its centre the angle is too unstable to read (one
 * pixel swings it by tens of degrees): moves there turn nothing, and the next move outside starts
 * afresh.
 */
export const DEAD_ZONE_FRACTION = 0.2

/** Fractions of a step this close to a whole one count as whole (floating-point sums of many moves). */
const STEP_EPSILON = 1e-6

/** The pointer's angle around a centre, clockwise from twelve o'clock, in [0, 360). */
export function angleAround(dx: number, dy: number): number {
  const degrees = (Math.atan2(dx, -dy) * 180) / Math.PI
  const angle = degrees < 0 ? degrees + 360 : degrees
  // A hair anticlockwise of twelve o'clock rounds up to 360 itself.
  return angle >= 360 ? 0 : angle + 0
}

/**
 * The signed turn from angle `from` to angle `to`, taken the short way round: in (-180, 180]. Two
 * pointer moves never differ by half a turn (a move samples every few pixels), so the short way is
 * the way the hand went.
 */
export function turnBetween(from: number, to: number): number {
  let d = (to - from) % 360
  if (d <= -180) d += 360
  else if (d > 180) d -= 360
  return d + 0
}

/**
 * Follows one drag around a dial: each pointer position in, whole steps out (clockwise positive),
 * with the fraction of a step carried to the next move, so the steps of a drag sum to its turn.
 */
export class TurnTracker {
  private last: number | undefined
  /** Degrees turned but not yet given as a step. */
  private carry = 0
  /** Degrees turned since the drag began (the dial's mark follows it). */
  private total = 0

  /**
   * @param stepsPerTurn steps a full turn gives
   * @param deadZone the radius around the centre where the angle is not read, in the same unit as
   *   the positions
   */
  constructor(
    private readonly stepsPerTurn: number,
    private readonly deadZone: number,
  ) {}

  /** Degrees turned since the drag began. */
  get turned(): number {
    return this.total
  }

  /** Where the drag begins, relative to the dial's centre. */
  start(dx: number, dy: number): void {
    this.last = Math.hypot(dx, dy) < this.deadZone ? undefined : angleAround(dx, dy)
    this.carry = 0
    this.total = 0
  }

  /** A pointer move, relative to the dial's centre: the whole steps it completes. */
  move(dx: number, dy: number): number {
    if (Math.hypot(dx, dy) < this.deadZone) {
      this.last = undefined
      return 0
    }
    const angle = angleAround(dx, dy)
    const previous = this.last
    this.last = angle
    if (previous === undefined) return 0
    const turn = turnBetween(previous, angle)
    this.total += turn
    this.carry += turn
    const perStep = 360 / this.stepsPerTurn
    // A hair's allowance: a full circle summed from many moves can fall a rounding error short of it.
    const q = this.carry / perStep
    const steps = Math.trunc(q + Math.sign(q) * STEP_EPSILON)
    this.carry -= steps * perStep
    return steps + 0
  }
}
