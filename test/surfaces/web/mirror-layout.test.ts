/**
 * How the page draws each hardware driver's surface: the real descriptions of the Contour Shuttle,
 * X-keys, MIDI and generic HID drivers (their libraries and profiles over in-memory devices) through
 * `mirrorView` (layout: grid cells, wheels, rings, faders, knobs) and `RenderedControls` (what a
 * backlight or LED shows for a feedback, as the device lights it).
 */
import { EventEmitter } from 'node:events'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { createLogger, setLogSink } from '../../../src/log.js'
import { ReportMapSurface } from '../../../src/surfaces/report-map/driver.js'
import { reportMapSchema } from '../../../src/surfaces/report-map/report-map.js'
import { loadMidiProfile, parseMidiProfile, type MidiProfile } from '../../../src/surfaces/midi/profile.js'
import { MidiSurface } from '../../../src/surfaces/midi/surface.js'
import { KeyRenderer } from '../../../src/surfaces/render/key-renderer.js'
import { ShuttleDriver } from '../../../src/surfaces/shuttle/driver.js'
import type { Feedback } from '../../../src/face/feedback.js'
import type { SurfaceDriver } from '../../../src/surfaces/types.js'
import { XKEYS_BLUE, XKEYS_BLUE_AND_RED, XKEYS_RED } from '../../../src/families/xkeys-lights.js'
import { KeyImages } from '../../../src/surfaces/web/key-images.js'
import type { WebControlState, WebSurfaceView } from '../../../src/face/protocol.js'
import { mirrorView } from '../../../src/surfaces/web/mirror-view.js'
import { RenderedControls } from '../../../src/surfaces/web/rendered-controls.js'
import { XkeysDriver } from '../../../src/surfaces/xkeys/driver.js'
import { FakeMidiConnection } from '../helpers/fake-midi.js'
import { MemoryShuttleTransport } from '../helpers/fake-shuttle.js'
import { MemoryXkeysTransport } from '../helpers/fake-xkeys.js'
import { ONE_COLOUR_LED, WHITE_LIGHT } from '../../../src/families/lights.js'
import type { SurfaceDescription } from '../../../src/face/surface.js'

const previousSink = setLogSink(() => undefined)
afterAll(() => setLogSink(previousSink))

/** The description of the `model` device `driver` finds once it is plugged into `transport`; closed when the test finishes. */
async function describedOver(
  transport: { plug(model: string, path: string): unknown },
  driver: SurfaceDriver,
  model: string,
): Promise<SurfaceDescription> {
  transport.plug(model, `/dev/hidraw-${model}`)
  const [detected] = await driver.detect()
  const surface = await driver.open(detected!)
  onTestFinished(() => surface.close())
  return surface.description
}

function shuttle(model: string): Promise<SurfaceDescription> {
  const transport = new MemoryShuttleTransport()
  return describedOver(transport, new ShuttleDriver({ transport }), model)
}

function xkeys(model: string): Promise<SurfaceDescription> {
  const transport = new MemoryXkeysTransport()
  return describedOver(transport, new XkeysDriver({ transport }), model)
}

function midiWith(profile: MidiProfile): SurfaceDescription {
  const surface = new MidiSurface(new FakeMidiConnection('in', 'out'), profile, { id: 'pads' })
  onTestFinished(() => surface.close())
  return surface.description
}

const midi = async (profileId: string): Promise<SurfaceDescription> => midiWith(await loadMidiProfile(profileId))

/** Each widget with the ids drawn as it, in order. */
function widgets(view: WebSurfaceView): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const c of view.controls) (out[c.widget] ??= []).push(c.id)
  return out
}

const range = (prefix: string, from: number, count: number): string[] =>
  Array.from({ length: count }, (_, i) => `${prefix}${from + i}`)

/** The state each feedback renders to, through the mirror's RenderedControls for this description. */
function statesOf(
  description: SurfaceDescription,
  feedback: Record<string, Feedback>,
): Record<string, WebControlState> {
  const rendered = new RenderedControls(description, new KeyImages(new KeyRenderer()), (control, err) => {
    throw new Error(`${control}: ${String(err)}`)
  })
  for (const [control, fb] of Object.entries(feedback)) expect(rendered.queue(control, fb)).toBe(true)
  const out: Record<string, WebControlState> = {}
  for (const m of rendered.flush()) if (m.type === 'state') out[m.control] = m.state
  return out
}

