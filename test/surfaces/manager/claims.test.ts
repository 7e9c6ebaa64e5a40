/**
 * Claimed devices and named surfaces in the surface manager: only claimed devices are opened, everything
 * leaves the manager under the configured name, absent devices are `waiting`, contradictions are refused;
 * which device each claim takes (the one hand-out, `assignClaims`), matching and validation, `setClaims`.
 * Cases from the former claims.test.ts (Groundwork item 2), over Stream Decks.
 * Cases from the former manager-mutants.test.ts (mutation survivors), over ListDrivers.
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import {
  SurfaceClaimError,
  assignClaims,
  claimMatches,
  validateClaims,
  type SurfaceClaim,
} from '../../../src/families/claims.js'
import { SurfaceManager } from '../../../src/surfaces/manager.js'
import { ShuttleDriver } from '../../../src/surfaces/shuttle/driver.js'
import { MemoryStreamDeckTransport, decodeGen2KeyImages, gen2KeyReport } from '../helpers/fake-hid.js'
import { FakeHotplug } from '../helpers/fake-hotplug.js'
import { MemoryShuttleTransport } from '../helpers/fake-shuttle.js'
import {
  MANAGER_CLOCK,
  claim,
  deckDriver,
  deckManaged,
  device,
  manage,
  startedList,
  useManagerLogs,
} from '../helpers/manager.js'
import { ListDriver } from '../helpers/surfaces.js'
import type { DetectedDevice } from '../../../src/face/surface.js'

const logs = useManagerLogs()

/** A manager over Stream Decks that takes the devices `claims` name. */
function setup(claims: readonly SurfaceClaim[]) {
  const rig = deckManaged({ claims, rescanDelaysMs: [0], retryInitialMs: 30, retryMaxMs: 200 })
  return { ...rig, seen: rig }
}

const desk = (match: SurfaceClaim['match'], name = 'desk'): SurfaceClaim => ({ name, driver: 'streamdeck', match })

