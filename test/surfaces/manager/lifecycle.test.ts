/**
 * The surface manager from start to stop: what start() opens, scans one at a time (a rescan asked for
 * during one is served by one more), stop() waiting for a scan and closing what opens meanwhile, and the
 * listeners it owns (it removes its own, never what another component added).
 * Cases from the former manager.test.ts, over Stream Decks.
 * Cases from the former claims.test.ts (listener ownership, Groundwork item 4).
 * Cases from the former manager-mutants.test.ts (mutation survivors), over ListDrivers.
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { SurfaceManager } from '../../../src/surfaces/manager.js'
import type { Surface } from '../../../src/surfaces/types.js'
import { WebSurface } from '../../../src/surfaces/web/web-surface.js'
import { gen2KeyReport } from '../helpers/fake-hid.js'
import { FakeHotplug } from '../helpers/fake-hotplug.js'
import { MANAGER_CLOCK, deckManaged, deckRig, manage, startedList, useManagerLogs } from '../helpers/manager.js'
import { startedDeckRig } from '../helpers/manager.js'
import { ListDriver, gate } from '../helpers/surfaces.js'

const logs = useManagerLogs()

describe('start and stop over Stream Decks', () => {
  logs.capture()

  it('opens the devices present at start and forwards their input', async () => {
    const { transport, manager, events } = deckRig()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'AAA')
    transport.plug(DeviceModelId.XL, '/dev/hidraw2') // no serial: vendor:product@path
    await manager.start()
    const ids = manager.list().map((d) => d.id)
    expect(ids.sort()).toEqual(['0fd9:006c@/dev/hidraw2', 'AAA'])
    expect(events.added.sort()).toEqual(['0fd9:006c@/dev/hidraw2', 'AAA'])
    transport.lastOpened('/dev/hidraw1')!.input(gen2KeyReport([4], 15))
    expect(events.input.map((e) => `${e.surface} ${e.type} ${e.control}`)).toEqual(['AAA down key:4'])
  })

  it("stop() blanks and closes every surface, stops hot-plug, keeps others' listeners, and is idempotent", async () => {
    const { transport, hotplug, manager, events } = await startedDeckRig()
    const hid = transport.lastOpened('/dev/hidraw1')!
    await Promise.all([manager.stop(), manager.stop()])
    await manager.stop()
    expect(hid.closed).toBe(true)
    expect(hid.features.some((f) => f[0] === 0x03 && f[1] === 0x05)).toBe(true) // cleared
    expect(events.removed).toEqual(['AAA'])
    expect(hotplug.stops).toBe(1)
    // The listeners deckRig() added belong to the test, not to the manager: they stay.
    expect(manager.events.listenerCount('input')).toBe(1)
    expect(manager.events.listenerCount('added')).toBe(1)
    transport.plug(DeviceModelId.XL, '/dev/hidraw2', 'AFTER')
    await manager.rescan()
    expect(transport.opened).toHaveLength(1)
  })
})

/** A manager over Stream Decks with no claims, for surfaces added by hand. */
const OWNERSHIP = { claims: [], rescanDelaysMs: [0], retryInitialMs: 30, retryMaxMs: 200 }

