/** A `hid` surface in the mapping file: its report map is checked at file:line:col, its controls come from it. */
import { describe, expect, it } from 'vitest'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'
import { reportMapDeviceConfig } from '../../src/mappings/drivers/report-map.js'
import { claimOf } from '../../src/mappings/surfaces.js'

const PRESS = '{ command: switchVideoIn, params: { channel: 0, video: cam } }'
const text = (fields: string, bindings = ' []') =>
  `version: 1\nsurfaces:\n  pedal:\n    driver: hid\n    vendor_id: 1\n    product_id: 2\n    map:\n      fields:\n${fields}bindings:${bindings}\n`

async function problems(t: string): Promise<string[]> {
  return (await loadConfigText(t, 'c.yaml')).problems.map(formatProblem)
}

describe('hid surfaces in the mapping file', () => {
  it('reports each bad field of the report map at file:line:col', async () => {
    expect(
      await problems(
        text(
          '        - { control: button:0, byte: 0, bit: 6, bits: 4 }\n' +
            '        - { control: knob, byte: 1 }\n' +
            '        - { control: fader:0, byte: 2, bits: 12 }\n',
        ),
      ),
    ).toEqual([
      'c.yaml:9:55: surfaces.pedal.map.fields[0].bits: a field of up to 8 bits must fit in its byte',
      'c.yaml:10:22: surfaces.pedal.map.fields[1].control: not a control id (key:N, button:N, fader:N, jog, …)',
      'c.yaml:11:46: surfaces.pedal.map.fields[2].bits: a wider field is 16, 24 or 32 bits from bit 0',
    ])
  })

  it('knows the controls the map names: a binding on another is refused', async () => {
    const out = await problems(
      text(
        '        - { control: button:0, byte: 0 }\n',
        `\n  - { on: pedal/button:0, press: ${PRESS} }\n  - { on: pedal/button:1, press: ${PRESS} }`,
      ),
    )
    expect(out).toHaveLength(1)
    expect(out[0]).toMatch(/^c\.yaml:12:11: .*button:1/)
  })

  it('claims by vendor and product id (and serial) and hands the driver its config', () => {
    const s = {
      driver: 'hid' as const,
      vendor_id: 0x05f3,
      product_id: 0x00ff,
      usage_page: 1,
      serial: 'A1',
      map: { fields: [{ control: 'button:0', byte: 0, bit: 0, bits: 1, signed: false, endian: 'little' as const }] },
    }
    expect(claimOf('pedal', s)).toEqual({
      name: 'pedal',
      driver: 'hid',
      match: { vendorId: 0x05f3, productId: 0x00ff, serial: 'A1' },
    })
    expect(reportMapDeviceConfig(s)).toEqual({ vendorId: 0x05f3, productId: 0x00ff, usagePage: 1, map: s.map })
  })
})
