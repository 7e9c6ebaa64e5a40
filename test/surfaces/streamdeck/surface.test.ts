import { DEVICE_MODELS2, DeviceModelId, DeviceModelType } from '@elgato-stream-deck/core'
import { describe, expect, it, onTestFinished } from 'vitest'
import { KeyRenderer } from '../../../src/surfaces/render/key-renderer.js'
import { StreamDeckDriver, streamDeckIdentity } from '../../../src/surfaces/streamdeck/driver.js'
import type { StreamDeckSurface } from '../../../src/surfaces/streamdeck/surface.js'
import type { SurfaceEvent } from '../../../src/surfaces/types.js'
import {
  MemoryStreamDeckTransport,
  decodeGen2KeyImages,
  decodeLcdRegions,
  encoderPressReport,
  encoderRotateReport,
  gen2KeyReport,
  lcdTouchReport,
  rawImageEncoder,
  rotate180,
  type FakeHidDevice,
} from '../helpers/fake-hid.js'

const renderer = new KeyRenderer()

async function openModel(
  model: DeviceModelId,
  frameMs = 0,
): Promise<{ surface: StreamDeckSurface; hid: FakeHidDevice; events: SurfaceEvent[] }> {
  const transport = new MemoryStreamDeckTransport()
  const listing = transport.plug(model, `/dev/hidraw-${model}`, `SN-${model}`)
  const driver = new StreamDeckDriver({ transport, renderer, encodeJPEG: rawImageEncoder, frameMs })
  const [detected] = await driver.detect()
  const surface = await driver.open(detected!)
  onTestFinished(() => surface.close())
  const events: SurfaceEvent[] = []
  surface.events.on('input', (e) => events.push(e))
  expect(surface.description.id).toBe(streamDeckIdentity(listing))
  return { surface, hid: transport.lastOpened(listing.path)!, events }
}

const brief = (events: SurfaceEvent[]): string[] =>
  events.map((e) => `${e.type} ${e.control}${e.type === 'rotate' ? ' ' + e.delta : ''}`)

