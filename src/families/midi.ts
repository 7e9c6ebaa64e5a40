/**
 * The MIDI family, as data: a configured surface's entry as its driver takes it, how a relative
 * encoder's CC value encodes a signed step count (controllers disagree, so the mode is chosen per
 * control in the config). Its controls are its profile's (`src/surfaces/midi/profile.ts`); how its pads
 * light on the web mirror, `midi-lights.ts`.
 */
import type { ControlId } from '../face/control-id.js'
import type { FamilyFacts } from './family.js'

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

/** One configured MIDI surface (the `midi` entry of the mapping file). */
export interface MidiSurfaceConfig {
  /** The input port's name, or a part of it (case-insensitive). */
  input: string
  /** The output port's name or a part of it; default: the profile's, else the input's. */
  output?: string
  /** A shipped profile's id or a profile file's path; default `generic`. */
  profile?: string
  /** Relative encoder mode per control id, over the profile's. */
  relative?: Readonly<Record<ControlId, RelativeMode>>
}

/** No model table (a MIDI surface's controls are its profile's) and no udev entry (ALSA opens the ports). */
export const midiFacts: FamilyFacts = {}
