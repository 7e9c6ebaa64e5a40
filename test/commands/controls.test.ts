/**
 * `panelbridge devices --model NAME` prints a model's control ids from the driver families' model
 * tables and the shipped MIDI profiles, and docs/controls.md is those tables for every model, generated
 * by scripts/generate-controls-doc.ts (npm run controls-doc).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CONTROLS_DOC, controlsMarkdown } from '../../scripts/generate-controls-doc.js'
import { allModelControls, findModels } from '../../src/commands/controls.js'
import { runDevices } from '../../src/commands/devices.js'
import { DRIVER_FAMILIES } from '../../src/surfaces/drivers.js'
import { loadMidiProfile, shippedProfileIds } from '../../src/surfaces/midi/profile.js'
import { harness } from './hardware-helpers.js'

async function model(name: string): Promise<{ code: number; out: string[]; err: string[] }> {
  const h = harness()
  const code = await runDevices(['--model', name], h.deps)
  return { code, out: h.out, err: h.err }
}

describe('panelbridge devices --model', () => {
  it('prints every control id of a ShuttlePro v2: its 15 buttons, the jog wheel and the shuttle ring', async () => {
    const r = await model('shuttlepro_v2')
    expect(r.code).toBe(0)
    expect(r.out[0]).toBe('ShuttlePro v2 (model: shuttlepro_v2; driver: shuttle): 17 controls')
    const ids = r.out.map((l) => /^ {2}(\S+)/.exec(l)?.[1]).filter((id) => id !== undefined)
    expect(ids).toEqual([
      'id',
      ...Array.from({ length: 15 }, (_, i) => `button:${i}`),
      'jog',
      'shuttle',
      '(to', // the hint for controls without a position
    ])
    expect(r.out.join('\n')).toContain('press it under panelbridge learn')
  })

  it('draws a Stream Deck XL’s key numbering, row by row, by its display name in any case', async () => {
    const r = await model('stream deck XL')
    expect(r.code).toBe(0)
    expect(r.out[0]).toContain('Stream Deck XL (model: xl; driver: streamdeck, streamdeck-net, browser-deck)')
    const layout = r.out.slice(r.out.indexOf('  layout (as seen from the front):') + 1).slice(0, 4)
    expect(layout.map((l) => l.trim().split(/\s+/))).toEqual(
      [0, 1, 2, 3].map((row) => Array.from({ length: 8 }, (_, c) => `key:${row * 8 + c}`)),
    )
    expect(r.out.join('\n')).toMatch(/key:9 +key +row 1, column 1 +image 96×96/)
  })

  it('gives an X-keys key’s own number on the panel beside its id, and a MIDI profile’s notes', async () => {
    const xk = await model('XK24')
    expect(xk.out.join('\n')).toMatch(/key:1 +key +row 0, column 1 +key 7 +LED/)
    const apc = await model('apc-mini-mk2')
    expect(apc.code).toBe(0)
    expect(apc.out[0]).toContain('Akai APC mini mk2 (profile: apc-mini-mk2; driver: midi)')
    expect(apc.out.join('\n')).toMatch(/note:1:0 +note +row 7, column 0 +RGB light/)
  })

  it('refuses a name no model has, with exit 2, the nearest name and the list', async () => {
    const r = await model('shuttlepro_v3')
    expect(r.code).toBe(2)
    expect(r.out).toEqual([])
    expect(r.err[0]).toBe(
      "panelbridge devices: no model or MIDI profile is named 'shuttlepro_v3' (did you mean 'shuttlepro_v1'?)",
    )
    expect(r.err.join(' ')).toContain('shuttlexpress')
    for (const line of r.err.slice(1)) expect(line.length).toBeLessThanOrEqual(100)
    const h = harness()
    expect(await runDevices(['--model', 'xl', '--config', 'x.yaml'], h.deps)).toBe(2)
    expect(h.err.join('\n')).toContain('--model goes without --config')
  })
})

describe('the model tables', () => {
  it('hold every model of every family table and every shipped MIDI profile with controls, as the families give them', async () => {
    const models = await allModelControls()
    for (const [driver, family] of Object.entries(DRIVER_FAMILIES)) {
      for (const id of family.models?.ids ?? []) {
        const m = models.find((x) => x.id === id && x.drivers.includes(driver))
        expect(m, `${driver} ${id}`).toBeDefined()
        expect(m!.controls).toEqual(await family.models!.controlsOf(id))
      }
    }
    for (const id of await shippedProfileIds()) {
      const controls = (await loadMidiProfile(id)).descriptors()
      if (controls.length > 0) expect(findModels(models, id).found.map((m) => m.controls)).toEqual([controls])
    }
  })
})

describe('docs/controls.md', () => {
  it('is the generated table (run npm run controls-doc when this fails)', async () => {
    expect(readFileSync(CONTROLS_DOC, 'utf8')).toBe(await controlsMarkdown())
  })

  it('has a section per model, with the ids a ShuttlePro and a Stream Deck XL have', async () => {
    const doc = readFileSync(CONTROLS_DOC, 'utf8')
    for (const m of await allModelControls()) expect(doc).toContain(`\`${m.key}: ${m.id}\``)
    const shuttle = doc.slice(doc.indexOf('### ShuttlePro v2'))
    for (const id of ['button:14', 'jog', 'shuttle']) expect(shuttle).toContain(`| \`${id}\` |`)
    expect(doc).toContain('| 1 | `key:8` | `key:9` |')
  })
})
