/**
 * The one driver list (`hardwareDrivers`) with MIDI and generic HID in it, configured from the mapping
 * file's entries (`configureDrivers`), and the manager's hot-plug source that joins USB events and MIDI
 * port rescans (`hardwareHotplug`). In-memory MIDI ports and HID devices only.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DRIVER_FAMILIES, configureDrivers, hardwareDrivers, hardwareHotplug } from '../../src/surfaces/drivers.js'
import type { HidListing } from '../../src/surfaces/report-map/driver.js'
import { reportMapSchema } from '../../src/surfaces/report-map/report-map.js'
import { MIDI_RESCAN_MS } from '../../src/surfaces/midi/driver.js'
import { MemoryHidTransport } from './helpers/fake-generic-hid.js'
import { MemoryStreamDeckTransport } from './helpers/fake-hid.js'
import { FakeHotplug } from './helpers/fake-hotplug.js'
import { FakeMidiBackend } from './helpers/fake-midi.js'
import { FAMILY_NAMES } from '../helpers/driver-families.js'

const PEDAL: HidListing = { path: '/dev/hidraw7', vendorId: 0x05f3, productId: 0x00ff, product: 'VEC USB Footpedal' }
const pedalMap = reportMapSchema.parse({ fields: [{ control: 'button:0', byte: 0, bit: 0 }] })

function drivers(midi = new FakeMidiBackend(), hid = new MemoryHidTransport([PEDAL])) {
  const noHid = { list: () => Promise.resolve([]), open: () => Promise.reject(new Error('none')) }
  return hardwareDrivers({
    streamdeck: { transport: new MemoryStreamDeckTransport() },
    shuttle: { transport: noHid },
    xkeys: { transport: noHid },
    midi: { backend: midi },
    hid: { transport: hid },
  })
}

describe('hardwareDrivers', () => {
  it('lists MIDI and generic HID after the others, configured from the mapping file', async () => {
    const backend = new FakeMidiBackend({ inputs: ['X-TOUCH MINI 20:0'], outputs: ['X-TOUCH MINI 20:0'] })
    const list = drivers(backend)
    expect(list.map((e) => e.driver.name)).toEqual(FAMILY_NAMES)
    const [midi, hid] = [list.find((e) => e.driver.name === 'midi')!, list.find((e) => e.driver.name === 'hid')!]
    // Unconfigured: a MIDI port is generic (controls known once opened), a HID device is nobody's.
    const [port] = await midi.driver.detect()
    expect(await midi.controlsOf(port!)).toBeUndefined()
    expect(await hid.driver.detect()).toEqual([])

    configureDrivers(
      list.map((e) => e.driver),
      {
        midi: [{ input: 'x-touch mini', profile: 'behringer-x-touch-mini' }],
        hid: [{ vendorId: 0x05f3, productId: 0x00ff, name: 'Foot pedal', map: pedalMap }],
      },
    )
    expect((await midi.controlsOf(port!))?.length).toBe(33)
    const [pedal] = await hid.driver.detect()
    expect(pedal).toMatchObject({ driver: 'hid', model: 'Foot pedal', path: '/dev/hidraw7' })
    expect(await hid.controlsOf(pedal!)).toEqual([{ id: 'button:0', kind: 'button', capabilities: {} }])
    const surface = await hid.driver.open(pedal!)
    expect(surface.description.controls.map((c) => c.id)).toEqual(['button:0'])
    await surface.close()
  })
})

describe('the driver table', () => {
  it("builds each family's driver under the family's name, the one id of a family", () => {
    expect(drivers().map((e) => e.driver.name)).toEqual(Object.keys(DRIVER_FAMILIES))
  })

  it('passive: a driver that learns its devices from the config lists none until it names some', async () => {
    const backend = new FakeMidiBackend({ inputs: ['Pads'], outputs: [] })
    const noHid = { list: () => Promise.resolve([]), open: () => Promise.reject(new Error('none')) }
    const list = hardwareDrivers({
      passive: true,
      streamdeck: { transport: new MemoryStreamDeckTransport() },
      shuttle: { transport: noHid },
      xkeys: { transport: noHid },
      midi: { backend },
    })
    const midi = list.find((e) => e.driver.name === 'midi')!.driver
    expect(await midi.detect()).toEqual([])
    configureDrivers([midi], { midi: [{ input: 'Pads' }] })
    expect((await midi.detect()).map((d) => d.id)).toEqual(['Pads'])
  })
})

describe('hardwareHotplug', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it("joins USB hot-plug and the MIDI driver's port rescans", async () => {
    const backend = new FakeMidiBackend()
    const list = drivers(backend).map((e) => e.driver)
    const usb = new FakeHotplug(true)
    const source = hardwareHotplug(list, usb)
    const changes: string[] = []
    expect(await source.start((c) => changes.push(c))).toBe(true)
    usb.fire('detach')
    backend.inputs = ['Pads']
    await vi.advanceTimersByTimeAsync(MIDI_RESCAN_MS)
    expect(changes).toEqual(['detach', 'attach'])
    source.stop()
    expect(usb.stops).toBe(1)
    backend.inputs = []
    await vi.advanceTimersByTimeAsync(MIDI_RESCAN_MS * 2)
    expect(changes).toEqual(['detach', 'attach'])
  })

  it('is the USB source alone without a MIDI driver, and polls (not live) when USB cannot deliver', async () => {
    const usb = new FakeHotplug(false)
    expect(hardwareHotplug([], usb)).toBe(usb)
    expect(
      await hardwareHotplug(
        drivers().map((e) => e.driver),
        usb,
      ).start(() => undefined),
    ).toBe(false)
  })
})