describe('claims over Stream Decks', () => {
  logs.capture()

  it('opens only the claimed device; an unclaimed one is never opened and is named once in the log', async () => {
    const { transport, manager, seen } = setup([desk({ serial: 'MINE' })])
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'OTHER')
    transport.plug(DeviceModelId.XL, '/dev/hidraw2', 'MINE')
    await manager.start()
    await manager.rescan()
    expect(transport.opened.map((h) => h.info.path)).toEqual(['/dev/hidraw2'])
    expect(transport.lastOpened('/dev/hidraw1')).toBeUndefined()
    expect(seen.added).toEqual(['desk'])
    expect(manager.list().map((d) => [d.id, d.device, d.model])).toEqual([['desk', 'MINE', 'Stream Deck XL']])
    const unclaimed = logs.records.filter((l) => l.message.startsWith('device not claimed'))
    expect(unclaimed).toHaveLength(1)
    expect(unclaimed[0]!.fields).toMatchObject({ device: 'OTHER' })
  })

  it('names input, feedback and status by the configured surface, and gives a returning device its feedback at once', async () => {
    const { transport, manager, seen } = setup([desk({ model: 'original-mk2' })])
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'SER1')
    await manager.start()
    transport.lastOpened('/dev/hidraw1')!.input(gen2KeyReport([3], 15))
    expect(seen.input.map((e) => `${e.surface}/${e.control} ${e.type}`)).toEqual(['desk/key:3 down'])
    expect(seen.status.at(-1)).toMatchObject({ name: 'desk', device: 'SER1', state: 'open' })

    const feedback: string[] = []
    manager.events.on('feedback', (name, control, fb) => feedback.push(`${name} ${control} ${fb.color}`))
    manager.setFeedback('desk', 'key:2', { color: '#ff0000' })
    expect(feedback).toEqual(['desk key:2 #ff0000'])
    expect(manager.feedbackOf('desk').get('key:2')).toEqual({ color: '#ff0000' })

    // Unplugged and back (a new HID handle): key 2 is drawn again before anything else happens.
    transport.unplug('/dev/hidraw1')
    await manager.rescan()
    expect(seen.removed).toEqual(['desk'])
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'SER1')
    await manager.rescan()
    expect(seen.added).toEqual(['desk', 'desk'])
    const again = transport.lastOpened('/dev/hidraw1')!
    await vi.waitFor(() => expect(decodeGen2KeyImages(again.reports).has(2)).toBe(true))
    const image = decodeGen2KeyImages(again.reports).get(2)!.at(-1)!
    expect([...image.rgba.subarray(0, 3)]).toEqual([0xff, 0, 0])
  })

  it('reports a claimed device that is absent as waiting, then opens it when it appears', async () => {
    const { transport, manager, seen } = setup([desk({ serial: 'LATER' })])
    await manager.start()
    expect(manager.statuses()).toEqual([
      { name: 'desk', driver: 'streamdeck', state: 'waiting', message: 'no matching device found yet' },
    ])
    await manager.rescan()
    // One status per change, not per scan.
    expect(seen.status.filter((s) => s.state === 'waiting')).toHaveLength(1)
    transport.plug(DeviceModelId.PLUS, '/dev/hidraw9', 'LATER')
    await manager.rescan()
    expect(manager.isOpen('desk')).toBe(true)
    expect(manager.statuses()).toMatchObject([{ name: 'desk', device: 'LATER', state: 'open', model: 'Stream Deck +' }])
  })

  it('detects only with the drivers some claim names, and starts hot-plug only once a claim needs a driver', async () => {
    const transport = new MemoryStreamDeckTransport()
    const decks = deckDriver(transport)
    const shuttles = new ShuttleDriver({ transport: new MemoryShuttleTransport() })
    const deckScans = vi.spyOn(decks, 'detect')
    const shuttleScans = vi.spyOn(shuttles, 'detect')
    const hotplug = new FakeHotplug()
    const starts = vi.spyOn(hotplug, 'start')
    // Only a web surface configured: no claims at all.
    const manager = new SurfaceManager({
      drivers: [decks, shuttles],
      claims: [],
      hotplug,
      access: () => Promise.resolve('ok'),
      rescanDelaysMs: [0],
    })
    onTestFinished(() => manager.stop())
    await manager.start()
    await manager.rescan()
    expect([starts.mock.calls.length, deckScans.mock.calls.length, shuttleScans.mock.calls.length]).toEqual([0, 0, 0])

    // A reload claims a Stream Deck: hot-plug starts, and only the Stream Deck driver detects.
    transport.plug(DeviceModelId.XL, '/dev/hidraw2', 'MINE')
    await manager.setClaims([desk({ serial: 'MINE' })])
    await vi.waitFor(() => expect(manager.isOpen('desk')).toBe(true))
    await manager.rescan()
    expect(starts).toHaveBeenCalledTimes(1)
    expect(deckScans.mock.calls.length).toBeGreaterThanOrEqual(2)
    expect(shuttleScans).not.toHaveBeenCalled()

    // Claiming a Shuttle too: its driver joins the scans; hot-plug is not started twice.
    await manager.setClaims([desk({ serial: 'MINE' }), { name: 'wheel', driver: 'shuttle', match: { any: true } }])
    expect(shuttleScans).toHaveBeenCalled()
    expect(starts).toHaveBeenCalledTimes(1)
  })

  it('a reload before start() starts nothing: hot-plug waits for start()', async () => {
    const transport = new MemoryStreamDeckTransport()
    const decks = deckDriver(transport)
    const hotplug = new FakeHotplug()
    const starts = vi.spyOn(hotplug, 'start')
    const manager = new SurfaceManager({ drivers: [decks], claims: [], hotplug, access: () => Promise.resolve('ok') })
    onTestFinished(() => manager.stop())
    await manager.setClaims([desk({ any: true })])
    expect(starts).not.toHaveBeenCalled()
    await manager.start()
    expect(starts).toHaveBeenCalledTimes(1)
  })

  it('refuses one device claimed by two surfaces, a name used twice, and a claim of nothing', () => {
    const claims = [
      desk({ serial: 'X' }),
      desk({ serial: ' X ' }, 'replay'),
      desk({}, 'nothing'),
      desk({ any: true }, 'desk'),
    ]
    expect(validateClaims(claims)).toEqual([
      { name: 'replay', message: 'claims streamdeck serial  X , already claimed by desk' },
      { name: 'nothing', message: 'claims no device: give serial, model, vendor/product id, or any: true' },
      { name: 'desk', message: 'is configured twice' },
    ])
    expect(() => new SurfaceManager({ drivers: [], claims })).toThrow(SurfaceClaimError)
    // The same serial on two drivers is two devices.
    expect(validateClaims([desk({ serial: 'X' }), { name: 'pad', driver: 'xkeys', match: { serial: 'X' } }])).toEqual(
      [],
    )
  })

  it('serves serial claims before model and any claims, whatever their order in the file', async () => {
    const { transport, manager } = setup([
      desk({ any: true }, 'spare'),
      desk({ model: 'xl' }, 'big'),
      desk({ serial: 'B' }, 'main'),
    ])
    transport.plug(DeviceModelId.XL, '/dev/a', 'A')
    transport.plug(DeviceModelId.XL, '/dev/b', 'B')
    transport.plug(DeviceModelId.MINI, '/dev/c', 'C')
    await manager.start()
    expect(Object.fromEntries(manager.list().map((d) => [d.id, d.device]))).toEqual({ main: 'B', big: 'A', spare: 'C' })
  })

  it('matches by vendor and product id, and by model id or display name', () => {
    const plus = device({ id: 'S', model: 'Stream Deck +', modelId: 'plus', vendorId: 0x0fd9, productId: 0x84 })
    expect(claimMatches({ vendorId: 0x0fd9, productId: 0x84 }, plus)).toBe(true)
    expect(claimMatches({ vendorId: 0x0fd9, productId: 0x85 }, plus)).toBe(false)
    expect(claimMatches({ model: 'PLUS' }, plus)).toBe(true)
    expect(claimMatches({ model: 'stream deck +' }, plus)).toBe(true)
    expect(claimMatches({ model: 'xl' }, plus)).toBe(false)
    expect(claimMatches({ serial: 'S' }, plus)).toBe(false) // no serial listed
    expect(claimMatches({}, plus)).toBe(false)
  })

  it('setClaims closes only the surfaces whose claim changed, and opens what the new claims take', async () => {
    const { transport, manager, seen } = setup([desk({ serial: 'A' }, 'one'), desk({ serial: 'B' }, 'two')])
    transport.plug(DeviceModelId.XL, '/dev/a', 'A')
    transport.plug(DeviceModelId.XL, '/dev/b', 'B')
    transport.plug(DeviceModelId.XL, '/dev/c', 'C')
    await manager.start()
    const a = transport.lastOpened('/dev/a')!
    await expect(manager.setClaims([desk({ serial: 'A' }, 'one'), desk({ serial: 'A' }, 'dup')])).rejects.toThrow(
      SurfaceClaimError,
    )
    expect(manager.isOpen('two')).toBe(true) // a refused change changes nothing
    await manager.setClaims([desk({ serial: 'A' }, 'one'), desk({ serial: 'C' }, 'three')])
    expect(a.closed).toBe(false)
    expect(transport.lastOpened('/dev/b')!.closed).toBe(true)
    const open = manager.list().map((d) => `${d.id}=${d.device}`)
    expect(open.sort()).toEqual(['one=A', 'three=C'])
    expect(seen.removed).toEqual(['two'])
    const named = manager.statuses().map((s) => s.name)
    expect(named.sort()).toEqual(['one', 'three'])
  })
})

