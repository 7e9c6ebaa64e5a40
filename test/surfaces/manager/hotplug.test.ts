/**
 * Hot-plug in the surface manager: attach and detach changes rescan (at once and after the delays a late
 * device node needs), detection is polled when there is no hot-plug source or it fails to start, and the
 * real `usb` package as the source.
 * Cases from the former manager.test.ts, over Stream Decks.
 * Cases from the former manager-mutants.test.ts (mutation survivors), over ListDrivers.
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { describe, expect, it, vi } from 'vitest'
import { usbHotplugSource, type HotplugChange } from '../../../src/surfaces/hotplug.js'
import { FakeHotplug } from '../helpers/fake-hotplug.js'
import { MANAGER_CLOCK, WAIT, deckRig, manage, startedList, useManagerLogs } from '../helpers/manager.js'
import { ListDriver, gate } from '../helpers/surfaces.js'

const logs = useManagerLogs()

describe('hot-plug over Stream Decks', () => {
  logs.capture()

  it('follows hot-plug: attach opens the new device, detach closes the one that is gone', async () => {
    const { transport, hotplug, manager, events } = deckRig()
    await manager.start()
    expect(manager.list()).toEqual([])
    transport.plug(DeviceModelId.PLUS, '/dev/hidraw5', 'PLUS1')
    hotplug.fire('attach')
    await expect.poll(() => manager.isOpen('PLUS1'), WAIT).toBe(true)
    expect(events.added).toEqual(['PLUS1'])
    const hid = transport.lastOpened('/dev/hidraw5')!
    transport.unplug('/dev/hidraw5')
    hotplug.fire('detach')
    await expect.poll(() => events.removed.includes('PLUS1'), WAIT).toBe(true)
    expect(manager.list()).toEqual([])
    expect(hid.closed).toBe(true)
  })

  it('rescans after 1 s-style delays: a device node that appears late is still found', async () => {
    const { transport, hotplug, manager } = deckRig() // rescans at 0, 20 and 60 ms after a change
    await manager.start()
    vi.useFakeTimers(MANAGER_CLOCK)
    hotplug.fire('attach') // the USB attach arrives before the HID node exists
    await vi.advanceTimersByTimeAsync(0)
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw7', 'LATE')
    await vi.advanceTimersByTimeAsync(19)
    expect(manager.isOpen('LATE')).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(manager.isOpen('LATE')).toBe(true)
  })

  it('polls detection when no hot-plug events are available', async () => {
    const { transport, manager } = deckRig({ live: false })
    await manager.start()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw3', 'POLL')
    await expect.poll(() => manager.isOpen('POLL'), WAIT).toBe(true)
  })
})

describe('hot-plug and polling', () => {
  logs.capture('debug')

  it('polls when the hot-plug source fails to start, and says so once', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const driver = new ListDriver()
    const hotplug = new FakeHotplug()
    hotplug.start = () => Promise.reject(new Error('no libusb'))
    const { manager } = manage([driver], { hotplug })
    await manager.start()
    await vi.advanceTimersByTimeAsync(100)
    expect(driver.detects).toBe(3)
    expect(logs.records.filter((l) => l.level === 'warn').map((l) => [l.message, l.fields])).toEqual([
      ['hot-plug source failed to start; polling instead', { error: 'no libusb' }],
    ])
  })

  it('does not poll when hot-plug works', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const { driver } = await startedList([], { live: true })
    await vi.advanceTimersByTimeAsync(500)
    expect(driver.detects).toBe(1)
  })

  it('stopped while the hot-plug source starts: no poll and no scan afterwards', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const driver = new ListDriver()
    const hotplug = new FakeHotplug(false)
    const started = gate()
    hotplug.start = async () => {
      await started.done
      return false
    }
    const { manager } = manage([driver], { hotplug })
    const starting = manager.start()
    await manager.stop()
    started.open()
    await starting
    await vi.advanceTimersByTimeAsync(500)
    expect(driver.detects).toBe(0)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('logs each hot-plug change at debug level', async () => {
    const { hotplug } = await startedList()
    hotplug.fire('detach')
    expect(logs.records.find((l) => l.message === 'usb change')).toMatchObject({
      level: 'debug',
      fields: { change: 'detach' },
    })
  })

  it('a new hot-plug change replaces the pending rescans of the last one', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const { driver, hotplug } = await startedList()
    hotplug.fire('attach') // rescans at 0, 20, 60
    await vi.advanceTimersByTimeAsync(10)
    hotplug.fire('attach') // rescans at 10, 30, 70 instead
    await vi.advanceTimersByTimeAsync(100)
    expect(driver.detects).toBe(1 + 1 + 3)
  })
})

describe('usbHotplugSource (real usb package)', () => {
  logs.capture()
  it("is live on Linux, turns the usb package's attach and detach into changes, and stops cleanly", async () => {
    const { usb } = await import('usb')
    const source = usbHotplugSource()
    const changes: HotplugChange[] = []
    // libusb on Linux always has hot-plug support (netlink or udev); the daemon and CI run on Linux.
    expect(await source.start((c) => changes.push(c))).toBe(true)
    expect([usb.listenerCount('attach'), usb.listenerCount('detach')]).toEqual([1, 1])
    usb.emit('attach', {} as never)
    usb.emit('detach', {} as never)
    expect(changes).toEqual(['attach', 'detach'])
    source.stop()
    source.stop()
    expect([usb.listenerCount('attach'), usb.listenerCount('detach')]).toEqual([0, 0])
  })
})
