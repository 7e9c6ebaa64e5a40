/**
 * Relative encoders: how a CC value encodes a signed step count. Controllers disagree, so the mode is
 * chosen per control in the config.
 */

/** The relative encodings of a 7-bit CC value. */
export const RELATIVE_MODES = ['twos-complement', 'sign-magnitude', 'binary-offset'] as const
export type RelativeMode = (typeof RELATIVE_MODES)[number]

/**
 * The signed steps a CC value means in a mode; positive is clockwise.
 * - `twos-complement`: 1..63 = +1..+63, 127..64 = -1..-64 (Mackie-style "relative 1").
 * - `sign-magnitude`: bit 6 is the sign (set = anticlockwise), bits 0–5 the steps: 1 = +1, 65 = -1.
 *   ASSUMED: set means anticlockwise, as in Ableton's "Signed Bit"; a device wired the other way
 *   needs the opposite mode, which no shipped profile uses.
 * - `binary-offset`: 64 = none, 65 = +1, 63 = -1 (offset 64).
 */
export function relativeDelta(mode: RelativeMode, value: number): number {
  const v = value & 0x7f
  switch (mode) {
    case 'twos-complement':
      return v < 64 ? v : v - 128
    case 'sign-magnitude':
      return v & 0x40 ? -(v & 0x3f) : v & 0x3f
    case 'binary-offset':
      return v - 64
  }
}