describe('assignClaims (the one hand-out of the manager, devices and learn)', () => {
  const deck = (id: string, extra: Partial<DetectedDevice> = {}): DetectedDevice => ({
    driver: 'streamdeck',
    id,
    model: 'Stream Deck XL',
    modelId: 'xl',
    ...extra,
  })
  const names = (m: Map<string, { name: string }>): Record<string, string> =>
    Object.fromEntries([...m].map(([id, a]) => [id, a.name]))

  it('serves by rank, then config order, each taking the first free matching device by id', () => {
    const claims = [desk({ any: true }, 'spare'), desk({ model: 'xl' }, 'big'), desk({ serial: 'B' }, 'main')]
    // Listed in another order than by id: the hand-out does not depend on detection order.
    const devices = [deck('C', { modelId: 'mini', model: 'Stream Deck Mini' }), deck('B', { serial: 'B' }), deck('A')]
    expect(names(assignClaims(claims, devices))).toEqual({ B: 'main', A: 'big', C: 'spare' })
    expect(assignClaims(claims, devices).get('A')?.device).toBe(devices[2])
  })

  it('keeps the device a surface holds while it still matches, and takes only devices of its driver', () => {
    const claims = [desk({ any: true }, 'one'), desk({ any: true }, 'two')]
    const devices = [deck('A'), deck('B'), { driver: 'shuttle', id: '0', model: 'ShuttleXpress' }]
    expect(names(assignClaims(claims, devices))).toEqual({ A: 'one', B: 'two' })
    expect(names(assignClaims(claims, devices, (n) => (n === 'one' ? 'B' : undefined)))).toEqual({ B: 'one', A: 'two' })
    // A held device that no longer matches is not kept.
    const serial = [desk({ serial: 'S' }, 'one')]
    expect(names(assignClaims(serial, [deck('A'), deck('S', { serial: 'S' })], () => 'A'))).toEqual({ S: 'one' })
  })
})

