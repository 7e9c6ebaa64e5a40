/**
 * `panelbridge devices` and `learn` with the Blackmagic panels (issue 43, item 5): the real driver and
 * library over in-memory devices; each panel listed with its model, serial, controls and the entry that
 * would claim it, and every key, the lever and the jog learned under their ids with the name printed on
 * the key beside it, in a binding that loads as pasted.
 */
import { describe, expect, it } from 'vitest'
import { runDevices } from '../../src/commands/devices.js'
import { runLearn } from '../../src/commands/learn.js'
import { JOG_UNITS_PER_STEP } from '../../src/families/replay-editor.js'
import { loadConfigText } from '../../src/mappings/load.js'
import { until } from '../helpers/until.js'
import { hidHarness } from './hid-harness.js'
import { nobody } from './learn-helpers.js'

const SURFACES = [
  'version: 1',
  'surfaces:',
  '  editor: { driver: replay-editor, model: davinci-resolve-replay-editor }',
]

describe('panelbridge devices and learn with Blackmagic panels', () => {
  it('devices lists both models with their controls and claims, opening neither', async () => {
    const h = hidHarness()
    h.panels.plug('davinci-resolve-replay-editor', '/dev/hidraw6', 'RE-7')
    h.panels.plug('atem-micro-panel', '/dev/hidraw7', 'MP-2')
    const file = h.config(SURFACES.join('\n'))
    expect(await runDevices(['--config', file], h.deps)).toBe(0)
    const block = (path: string): string[] => {
      const at = h.out.findIndex((l) => l.includes(path))
      return h.out.slice(at, at + 4)
    }
    expect(block('/dev/hidraw6')).toEqual([
      'replay-editor  DaVinci Resolve Replay Editor  serial RE-7  /dev/hidraw6',
      '  controls: 73 buttons, 1 tbar, 1 jog',
      '  claimed by: editor',
      '  access: ok',
    ])
    expect(block('/dev/hidraw7')).toEqual([
      'replay-editor  ATEM Micro Panel  serial MP-2  /dev/hidraw7',
      '  controls: 50 buttons, 1 tbar',
      '  claimed by: nothing; to use it, add under surfaces: { replay-editor1: { driver: replay-editor, model: atem-micro-panel, serial: MP-2 } }',
      '  access: ok',
    ])
    expect(h.panels.opened).toEqual([])
  })

  it('learn prints each key with its printed name, the lever and the jog, in bindings that load as pasted', async () => {
    const h = hidHarness()
    h.panels.plug('davinci-resolve-replay-editor', '/dev/hidraw6', 'RE-7')
    const file = h.config(SURFACES.join('\n'))
    const stop = new AbortController()
    const done = runLearn(['--config', file, '--url', await nobody()], { ...h.deps, stop: stop.signal })
    await until('the panel open', () => h.out.some((l) => l.includes(': learning as ')))
    const hid = h.panels.lastOpened('/dev/hidraw6')!
    hid.buttons('cue')
    hid.buttons()
    hid.tbar(2048)
    hid.jog(2 * JOG_UNITS_PER_STEP)
    await until('the jog', () => h.out.some((l) => l.startsWith('editor/jog')))
    expect(h.out.filter((l) => l.startsWith('editor/'))).toEqual([
      'editor/button:2 down [cue on the panel]',
      'editor/button:2 up [cue on the panel]',
      'editor/tbar value 0.500 (raw 2048)',
      'editor/jog rotate +2',
    ])
    const snippet = h.out.filter((l) => l.startsWith('    ')).map((l) => l.slice(2))
    const { config, problems } = await loadConfigText(
      `${[...SURFACES, 'bindings:', ...snippet].join('\n')}\n`,
      'p.yaml',
    )
    expect(problems).toEqual([])
    expect(config!.bindings.map((b) => b.on)).toEqual(['editor/button:2', 'editor/tbar', 'editor/jog'])
    stop.abort()
    expect(await done).toBe(0)
    expect(hid.closed).toBe(true)
  })
})
