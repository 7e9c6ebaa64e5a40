/**
 * Issue 14: `panelbridge devices` lists Contour Shuttle and X-keys devices through the one driver list,
 * with driver, model, serial or unit id, path, control counts and the claiming `surfaces:` entry. The real
 * drivers and device libraries over in-memory HID devices (the `HardwareDriverOptions` seams).
 */
import { describe, expect, it } from 'vitest'
import { runDevices } from '../../src/commands/devices.js'
import { loadConfigText } from '../../src/mappings/load.js'
import { FAMILY_NAMES } from '../helpers/driver-families.js'
import { hidHarness } from './hid-harness.js'

describe('panelbridge devices with Contour Shuttle and X-keys devices', () => {
  it('lists each with driver, model, serial or unit id, path, control counts and the surface that claims it', async () => {
    const h = hidHarness()
    h.shuttles.plug('shuttlepro_v2', '/dev/hidraw2', 'SP2-1')
    h.shuttles.plug('shuttlexpress', '/dev/hidraw3')
    h.xkeys.plug('XK24', '/dev/hidraw4', { unitId: 3 })
    h.xkeys.plug('XK12JOYSTICK', '/dev/hidraw5', { unitId: 0 })
    const file = h.config(
      [
        'version: 1',
        'surfaces:',
        '  wheel: { driver: shuttle, model: shuttlepro_v2 }',
        '  pad: { driver: xkeys, model: XK24, unit_id: 3 }',
        '  other: { driver: xkeys, unit_id: 9 }',
      ].join('\n'),
    )
    expect(await runDevices(['--config', file], h.deps)).toBe(0)
    expect(h.out).toEqual([
      `4 devices found (drivers: ${FAMILY_NAMES.join(', ')}); claims from ${file}`,
      '',
      'shuttle  ShuttlePro v2  serial SP2-1  /dev/hidraw2',
      '  controls: 15 buttons, 1 jog, 1 shuttle',
      '  claimed by: wheel',
      '  access: ok',
      '',
      'shuttle  ShuttleXpress  /dev/hidraw3',
      '  controls: 5 buttons, 1 jog, 1 shuttle',
      '  claimed by: nothing; to use it, add under surfaces: { shuttle1: { driver: shuttle, model: shuttlexpress } }',
      '  access: ok',
      '',
      'xkeys  XK-24  unit id 3  /dev/hidraw4',
      '  controls: 24 keys, 1 button',
      '  claimed by: pad',
      '  access: ok',
      '',
      'xkeys  XK-12 Joystick  unit id 0  /dev/hidraw5',
      '  controls: 12 keys, 1 button, 3 joystick axes',
      '  claimed by: nothing; to use it, add under surfaces: { xkeys2: { driver: xkeys, model: XK12JOYSTICK, unit_id: 0 } }',
      '  access: ok',
      '',
      'surface other (xkeys): no device present matches { unitId: 9 }',
    ])
    // The Shuttles are not opened; each X-keys panel once, to read its unit id, and released.
    expect(h.shuttles.opened).toEqual([])
    expect(h.xkeys.opened.map((d) => [d.path, d.closed])).toEqual([
      ['/dev/hidraw4', true],
      ['/dev/hidraw5', true],
    ])
  })

  it('the suggested entries, pasted under surfaces:, claim the devices they came from', async () => {
    const h = hidHarness()
    h.xkeys.plug('XK24', '/dev/hidraw4', { unitId: 3 })
    h.xkeys.plug('XK24', '/dev/hidraw5', { unitId: 7 })
    expect(await runDevices([], h.deps)).toBe(0)
    const entries = h.out
      .filter((l) => l.includes('add under surfaces:'))
      .map((l) => l.split('add under surfaces: ')[1]!)
    expect(entries).toEqual([
      '{ xkeys1: { driver: xkeys, model: XK24, unit_id: 3 } }',
      '{ xkeys2: { driver: xkeys, model: XK24, unit_id: 7 } }',
    ])
    const text = ['version: 1', 'surfaces:', ...entries.map((e) => `  ${e.slice(2, -2)}`)].join('\n')
    expect((await loadConfigText(text, 'pasted.yaml')).problems).toEqual([])
    const again = hidHarness()
    again.xkeys.plug('XK24', '/dev/hidraw4', { unitId: 7 })
    again.xkeys.plug('XK24', '/dev/hidraw5', { unitId: 3 })
    expect(await runDevices(['--config', again.config(text)], again.deps)).toBe(0)
    // Swapped between the ports, each panel is still claimed by the entry made from its unit id.
    expect(again.out.filter((l) => /^xkeys|claimed by/.test(l))).toEqual([
      'xkeys  XK-24  unit id 7  /dev/hidraw4',
      '  claimed by: xkeys2',
      'xkeys  XK-24  unit id 3  /dev/hidraw5',
      '  claimed by: xkeys1',
    ])
  })
})
