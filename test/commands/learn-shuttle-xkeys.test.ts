/**
 * Issue 14: `panelbridge learn` takes Contour Shuttle and X-keys devices through the one driver list and
 * prints each event as its canonical id (`jog`, `shuttle`, `button:N`, `key:N`, `joystick:x`), the
 * claiming `surfaces:` entry (or one to add, with an X-keys unit id), and a binding that loads as pasted.
 * The real drivers and device libraries over in-memory HID devices.
 */
import { describe, expect, it } from 'vitest'
import { runLearn } from '../../src/commands/learn.js'
import { loadConfigText } from '../../src/mappings/load.js'
import { until } from '../helpers/until.js'
import { hidHarness } from './hid-harness.js'
import { nobody } from './learn-helpers.js'
import { xk24Report } from '../surfaces/helpers/fake-xkeys.js'

const SURFACES = [
  'version: 1',
  'surfaces:',
  '  wheel: { driver: shuttle, model: shuttlepro_v2 }',
  '  pad: { driver: xkeys, model: XK24, unit_id: 3 }',
]

describe('panelbridge learn with Contour Shuttle and X-keys devices', () => {
  it('prints canonical ids under the claiming names, the entries, and one pasteable binding per control', async () => {
    const h = hidHarness()
    h.shuttles.plug('shuttlepro_v2', '/dev/hidraw2', 'SP2-1')
    h.xkeys.plug('XK24', '/dev/hidraw4', { unitId: 3 })
    h.xkeys.plug('XK12JOYSTICK', '/dev/hidraw5', { unitId: 0 })
    const file = h.config(SURFACES.join('\n'))
    const stop = new AbortController()
    const done = runLearn(['--config', file, '--url', await nobody()], { ...h.deps, stop: stop.signal })
    await until('three devices open', () => h.out.filter((l) => l.includes(': learning as ')).length === 3)
    expect(h.out).toContain('  claimed by surfaces: { wheel: { driver: shuttle, model: shuttlepro_v2 } }')
    expect(h.out).toContain('  claimed by surfaces: { pad: { driver: xkeys, model: XK24, unit_id: 3 } }')
    expect(h.out).toContain(
      '  not in the config; add under surfaces: { xkeys1: { driver: xkeys, model: XK12JOYSTICK, unit_id: 0 } }',
    )

    const wheel = h.shuttles.lastOpened('/dev/hidraw2')!
    wheel.report(0, 100) // the first report only seeds the jog
    wheel.report(0, 101)
    wheel.report(3, 101)
    wheel.report(0, 101)
    wheel.report(0, 101, 1 << 9)
    wheel.report(0, 101)
    await until('the Shuttle button up', () => h.out.includes('wheel/button:9 up [bottom, outer left on the panel]'))
    const pad = h.xkeys.lastOpened('/dev/hidraw4')!
    pad.input(xk24Report(3, [7])) // the panel's key 7: top of the second column
    pad.input(xk24Report(3, []))
    await until('the X-keys key up', () => h.out.some((l) => l.startsWith('pad/key:1 up')))
    const stick = h.xkeys.lastOpened('/dev/hidraw5')!
    const r = new Array<number>(32).fill(0)
    r[6] = 64 // the XK-12 Joystick's x byte
    stick.input(r)
    await until('the joystick', () => h.out.some((l) => l.startsWith('xkeys1/')))

    expect(h.out.filter((l) => /^(wheel|pad|xkeys1)\//.test(l))).toEqual([
      'wheel/jog rotate +1',
      'wheel/shuttle value 0.429 (raw 3)',
      'wheel/shuttle value 0.000 (raw 0)',
      'wheel/button:9 down [bottom, outer left on the panel]',
      'wheel/button:9 up [bottom, outer left on the panel]',
      // Row-major from the top left, with the panel's own number (column-major) beside it.
      'pad/key:1 down [key 7 on the panel]',
      'pad/key:1 up [key 7 on the panel]',
      'xkeys1/joystick:x value 0.504 (raw 64)',
    ])
    expect(h.out.filter((l) => l.startsWith('    - on: '))).toEqual([
      '    - on: wheel/jog',
      '    - on: wheel/shuttle',
      '    - on: wheel/button:9',
      '    - on: pad/key:1',
      '    - on: xkeys1/joystick:x',
    ])

    // The snippets, pasted under bindings: with the suggested entry, load without a problem.
    const snippet = h.out.filter((l) => l.startsWith('    ')).map((l) => l.slice(2))
    const pasted = [
      ...SURFACES,
      '  xkeys1: { driver: xkeys, model: XK12JOYSTICK, unit_id: 0 }',
      'bindings:',
      ...snippet,
    ].join('\n')
    const { config, problems } = await loadConfigText(`${pasted}\n`, 'pasted.yaml')
    expect(problems).toEqual([])
    expect(config!.bindings.map((b) => b.on)).toEqual([
      'wheel/jog',
      'wheel/shuttle',
      'wheel/button:9',
      'pad/key:1',
      'xkeys1/joystick:x',
    ])

    stop.abort()
    expect(await done).toBe(0)
    expect([wheel.closed, pad.closed, stick.closed]).toEqual([true, true, true])
  })
})
