import { describe, expect, it } from 'vitest'
import { MidiParser, type MidiMessage } from '../../../src/surfaces/midi/parser.js'
import { relativeDelta } from '../../../src/families/midi.js'

const parse = (bytes: number[], opts = {}): MidiMessage[] => new MidiParser(opts).push(bytes)

describe('MIDI parser', () => {
  it('decodes every channel message kind, channels 1-16', () => {
    expect(parse([0x90, 60, 100])).toEqual([{ type: 'noteon', channel: 1, note: 60, velocity: 100 }])
    expect(parse([0x8f, 60, 64])).toEqual([{ type: 'noteoff', channel: 16, note: 60, velocity: 64 }])
    expect(parse([0xb3, 7, 127])).toEqual([{ type: 'cc', channel: 4, controller: 7, value: 127 }])
    expect(parse([0xc9, 5])).toEqual([{ type: 'program', channel: 10, program: 5 }])
    expect(parse([0xe0, 0x00, 0x40])).toEqual([{ type: 'pitchbend', channel: 1, value: 8192 }])
    expect(parse([0xe1, 0x7f, 0x7f])).toEqual([{ type: 'pitchbend', channel: 2, value: 16383 }])
  })

  it('reads note on with velocity 0 as note off', () => {
    expect(parse([0x92, 36, 0])).toEqual([{ type: 'noteoff', channel: 3, note: 36, velocity: 0 }])
  })

  it('reads and drops aftertouch, keeping the bytes around it', () => {
    expect(parse([0xa0, 60, 10, 0xd0, 5, 0x90, 1, 2])).toEqual([{ type: 'noteon', channel: 1, note: 1, velocity: 2 }])
  })

  it('applies running status, also across packets', () => {
    const p = new MidiParser()
    expect(p.push([0x90, 60, 100, 61])).toEqual([{ type: 'noteon', channel: 1, note: 60, velocity: 100 }])
    expect(p.push([0, 62, 5])).toEqual([
      { type: 'noteoff', channel: 1, note: 61, velocity: 0 },
      { type: 'noteon', channel: 1, note: 62, velocity: 5 },
    ])
    expect(p.push([0xc0, 1, 2])).toEqual([
      { type: 'program', channel: 1, program: 1 },
      { type: 'program', channel: 1, program: 2 },
    ])
  })

  it('lets real-time bytes sit anywhere without breaking the message they interrupt', () => {
    expect(parse([0xb0, 0xf8, 1, 0xfe, 64, 0xfa, 2, 0xff, 65])).toEqual([
      { type: 'cc', channel: 1, controller: 1, value: 64 },
      { type: 'cc', channel: 1, controller: 2, value: 65 },
    ])
  })

  it('ends running status at a system common message, and skips its data', () => {
    expect(parse([0x90, 60, 100, 0xf2, 1, 2, 61, 100, 0xf3, 4, 0xb0, 1, 2])).toEqual([
      { type: 'noteon', channel: 1, note: 60, velocity: 100 },
      { type: 'cc', channel: 1, controller: 1, value: 2 },
    ])
  })

  it('ignores data bytes with no status before them', () => {
    expect(parse([1, 2, 3, 0x90, 4, 5])).toEqual([{ type: 'noteon', channel: 1, note: 4, velocity: 5 }])
  })

  it('reassembles a SysEx split across packets, with real-time bytes inside, when asked', () => {
    const p = new MidiParser({ sysex: true })
    expect(p.push([0x90, 1, 1, 0xf0, 0x47, 0x7f])).toEqual([{ type: 'noteon', channel: 1, note: 1, velocity: 1 }])
    expect(p.push([0x4f, 0xf8, 0x60])).toEqual([])
    const out = p.push([0x00, 0xf7, 0xb0, 7, 9])
    expect(out).toEqual([
      { type: 'sysex', bytes: Uint8Array.from([0xf0, 0x47, 0x7f, 0x4f, 0x60, 0x00, 0xf7]) },
      { type: 'cc', channel: 1, controller: 7, value: 9 },
    ])
  })

  it('skips SysEx unless asked, and does not read its data as running status', () => {
    expect(parse([0x90, 1, 1, 0xf0, 2, 3, 4, 0xf7, 5, 6])).toEqual([
      { type: 'noteon', channel: 1, note: 1, velocity: 1 },
    ])
  })

  it('drops a SysEx longer than the bound whole, and one cut short by a status byte', () => {
    const p = new MidiParser({ sysex: true, maxSysexBytes: 8 })
    expect(p.push([0xf0, 1, 2, 3, 4, 5, 6, 0xf7])).toHaveLength(1)
    expect(p.push([0xf0, 1, 2, 3, 4, 5, 6, 7, 0xf7])).toEqual([])
    expect(p.push([0xf0, 1, 2, 0x90, 3, 4])).toEqual([{ type: 'noteon', channel: 1, note: 3, velocity: 4 }])
    // The default bound takes a SysEx of 256 bytes (F0 and F7 included).
    expect(new MidiParser({ sysex: true }).push([0xf0, ...new Array<number>(254).fill(1), 0xf7])).toHaveLength(1)
  })

  it('forgets a partial message on reset', () => {
    const p = new MidiParser()
    p.push([0x90, 60])
    p.reset()
    expect(p.push([100, 0xb0, 1, 2])).toEqual([{ type: 'cc', channel: 1, controller: 1, value: 2 }])
  })
})

describe('relative encoder modes', () => {
  it.each([
    ['twos-complement', 1, 1],
    ['twos-complement', 63, 63],
    ['twos-complement', 127, -1],
    ['twos-complement', 64, -64],
    ['twos-complement', 0, 0],
    ['sign-magnitude', 1, 1],
    ['sign-magnitude', 63, 63],
    ['sign-magnitude', 65, -1],
    ['sign-magnitude', 127, -63],
    ['binary-offset', 64, 0],
    ['binary-offset', 65, 1],
    ['binary-offset', 63, -1],
    ['binary-offset', 0, -64],
    ['binary-offset', 127, 63],
  ] as const)('%s: %d is %d steps', (mode, value, delta) => {
    expect(relativeDelta(mode, value)).toBe(delta)
  })
})