describe('Stream Deck input', () => {
  it('MK.2: key down/up decoded from input reports', async () => {
    const { surface, hid, events } = await openModel(DeviceModelId.ORIGINALMK2)
    expect(surface.description.model).toBe('Stream Deck MK.2')
    expect(surface.description.grid).toEqual({ rows: 3, columns: 5 })
    expect(surface.description.controls.filter((c) => c.kind === 'key')).toHaveLength(15)
    expect(surface.description.controls[0]).toMatchObject({
      id: 'key:0',
      capabilities: { image: { width: 72, height: 72 } },
    })
    hid.input(gen2KeyReport([0], 15))
    hid.input(gen2KeyReport([0, 7], 15))
    hid.input(gen2KeyReport([7], 15))
    hid.input(gen2KeyReport([], 15))
    expect(brief(events)).toEqual(['down key:0', 'down key:7', 'up key:0', 'up key:7'])
    expect(events.every((e) => e.surface === 'SN-original-mk2' && e.at > 0)).toBe(true)
  })

  it('XL: 32 keys of 96×96, the last key decoded', async () => {
    const { surface, hid, events } = await openModel(DeviceModelId.XL)
    expect(surface.description.grid).toEqual({ rows: 4, columns: 8 })
    expect(surface.description.controls.find((c) => c.id === 'key:31')?.capabilities.image).toEqual({
      width: 96,
      height: 96,
    })
    hid.input(gen2KeyReport([31]))
    hid.input(gen2KeyReport([]))
    expect(brief(events)).toEqual(['down key:31', 'up key:31'])
  })

  it('Plus: encoders rotate with signed deltas, press, and LCD segments take touches', async () => {
    const { surface, hid, events } = await openModel(DeviceModelId.PLUS)
    const ids = surface.description.controls.map((c) => c.id)
    expect(ids).toEqual(expect.arrayContaining(['key:7', 'encoder:0', 'encoder:3', 'lcd:0', 'lcd:3']))
    expect(surface.description.controls.find((c) => c.id === 'lcd:2')?.capabilities.image).toEqual({
      width: 200,
      height: 100,
    })
    hid.input(encoderRotateReport([0, 3, 0, -2]))
    hid.input(encoderPressReport([2]))
    hid.input(encoderPressReport([]))
    hid.input(lcdTouchReport(1, 450, 50))
    hid.input(lcdTouchReport(3, 610, 40, 300, 40))
    expect(brief(events)).toEqual([
      'rotate encoder:1 3',
      'rotate encoder:3 -2',
      'down encoder:2',
      'up encoder:2',
      'down lcd:2',
      'up lcd:2',
      'down lcd:3',
      'up lcd:3',
    ])
  })

  it('Pedal: plain buttons, nothing to show', async () => {
    const { surface, hid, events } = await openModel(DeviceModelId.PEDAL)
    expect(surface.description.controls.map((c) => c.id)).toEqual(['button:0', 'button:1', 'button:2'])
    expect(surface.description.controls.every((c) => Object.keys(c.capabilities).length === 0)).toBe(true)
    hid.input(gen2KeyReport([1], 3))
    hid.input(gen2KeyReport([], 3))
    expect(brief(events)).toEqual(['down button:1', 'up button:1'])
    surface.setFeedback('button:1', { color: '#ff0000' })
    await surface.drain()
    expect(hid.reports).toHaveLength(0)
  })

  it('Neo: eight image keys, two RGB touch keys and the info bar', async () => {
    const { surface, hid } = await openModel(DeviceModelId.NEO)
    const byId = new Map(surface.description.controls.map((c) => [c.id, c]))
    expect(byId.get('key:0')?.capabilities).toEqual({ image: { width: 96, height: 96 } })
    expect(byId.get('key:8')?.capabilities).toEqual({ rgb: true })
    expect(byId.get('key:9')?.capabilities).toEqual({ rgb: true })
    expect(byId.get('lcd:0')?.capabilities).toEqual({ image: { width: 248, height: 58 } })
    surface.setFeedback('key:9', { color: '#102030' })
    surface.setFeedback('lcd:0', { text: 'ON AIR', color: '#ff0000' })
    await surface.drain()
    expect(surface.stats.writes).toBe(2)
    expect(
      hid.features.some(
        (f) => f[0] === 0x03 && f[1] === 0x06 && f[2] === 9 && f[3] === 0x10 && f[4] === 0x20 && f[5] === 0x30,
      ),
    ).toBe(true)
    // the info bar is written with the Neo's own header (02 0b)
    expect(hid.reports.some((call) => call[0]![0] === 0x02 && call[0]![1] === 0x0b)).toBe(true)
  })

  it('every model of the library opens and maps every control to a canonical id', async () => {
    const models = Object.values(DeviceModelId).filter((m) => DEVICE_MODELS2[m].type !== DeviceModelType.NETWORK_DOCK)
    expect(models.length).toBeGreaterThanOrEqual(14)
    for (const model of models) {
      const { surface } = await openModel(model)
      const ids = surface.description.controls.map((c) => c.id)
      expect(new Set(ids).size, model).toBe(ids.length)
      expect(ids.length, model).toBeGreaterThan(0)
      expect(
        ids.every((id) => /^(key|encoder|lcd|button):\d+$/.test(id)),
        model,
      ).toBe(true)
      await surface.close()
    }
  })

  it('Studio: encoder LEDs take the feedback colour; an encoder without LEDs ignores it', async () => {
    const { surface, hid } = await openModel(DeviceModelId.STUDIO)
    expect(surface.description.controls.find((c) => c.id === 'encoder:0')?.capabilities).toEqual({ rgb: true })
    const before = hid.reports.length + hid.features.length
    surface.setFeedback('encoder:0', { color: '#ff0000' })
    await surface.drain()
    expect(surface.stats.writes).toBe(1)
    expect(hid.reports.length + hid.features.length).toBeGreaterThan(before)
    const plus = await openModel(DeviceModelId.PLUS)
    surface.setFeedback('encoder:0', { color: '#ff0000' }) // same colour again: skipped
    plus.surface.setFeedback('encoder:0', { color: '#ff0000' })
    await Promise.all([surface.drain(), plus.surface.drain()])
    expect(surface.stats).toEqual({ writes: 1, skipped: 1 })
    expect(plus.surface.stats).toEqual({ writes: 0, skipped: 0 })
  })

  it('detection lists devices without opening them and leaves out the network dock', async () => {
    const transport = new MemoryStreamDeckTransport()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'MK2')
    transport.plug(DeviceModelId.NETWORK_DOCK, '/dev/hidraw2', 'DOCK')
    const driver = new StreamDeckDriver({ transport, renderer, encodeJPEG: rawImageEncoder })
    expect(await driver.detect()).toEqual([
      {
        driver: 'streamdeck',
        id: 'MK2',
        model: 'Stream Deck MK.2',
        modelId: 'original-mk2',
        vendorId: 0x0fd9,
        productId: 0x0080,
        path: '/dev/hidraw1',
        serial: 'MK2',
      },
    ])
    expect(transport.opened).toHaveLength(0)
  })

  it('a HID error becomes a surface error', async () => {
    const { surface, hid } = await openModel(DeviceModelId.ORIGINALMK2)
    const errors: Error[] = []
    surface.events.on('error', (e) => errors.push(e))
    hid.emit('error', new Error('device gone'))
    expect(errors.map((e) => e.message)).toEqual(['device gone'])
  })
})