describe('Contour Shuttle in the page', () => {
  it('a ShuttlePro v2: its 15 buttons as pads where they are on its face, the jog inside the ring', async () => {
    const view = mirrorView(await shuttle('shuttlepro_v2'))
    expect(view).toMatchObject({ driver: 'shuttle', model: 'ShuttlePro v2', mode: 'mirror' })
    expect(widgets(view)).toEqual({ pad: range('button:', 0, 15), jog: ['jog'], shuttle: ['shuttle'] })
    // No grid: the face places every control.
    expect(view.grid).toBeUndefined()
    expect(view.face).toEqual({ width: 100, height: 140 })
    const at = (id: string) => {
      const spot = view.controls.find((c) => c.id === id)?.at
      if (!spot) throw new Error(`${id} has no place on the face`)
      return { cx: spot.x + spot.w / 2, cy: spot.y + spot.h / 2, ...spot }
    }
    for (const c of view.controls) expect(c.at, c.id).toBeDefined()
    // Four across the top, five under them.
    expect(new Set([0, 1, 2, 3].map((i) => at(`button:${i}`).cy < at('button:4').cy))).toEqual(new Set([true]))
    expect([4, 5, 6, 7, 8].map((i) => at(`button:${i}`).cx)).toEqual([15, 32, 50, 68, 85])
    // The jog centred in the ring, the ring under the buttons, a button either side, four under it.
    expect([at('jog').cx, at('jog').cy]).toEqual([at('shuttle').cx, at('shuttle').cy])
    expect(at('jog').w).toBeLessThan(at('shuttle').w)
    expect(at('shuttle').y).toBeGreaterThan(at('button:6').y + at('button:6').h)
    expect(at('button:13').x + at('button:13').w).toBeLessThan(at('shuttle').x)
    expect(at('button:14').x).toBeGreaterThan(at('shuttle').x + at('shuttle').w)
    for (const i of [9, 10, 11, 12]) expect(at(`button:${i}`).y).toBeGreaterThan(at('shuttle').y + at('shuttle').h)
  })

  it('a ShuttlePro v1 is the v2 without the buttons beside the ring; an X-keys panel has no face', async () => {
    const v1 = mirrorView(await shuttle('shuttlepro_v1'))
    expect(v1.face).toBeDefined()
    expect(v1.controls.filter((c) => c.at).length).toBe(15)
    expect(mirrorView(await xkeys('XK24')).face).toBeUndefined()
  })

  it('a ShuttleXpress: 5 buttons, the jog and the ring, on its face', async () => {
    const view = mirrorView(await shuttle('shuttlexpress'))
    expect(view.face).toBeDefined()
    expect(view.controls.every((c) => c.at !== undefined)).toBe(true)
    expect(widgets(view)).toEqual({
      pad: range('button:', 0, 5),
      jog: ['jog'],
      shuttle: ['shuttle'],
    })
  })
})

