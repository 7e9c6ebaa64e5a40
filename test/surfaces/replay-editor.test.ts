/**
 * The Blackmagic panels family (DaVinci Resolve Replay Editor, ATEM Micro Panel) through the real
 * `@blackmagic-controller/core` over an in-memory HID device built from the library's own report layouts:
 * detection, the handshake, buttons and their LEDs, the jog integrated into whole steps, the lever paced
 * to one value a frame with its 16 LEDs, short reports, and the family's data (models, face, udev).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  BMD_MODELS,
  bmdFace,
  bmdModelById,
  JOG_UNITS_PER_STEP,
  replayEditorFacts,
  TBAR_FRAME_MS,
} from '../../src/families/replay-editor.js'
import { familyFace, familyLights } from '../../src/families/index.js'
import { ONE_COLOUR_LED } from '../../src/families/lights.js'
import { BmdDriver } from '../../src/surfaces/replay-editor/driver.js'
import type { BmdSurface } from '../../src/surfaces/replay-editor/surface.js'
import type { SurfaceEvent } from '../../src/surfaces/types.js'
import { captureLogs } from '../helpers/logs.js'
import { MemoryBmdTransport, type FakeBmdHid } from './helpers/fake-bmd.js'
import { openFirstDetected } from './helpers/surfaces.js'

const EDITOR = 'davinci-resolve-replay-editor'
const MICRO = 'atem-micro-panel'

beforeEach(() => {
  captureLogs()
})
afterEach(() => {
  vi.useRealTimers()
})

async function openModel(model = EDITOR): Promise<{ surface: BmdSurface; hid: FakeBmdHid; events: SurfaceEvent[] }> {
  const transport = new MemoryBmdTransport()
  transport.plug(model, `/dev/hidraw-${model}`, `SER-${model}`)
  const { surface, events } = await openFirstDetected(new BmdDriver({ transport }))
  return { surface, hid: transport.lastOpened(`/dev/hidraw-${model}`)!, events }
}

const brief = (events: SurfaceEvent[]): string[] =>
  events.map(
    (e) => `${e.type} ${e.control}${e.type === 'value' ? ' ' + e.raw : e.type === 'rotate' ? ' ' + e.delta : ''}`,
  )

/** Lets the surface's LED write (a microtask, then the library's promise) land. */
const written = (): Promise<void> => new Promise((r) => setImmediate(r))

const button = (model: string, name: string): string => bmdModelById(model)!.byName.get(name)!

describe('Blackmagic panels: the family data', () => {
  it('both models from the library, every button with its library name and its light; lever and jog where they are', () => {
    expect(BMD_MODELS.map((m) => [m.id, m.name])).toEqual([
      [MICRO, 'ATEM Micro Panel'],
      [EDITOR, 'DaVinci Resolve Replay Editor'],
    ])
    const editor = bmdModelById(EDITOR)!
    expect(editor.buttons).toHaveLength(73)
    expect(editor.controls.filter((c) => c.kind !== 'button').map((c) => c.id)).toEqual(['tbar', 'jog'])
    const cue = editor.controls.find((c) => c.label === 'cue')!
    expect(cue).toMatchObject({ id: 'button:2', kind: 'button', capabilities: { led: true } })
    expect(editor.controls.find((c) => c.label === 'undo')!.capabilities).toEqual({})
    expect(editor.byName.get('cam1')).toBe('button:61')
    const micro = bmdModelById(MICRO)!
    expect(micro.controls.map((c) => c.id)).not.toContain('jog')
    expect(micro.controls.find((c) => c.label === 'cut')!.capabilities).toEqual({ rgb: true })
    expect(replayEditorFacts.udev!()).toEqual([
      { name: 'Blackmagic ATEM Micro Panel', vendorId: 0x1edb, productIds: [0xbef0] },
      { name: 'Blackmagic DaVinci Resolve Replay Editor', vendorId: 0x1edb, productIds: [0xda11] },
    ])
  })

  it('the face is the library grid: every control has a spot, the lever spans its rows', () => {
    const editor = bmdModelById(EDITOR)!
    const face = bmdFace({ model: editor.name, controls: [...editor.controls] })!
    expect(face.spots.size).toBe(editor.controls.length)
    expect(face.spots.get('tbar')).toEqual({ x: 0, y: 40, w: 9, h: 49 })
    expect(face.spots.get('jog')).toEqual({ x: 120, y: 50, w: 29, h: 39 })
    expect(bmdFace({ model: 'Stream Deck XL', controls: [] })).toBeUndefined()
  })

  it('the page mirror finds the face through the families table; the lights as the panel shows them', () => {
    const editor = bmdModelById(EDITOR)!
    const description = { driver: 'replay-editor', model: editor.name, controls: [...editor.controls] }
    expect(familyFace(description)?.spots.get(button(EDITOR, 'cue'))).toEqual({ x: 60, y: 0, w: 9, h: 9 })
    const lights = familyLights(description)!
    const cue = editor.controls.find((c) => c.label === 'cue')!
    // The panel drives no flashing: a blinking LED shows steady on the page as on the panel.
    expect(lights(cue)!({ led: 'blink' })).toEqual({ color: ONE_COLOUR_LED, blink: false })
    expect(lights(cue)!({ color: '#202020' })).toBeUndefined()
    const micro = bmdModelById(MICRO)!
    const microLights = familyLights({ driver: 'replay-editor', model: micro.name })!
    const program = micro.controls.find((c) => c.label === 'program1')!
    expect(microLights(program)!({ color: '#e01010' })).toEqual({ color: '#ff0000', blink: false })
  })
})