describe('Stream Deck feedback', () => {
  it('MK.2: a key image arrives in gen2 reports that decode to the rendered pixels', async () => {
    const { surface, hid } = await openModel(DeviceModelId.ORIGINALMK2)
    const feedback = { color: '#0050ff', text: 'Lower third', badge: 'pending' as const }
    surface.setFeedback('key:3', feedback)
    await surface.drain()
    expect(hid.reports).toHaveLength(1)
    const first = hid.reports[0]![0]!
    // golden header: report 02, command 07 (key image), key 3, not last, 1016 bytes, page 0
    expect([...first.subarray(0, 8)]).toEqual([0x02, 0x07, 3, 0, 0xf8, 0x03, 0, 0])
    expect(first.length).toBe(1024)
    const images = decodeGen2KeyImages(hid.reports).get(3)!
    expect(images).toHaveLength(1)
    expect(images[0]!.width).toBe(72)
    const expected = renderer.render(feedback, { width: 72, height: 72 })
    // Why rotate: the MK.2 panel is mounted upside down; the library flips both axes before encoding.
    expect(Buffer.from(images[0]!.rgba).equals(Buffer.from(rotate180(expected.rgba)))).toBe(true)
  })

  it('XL: a 96×96 key image round-trips', async () => {
    const { surface, hid } = await openModel(DeviceModelId.XL)
    const feedback = { color: '#00ff00', text: 'GO' }
    surface.setFeedback('key:31', feedback)
    await surface.drain()
    const img = decodeGen2KeyImages(hid.reports).get(31)![0]!
    expect(img.width).toBe(96)
    const expected = renderer.render(feedback, { width: 96, height: 96 })
    expect(Buffer.from(img.rgba).equals(Buffer.from(rotate180(expected.rgba)))).toBe(true)
  })

  it('Plus: an LCD segment is written as a region at its column', async () => {
    const { surface, hid } = await openModel(DeviceModelId.PLUS)
    surface.setFeedback('lcd:1', { color: '#ff0000', text: 'Vol' })
    await surface.drain()
    const regions = decodeLcdRegions(hid.reports)
    expect(regions).toHaveLength(1)
    expect(regions[0]).toMatchObject({ x: 200, y: 0, width: 200, height: 100 })
    const expected = renderer.render({ color: '#ff0000', text: 'Vol' }, { width: 200, height: 100 })
    expect(Buffer.from(regions[0]!.image.rgba).equals(Buffer.from(expected.rgba))).toBe(true)
  })

  it('coalesces a burst: one write per key with the final image', async () => {
    const { surface, hid } = await openModel(DeviceModelId.ORIGINALMK2, 1000 / 60)
    for (let i = 0; i < 100; i++) {
      surface.setFeedback('key:0', { text: `n ${i}` })
      surface.setFeedback('key:1', { color: i % 2 ? '#ff0000' : '#00ff00' })
    }
    await surface.drain()
    const images = decodeGen2KeyImages(hid.reports)
    // at most two frames: the first flush may have started before the burst ended
    expect(hid.reports.length).toBeLessThanOrEqual(4)
    const last0 = images.get(0)!.at(-1)!
    expect(
      Buffer.from(last0.rgba).equals(
        Buffer.from(rotate180(renderer.render({ text: 'n 99' }, { width: 72, height: 72 }).rgba)),
      ),
    ).toBe(true)
    const last1 = images.get(1)!.at(-1)!
    expect([...last1.rgba.subarray(0, 4)]).toEqual([255, 0, 0, 255])
  })

  it('skips an image the key already shows', async () => {
    const { surface, hid } = await openModel(DeviceModelId.ORIGINALMK2)
    surface.setFeedback('key:2', { color: '#123456' })
    await surface.drain()
    surface.setFeedback('key:2', { color: '#123456' })
    await surface.drain()
    expect(hid.reports).toHaveLength(1)
    expect(surface.stats).toEqual({ writes: 1, skipped: 1 })
  })

  it('sets brightness with a feature report', async () => {
    const { surface, hid } = await openModel(DeviceModelId.ORIGINALMK2)
    surface.setBrightness(140)
    surface.setBrightness(42)
    await surface.drain()
    const brightness = hid.features.filter((f) => f[0] === 0x03 && f[1] === 0x08)
    expect(brightness.map((f) => f[2])).toEqual([42])
  })

  it('blanks the panel and releases the device on close (idempotent)', async () => {
    const { surface, hid } = await openModel(DeviceModelId.ORIGINALMK2)
    surface.setFeedback('key:0', { color: '#ffffff' })
    await surface.drain()
    let closed = 0
    surface.events.on('closed', () => closed++)
    await Promise.all([surface.close(), surface.close()])
    await surface.close()
    expect(closed).toBe(1)
    expect(hid.closed).toBe(true)
    // gen2 "clear panel" feature report: 03 05
    expect(hid.features.some((f) => f[0] === 0x03 && f[1] === 0x05)).toBe(true)
    surface.setFeedback('key:0', { color: '#ff0000' })
    expect(hid.reports).toHaveLength(1)
  })

  it('a write that fails mid-burst raises one surface error and stops writing', async () => {
    const { surface, hid } = await openModel(DeviceModelId.ORIGINALMK2)
    const errors: Error[] = []
    surface.events.on('error', (e) => errors.push(e))
    hid.failWith = Object.assign(new Error('write failed'), { code: 'EIO' })
    surface.setFeedback('key:0', { color: '#ff0000' })
    surface.setFeedback('key:1', { color: '#00ff00' })
    await surface.drain()
    expect(errors.map((e) => e.message)).toEqual(['write failed'])
    expect(hid.reports).toHaveLength(0)
  })
})