describe('X-keys in the page', () => {
  it('an XK-24: 24 keys in its 6×4 grid, key:N at row N / 4 and column N % 4; the program switch under it', async () => {
    const view = mirrorView(await xkeys('XK24'))
    expect(view.grid).toEqual({ rows: 6, columns: 4 })
    const keys = view.controls.filter((c) => c.kind === 'key')
    expect(keys.map((c) => c.id)).toEqual(range('key:', 0, 24))
    for (const [n, c] of keys.entries()) {
      expect(c).toMatchObject({ widget: 'pad', row: Math.floor(n / 4), column: n % 4 })
    }
    expect(view.controls.find((c) => c.id === 'button:0')).toEqual({ id: 'button:0', kind: 'button', widget: 'pad' })
  })

  it('an XK-12 Jog-Shuttle has a wheel and a ring; the XKE-124 T-bar a fader', async () => {
    const jog = widgets(mirrorView(await xkeys('XK12JOG')))
    expect(jog.pad).toEqual([...range('key:', 0, 12), 'button:0'])
    expect([jog.jog, jog.shuttle]).toEqual([['jog'], ['shuttle']])
    expect(widgets(mirrorView(await xkeys('XKE124TBAR'))).fader).toEqual(['tbar'])
  })

  it("an XK-12 Joystick: the stick's axes centred like the shuttle ring, its twist a wheel", async () => {
    const stick = widgets(mirrorView(await xkeys('XK12JOYSTICK')))
    expect(stick.shuttle).toEqual(['joystick:x', 'joystick:y'])
    expect(stick.jog).toEqual(['joystick:z'])
  })

  it("an XK-24's blue and red backlights: blue for blue, red for red or green, violet for both; flash blinks", async () => {
    const states = statesOf(await xkeys('XK24'), {
      'key:0': { color: '#0000ff' },
      'key:1': { color: '#ff0000' },
      'key:2': { color: '#00ff00' },
      'key:3': { color: '#ffffff' },
      'key:4': { color: '#ff0000', led: 'blink', text: 'REC' },
      'key:5': { color: '#ff0000', led: 'off' },
      'key:6': {},
      'button:0': { color: '#ff0000' },
    })
    expect(states).toEqual({
      'key:0': { color: '#0000ff', light: XKEYS_BLUE, led: 'on' },
      'key:1': { color: '#ff0000', light: XKEYS_RED, led: 'on' },
      'key:2': { color: '#00ff00', light: XKEYS_RED, led: 'on' },
      'key:3': { color: '#ffffff', light: XKEYS_BLUE_AND_RED, led: 'on' },
      'key:4': { color: '#ff0000', text: 'REC', light: XKEYS_RED, led: 'blink' },
      'key:5': { color: '#ff0000', led: 'off' },
      'key:6': { led: 'off' },
      // The program switch has no light.
      'button:0': { color: '#ff0000' },
    })
  })

  it('an RGB X-keys shows the colour itself; lit without a colour it is white', async () => {
    const states = statesOf(await xkeys('XK24RGB'), {
      'key:0': { color: '#12ab34' },
      'key:1': { led: 'on' },
      'key:2': { color: '#000000' },
    })
    expect(states['key:0']).toMatchObject({ light: '#12ab34', led: 'on' })
    expect(states['key:1']).toMatchObject({ light: WHITE_LIGHT, led: 'on' })
    expect(states['key:2']).toEqual({ color: '#000000', led: 'off' })
  })

  it('an XK-8 Stick has one LED per key: any colour lights it; off or black is dark', async () => {
    const states = statesOf(await xkeys('XK8'), {
      'key:0': { color: '#ff0000' },
      'key:1': { color: '#00ff00', led: 'blink' },
      'key:2': { color: '#00ff00', led: 'off' },
      'key:3': { color: '#000000' },
    })
    expect(states['key:0']).toMatchObject({ light: XKEYS_BLUE, led: 'on' })
    expect(states['key:1']).toMatchObject({ light: XKEYS_BLUE, led: 'blink' })
    expect(states['key:2']).toEqual({ color: '#00ff00', led: 'off' })
    expect(states['key:3']).toEqual({ color: '#000000', led: 'off' })
  })
})