describe('Blackmagic panels: detect and open', () => {
  it('lists a panel with its model and serial; opening passes the library handshake', async () => {
    const transport = new MemoryBmdTransport()
    transport.plug(EDITOR, '/dev/hidraw7', 'RE-1')
    const driver = new BmdDriver({ transport })
    expect(await driver.detect()).toEqual([
      {
        driver: 'replay-editor',
        id: 'RE-1',
        model: 'DaVinci Resolve Replay Editor',
        modelId: EDITOR,
        vendorId: 0x1edb,
        productId: 0xda11,
        path: '/dev/hidraw7',
        serial: 'RE-1',
      },
    ])
    const surface = await driver.open((await driver.detect())[0]!)
    const hid = transport.lastOpened('/dev/hidraw7')!
    // The Replay Editor's handshake runs twice (report 6: reset, challenge, response, each step once per run).
    expect(hid.featureReports.map((r) => `${r[0]}:${r[1]}`)).toEqual(['6:0', '6:1', '6:3', '6:0', '6:1', '6:3'])
    expect(surface.description).toMatchObject({
      id: 'RE-1',
      driver: 'replay-editor',
      model: 'DaVinci Resolve Replay Editor',
    })
    await surface.close()
    expect(hid.closed).toBe(true)
  })

  it('a panel that fails the handshake is closed and the open fails', async () => {
    const transport = new MemoryBmdTransport()
    transport.plug(MICRO, '/dev/hidraw8')
    transport.onOpen = (dev) => {
      dev.getFeatureReport = (id, len) => Promise.resolve(new Uint8Array(len).fill(id, 0, 1))
    }
    const driver = new BmdDriver({ transport })
    await expect(driver.open((await driver.detect())[0]!)).rejects.toThrow('Authentication failed')
    expect(transport.lastOpened('/dev/hidraw8')!.closed).toBe(true)
  })
})

