import { describe, expect, it } from 'vitest'
import { ReportMapDriver } from '../../../src/surfaces/report-map/driver.js'
import { reportMapSchema } from '../../../src/surfaces/report-map/report-map.js'
import type { SurfaceEvent } from '../../../src/surfaces/types.js'
import { MemoryHidTransport } from '../helpers/fake-generic-hid.js'

// A game-controller-like report: id 1; byte 0 buttons; bytes 1-2 a signed little-endian axis;
// bytes 3-4 a big-endian throttle 0..1000; byte 5 a wrapping wheel counter.
const map = reportMapSchema.parse({
  report_id: 1,
  fields: [
    { control: 'button:0', byte: 0, bit: 0 },
    { control: 'button:1', byte: 0, bit: 1 },
    { control: 'shuttle', byte: 1, bits: 16, signed: true },
    { control: 'tbar', byte: 3, bits: 16, endian: 'big', min: 0, max: 1000 },
    { control: 'jog', byte: 5, bits: 8, mode: 'wrap' },
  ],
})

describe('generic HID driver', () => {
  it('claims devices by vendor, product and usage page, and decodes their reports through the map', async () => {
    const transport = new MemoryHidTransport([
      { path: '/dev/hidraw0', vendorId: 0x1234, productId: 0x5678, usagePage: 0xff00 },
      { path: '/dev/hidraw1', vendorId: 0x1234, productId: 0x5678, usagePage: 0x01, product: 'Box' },
      { path: '/dev/hidraw2', vendorId: 0x1234, productId: 0x9999, usagePage: 0x01 },
    ])
    const driver = new ReportMapDriver({
      transport,
      devices: [{ vendorId: 0x1234, productId: 0x5678, usagePage: 0x01, map }],
    })
    const found = await driver.detect()
    expect(found).toEqual([
      {
        driver: 'hid',
        id: '1234:5678@/dev/hidraw1',
        model: 'Box',
        vendorId: 0x1234,
        productId: 0x5678,
        path: '/dev/hidraw1',
      },
    ])
    const surface = await driver.open(found[0]!)
    expect(surface.description.controls.map((c) => `${c.id}/${c.kind}`)).toEqual([
      'button:0/button',
      'button:1/button',
      'shuttle/shuttle',
      'tbar/tbar',
      'jog/jog',
    ])
    const events: SurfaceEvent[] = []
    surface.events.on('input', (e) => events.push(e))
    const device = transport.current('/dev/hidraw1')!
    device.report([1, 0b00, 0x00, 0x00, 0x00, 0x00, 250])
    device.report([2, 0b11, 0xff, 0xff, 0x03, 0xe8, 4])
    device.report([1, 0b10, 0x00, 0x80, 0x01, 0xf4, 4])
    device.report([1, 0b10, 0x00, 0x80, 0x01, 0xf4, 2])
    expect(events.map(({ at: _at, ...e }) => e)).toEqual([
      { type: 'value', control: 'shuttle', value: 0, raw: 0, surface: '1234:5678@/dev/hidraw1' },
      { type: 'value', control: 'tbar', value: 0, raw: 0, surface: '1234:5678@/dev/hidraw1' },
      { type: 'down', control: 'button:1', surface: '1234:5678@/dev/hidraw1' },
      { type: 'value', control: 'shuttle', value: -1, raw: -32768, surface: '1234:5678@/dev/hidraw1' },
      { type: 'value', control: 'tbar', value: 0.5, raw: 500, surface: '1234:5678@/dev/hidraw1' },
      { type: 'rotate', control: 'jog', delta: 10, surface: '1234:5678@/dev/hidraw1' },
      { type: 'rotate', control: 'jog', delta: -2, surface: '1234:5678@/dev/hidraw1' },
    ])
    await surface.close()
    expect(device.closed).toBe(true)
    expect(device.listenerCount('data')).toBe(0)
  })

  it("knows a detected device's controls from its report map without opening it; a reload replaces the map", async () => {
    const transport = new MemoryHidTransport([{ path: '/dev/hidraw3', vendorId: 0x05f3, productId: 0x00ff }])
    const pedal = reportMapSchema.parse({ fields: [{ control: 'button:0', byte: 0, bit: 0 }] })
    const driver = new ReportMapDriver({ transport, devices: [{ vendorId: 0x05f3, productId: 0x00ff, map: pedal }] })
    const [device] = await driver.detect()
    expect(await driver.controlsOf(device!)).toEqual([{ id: 'button:0', kind: 'button', capabilities: {} }])
    driver.configure([{ vendorId: 0x05f3, productId: 0x00ff, map }])
    expect((await driver.controlsOf(device!))?.map((c) => c.id)).toEqual([
      'button:0',
      'button:1',
      'shuttle',
      'tbar',
      'jog',
    ])
    expect(transport.opened).toHaveLength(0)
    driver.configure([])
    expect(await driver.controlsOf(device!)).toBeUndefined()
  })
})
