/** The one identity rule and node-hid listing of the HID drivers (Stream Deck, Contour Shuttle, X-keys). */
import { describe, expect, it, vi } from 'vitest'
import { detectedHid, hidIdentity, listNodeHid, openTarget } from '../../../src/surfaces/usb-hid/identity.js'
import { findShuttleModel } from '../../../src/families/shuttle.js'

// node-hid is the transport boundary: its listing is what the operating system says.
vi.mock('node-hid', () => ({
  devicesAsync: () =>
    Promise.resolve([
      { vendorId: 0x0b33, productId: 0x0030, interface: 0, path: '/dev/hidraw1', serialNumber: 'SP2' },
      // The same device once more for another usage: listed once.
      { vendorId: 0x0b33, productId: 0x0030, interface: 0, path: '/dev/hidraw1', serialNumber: 'SP2' },
      { vendorId: 0x0b33, productId: 0x0020, interface: 0, path: '/dev/hidraw2', serialNumber: '' },
      { vendorId: 0x0b33, productId: 0x0020, interface: 0 },
      { vendorId: 0x046d, productId: 0xc52b, interface: 0, path: '/dev/hidraw3' },
    ]),
}))

describe('HID identity', () => {
  it('is the serial number, else vendor:product@path, then the unit id where there is one', () => {
    const l = { path: '/dev/hidraw1', vendorId: 0x05f3, productId: 1029 }
    expect(hidIdentity(l)).toBe('05f3:0405@/dev/hidraw1')
    expect(hidIdentity({ ...l, serialNumber: ' S1 ' })).toBe('S1')
    expect(hidIdentity({ ...l, serialNumber: '  ' })).toBe('05f3:0405@/dev/hidraw1')
    expect(hidIdentity({ ...l, unitId: 0 })).toBe('05f3:0405@/dev/hidraw1#unit0')
    expect(hidIdentity({ ...l, serialNumber: 'S1', unitId: 12 })).toBe('S1#unit12')
    expect(detectedHid('xkeys', { ...l, unitId: 12 }, { id: 'XK24', name: 'XK-24' })).toEqual({
      driver: 'xkeys',
      id: '05f3:0405@/dev/hidraw1#unit12',
      model: 'XK-24',
      modelId: 'XK24',
      vendorId: 0x05f3,
      productId: 1029,
      path: '/dev/hidraw1',
      unitId: 12,
    })
  })

  it('an open needs a path and a model the table knows, each refused with the driver and ids named', () => {
    const d = { driver: 'shuttle', id: 'SP2', model: 'ShuttlePro v2', vendorId: 0x0b33, productId: 0x30 }
    expect(openTarget('shuttle', { ...d, path: '/dev/hidraw1' }, findShuttleModel, 'Contour model')).toEqual({
      path: '/dev/hidraw1',
      productId: 0x30,
      model: findShuttleModel(0x0b33, 0x30),
    })
    expect(() => openTarget('shuttle', d, findShuttleModel, 'Contour model')).toThrow(
      'shuttle: device SP2 has no path to open',
    )
    expect(() =>
      openTarget('shuttle', { ...d, path: '/dev/hidraw1', productId: 0x99 }, findShuttleModel, 'Contour model'),
    ).toThrow('shuttle: 0b33:0099 is not a known Contour model')
    const { vendorId: _v, ...noVendor } = d
    expect(() => openTarget('shuttle', { ...noVendor, path: '/x' }, findShuttleModel, 'Contour model')).toThrow(
      'shuttle: 0000:0030 is not a known Contour model',
    )
  })

  it('lists the devices a model table recognises, once per path, without a path or an unknown model left out', async () => {
    const listed = await listNodeHid(findShuttleModel)
    expect(listed.map((l) => [l.path, l.model.id, l.serialNumber])).toEqual([
      ['/dev/hidraw1', 'shuttlepro_v2', 'SP2'],
      ['/dev/hidraw2', 'shuttlexpress', undefined],
    ])
  })
})
