/**
 * The web surface wired to a real SurfaceManager, as the daemon will wire it: a real Stream Deck MK.2
 * (the @elgato-stream-deck/core library over an in-memory HID device) is mirrored read-only with the
 * very pixels the device was sent, and a WebSurface added to the manager as a static surface is a
 * surface like any other: its input reaches the manager's input stream.
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { setLogSink, type LogRecord } from '../../../src/log.js'
import { FakeHotplug } from '../helpers/fake-hotplug.js'
import { SurfaceManager } from '../../../src/surfaces/manager.js'
import { KeyRenderer } from '../../../src/surfaces/render/key-renderer.js'
import { StreamDeckDriver } from '../../../src/surfaces/streamdeck/driver.js'
import type { SurfaceEvent } from '../../../src/surfaces/types.js'
import { KeyImages } from '../../../src/surfaces/web/key-images.js'
import { WebSurface } from '../../../src/surfaces/web/web-surface.js'
import { decodeGen2KeyImages, MemoryStreamDeckTransport, rawImageEncoder, rotate180 } from '../helpers/fake-hid.js'
import { XKEYS_BLUE, XKEYS_RED } from '../../../src/families/xkeys-lights.js'
import { connectForTest, hardwareMirrors, HARDWARE, webServerForTest } from './helpers.js'
import type { Client, HardwareMirrors } from './helpers.js'

const records: LogRecord[] = []
const previousSink = setLogSink((r) => records.push(r))
afterAll(() => setLogSink(previousSink))

const renderer = new KeyRenderer()
const SERIAL = 'CL12K1A00042'

describe('web surface with a real SurfaceManager', () => {
  let transport: MemoryStreamDeckTransport
  let hotplug: FakeHotplug
  let manager: SurfaceManager
  let client: Client
  let managerInput: SurfaceEvent[]

  beforeEach(async () => {
    transport = new MemoryStreamDeckTransport()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', SERIAL)
    hotplug = new FakeHotplug()
    manager = new SurfaceManager({
      drivers: [new StreamDeckDriver({ transport, renderer, encodeJPEG: rawImageEncoder, frameMs: 0 })],
      hotplug,
      access: () => Promise.resolve('ok'),
      rescanDelaysMs: [0],
    })
    managerInput = []
    manager.events.on('input', (e) => managerInput.push(e))
    await manager.start()
    const desk = new WebSurface({ id: 'desk', rows: 1, columns: 2, images: new KeyImages(renderer) })
    manager.addSurface(desk)
    const images = new KeyImages(renderer)
    const web = await webServerForTest({ surfaces: [desk], registry: manager, images }, () => manager.stop())
    client = await connectForTest(web.url)
    await client.waitFor('surface', (m) => m.surface.id === SERIAL)
  })

  it('lists the web surface as interactive and the Stream Deck as a read-only mirror', () => {
    const views = client.messages.flatMap((m) => (m.type === 'surface' ? [m.surface] : []))
    expect(views.map((v) => [v.id, v.mode, v.model])).toEqual([
      ['desk', 'interactive', 'Web surface'],
      [SERIAL, 'mirror', 'Stream Deck MK.2'],
    ])
    const deck = views[1]!
    expect(deck.grid).toEqual({ rows: 3, columns: 5 })
    expect(deck.controls.find((c) => c.id === 'key:14')).toMatchObject({ image: { width: 72, height: 72 } })
  })

  it('mirrors a key with the face the Stream Deck was drawn from: painted, it gives the very pixels the deck was sent', async () => {
    manager.setFeedback(SERIAL, 'key:3', { color: '#ff8800', text: 'REC', badge: 'pending' })
    const mirrored = await client.waitFor('key', (m) => m.surface === SERIAL && m.control === 'key:3')
    expect(mirrored.label).toBe('REC')
    expect(mirrored.face).toEqual({ color: '#ff8800', text: 'REC', badge: 'pending' })
    expect(mirrored.image).toBeUndefined()

    const hid = transport.lastOpened('/dev/hidraw1')!
    await expect.poll(() => decodeGen2KeyImages(hid.reports).get(3)?.length ?? 0).toBe(1)
    const sent = decodeGen2KeyImages(hid.reports).get(3)![0]!
    expect(sent.width).toBe(72)
    // The MK.2 panel is mounted rotated; the library sends the key turned by 180°.
    const painted = new KeyRenderer().render(mirrored.face, { width: 72, height: 72 }).rgba
    expect(Buffer.from(rotate180(painted)).equals(Buffer.from(sent.rgba))).toBe(true)
  })

  it('follows the device: unplugged, the mirror goes; plugged back, it returns with its feedback', async () => {
    manager.setFeedback(SERIAL, 'key:0', { color: '#00ff00' })
    await client.waitFor('key', (m) => m.surface === SERIAL && m.control === 'key:0')
    transport.unplug('/dev/hidraw1')
    hotplug.fire('detach')
    await client.waitFor('removed', (m) => m.surface === SERIAL)
    client.messages.length = 0
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', SERIAL)
    hotplug.fire('attach')
    await client.waitFor('surface', (m) => m.surface.id === SERIAL)
    await client.waitFor('key', (m) => m.surface === SERIAL && m.control === 'key:0')
  })

  it('gives the manager input from the browser, and shows the manager feedback on the web key', async () => {
    client.send({ type: 'down', surface: 'desk', control: 'key:1' })
    client.send({ type: 'up', surface: 'desk', control: 'key:1' })
    client.send({ type: 'down', surface: SERIAL, control: 'key:1' }) // mirror: ignored
    await expect.poll(() => managerInput.length).toBe(2)
    expect(managerInput.map((e) => `${e.surface}/${e.control}:${e.type}`)).toEqual(['desk/key:1:down', 'desk/key:1:up'])

    manager.setFeedback('desk', 'key:0', { color: '#0000ff', text: 'GO' })
    await client.waitFor('key', (m) => m.surface === 'desk' && m.control === 'key:0' && m.label === 'GO')
    // The manager's registry also reports the web surface; it is never mirrored as a second copy.
    const deskViews = client.messages.filter((m) => m.type === 'surface' && m.surface.id === 'desk')
    expect(deskViews.map((m) => (m.type === 'surface' ? m.surface.mode : ''))).toEqual(['interactive'])
    expect(records.filter((r) => r.fields?.reason === 'read-only mirror')).toHaveLength(1)
  })
})

describe('Contour Shuttle, X-keys and MIDI mirrored from a real SurfaceManager', () => {
  let hw: HardwareMirrors
  let client: Client

  beforeEach(async () => {
    hw = await hardwareMirrors()
    const web = await webServerForTest({ registry: hw.manager, images: new KeyImages(renderer) }, () =>
      hw.manager.stop(),
    )
    client = await connectForTest(web.url)
    for (const name of Object.values(HARDWARE)) await client.waitFor('surface', (m) => m.surface.id === name)
  })

  const viewOf = (name: string) =>
    client.messages.flatMap((m) => (m.type === 'surface' && m.surface.id === name ? [m.surface] : []))[0]!

  it('sends each as a read-only mirror with its layout: wheels, a key grid, knobs', () => {
    const widgetsOf = (name: string) => viewOf(name).controls.map((c) => `${c.id}=${c.widget}`)
    expect(viewOf(HARDWARE.shuttle)).toMatchObject({ mode: 'mirror', driver: 'shuttle', model: 'ShuttlePro v2' })
    expect(widgetsOf(HARDWARE.shuttle).slice(-3)).toEqual(['button:14=pad', 'jog=jog', 'shuttle=shuttle'])
    expect(viewOf(HARDWARE.xkeys)).toMatchObject({ mode: 'mirror', driver: 'xkeys', grid: { rows: 6, columns: 4 } })
    expect(viewOf(HARDWARE.xkeys).controls.find((c) => c.id === 'key:23')).toMatchObject({ row: 5, column: 3 })
    expect(viewOf(HARDWARE.midi)).toMatchObject({ mode: 'mirror', driver: 'midi', model: 'Behringer X-Touch Mini' })
    expect(widgetsOf(HARDWARE.midi).filter((w) => w.endsWith('=knob'))).toHaveLength(8)
  })

  it('a backlight and a knob ring follow the feedback live, in step with what the devices were sent', async () => {
    hw.manager.setFeedback(HARDWARE.xkeys, 'key:5', { color: '#ff0000', text: 'PGM' })
    await client.waitFor(
      'state',
      (m) => m.surface === HARDWARE.xkeys && m.control === 'key:5' && m.state.light === XKEYS_RED,
    )
    // key:5 is row 1, column 1 of the XK-24: its blue LED is (column × 8 + row) = 9, its red one 9 + 32 = 0x29
    // (the library's legacy backlight layout): red on, blue off.
    const lit = (): string[] => hw.panel().writes.map((w) => w.slice(0, 14))
    await expect.poll(lit).toEqual(['00 b5 09 00 01', '00 b5 29 01 01'])

    hw.manager.setFeedback(HARDWARE.xkeys, 'key:5', { color: '#0000ff', led: 'blink', text: 'PVW' })
    const blue = await client.waitFor(
      'state',
      (m) => m.surface === HARDWARE.xkeys && m.control === 'key:5' && m.state.light === XKEYS_BLUE,
    )
    expect(blue.state).toMatchObject({ led: 'blink', text: 'PVW' })

    hw.manager.setFeedback(HARDWARE.midi, 'cc:11:1', { value: 0.5, text: 'speed' })
    const ring = await client.waitFor('state', (m) => m.surface === HARDWARE.midi && m.control === 'cc:11:1')
    expect(ring.state).toEqual({ value: 0.5, text: 'speed' })
    await expect.poll(() => hw.midi.last?.sent).toContainEqual([0xba, 1, 64])
  })
})
