/**
 * Claimed devices and named surfaces (Groundwork item 2) and listener ownership (item 4) in the
 * surface manager: only claimed devices are opened, everything leaves the manager under the configured
 * name, absent devices are `waiting`, contradictions are refused.
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { setLogSink, type LogRecord, type LogSink } from '../../src/log.js'
import {
  SurfaceClaimError,
  assignClaims,
  claimMatches,
  validateClaims,
  type SurfaceClaim,
} from '../../src/surfaces/claims.js'
import { SurfaceManager, type SurfaceStatus } from '../../src/surfaces/manager.js'
import { KeyRenderer } from '../../src/surfaces/render/key-renderer.js'
import { ShuttleDriver } from '../../src/surfaces/shuttle/driver.js'
import { StreamDeckDriver } from '../../src/surfaces/streamdeck/driver.js'
import type { HotplugChange, HotplugSource } from '../../src/surfaces/hotplug.js'
import type { DetectedDevice, Surface, SurfaceEvent } from '../../src/surfaces/types.js'
import { WebSurface } from '../../src/surfaces/web/web-surface.js'
import { MemoryStreamDeckTransport, decodeGen2KeyImages, gen2KeyReport, rawImageEncoder } from './helpers/fake-hid.js'
import { MemoryShuttleTransport } from './helpers/fake-shuttle.js'

class Hotplug implements HotplugSource {
  listener: ((c: HotplugChange) => void) | undefined
  start(listener: (c: HotplugChange) => void): Promise<boolean> {
    this.listener = listener
    return Promise.resolve(true)
  }
  stop(): void {
    this.listener = undefined
  }
}

const renderer = new KeyRenderer()
let logs: LogRecord[]
let prevSink: LogSink
let managers: SurfaceManager[]
beforeEach(() => {
  logs = []
  managers = []
  prevSink = setLogSink((r) => logs.push(r))
})
afterEach(async () => {
  await Promise.all(managers.map((m) => m.stop()))
  setLogSink(prevSink)
})

function setup(claims: readonly SurfaceClaim[]) {
  const transport = new MemoryStreamDeckTransport()
  const driver = new StreamDeckDriver({ transport, renderer, encodeJPEG: rawImageEncoder, frameMs: 0 })
  const manager = new SurfaceManager({
    drivers: [driver],
    claims,
    hotplug: new Hotplug(),
    access: () => Promise.resolve('ok'),
    rescanDelaysMs: [0],
    retryInitialMs: 30,
    retryMaxMs: 200,
  })
  managers.push(manager)
  const seen = {
    input: [] as SurfaceEvent[],
    added: [] as string[],
    removed: [] as string[],
    status: [] as SurfaceStatus[],
  }
  manager.events.on('input', (e) => seen.input.push(e))
  manager.events.on('added', (d) => seen.added.push(d.id))
  manager.events.on('removed', (id) => seen.removed.push(id))
  manager.events.on('status', (s) => seen.status.push(s))
  return { transport, manager, seen }
}

const desk = (match: SurfaceClaim['match'], name = 'desk'): SurfaceClaim => ({ name, driver: 'streamdeck', match })

describe('claims', () => {
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
    const unclaimed = logs.filter((l) => l.message.startsWith('device not claimed'))
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
    const decks = new StreamDeckDriver({ transport, renderer, encodeJPEG: rawImageEncoder, frameMs: 0 })
    const shuttles = new ShuttleDriver({ transport: new MemoryShuttleTransport() })
    const deckScans = vi.spyOn(decks, 'detect')
    const shuttleScans = vi.spyOn(shuttles, 'detect')
    const hotplug = new Hotplug()
    const starts = vi.spyOn(hotplug, 'start')
    // Only a web surface configured: no claims at all.
    const manager = new SurfaceManager({
      drivers: [decks, shuttles],
      claims: [],
      hotplug,
      access: () => Promise.resolve('ok'),
      rescanDelaysMs: [0],
    })
    managers.push(manager)
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
    const decks = new StreamDeckDriver({ transport, renderer, encodeJPEG: rawImageEncoder, frameMs: 0 })
    const hotplug = new Hotplug()
    const starts = vi.spyOn(hotplug, 'start')
    const manager = new SurfaceManager({ drivers: [decks], claims: [], hotplug, access: () => Promise.resolve('ok') })
    managers.push(manager)
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
    const device = {
      driver: 'streamdeck',
      id: 'S',
      model: 'Stream Deck +',
      modelId: 'plus',
      vendorId: 0x0fd9,
      productId: 0x84,
    }
    expect(claimMatches({ vendorId: 0x0fd9, productId: 0x84 }, device)).toBe(true)
    expect(claimMatches({ vendorId: 0x0fd9, productId: 0x85 }, device)).toBe(false)
    expect(claimMatches({ model: 'PLUS' }, device)).toBe(true)
    expect(claimMatches({ model: 'stream deck +' }, device)).toBe(true)
    expect(claimMatches({ model: 'xl' }, device)).toBe(false)
    expect(claimMatches({ serial: 'S' }, device)).toBe(false) // no serial listed
    expect(claimMatches({}, device)).toBe(false)
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
    expect(
      manager
        .list()
        .map((d) => `${d.id}=${d.device}`)
        .sort(),
    ).toEqual(['one=A', 'three=C'])
    expect(seen.removed).toEqual(['two'])
    expect(
      manager
        .statuses()
        .map((s) => s.name)
        .sort(),
    ).toEqual(['one', 'three'])
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

describe('listener ownership', () => {
  it('removed never fires for a surface that was never added', async () => {
    const { manager, seen } = setup([])
    const broken: Surface = new WebSurface({ id: 'web', rows: 1, columns: 1 })
    vi.spyOn(broken, 'setFeedback').mockImplementation(() => {
      throw new Error('cannot draw')
    })
    manager.setFeedback('web', 'key:0', { color: '#ffffff' }) // remembered, re-applied on add: throws
    await manager.start()
    manager.addSurface(broken)
    await vi.waitFor(() => expect(manager.isOpen('web')).toBe(false))
    await vi.waitFor(() => expect(seen.status.at(-1)).toMatchObject({ name: 'web', state: 'closed' }))
    expect(seen.added).toEqual([])
    expect(seen.removed).toEqual([])
  })

  it('closing the manager or a web surface leaves a listener another component added in place', async () => {
    const { manager } = setup([])
    const web = new WebSurface({ id: 'web', rows: 1, columns: 1 })
    await manager.start()
    manager.addSurface(web)
    const theirs = vi.fn()
    manager.events.on('status', theirs)
    web.view.on('message', theirs)
    web.events.on('input', theirs)
    await manager.stop()
    await web.close()
    expect(manager.events.listenerCount('status')).toBe(2) // setup's and theirs
    expect(web.view.listenerCount('message')).toBe(1)
    expect(web.events.listenerCount('input')).toBe(1)
    // The manager's own listener on the web surface is gone.
    expect(web.events.listenerCount('closed')).toBe(0)
  })

  it('readers of the manager and of a surface get no emit', () => {
    const manager = new SurfaceManager({ drivers: [] })
    const web = new WebSurface({ id: 'web', rows: 1, columns: 1 })
    expect('emit' in manager.events).toBe(false)
    expect('emit' in web.events).toBe(false)
    expect('emit' in web.view).toBe(false)
    expect(Object.isFrozen(manager.events)).toBe(true)
  })
})