describe('MIDI in the page', () => {
  it('an APC mini mk2: 64 pads in the grid with pad 0 at the bottom left, track and scene buttons around them, faders', async () => {
    const view = mirrorView(await midi('apc-mini-mk2'))
    expect(view.grid).toEqual({ rows: 9, columns: 9 })
    const at = (id: string) => view.controls.find((c) => c.id === id)
    expect(at('note:1:0')).toMatchObject({ widget: 'pad', row: 7, column: 0 })
    expect(at('note:1:7')).toMatchObject({ widget: 'pad', row: 7, column: 7 })
    expect(at('note:1:63')).toMatchObject({ widget: 'pad', row: 0, column: 7 })
    expect(at('note:1:100')).toMatchObject({ widget: 'pad', row: 8, column: 0 })
    expect(at('note:1:112')).toMatchObject({ widget: 'pad', row: 0, column: 8 })
    // Every cell holds one control at most.
    const cells = view.controls.filter((c) => c.row !== undefined).map((c) => `${c.row},${c.column}`)
    expect(new Set(cells).size).toBe(64 + 8 + 8)
    expect(at('note:1:122')).toEqual({ id: 'note:1:122', kind: 'note', widget: 'pad' })
    expect(widgets(view).fader).toEqual(range('cc:1:', 48, 9))
  })

  it("an APC mini mk2's LEDs: RGB pads show their colour, even the dim idle one; track buttons light and blink", async () => {
    const states = statesOf(await midi('apc-mini-mk2'), {
      'note:1:0': { color: '#ff0000' },
      'note:1:1': { color: '#202020' },
      'note:1:2': { color: '#00ff00', led: 'blink' },
      'note:1:3': { led: 'on' },
      'note:1:100': { led: 'on' },
      'note:1:101': { color: '#202020' },
      'note:1:102': { led: 'blink' },
      'cc:1:48': { value: 0.75 },
    })
    expect(states['note:1:0']).toMatchObject({ light: '#ff0000', led: 'on' })
    expect(states['note:1:1']).toMatchObject({ light: '#202020', led: 'on' })
    expect(states['note:1:2']).toMatchObject({ light: '#00ff00', led: 'blink' })
    expect(states['note:1:3']).toMatchObject({ light: WHITE_LIGHT, led: 'on' })
    expect(states['note:1:100']).toEqual({ light: ONE_COLOUR_LED, led: 'on' })
    // The engine's grey for "unlit" does not light a one-colour LED.
    expect(states['note:1:101']).toEqual({ color: '#202020', led: 'off' })
    expect(states['note:1:102']).toEqual({ light: ONE_COLOUR_LED, led: 'blink' })
    expect(states['cc:1:48']).toEqual({ value: 0.75 })
  })

  it('an X-Touch Mini: 8 knobs with LED rings, 16 buttons in a 2×8 grid, the knob pushes in a row, one fader', async () => {
    const description = await midi('behringer-x-touch-mini')
    const view = mirrorView(description)
    const w = widgets(view)
    expect(w.knob).toEqual(range('cc:11:', 1, 8))
    expect(w.fader).toEqual(['cc:11:9'])
    expect(w.pad).toEqual([...range('note:11:', 0, 8), ...range('note:11:', 8, 16)])
    expect(view.grid).toEqual({ rows: 2, columns: 8 })
    expect(view.controls.find((c) => c.id === 'note:11:8')).toMatchObject({ row: 0, column: 0 })
    expect(view.controls.find((c) => c.id === 'note:11:23')).toMatchObject({ row: 1, column: 7 })
    expect(view.controls.find((c) => c.id === 'note:11:0')?.row).toBeUndefined()
    // A knob's ring shows the value; a button's LED is lit by the state.
    const states = statesOf(description, { 'cc:11:1': { value: 0.4, text: 'speed' }, 'note:11:8': { led: 'on' } })
    expect(states).toEqual({
      'cc:11:1': { value: 0.4, text: 'speed' },
      'note:11:8': { light: ONE_COLOUR_LED, led: 'on' },
    })
  })

  it('pitch bend as a fader resting in the middle, program changes as pads', () => {
    const profile = parseMidiProfile(
      [
        'name: Keys',
        'grid: { rows: 1, columns: 4 }',
        'controls:',
        '  - { kind: pitchbend, channel: 2 }',
        '  - { kind: program, channel: 1, first: 0, count: 4, grid: { row: 0, column: 0, columns: 4 } }',
      ].join('\n'),
      'keys.yaml',
    )
    const view = mirrorView(midiWith(profile))
    expect(view.controls.find((c) => c.id === 'pitchbend:2')).toEqual({
      id: 'pitchbend:2',
      kind: 'pitchbend',
      widget: 'fader',
      centred: true,
    })
    expect(view.controls.filter((c) => c.widget === 'pad').map((c) => [c.id, c.row, c.column])).toEqual([
      ['program:1:0', 0, 0],
      ['program:1:1', 0, 1],
      ['program:1:2', 0, 2],
      ['program:1:3', 0, 3],
    ])
  })

  it('a grid drawn from the placed pads when the profile names none', () => {
    const profile = parseMidiProfile(
      'name: Pads\ncontrols:\n  - { kind: note, channel: 1, count: 6, grid: { row: 0, column: 0, columns: 3 } }\n',
      'pads.yaml',
    )
    expect(mirrorView(midiWith(profile)).grid).toEqual({ rows: 2, columns: 3 })
  })
})

describe('generic HID in the page', () => {
  it("a report map's buttons as pads, its wheel as a jog, its axes as a shuttle and a fader", () => {
    const map = reportMapSchema.parse({
      fields: [
        { control: 'button:0', byte: 0, bit: 0 },
        { control: 'button:1', byte: 0, bit: 1 },
        { control: 'shuttle', byte: 1, bits: 8, signed: true },
        { control: 'fader:0', byte: 2, bits: 8 },
        { control: 'jog', byte: 3, bits: 8, mode: 'wrap' },
      ],
    })
    const device = Object.assign(new EventEmitter(), { close: () => Promise.resolve() })
    const surface = new ReportMapSurface(device, map, { id: 'pedal', model: 'Foot pedal', logger: createLogger('hid') })
    onTestFinished(() => surface.close())
    expect(widgets(mirrorView(surface.description))).toEqual({
      pad: ['button:0', 'button:1'],
      shuttle: ['shuttle'],
      fader: ['fader:0'],
      jog: ['jog'],
    })
  })
})