describe('claims: matching and validation', () => {
  logs.capture('debug')

  it('matches a serial with surrounding blanks on either side', () => {
    expect(claimMatches({ serial: 'AAA' }, device({ serial: '  AAA ' }))).toBe(true)
    expect(claimMatches({ serial: ' AAA ' }, device({ serial: 'AAA' }))).toBe(true)
    expect(claimMatches({ serial: 'AAA' }, device({ serial: 'AAB' }))).toBe(false)
    expect(claimMatches({ serial: 'AAA' }, device({}))).toBe(false)
  })

  it('matches a model by display name when the device has no model id', () => {
    expect(claimMatches({ model: 'deck' }, device({}))).toBe(true)
    expect(claimMatches({ model: 'other' }, device({}))).toBe(false)
  })

  it('a vendor id or a product id alone is a claim, and each must match', () => {
    expect(claimMatches({ vendorId: 0x0fd9 }, device({ vendorId: 0x0fd9 }))).toBe(true)
    expect(claimMatches({ vendorId: 0x0fd9 }, device({ vendorId: 0x1234 }))).toBe(false)
    expect(claimMatches({ productId: 0x60 }, device({ productId: 0x60 }))).toBe(true)
    expect(claimMatches({ productId: 0x60 }, device({ productId: 0x61 }))).toBe(false)
    expect(validateClaims([claim('a', { vendorId: 0x0fd9 }), claim('b', { productId: 0x60 })])).toEqual([])
  })

  it('names every problem in the error, and the error is a SurfaceClaimError', () => {
    let caught: unknown
    try {
      new SurfaceManager({ claims: [claim('a', { any: true }), claim('a', {})], hotplug: new FakeHotplug() })
    } catch (err) {
      caught = err
    }
    expect(caught).toBeInstanceOf(SurfaceClaimError)
    expect((caught as SurfaceClaimError).name).toBe('SurfaceClaimError')
    expect((caught as SurfaceClaimError).message).toBe(
      'surface a: is configured twice; surface a: claims no device: give serial, model, vendor/product id, or any: true',
    )
  })

  it('a port or a unit id alone is a claim; a port matches part of the device port, case and blanks aside', () => {
    expect(validateClaims([claim('p', { port: 'usb-1' }), claim('u', { unitId: 3 })])).toEqual([])
    expect(claimMatches({ port: ' USB-1 ' }, device({ port: 'pci/usb-1.2' }))).toBe(true)
    expect(claimMatches({ port: 'usb-1' }, device({ port: 'PCI/USB-1.2' }))).toBe(true)
    expect(claimMatches({ port: 'usb-2' }, device({ port: 'pci/usb-1.2' }))).toBe(false)
    expect(claimMatches({ port: 'usb-1' }, device({}))).toBe(false)
    expect(claimMatches({ unitId: 3 }, device({ unitId: 3 }))).toBe(true)
    expect(claimMatches({ unitId: 3 }, device({ unitId: 4 }))).toBe(false)
    expect(claimMatches({ unitId: 3 }, device({}))).toBe(false)
    expect(claimMatches({ model: 'deck' }, device({ unitId: 4 }))).toBe(true)
  })
})

