/**
 * The Satellite server's line handling (issue 44): any line, parsed and handled by a client's handler,
 * answers with whole protocol lines or nothing, never a throw; a layout from any ADD-DEVICE parameters is
 * within the bounds or refused with a reason; what the server formats reads back as it was written.
 */
import { describe, expect, test } from 'vitest'
import { createLogger } from '../../src/log.js'
import { SatelliteHub, type SatelliteLink } from '../../src/surfaces/satellite/hub.js'
import { parseLayout } from '../../src/surfaces/satellite/layout.js'
import {
  formatSatelliteMessage,
  parseSatelliteLine,
  parseSatelliteParams,
  SATELLITE_LIMITS,
} from '../../src/surfaces/satellite/protocol.js'
import { checkProperty, fc, fuzzParser, hostileText } from './harness.js'

const COMMANDS = ['ADD-DEVICE', 'REMOVE-DEVICE', 'KEY-PRESS', 'KEY-ROTATE', 'PING', 'PONG', 'QUIT', 'ADD-SUB', 'NOPE']
const KEYS = [
  'DEVICEID',
  'PRODUCT_NAME',
  'KEYS_TOTAL',
  'KEYS_PER_ROW',
  'BITMAPS',
  'COLORS',
  'TEXT',
  'LAYOUT_MANIFEST',
  'CONTROLID',
  'KEY',
  'PRESSED',
  'DIRECTION',
  'BITMAP_FORMAT',
  '__proto__',
]

/** A value: hostile text, a number, a quoted string, base64 of hostile JSON. */
const value = fc.oneof(
  hostileText.map((t) => t.replace(/\n/g, ' ')),
  fc.integer({ min: -1e6, max: 1e6 }).map(String),
  fc.string({ maxLength: 40 }).map((t) => `"${t.replace(/\n/g, '')}"`),
  hostileText.map((t) => Buffer.from(t).toString('base64')),
)
const line = fc.oneof(
  hostileText.map((t) => t.replace(/\n/g, ' ')),
  fc
    .tuple(fc.constantFrom(...COMMANDS), fc.array(fc.tuple(fc.constantFrom(...KEYS), value), { maxLength: 8 }))
    .map(([cmd, params]) => [cmd, ...params.map(([k, v]) => `${k}=${v}`)].join(' ')),
)

function client(): { written: string[]; handle: (text: string) => void } {
  const written: string[] = []
  const link: SatelliteLink = { peer: 'fuzz', write: (l) => (written.push(l), true), close: () => undefined }
  const hub = new SatelliteHub(createLogger('satellite-fuzz', { sink: () => undefined }))
  const c = hub.connect(link, SATELLITE_LIMITS, 'fuzz')
  return { written, handle: (text) => c.line(text) }
}

describe('the Satellite line protocol', () => {
  fuzzParser('parseSatelliteLine (any text)', { input: hostileText, parse: parseSatelliteLine })

  test('fuzz: a client handles any lines, answering whole lines of known messages', async () => {
    await checkProperty(
      'satellite client lines',
      fc.property(fc.array(line, { maxLength: 20 }), (lines) => {
        const { written, handle } = client()
        for (const l of lines) handle(l)
        for (const w of written) {
          expect(w.endsWith('\n')).toBe(true)
          expect(w.slice(0, -1)).not.toContain('\n')
          expect(w).toMatch(/^(BEGIN|CAPS|PONG|ERROR|[A-Z-]+ (OK|ERROR))( |$)/)
        }
      }),
    )
  })

  test('fuzz: a layout from any ADD-DEVICE parameters is bounded or refused', async () => {
    await checkProperty(
      'satellite layouts',
      fc.property(fc.array(fc.tuple(fc.constantFrom(...KEYS), value), { maxLength: 8 }), (params) => {
        const parsed = parseLayout(
          parseSatelliteParams(params.map(([k, v]) => `${k}=${v}`).join(' ')),
          SATELLITE_LIMITS,
        )
        if (!parsed.ok) {
          expect(parsed.message).toMatch(/\S/)
          return
        }
        expect(parsed.controls.length).toBeGreaterThan(0)
        expect(parsed.controls.length).toBeLessThanOrEqual(SATELLITE_LIMITS.controlsPerDevice)
        for (const c of parsed.controls) {
          expect(c.style.bitmap?.w ?? 0).toBeLessThanOrEqual(SATELLITE_LIMITS.bitmapSide)
          expect(c.style.bitmap?.h ?? 0).toBeLessThanOrEqual(SATELLITE_LIMITS.bitmapSide)
        }
      }),
    )
  })

  test('fuzz: what the server formats reads back as written', async () => {
    const safe = fc.string({ maxLength: 60 }).map((t) => t.replace(/["\\\r\n]/g, ''))
    await checkProperty(
      'satellite format round trip',
      fc.property(
        fc.dictionary(fc.stringMatching(/^[A-Z_]{1,12}$/), fc.oneof(safe, fc.integer(), fc.boolean()), { maxKeys: 6 }),
        (args) => {
          const text = formatSatelliteMessage('KEY-STATE', null, 'dev:1', args)
          const { command, params } = parseSatelliteLine(text.slice(0, -1))
          expect(command).toBe('KEY-STATE')
          expect(params.DEVICEID).toBe('dev:1')
          for (const [k, v] of Object.entries(args)) {
            if (k === 'DEVICEID') continue
            expect(params[k]).toBe(typeof v === 'boolean' ? (v ? '1' : '0') : String(v))
          }
        },
      ),
    )
  })
})
