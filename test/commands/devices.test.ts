/**
 * Issue 13, Build 1: `panelbridge devices` lists every detected surface through the driver list, with
 * model, serial or path, controls, the configured surface that claims it and permission problems,
 * without opening any device. In-memory Stream Decks behind the real Stream Deck driver.
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { describe, expect, it, vi } from 'vitest'
import { devicesCommand, runDevices } from '../../src/commands/devices.js'
import { UDEV_FILES } from '../../src/families/udev.js'
import { MANAGER_DEFAULTS } from '../../src/surfaces/manager.js'
import { FAMILY_NAMES } from '../helpers/driver-families.js'
import { expectRegistered, harness, type Harness } from './hardware-helpers.js'

/** The built-in drivers, as the first line of the listing names them. */
/** Every driver family, in the one driver list's order (a new family changes nothing here). */
const DRIVERS = FAMILY_NAMES.join(', ')

/** `devices --config` over a config with these lines under `surfaces:`; it exits 0. The file and the output's text. */
async function listWith(h: Harness, surfaces: string[]): Promise<{ file: string; text: string }> {
  const file = h.config(['version: 1', 'surfaces:', ...surfaces].join('\n'))
  expect(await runDevices(['--config', file], h.deps)).toBe(0)
  return { file, text: h.out.join('\n') }
}

