/**
 * An endless wheel's delta from its raw 8-bit counter: the Contour Shuttle's jog wheel and the twist of
 * an X-keys joystick.
 *
 * The device reports where its counter stands (0..255, wrapping), not how far it moved. The library
 * computes a delta itself but has two traps, so the drivers do not use it:
 * - it takes a move across the wrap as a wrap only within 5 counts of it, so a fast spin from 248 to 3
 *   comes out as -245 instead of +11;
 * - it starts from 0, so the first report after opening is a delta from 0 (a wheel whose counter stands
 *   at 137 jumps 137 steps when first touched).
 *
 * Here every move is taken the shorter way round modulo 256, and the first report only seeds.
 */

/** Counts on the jog wheel's counter before it wraps. */
const JOG_COUNTER_MODULUS = 256

/**
 * Turns successive raw counter values into signed deltas. A true movement of less than half the modulus
 * (127 counts) between two reports comes out exactly; a move of exactly 128 is taken as -128.
 */
export class JogCounter {
  private last: number | undefined

  /** The signed delta since the previous report; undefined for the first (it seeds) or no movement. */
  next(raw: number): number | undefined {
    const value = ((Math.trunc(raw) % JOG_COUNTER_MODULUS) + JOG_COUNTER_MODULUS) % JOG_COUNTER_MODULUS
    const last = this.last
    this.last = value
    if (last === undefined) return undefined
    const half = JOG_COUNTER_MODULUS / 2
    const delta = ((((value - last + half) % JOG_COUNTER_MODULUS) + JOG_COUNTER_MODULUS) % JOG_COUNTER_MODULUS) - half
    return delta === 0 ? undefined : delta
  }

  /** Forgets the last value: the next report seeds again. */
  reset(): void {
    this.last = undefined
  }
}
