/** MIDI bytes come from any device on the port: any bytes, in any packets, give messages or nothing. */
import { describe, expect, test } from 'vitest'
import { MidiParser } from '../../src/surfaces/midi/parser.js'
import { MidiProfileError, parseMidiProfile } from '../../src/surfaces/midi/profile.js'
import { checkProperty, fc, fuzzParser, hostileText } from './harness.js'

/** Packets of raw bytes, biased towards status bytes so that real messages and SysEx form. */
const midiByte = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 0x7f }) },
  { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  { weight: 1, arbitrary: fc.constantFrom(0xf0, 0xf7, 0xf8, 0xfe, 0xff, 0x90, 0xb0, 0xe0) },
)
const packets = fc.array(fc.array(midiByte, { maxLength: 64 }), { maxLength: 32 })

function feed(chunks: number[][], sysex: boolean) {
  const p = new MidiParser({ sysex, maxSysexBytes: 32 })
  return chunks.flatMap((c) => p.push(c))
}

describe('MIDI parser', () => {
  fuzzParser('MidiParser.push (SysEx kept)', { input: packets, parse: (c) => feed(c, true) })
  fuzzParser('MidiParser.push (SysEx skipped)', { input: packets, parse: (c) => feed(c, false) })
  fuzzParser('MidiParser.push (any numbers)', {
    input: fc.array(fc.oneof(fc.integer(), fc.double()), { maxLength: 256 }),
    parse: (a) => new MidiParser({ sysex: true }).push(a),
  })

  test('fuzz: every message is well formed, and packet boundaries do not change the messages', async () => {
    await checkProperty(
      'MIDI messages well formed',
      fc.property(packets, (chunks) => {
        const split = feed(chunks, true)
        expect(feed([chunks.flat()], true)).toEqual(split)
        for (const m of split) {
          if (m.type === 'sysex') {
            expect(m.bytes[0]).toBe(0xf0)
            expect(m.bytes.at(-1)).toBe(0xf7)
            expect(m.bytes.length).toBeLessThanOrEqual(32)
            continue
          }
          expect(m.channel).toBeGreaterThanOrEqual(1)
          expect(m.channel).toBeLessThanOrEqual(16)
          for (const v of Object.values(m)) if (typeof v === 'number') expect(v).toBeLessThanOrEqual(16383)
        }
      }),
    )
  })
})

describe('MIDI profiles', () => {
  fuzzParser('parseMidiProfile', {
    input: fc.oneof(
      hostileText,
      fc
        .record({ kind: fc.string({ maxLength: 12 }), channel: fc.integer(), first: fc.integer(), count: fc.integer() })
        .map((g) => `name: x\ncontrols:\n  - ${JSON.stringify(g)}\n`),
    ),
    parse: (text) => parseMidiProfile(text, 'fuzz.yaml'),
    typedError: (e) => e instanceof MidiProfileError,
  })
})
