/** A `midi` surface in the mapping file: its controls come from its profile, its claim from its port name. */
import { describe, expect, it } from 'vitest'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'
import { midiSurfaceConfig } from '../../src/mappings/drivers/midi.js'
import { claimOf, driverConfigsOf } from '../../src/mappings/surfaces.js'

const PRESS = '{ command: switchVideoIn, params: { channel: 0, video: cam } }'

async function problems(text: string): Promise<string[]> {
  const r = await loadConfigText(text, 'c.yaml')
  return r.problems.map(formatProblem)
}

const head = (surface: string, bindings = '') =>
  `version: 1\nsurfaces:\n  pads: ${surface}\nbindings:${bindings === '' ? ' []' : ''}\n${bindings}`

describe('midi surfaces in the mapping file', () => {
  it('accepts the controls its profile names and refuses others at file:line:col', async () => {
    const text = head(
      '{ driver: midi, input: APC mini, profile: apc-mini-mk2 }',
      `  - { on: pads/note:1:0, press: ${PRESS} }\n  - { on: pads/note:2:0, press: ${PRESS} }\n`,
    )
    const out = await problems(text)
    expect(out).toHaveLength(1)
    expect(out[0]).toMatch(/^c\.yaml:6:11: on: pads has no control .*note:2:0/)
  })

  it('takes any control with a profile that names none (generic)', async () => {
    expect(
      await problems(head('{ driver: midi, input: Foo }', `  - { on: pads/note:9:1, press: ${PRESS} }\n`)),
    ).toEqual([])
  })

  it('refuses an unknown profile and a relative mode on something that is not a CC', async () => {
    const bad = await problems(head('{ driver: midi, input: X, profile: nope }'))
    expect(bad).toHaveLength(1)
    expect(bad[0]).toContain('unknown MIDI profile "nope"')
    const rel = await problems(head("{ driver: midi, input: X, relative: { 'note:1:1': binary-offset } }"))
    expect(rel).toHaveLength(1)
    expect(rel[0]).toContain('only a CC (cc:CH:N) is a relative encoder, not note:1:1')
    const mode = await problems(head("{ driver: midi, input: X, relative: { 'cc:1:1': offset } }"))
    expect(mode).toHaveLength(1)
    expect(mode[0]).toContain('relative')
  })

  it('claims by the input port name and hands the driver its options', () => {
    const s = {
      driver: 'midi' as const,
      input: 'MIDIIN2',
      output: 'MIDIOUT2',
      profile: 'generic',
      relative: { 'cc:1:1': 'binary-offset' as const },
    }
    expect(claimOf('pads', s)).toEqual({ name: 'pads', driver: 'midi', match: { port: 'MIDIIN2' } })
    expect(midiSurfaceConfig(s)).toEqual({
      input: 'MIDIIN2',
      output: 'MIDIOUT2',
      profile: 'generic',
      relative: { 'cc:1:1': 'binary-offset' },
    })
  })

  it("gives the drivers every MIDI and HID entry of a config, in the file's order, and nothing of the others", async () => {
    const { config } = await loadConfigText(
      [
        'version: 1',
        'surfaces:',
        '  b: { driver: midi, input: Second, profile: generic }',
        '  desk: { driver: streamdeck, model: xl }',
        "  pedal: { driver: hid, vendor_id: 1, product_id: 2, map: { fields: [{ control: 'button:0', byte: 0, bit: 0 }] } }",
        '  a: { driver: midi, input: First }',
        'bindings: []',
      ].join('\n'),
      'c.yaml',
    )
    const configs = driverConfigsOf(config!.surfaces)
    expect(configs.midi).toEqual([{ input: 'Second', profile: 'generic' }, { input: 'First' }])
    expect(configs.hid).toEqual([
      {
        vendorId: 1,
        productId: 2,
        map: expect.objectContaining({ fields: [expect.objectContaining({ control: 'button:0' })] }),
      },
    ])
    // Every driver that reads the file gets its list, empty when the file has none of its entries.
    expect(driverConfigsOf({})).toEqual({ 'streamdeck-net': [], midi: [], hid: [] })
  })
})