describe('panelbridge devices', () => {
  it('is registered and listed in --help', () =>
    expectRegistered('devices', devicesCommand, 'devices [--config FILE | --model NAME]'))

  it('lists each device with model, serial, path, controls, its claim and access, and opens none', async () => {
    const h = harness()
    h.transport.plug(DeviceModelId.XL, '/dev/hidraw7', 'CL-XL-1')
    h.transport.plug(DeviceModelId.PLUS, '/dev/hidraw8')
    h.access.set('/dev/hidraw8', 'denied')
    const { file, text } = await listWith(h, [
      '  desk: { driver: streamdeck, serial: CL-XL-1 }',
      '  spare: { driver: streamdeck, model: mini }',
      '  console: { driver: web, rows: 1, columns: 2 }',
    ])
    expect(h.out[0]).toBe(`2 devices found (drivers: ${DRIVERS}); claims from ${file}`)
    expect(text).toContain('streamdeck  Stream Deck XL  serial CL-XL-1  /dev/hidraw7')
    expect(text).toContain('controls: 32 keys')
    expect(text).toContain('claimed by: desk')
    expect(text).toContain('streamdeck  Stream Deck +  /dev/hidraw8')
    expect(text).toContain('controls: 8 keys, 4 lcd, 4 encoders')
    expect(text).toContain(
      'claimed by: nothing; to use it, add under surfaces: { streamdeck1: { driver: streamdeck, model: plus } }',
    )
    expect(text).toContain(`access: permission denied on /dev/hidraw8: install ${UDEV_FILES.headless}`)
    expect(text).toContain(UDEV_FILES.desktop)
    expect(text.match(/access: ok/g)).toHaveLength(1)
    expect(text).toContain('surface spare (streamdeck): no device present matches { model: mini }')
    expect(text).not.toContain('console')
    expect(h.transport.opened).toEqual([])
  })

  it('hands devices to claims as the manager does: a serial claim first, then a model claim, then any', async () => {
    const h = harness()
    h.transport.plug(DeviceModelId.XL, '/dev/hidraw1', 'A')
    h.transport.plug(DeviceModelId.XL, '/dev/hidraw2', 'B')
    h.transport.plug(DeviceModelId.MINI, '/dev/hidraw3', 'C')
    await listWith(h, [
      '  first: { driver: streamdeck, any: true }',
      '  big: { driver: streamdeck, model: xl }',
      '  exact: { driver: streamdeck, serial: A }',
    ])
    const claims = h.out.filter((l) => l.includes('claimed by:')).map((l) => l.trim())
    expect(claims).toEqual(['claimed by: exact', 'claimed by: big', 'claimed by: first'])
  })

  it('lists MIDI ports and configured HID devices with the controls their --config entries give them', async () => {
    const h = harness()
    h.midi.inputs = ['X-TOUCH MINI:X-TOUCH MINI MIDI 1 24:0', 'Midi Through:Midi Through Port-0 14:0']
    h.midi.outputs = [...h.midi.inputs]
    h.hid.listings = [
      { path: '/dev/hidraw4', vendorId: 0x05f3, productId: 0x00ff, product: 'VEC USB Footpedal' },
      { path: '/dev/hidraw5', vendorId: 0x046d, productId: 0xc52b, product: 'Receiver' },
    ]
    const { file, text } = await listWith(h, [
      '  desk: { driver: midi, input: x-touch mini, profile: behringer-x-touch-mini }',
      '  pedal:',
      '    driver: hid',
      '    vendor_id: 0x05f3',
      '    product_id: 0x00ff',
      "    map: { fields: [{ control: 'button:0', byte: 0, bit: 0 }, { control: 'button:1', byte: 0, bit: 1 }] }",
    ])
    expect(h.out[0]).toBe(`3 devices found (drivers: ${DRIVERS}); claims from ${file}`)
    expect(h.out).toContain('midi  X-TOUCH MINI:X-TOUCH MINI MIDI 1 24:0  ')
    expect(text).toContain('controls: 9 ccs, 24 notes\n  claimed by: desk')
    // A port no surface names: the generic profile, its controls known once open; the entry names its port.
    expect(text).toContain(
      'controls: known once opened\n  claimed by: nothing; to use it, add under surfaces: ' +
        '{ midi1: { driver: midi, input: Midi Through:Midi Through Port-0 } }',
    )
    expect(text).toContain('hid  VEC USB Footpedal  /dev/hidraw4\n  controls: 2 buttons\n  claimed by: pedal')
    // Generic HID takes only the devices the config names.
    expect(text).not.toContain('Receiver')
    expect(h.midi.connections).toEqual([])
    expect(h.hid.opened).toEqual([])
  })

  it('shows a later driver with no change to the command', async () => {
    const h = harness()
    h.extra.push({
      driver: {
        name: 'osc',
        detect: () => Promise.resolve([{ driver: 'osc', id: 'osc:X-Touch', model: 'X-Touch Mini' }]),
        open: () => Promise.reject(new Error('not in this test')),
      },
      controlsOf: () => Promise.resolve(undefined),
    })
    expect(await runDevices([], h.deps)).toBe(0)
    expect(h.out[0]).toBe(`1 device found (drivers: ${DRIVERS}, osc); no config: pass --config FILE to see the claims`)
    expect(h.out).toContain('osc  X-Touch Mini  ')
    expect(h.out).toContain('  controls: known once opened')
    expect(h.out).toContain('  access: not checked (no device node)')
  })

  it('exits 1 when the config is refused or a driver cannot detect, 2 on a bad command line', async () => {
    const refused = harness()
    expect(
      await runDevices(
        ['--config', refused.config('version: 1\nsurfaces: { desk: { driver: nope } }\n')],
        refused.deps,
      ),
    ).toBe(1)
    expect(refused.err.join('\n')).toMatch(/config-1\.yaml:2:\d+: .*driver/)
    expect(refused.out).toEqual([])

    const failing = harness()
    failing.transport.list = () => Promise.reject(new Error('hidapi exploded'))
    expect(await runDevices([], failing.deps)).toBe(1)
    expect(failing.err).toEqual(['streamdeck: detection failed: hidapi exploded'])

    vi.useFakeTimers()
    try {
      const hung = harness()
      hung.transport.list = () => new Promise(() => undefined)
      const listing = runDevices([], hung.deps)
      await vi.advanceTimersByTimeAsync(MANAGER_DEFAULTS.callTimeoutMs)
      expect(await listing).toBe(1)
      expect(hung.err).toEqual([
        `streamdeck: detection failed: detection did not answer within ${MANAGER_DEFAULTS.callTimeoutMs} ms`,
      ])
    } finally {
      vi.useRealTimers()
    }

    const bad = harness()
    expect(await runDevices(['--colour'], bad.deps)).toBe(2)
    expect(bad.err[0]).toContain("--colour is not an option of 'devices'")
  })
})