describe('Blackmagic panels: input', () => {
  it('buttons down and up by the library names, as button:N; nothing printed to stdout', async () => {
    const printed = vi.spyOn(console, 'log')
    const { hid, events } = await openModel()
    hid.buttons('cue')
    hid.buttons('cue', 'run')
    hid.buttons('run')
    hid.buttons()
    expect(brief(events)).toEqual([
      `down ${button(EDITOR, 'cue')}`,
      `down ${button(EDITOR, 'run')}`,
      `up ${button(EDITOR, 'cue')}`,
      `up ${button(EDITOR, 'run')}`,
    ])
    expect(printed).not.toHaveBeenCalled()
  })

  it('the jog: reports integrate into whole steps, the remainder carried, backwards alike', async () => {
    const { hid, events } = await openModel()
    hid.jog(JOG_UNITS_PER_STEP - 1)
    expect(events).toEqual([])
    hid.jog(1)
    hid.jog(3 * JOG_UNITS_PER_STEP + 10)
    hid.jog(-10)
    hid.jog(-1)
    expect(brief(events)).toEqual(['rotate jog 1', 'rotate jog 3', 'rotate jog -1'])
    // n forward then n back: the same reports negated, in any grouping, land where they started.
    const forward = [5, 77, 130, 1, 64, 300, 2]
    const total = (): number => events.reduce((n, e) => n + (e.type === 'rotate' ? e.delta : 0), 0)
    const before = total()
    for (const u of forward) hid.jog(u)
    for (const u of [...forward].reverse()) hid.jog(-u)
    expect(total()).toBe(before)
  })

  it('the lever: at most one value a frame, the last always sent, exact', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
    const { hid, events } = await openModel()
    hid.tbar(0)
    for (let raw = 100; raw <= 4096; raw += 100) {
      hid.tbar(raw)
      await vi.advanceTimersByTimeAsync(1)
    }
    hid.tbar(4096)
    await vi.advanceTimersByTimeAsync(TBAR_FRAME_MS)
    const values = events.filter((e) => e.type === 'value')
    const at = values.map((e) => e.at)
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(TBAR_FRAME_MS)
    expect(values.at(-1)).toMatchObject({ control: 'tbar', value: 1, raw: 4096 })
    expect(values[0]).toMatchObject({ value: 0, raw: 0 })
  })

  it('drops reports too short to decode and keeps decoding after them', async () => {
    const { hid, events } = await openModel()
    expect(() => hid.input([0x03, 0, 1])).not.toThrow()
    expect(() => hid.input([0x0a])).not.toThrow()
    expect(() => hid.input([0x04, 0x3f, 0x00, 0x40])).not.toThrow() // an even-length button report: cut to whole pairs
    hid.jog(JOG_UNITS_PER_STEP)
    expect(brief(events)).toEqual([`down ${button(EDITOR, 'cue')}`, 'rotate jog 1'])
  })
})

describe('Blackmagic panels: lights', () => {
  it('a button LED follows led (or a bright colour); the lever LEDs show the value, from the bottom', async () => {
    const { surface, hid } = await openModel()
    surface.setFeedback(button(EDITOR, 'cam1'), { led: 'on' })
    surface.setFeedback(button(EDITOR, 'cue'), { color: '#ffffff' })
    surface.setFeedback('tbar', { value: 0.5 })
    await written()
    expect(hid.led('cam1')).toBe(true)
    expect(hid.led('cue')).toBe(true)
    expect(hid.led('cam2')).toBe(false)
    expect(hid.tbarLeds()).toBe('1111111100000000')
    surface.setFeedback(button(EDITOR, 'cam1'), { led: 'off', color: '#202020' })
    surface.setFeedback('tbar', { value: 1 })
    await written()
    expect(hid.led('cam1')).toBe(false)
    expect(hid.led('cue')).toBe(true)
    expect(hid.tbarLeds()).toBe('1'.repeat(16))
    // The jog-mode keys' LEDs have a report of their own.
    surface.setFeedback(button(EDITOR, 'scrl-jog'), { led: 'on' })
    await written()
    expect(hid.led('scrl-jog')).toBe(true)
    expect(hid.led('cue')).toBe(true)
  })

  it('the same state twice writes nothing; changes meanwhile go out together after the write in flight', async () => {
    const { surface, hid } = await openModel()
    surface.setFeedback(button(EDITOR, 'cam1'), { led: 'on' })
    await written()
    const writes = hid.sent.length
    surface.setFeedback(button(EDITOR, 'cam1'), { led: 'on' })
    await written()
    expect(hid.sent.length).toBe(writes)
    for (let i = 0; i < 16; i++) surface.setFeedback('tbar', { value: i / 16 })
    await written()
    expect(hid.sent.length).toBe(writes + 1)
    expect(hid.tbarLeds()).toBe('1'.repeat(15) + '0')
  })

  it('ATEM Micro Panel: RGB buttons show their colour channel by channel, its T-bar its LEDs', async () => {
    const { surface, hid } = await openModel(MICRO)
    surface.setFeedback(button(MICRO, 'program1'), { color: '#ff0000' })
    surface.setFeedback(button(MICRO, 'preview2'), { color: '#00ff00', led: 'on' })
    surface.setFeedback('tbar', { value: 0.25 })
    await written()
    expect(hid.rgb('program1')).toEqual([true, false, false])
    expect(hid.rgb('preview2')).toEqual([false, true, false])
    expect(hid.tbarLeds()).toBe('1111000000000000')
  })

  it('closing blanks the panel', async () => {
    const { surface, hid } = await openModel()
    surface.setFeedback(button(EDITOR, 'cam1'), { led: 'on' })
    await written()
    await surface.close()
    expect(hid.led('cam1')).toBe(false)
    expect(hid.tbarLeds()).toBe('0'.repeat(16))
  })
})