describe('listener ownership', () => {
  logs.capture()

  it('removed never fires for a surface that was never added', async () => {
    const { manager, ...seen } = deckManaged(OWNERSHIP)
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
    const { manager } = deckManaged(OWNERSHIP)
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

describe('start, scans and stop', () => {
  logs.capture('debug')

  it('without drivers starts no hot-plug source and logs nothing', async () => {
    const hotplug = new FakeHotplug()
    const manager = new SurfaceManager({ hotplug, access: () => Promise.resolve('ok') })
    onTestFinished(() => manager.stop())
    await manager.start()
    expect(hotplug.listener).toBeUndefined()
    expect(logs.records.filter((l) => l.level !== 'debug')).toEqual([])
  })

  it('logs under the scope "surfaces" by default', async () => {
    const driver = new ListDriver()
    driver.plug('A')
    const manager = new SurfaceManager({
      drivers: [driver],
      hotplug: new FakeHotplug(),
      access: () => Promise.resolve('ok'),
    })
    onTestFinished(() => manager.stop())
    await manager.start()
    expect(logs.records.find((l) => l.message === 'surface open')).toEqual({
      level: 'info',
      scope: 'surfaces',
      message: 'surface open',
      fields: { surface: 'A', device: 'A', driver: 'list', model: 'Model A' },
    })
  })

  it('a second start() does nothing: one detection, one poll', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const { driver, manager } = await startedList([], { live: false })
    await manager.start()
    expect(driver.detects).toBe(1)
    await vi.advanceTimersByTimeAsync(50)
    expect(driver.detects).toBe(2)
  })

  it('rescans asked for during a scan are served by one more scan', async () => {
    const { driver, manager } = await startedList()
    const slow = gate()
    driver.detectGate = slow.done
    const scans = [manager.rescan(), manager.rescan(), manager.rescan()]
    driver.detectGate = undefined
    slow.open()
    await Promise.all(scans)
    expect(driver.detects).toBe(3) // the start's scan, the first rescan, and one for the two asked during it
  })

  it('stop() waits for a scan in progress and scans no further driver', async () => {
    const first = new ListDriver('first')
    const second = new ListDriver('second')
    const { manager } = manage([first, second])
    await manager.start()
    const slow = gate()
    first.detectGate = slow.done
    const scan = manager.rescan()
    let stopped = false
    const stopping = manager.stop().then(() => (stopped = true))
    expect(first.detects).toBe(2)
    // Why a turn of the loop: every microtask runs first, so a stop() that did not wait would be done.
    await new Promise((resolve) => setImmediate(resolve))
    expect(stopped).toBe(false)
    slow.open()
    await Promise.all([scan, stopping])
    expect(second.detects).toBe(1)
  })

  it('stop() clears the poll, the retry and the hot-plug timers; later hot-plug changes are ignored', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const driver = new ListDriver()
    driver.plug('A')
    driver.failOpen = new Error('busy')
    const { manager, hotplug } = manage([driver], { live: false })
    const listener = vi.fn()
    await manager.start()
    const h = hotplug.listener!
    h('attach')
    expect(vi.getTimerCount()).toBe(5) // poll, retry, three hot-plug rescans
    await manager.stop()
    expect(vi.getTimerCount()).toBe(0)
    h('attach')
    listener()
    expect(vi.getTimerCount()).toBe(0)
    expect(listener).toHaveBeenCalledOnce()
  })

  it('a surface opened after stop() began is closed, never added', async () => {
    const driver = new ListDriver()
    driver.plug('A')
    const opening = gate()
    driver.openGate = opening.done
    const { manager, added } = manage([driver])
    const starting = manager.start()
    await vi.waitFor(() => expect(driver.detects).toBe(1))
    const stopping = manager.stop()
    opening.open()
    await Promise.all([starting, stopping])
    expect(driver.opened.map((s) => s.closed)).toEqual([true])
    expect(added).toEqual([])
  })

  it('a surface that fails after stop() began gets no failed status and no retry', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const { driver, manager, status } = await startedList(['A'])
    driver.last('A').hub.emit('error', new Error('EIO'))
    await manager.stop()
    await vi.advanceTimersByTimeAsync(1000)
    expect(status.map((s) => s.state)).toEqual(['open', 'closed'])
    expect(vi.getTimerCount()).toBe(0)
  })

  it('rescan() after stop() began resolves at once, without waiting for the scan in progress', async () => {
    const { driver, manager } = await startedList()
    const slow = gate()
    driver.detectGate = slow.done
    const scan = manager.rescan()
    const stopping = manager.stop()
    let done = false
    const late = manager.rescan().then(() => (done = true))
    await new Promise((resolve) => setImmediate(resolve))
    expect(done).toBe(true)
    slow.open()
    await Promise.all([scan, stopping, late])
  })

  it('a surface opened after stop() began is closed, and no further device is opened', async () => {
    const driver = new ListDriver()
    driver.plug('A')
    driver.plug('B')
    const opening = gate()
    driver.openGate = opening.done
    const { manager } = manage([driver])
    const starting = manager.start()
    await vi.waitFor(() => expect(driver.detects).toBe(1))
    const stopping = manager.stop()
    opening.open()
    await Promise.all([starting, stopping])
    expect(driver.opened.map((s) => [s.description.id, s.closed])).toEqual([['A', true]])
  })

  it('logs the unplug of an open surface', async () => {
    const { driver, manager } = await startedList(['A'])
    driver.unplug('A')
    await manager.rescan()
    expect(logs.records.find((l) => l.message === 'surface unplugged')?.fields).toEqual({ surface: 'A', device: 'A' })
  })

  it("one driver's scan leaves another driver's surfaces open", async () => {
    const one = new ListDriver('one')
    const two = new ListDriver('two')
    one.plug('A')
    two.plug('B')
    const { manager } = manage([one, two])
    await manager.start()
    await manager.rescan()
    expect(manager.list().map((d) => d.id)).toEqual(['A', 'B'])
    expect([one.opened.length, two.opened.length]).toEqual([1, 1])
  })
})
