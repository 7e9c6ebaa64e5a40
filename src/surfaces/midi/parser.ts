/**
 * MIDI bytes to messages, statefully across packets: a port delivers whatever the OS hands over, so a
 * message, a running-status run or a SysEx may be split anywhere. Never throws: bytes that make no
 * message are dropped.
 *
 * - Channel voice messages: note off/on (note on with velocity 0 is a note off, as the MIDI spec
 *   says), control change, program change, pitch bend; polyphonic and channel pressure are read and
 *   dropped (no control kind shows them).
 * - Running status: data bytes after a channel voice message reuse its status. A system common
 *   message ends running status; real-time bytes (0xF8–0xFF) do not, and may sit anywhere, even inside
 *   another message or a SysEx.
 * - SysEx (0xF0 … 0xF7) is reassembled only when asked for (a device profile that uses it), and is
 *   bounded: one longer than `maxSysexBytes` is dropped whole.
 */

/** Longest SysEx kept, in bytes with its 0xF0 and 0xF7. Longer ones are dropped: no profile needs more. */
const MAX_SYSEX_BYTES = 4096

/** A decoded message. Channels are 1–16, as control ids spell them. */
export type MidiMessage =
  | { type: 'noteon'; channel: number; note: number; velocity: number }
  | { type: 'noteoff'; channel: number; note: number; velocity: number }
  | { type: 'cc'; channel: number; controller: number; value: number }
  | { type: 'program'; channel: number; program: number }
  /** 0..16383, 8192 = centre. */
  | { type: 'pitchbend'; channel: number; value: number }
  /** The whole message, 0xF0 first and 0xF7 last. */
  | { type: 'sysex'; bytes: Uint8Array }

export interface MidiParserOptions {
  /** Reassemble SysEx (default false: skipped cheaply). */
  sysex?: boolean
  maxSysexBytes?: number
}

/** Data bytes each channel voice status takes, by its high nibble. */
const DATA_LENGTH: Readonly<Record<number, number>> = {
  0x80: 2,
  0x90: 2,
  0xa0: 2,
  0xb0: 2,
  0xc0: 1,
  0xd0: 1,
  0xe0: 2,
}
/** Data bytes of the system common messages (0xF1–0xF6); 0xF4/0xF5 are undefined and take none. */
const COMMON_LENGTH: Readonly<Record<number, number>> = { 0xf1: 1, 0xf2: 2, 0xf3: 1, 0xf4: 0, 0xf5: 0, 0xf6: 0 }

export class MidiParser {
  private readonly keepSysex: boolean
  private readonly maxSysex: number
  /** The status whose data bytes are being read (0 = none). */
  private status = 0
  /** How many data bytes the status takes. */
  private needed = 0
  private readonly data: number[] = []
  /** Whether the status may be reused by following data bytes (channel voice messages only). */
  private running = false
  /** Inside a SysEx. */
  private inSysex = false
  private sysex: number[] = []
  private sysexOverflow = false

  constructor(opts: MidiParserOptions = {}) {
    this.keepSysex = opts.sysex ?? false
    this.maxSysex = opts.maxSysexBytes ?? MAX_SYSEX_BYTES
  }

  /** Feeds one packet; returns the messages it completes (possibly none). */
  push(bytes: ArrayLike<number>): MidiMessage[] {
    const out: MidiMessage[] = []
    for (let i = 0; i < bytes.length; i++) {
      // Why the mask: a caller's array may hold anything; a MIDI byte is 8 bits.
      const b = Number(bytes[i]) & 0xff
      this.byte(b, out)
    }
    return out
  }

  /** Forgets any partial message (after a port reopens). */
  reset(): void {
    this.status = 0
    this.needed = 0
    this.data.length = 0
    this.running = false
    this.endSysex()
  }

  private byte(b: number, out: MidiMessage[]): void {
    // Real-time bytes interleave with everything and change no state.
    if (b >= 0xf8) return
    if (this.inSysex) {
      if (b === 0xf7) {
        if (this.keepSysex && !this.sysexOverflow) {
          this.sysex.push(b)
          out.push({ type: 'sysex', bytes: Uint8Array.from(this.sysex) })
        }
        this.endSysex()
        return
      }
      if (b < 0x80) {
        if (this.keepSysex && !this.sysexOverflow) {
          if (this.sysex.length + 2 > this.maxSysex) {
            this.sysexOverflow = true
            this.sysex = []
          } else this.sysex.push(b)
        }
        return
      }
      // Any other status byte ends an unterminated SysEx (dropped) and is read as itself.
      this.endSysex()
    }
    if (b === 0xf0) {
      this.inSysex = true
      this.running = false
      this.status = 0
      if (this.keepSysex) this.sysex = [b]
      return
    }
    if (b >= 0x80) {
      this.data.length = 0
      if (b >= 0xf0) {
        // System common (and a stray 0xF7): read its data, if any, then no running status.
        this.running = false
        this.needed = COMMON_LENGTH[b] ?? 0
        this.status = this.needed > 0 ? b : 0
        return
      }
      this.status = b
      this.needed = DATA_LENGTH[b & 0xf0]!
      this.running = true
      return
    }
    if (this.status === 0) return
    this.data.push(b)
    if (this.data.length < this.needed) return
    const status = this.status
    const [d1 = 0, d2 = 0] = this.data
    this.data.length = 0
    if (!this.running) this.status = 0
    const message = decode(status, d1, d2)
    if (message) out.push(message)
  }

  private endSysex(): void {
    this.inSysex = false
    this.sysex = []
    this.sysexOverflow = false
  }
}

function decode(status: number, d1: number, d2: number): MidiMessage | undefined {
  const channel = (status & 0x0f) + 1
  switch (status & 0xf0) {
    case 0x80:
      return { type: 'noteoff', channel, note: d1, velocity: d2 }
    case 0x90:
      return d2 === 0
        ? { type: 'noteoff', channel, note: d1, velocity: 0 }
        : { type: 'noteon', channel, note: d1, velocity: d2 }
    case 0xb0:
      return { type: 'cc', channel, controller: d1, value: d2 }
    case 0xc0:
      return { type: 'program', channel, program: d1 }
    case 0xe0:
      return { type: 'pitchbend', channel, value: d1 | (d2 << 7) }
    default:
      return undefined
  }
}
