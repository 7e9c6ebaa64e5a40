/**
 * The MIDI transport boundary: a small project-owned interface over the OS's MIDI ports, so the driver
 * never sees the native library (`./julusian.ts` implements it; tests use an in-memory one).
 *
 * A MIDI controller shows up as an input port and an output port, which need not share a name (some
 * drivers name the output apart from the input). Both are found by name with a case-insensitive
 * substring match, because the OS decorates names (ALSA adds `20:0`, numbered by plug order).
 */
import type { Listenable } from '../../events.js'

/** The port names the system lists now. */
export interface MidiPortList {
  inputs: string[]
  outputs: string[]
}

export interface MidiConnectionEvents {
  /** Bytes from the input port, as the OS delivered them (not necessarily one message). */
  message: [bytes: Uint8Array]
  /** The port failed (e.g. a send to a vanished device). */
  error: [error: Error]
  /** The connection closed (by `close()` or by the system). */
  closed: []
}

/** An open input port and, where the device has one, its output port. */
export interface MidiConnection {
  readonly input: string
  readonly output: string | undefined
  readonly events: Listenable<MidiConnectionEvents>
  /** Sends bytes to the output port; a connection without one ignores them. Throws when the port fails. */
  send(bytes: readonly number[]): void
  /** Closes both ports. Idempotent. */
  close(): void
}

export interface MidiOpenOptions {
  /** The exact input port name (as listed). */
  input: string
  /** The exact output port name, if any. */
  output?: string
  /** Deliver SysEx (a profile uses it); otherwise the OS may drop it. */
  sysex?: boolean
}

/** The system's MIDI ports. */
export interface MidiBackend {
  /**
   * Lists the ports. Where the system has no MIDI (no ALSA sequencer, no sound devices) this gives
   * empty lists, never a throw: the daemon runs on without MIDI surfaces.
   */
  list(): Promise<MidiPortList>
  /** Opens ports by their exact names (see `findPort`). Throws when they cannot be opened. */
  open(options: MidiOpenOptions): Promise<MidiConnection>
}

/**
 * The port a configured name means: an exact (case-insensitive) match first, else the first name that
 * contains it. Undefined when none does.
 */
export function findPort(names: readonly string[], wanted: string): string | undefined {
  const w = wanted.trim().toLowerCase()
  if (w === '') return undefined
  return names.find((n) => n.toLowerCase() === w) ?? names.find((n) => n.toLowerCase().includes(w))
}