describe('claims: which device each surface takes', () => {
  logs.capture('debug')

  it('hands devices out by id order, and same-rank claims in file order', async () => {
    const driver = new ListDriver()
    for (const id of ['C', 'A', 'B']) driver.plug(id)
    const { manager } = manage([driver], { claims: [claim('first', { any: true }), claim('second', { any: true })] })
    await manager.start()
    expect(manager.list().map((d) => `${d.id}=${d.device}`)).toEqual(['first=A', 'second=B'])
  })

  it("never gives a claim another driver's device", async () => {
    const driver = new ListDriver()
    driver.plug('A')
    // A claim of this driver that takes nothing keeps the driver detecting.
    const claims = [claim('mine', { serial: 'S' }), claim('elsewhere', { any: true }, 'other')]
    const { manager, status } = manage([driver], { claims })
    await manager.start()
    expect(driver.detects).toBe(1)
    expect(manager.list()).toEqual([])
    expect(driver.opened).toHaveLength(0)
    expect(status.filter((s) => s.name === 'elsewhere')).toEqual([])
  })

  it('keeps the device a surface holds when a device earlier by id appears', async () => {
    const driver = new ListDriver()
    driver.plug('B')
    const { manager, hotplug } = manage([driver], { claims: [claim('desk', { any: true })] })
    await manager.start()
    driver.plug('A')
    hotplug.fire('attach')
    await manager.rescan()
    expect(manager.list().map((d) => d.device)).toEqual(['B'])
    expect(driver.opened).toHaveLength(1)
  })

  it('reports waiting under the driver of the claim, and only for claims that got no device', async () => {
    const list = new ListDriver()
    const other = new ListDriver('other')
    list.plug('A')
    const { manager, status } = manage([list, other], {
      claims: [claim('desk', { any: true }), claim('far', { any: true }, 'other')],
    })
    await manager.start()
    expect(status.filter((s) => s.state === 'waiting')).toEqual([
      { name: 'far', driver: 'other', state: 'waiting', message: 'no matching device found yet' },
    ])
  })

  it('names each unclaimed device once in the log', async () => {
    const driver = new ListDriver()
    for (const id of ['A', 'B', 'C']) driver.plug(id)
    const { manager } = manage([driver], { claims: [claim('desk', { serial: 'none' })] })
    await manager.start()
    await manager.rescan()
    const unclaimed = logs.startingWith('device not claimed by any surface; left to other software')
    expect(unclaimed.map((l) => l.level)).toEqual(['info', 'info', 'info'])
    expect(unclaimed.map((l) => l.fields)).toEqual(
      ['A', 'B', 'C'].map((id) => ({ driver: 'list', model: `Model ${id}`, device: id })),
    )
  })

  it('another device showing up under the same id closes the surface that claimed the first', async () => {
    const driver = new ListDriver()
    driver.plug('A', { serial: 'S1' })
    const { manager, removed } = manage([driver], { claims: [claim('deck', { serial: 'S1' })] })
    await manager.start()
    expect(manager.isOpen('deck')).toBe(true)
    driver.devices = []
    driver.plug('A', { serial: 'S2' })
    await manager.rescan()
    expect(manager.isOpen('deck')).toBe(false)
    expect(removed).toEqual(['deck'])
  })
})

