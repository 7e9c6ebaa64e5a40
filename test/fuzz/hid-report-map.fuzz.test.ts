/** HID reports come from any device: any bytes through any valid report map give events or nothing. */
import { describe } from 'vitest'
import { ReportDecoder, reportMapSchema } from '../../src/surfaces/report-map/report-map.js'
import { fc, fuzzParser, hostileJsonValue } from './harness.js'

const fieldArb = fc.record({
  control: fc.constantFrom('button:0', 'fader:1', 'jog', 'encoder:2', 'tbar'),
  byte: fc.nat(70),
  bit: fc.nat(7),
  bits: fc.constantFrom(1, 2, 3, 4, 7, 8, 16, 24, 32),
  signed: fc.boolean(),
  endian: fc.constantFrom('little', 'big'),
  mode: fc.constantFrom('button', 'absolute', 'relative', 'wrap', undefined),
})

const decoding = fc.tuple(
  fc.array(fieldArb, { minLength: 1, maxLength: 8 }),
  fc.option(fc.integer({ min: 1, max: 255 }), { nil: undefined }),
  fc.array(fc.uint8Array({ maxLength: 80 }), { maxLength: 16 }),
)

describe('HID report map', () => {
  fuzzParser('ReportDecoder.decode', {
    input: decoding,
    parse: ([fields, reportId, reports]) => {
      const map = reportMapSchema.safeParse({
        ...(reportId !== undefined ? { report_id: reportId } : {}),
        fields: fields.map((f) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined))),
      })
      if (!map.success) return
      const d = new ReportDecoder(map.data)
      for (const r of reports)
        for (const e of d.decode(r)) if ('delta' in e && !Number.isFinite(e.delta)) throw new Error('bad delta')
    },
  })
  fuzzParser('reportMapSchema.safeParse', {
    input: hostileJsonValue,
    parse: (v) => reportMapSchema.safeParse(v),
  })
})
