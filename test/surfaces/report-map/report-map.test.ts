import { describe, expect, it } from 'vitest'
import { ReportDecoder, reportMapSchema, type ReportMap } from '../../../src/surfaces/report-map/report-map.js'

const map = (fields: unknown[], reportId?: number): ReportMap =>
  reportMapSchema.parse({ ...(reportId !== undefined ? { report_id: reportId } : {}), fields })

describe('HID report map', () => {
  it('decodes buttons from bits: down on set, up on clear, nothing while unchanged', () => {
    const d = new ReportDecoder(
      map([
        { control: 'button:0', byte: 0, bit: 0 },
        { control: 'button:1', byte: 0, bit: 3 },
      ]),
    )
    expect(d.decode(Uint8Array.from([0b0000]))).toEqual([])
    expect(d.decode(Uint8Array.from([0b1001]))).toEqual([
      { type: 'down', control: 'button:0' },
      { type: 'down', control: 'button:1' },
    ])
    expect(d.decode(Uint8Array.from([0b1001]))).toEqual([])
    expect(d.decode(Uint8Array.from([0b1000]))).toEqual([{ type: 'up', control: 'button:0' }])
  })

  it('decodes a signed 16-bit little-endian axis to 0..1 over its range', () => {
    const d = new ReportDecoder(map([{ control: 'fader:0', byte: 1, bits: 16, signed: true }]))
    expect(d.decode(Uint8Array.from([0, 0x00, 0x80]))).toEqual([
      { type: 'value', control: 'fader:0', value: 0, raw: -32768 },
    ])
    expect(d.decode(Uint8Array.from([0, 0xff, 0x7f]))).toEqual([
      { type: 'value', control: 'fader:0', value: 1, raw: 32767 },
    ])
    expect(d.decode(Uint8Array.from([0, 0xff, 0xff]))).toEqual([
      { type: 'value', control: 'fader:0', value: 32767 / 65535, raw: -1 },
    ])
  })

  it('decodes a signed axis on a centred control to -1..1 with 0 at 0', () => {
    const d = new ReportDecoder(map([{ control: 'shuttle', byte: 0, bits: 8, signed: true }]))
    expect(d.decode(Uint8Array.from([0x80]))).toEqual([{ type: 'value', control: 'shuttle', value: -1, raw: -128 }])
    expect(d.decode(Uint8Array.from([0]))).toEqual([{ type: 'value', control: 'shuttle', value: 0, raw: 0 }])
    expect(d.decode(Uint8Array.from([0x7f]))).toEqual([{ type: 'value', control: 'shuttle', value: 1, raw: 127 }])
  })

  it('decodes a big-endian field with its own min and max', () => {
    const d = new ReportDecoder(map([{ control: 'tbar', byte: 0, bits: 16, endian: 'big', min: 0, max: 1000 }]))
    expect(d.decode(Uint8Array.from([0x01, 0xf4]))).toEqual([{ type: 'value', control: 'tbar', value: 0.5, raw: 500 }])
    expect(d.decode(Uint8Array.from([0x03, 0xe8]))).toEqual([{ type: 'value', control: 'tbar', value: 1, raw: 1000 }])
  })

  it('decodes a wrapping wheel as the shortest steps, across the wrap', () => {
    const d = new ReportDecoder(map([{ control: 'jog', byte: 0, bits: 8, mode: 'wrap' }]))
    expect(d.decode(Uint8Array.from([250]))).toEqual([])
    expect(d.decode(Uint8Array.from([253]))).toEqual([{ type: 'rotate', control: 'jog', delta: 3 }])
    expect(d.decode(Uint8Array.from([2]))).toEqual([{ type: 'rotate', control: 'jog', delta: 5 }])
    expect(d.decode(Uint8Array.from([254]))).toEqual([{ type: 'rotate', control: 'jog', delta: -4 }])
  })

  it('decodes a relative signed nibble, reads only its report id, and skips fields past a short report', () => {
    const d = new ReportDecoder(
      map(
        [
          { control: 'encoder:0', byte: 0, bit: 4, bits: 4, signed: true, mode: 'relative' },
          { control: 'button:0', byte: 5 },
        ],
        2,
      ),
    )
    expect(d.decode(Uint8Array.from([1, 0x30]))).toEqual([])
    expect(d.decode(Uint8Array.from([2, 0x30]))).toEqual([{ type: 'rotate', control: 'encoder:0', delta: 3 }])
    expect(d.decode(Uint8Array.from([2, 0xf0]))).toEqual([{ type: 'rotate', control: 'encoder:0', delta: -1 }])
  })

  it('refuses a field that does not fit its byte, a bad width, a bad control', () => {
    const issues = (fields: unknown[]) =>
      reportMapSchema.safeParse({ fields }).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
    expect(issues([{ control: 'button:0', byte: 0, bit: 6, bits: 4 }])).toEqual([
      'fields.0.bits: a field of up to 8 bits must fit in its byte',
    ])
    expect(issues([{ control: 'fader:0', byte: 0, bits: 12 }])).toEqual([
      'fields.0.bits: a wider field is 16, 24 or 32 bits from bit 0',
    ])
    expect(issues([{ control: 'knob', byte: 0 }])).toEqual([
      'fields.0.control: not a control id (key:N, button:N, fader:N, jog, …)',
    ])
  })
})