describe('setClaims', () => {
  logs.capture('debug')

  it("from 'all' to named claims and back: surfaces reopen under their new names", async () => {
    const { manager, added, removed } = await startedList(['A'])
    expect(manager.list()).toEqual([{ id: 'A', driver: 'list', model: 'Model A', controls: [] }])
    await manager.setClaims([claim('desk', { any: true })])
    expect(manager.list().map((d) => `${d.id}=${d.device}`)).toEqual(['desk=A'])
    await manager.setClaims('all')
    expect(manager.list().map((d) => d.id)).toEqual(['A'])
    expect([added, removed]).toEqual([
      ['A', 'desk', 'A'],
      ['A', 'desk'],
    ])
  })

  it("'all' again leaves every surface open untouched", async () => {
    const { driver, manager } = await startedList(['A'])
    await manager.setClaims('all')
    expect(driver.opened).toHaveLength(1)
    expect(driver.last('A').closed).toBe(false)
  })

  it('closes a surface whose claim changed even when it still takes the same device, and keeps an unchanged one', async () => {
    const driver = new ListDriver()
    driver.plug('A', { serial: 'SA' })
    driver.plug('B', { serial: 'SB' })
    const { manager } = manage([driver], { claims: [claim('a', { serial: 'SA' }), claim('b', { serial: 'SB' })] })
    await manager.start()
    await manager.setClaims([claim('a', { model: 'Model A' }), claim('b', { serial: 'SB' })])
    expect(driver.opened.map((s) => `${s.description.id}:${s.closed}`)).toEqual(['A:true', 'B:false', 'A:false'])
  })

  it('a new serial claim takes the device an any-claim holds; the any-claim gives it up', async () => {
    const driver = new ListDriver()
    driver.plug('A', { serial: 'SA' })
    const { manager } = manage([driver], { claims: [claim('spare', { any: true })] })
    await manager.start()
    await manager.setClaims([claim('spare', { any: true }), claim('main', { serial: 'SA' })])
    expect(manager.list().map((d) => `${d.id}=${d.device}`)).toEqual(['main=A'])
  })

  it('forgets the status of a surface no longer configured, and keeps a configured one that is waiting', async () => {
    const driver = new ListDriver()
    const { manager } = manage([driver], { claims: [claim('gone', { any: true }), claim('kept', { serial: 'X' })] })
    await manager.start()
    expect(manager.statuses().map((s) => s.name)).toEqual(['gone', 'kept'])
    await manager.setClaims([claim('kept', { serial: 'X' })])
    expect(manager.statuses().map((s) => s.name)).toEqual(['kept'])
    await manager.setClaims('all')
    expect(manager.statuses()).toEqual([])
  })

  it("refuses contradicting claims and keeps the old ones; accepts 'all'", async () => {
    const driver = new ListDriver()
    driver.plug('A')
    const { manager } = manage([driver], { claims: [claim('desk', { any: true })] })
    await manager.start()
    await expect(manager.setClaims([claim('x', {})])).rejects.toBeInstanceOf(SurfaceClaimError)
    expect(manager.list().map((d) => d.id)).toEqual(['desk'])
    await manager.setClaims('all')
    expect(manager.list().map((d) => d.id)).toEqual(['A'])
  })

  it("setClaims('all') keeps the status of a surface that stays open", async () => {
    const { manager } = await startedList(['A'])
    await manager.setClaims('all')
    expect(manager.statuses().map((s) => [s.name, s.state])).toEqual([['A', 'open']])
  })

  it("from 'all' to a claim named like the device: the surface is closed and reopened under the claim", async () => {
    const driver = new ListDriver()
    driver.plug('A', { serial: 'S' })
    const { manager, added, removed } = manage([driver])
    await manager.start()
    await manager.setClaims([claim('A', { serial: 'S' })])
    expect(removed).toEqual(['A'])
    expect(added).toEqual(['A', 'A'])
    expect(driver.opened.map((s) => s.closed)).toEqual([true, false])
  })

  it('a reload keeps the failed status of a configured surface waiting out its backoff', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const driver = new ListDriver()
    driver.plug('A')
    driver.failOpen = new Error('busy')
    const claims = [claim('deck', { any: true }), claim('other', { serial: 'none' })]
    const { manager } = manage([driver], { claims })
    await manager.start()
    await manager.setClaims([...claims])
    expect(driver.opened).toHaveLength(0)
    expect(manager.statuses().map((s) => [s.name, s.state])).toEqual([
      ['other', 'waiting'],
      ['deck', 'failed'],
    ])
  })
})
