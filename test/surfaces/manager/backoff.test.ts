/**
 * Faults in the surface manager: a failing device is retried with a growing backoff (capped, and started
 * afresh after stableMs open or an unplug), a driver call that hangs is cut off after callTimeoutMs, one
 * device failing never touches another, and each fault episode is logged once.
 * Cases from the former manager.test.ts, over Stream Decks and drivers that misbehave.
 * Cases from the former manager-mutants.test.ts (mutation survivors), over ListDrivers.
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { DriverTimeoutError, SurfaceManager, type SurfaceStatus } from '../../../src/surfaces/manager.js'
import type { SurfaceDriver } from '../../../src/surfaces/types.js'
import { MemoryStreamDeckTransport, decodeGen2KeyImages } from '../helpers/fake-hid.js'
import { FakeHotplug } from '../helpers/fake-hotplug.js'
import {
  MANAGER_CLOCK,
  WAIT,
  deckDriver,
  deckRig,
  manage,
  managed,
  startedList,
  useManagerLogs,
} from '../helpers/manager.js'
import { ListDriver } from '../helpers/surfaces.js'
import type { DetectedDevice } from '../../../src/face/surface.js'

const logs = useManagerLogs()

/** Every status the manager reports from now on, and a promise for the next one in `state`. */
function statuses(manager: SurfaceManager) {
  const seen: SurfaceStatus[] = []
  let waiter: { state: SurfaceStatus['state']; resolve: (s: SurfaceStatus) => void } | undefined
  manager.events.on('status', (st) => {
    seen.push(st)
    if (waiter && st.state === waiter.state) {
      waiter.resolve(st)
      waiter = undefined
    }
  })
  const next = (state: SurfaceStatus['state']): Promise<SurfaceStatus> =>
    new Promise((resolve) => (waiter = { state, resolve }))
  return { seen, next }
}

/** Device A of driver `one` failing to open (busy), beside a second driver `two` that offers nothing. */
function failingBesideAnotherDriver() {
  const one = new ListDriver('one')
  const two = new ListDriver('two')
  one.plug('A')
  one.failOpen = new Error('busy')
  return { one, ...manage([one, two]) }
}

describe('faults over Stream Decks', () => {
  logs.capture()

  it('a device that errors mid-write is closed and reopened without affecting another device', async () => {
    const { transport, manager, events } = deckRig()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'BAD')
    transport.plug(DeviceModelId.XL, '/dev/hidraw2', 'GOOD')
    await manager.start()
    const bad = transport.lastOpened('/dev/hidraw1')!
    const good = transport.lastOpened('/dev/hidraw2')!
    bad.failWith = Object.assign(new Error('EIO on write'), { code: 'EIO' })
    manager.setFeedback('BAD', 'key:0', { color: '#00ff00' })
    manager.setFeedback('GOOD', 'key:0', { color: '#0000ff' })
    await expect.poll(() => events.removed.includes('BAD'), WAIT).toBe(true)
    expect(bad.closed).toBe(true)
    expect(events.status.find((s) => s.name === 'BAD' && s.state === 'failed')).toMatchObject({
      message: 'EIO on write',
      retryInMs: 30,
    })
    // the other device is untouched and keeps working
    expect(manager.isOpen('GOOD')).toBe(true)
    expect(good.closed).toBe(false)
    await expect.poll(() => good.reports.length, WAIT).toBe(1)
    // after the backoff the failing device is opened afresh and gets its feedback back
    await expect
      .poll(() => manager.isOpen('BAD') && transport.opened.filter((d) => d.info.path === '/dev/hidraw1').length, WAIT)
      .toBe(2)
    const again = transport.lastOpened('/dev/hidraw1')!
    await expect.poll(() => again.reports.length > 0, WAIT).toBe(true)
    expect([...decodeGen2KeyImages(again.reports).get(0)![0]!.rgba.subarray(0, 4)]).toEqual([0, 255, 0, 255])
    expect(
      logs.records.filter((l) => l.message.includes('closed after a fault') && l.fields?.surface === 'BAD'),
    ).toHaveLength(1)
  })

  it('a driver that throws is logged once, retried with growing backoff, and never takes the manager down', async () => {
    let detects = 0
    const opens: number[] = []
    const flaky: SurfaceDriver = {
      name: 'flaky',
      detect: () => {
        detects++
        return Promise.resolve<DetectedDevice[]>([{ driver: 'flaky', id: 'F1', model: 'Flaky', path: '/dev/flaky' }])
      },
      open: () => {
        opens.push(performance.now())
        return Promise.reject(new Error('open failed'))
      },
    }
    const broken: SurfaceDriver = {
      name: 'broken',
      detect: () => Promise.reject(new Error('no bus')),
      open: () => Promise.reject(new Error('unreachable')),
    }
    vi.useFakeTimers(MANAGER_CLOCK)
    const { manager, events } = deckRig({ live: false, drivers: [broken, flaky] })
    await manager.start()
    await vi.advanceTimersByTimeAsync(610)
    // backoff 30, 60, 120, then the 200 ms cap; the 20 ms detection poll in between does not cut it short
    expect(opens).toEqual([0, 30, 90, 210, 410, 610])
    expect(detects).toBeGreaterThan(opens.length)
    expect(events.status.filter((s) => s.name === 'F1').map((s) => s.retryInMs)).toEqual([30, 60, 120, 200, 200, 200])
    expect(logs.records.filter((l) => l.message.startsWith('could not open Flaky'))).toHaveLength(1)
    expect(logs.records.filter((l) => l.message.startsWith('broken: detection failed'))).toHaveLength(1)
  })

  it('a driver call that hangs times out as a fault and does not stall the other drivers', async () => {
    const transport = new MemoryStreamDeckTransport()
    const decks = deckDriver(transport)
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/slow', 'SLOW')
    const hung: SurfaceDriver = {
      name: 'hung',
      detect: () => Promise.resolve([{ driver: 'hung', id: 'H1', model: 'Hung' }]),
      open: () => new Promise(() => undefined),
    }
    // answers, but only after its timeout: the late surface must be closed, not leaked
    const slow: SurfaceDriver = {
      name: 'slow',
      detect: () => decks.detect(),
      open: async (d) => {
        await new Promise((r) => setTimeout(r, 150))
        return decks.open(d)
      },
    }
    const other = new MemoryStreamDeckTransport()
    other.plug(DeviceModelId.XL, '/dev/fine', 'FINE')
    const fine = deckDriver(other)
    const hotplug = new FakeHotplug()
    const manager = new SurfaceManager({
      drivers: [hung, slow, fine],
      hotplug,
      access: () => Promise.resolve('ok'),
      callTimeoutMs: 50,
      retryInitialMs: 5000,
    })
    onTestFinished(() => manager.stop())
    const status: SurfaceStatus[] = []
    manager.events.on('status', (st) => status.push(st))
    await manager.start()
    expect(manager.isOpen('FINE')).toBe(true)
    expect(manager.isOpen('SLOW')).toBe(false)
    expect(status.find((st) => st.name === 'H1')).toMatchObject({
      state: 'failed',
      message: 'hung: open H1 did not answer within 50 ms',
    })
    expect(status.find((st) => st.name === 'SLOW')).toMatchObject({ state: 'failed' })
    await expect.poll(() => transport.lastOpened('/dev/slow')?.closed === true, WAIT).toBe(true)
  })

  it('cuts off a detect() that hangs after callTimeoutMs and still scans the other drivers', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const hung: SurfaceDriver = {
      name: 'hung',
      detect: () => new Promise<DetectedDevice[]>(() => undefined),
      open: () => Promise.reject(new Error('never detected, never opened')),
    }
    const transport = new MemoryStreamDeckTransport()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'FINE')
    const deck = deckDriver(transport)
    const manager = new SurfaceManager({
      drivers: [hung, deck],
      hotplug: new FakeHotplug(),
      access: () => Promise.resolve('ok'),
      callTimeoutMs: 500,
    })
    onTestFinished(() => manager.stop())
    let started = false
    const start = manager.start().then(() => (started = true))
    await vi.advanceTimersByTimeAsync(499)
    expect([started, manager.isOpen('FINE')]).toEqual([false, false])
    await vi.advanceTimersByTimeAsync(1)
    expect([started, manager.isOpen('FINE')]).toEqual([true, true])
    await start
    const failed = logs.records.filter((l) => l.message === 'hung: detection failed; will try again')
    expect(failed.map((l) => l.fields?.error)).toEqual(['hung: detect did not answer within 500 ms'])
  })

  it('starts the backoff afresh once a device has stayed open for stableMs', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const transport = new MemoryStreamDeckTransport()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'AAA')
    const driver = deckDriver(transport)
    const { manager } = managed({
      drivers: [driver],
      retryInitialMs: 100,
      retryMaxMs: 10_000,
      stableMs: 1000,
    })
    const status = statuses(manager)
    await manager.start()
    /** Keeps the device open for `openMs`, then fails it; resolves with the retry delay the manager chose. */
    const failAfter = async (openMs: number): Promise<number | undefined> => {
      await vi.advanceTimersByTimeAsync(openMs)
      expect(manager.isOpen('AAA')).toBe(true)
      const failed = status.next('failed')
      transport.lastOpened('/dev/hidraw1')!.emit('error', new Error('EIO'))
      return (await failed).retryInMs
    }
    /** Waits out a retry delay to the millisecond and checks that the device reopens exactly then. */
    const reopenAfter = async (delay: number): Promise<void> => {
      await vi.advanceTimersByTimeAsync(delay - 1)
      expect(manager.isOpen('AAA')).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      expect(manager.isOpen('AAA')).toBe(true)
    }
    expect(await failAfter(0)).toBe(100)
    await reopenAfter(100)
    expect(await failAfter(0)).toBe(200)
    await reopenAfter(200)
    expect(await failAfter(999)).toBe(400) // one millisecond short of stable: the backoff keeps growing
    await reopenAfter(400)
    expect(await failAfter(1000)).toBe(100) // stable: the next backoff starts from the beginning
    await reopenAfter(100)
  })
})

describe('backoff and log episodes', () => {
  logs.capture('debug')

  it('a DriverTimeoutError carries its name, code and message', () => {
    const err = new DriverTimeoutError('deck: detect', 250)
    expect([err.name, err.code, err.message]).toEqual([
      'DriverTimeoutError',
      'ETIMEDOUT',
      'deck: detect did not answer within 250 ms',
    ])
  })

  it('an unplugged device forgets its backoff: plugged back, it is opened at once and its retry timer does no harm', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const { driver, manager, status } = await startedList(['A'], { failOpen: new Error('busy') })
    await vi.advanceTimersByTimeAsync(100) // retry 1 fails: next delay 200
    expect(status.filter((s) => s.state === 'failed').map((s) => s.retryInMs)).toEqual([100, 200])
    driver.unplug('A')
    await manager.rescan()
    driver.plug('A')
    await manager.rescan() // opened at once: the backoff was forgotten, so it starts again at 100
    expect(status.filter((s) => s.state === 'failed').map((s) => s.retryInMs)).toEqual([100, 200, 100])
    driver.failOpen = undefined
    await vi.advanceTimersByTimeAsync(99)
    expect(manager.isOpen('A')).toBe(false) // the stale 200 ms timer of the first episode was cleared
    await vi.advanceTimersByTimeAsync(1)
    expect(manager.isOpen('A')).toBe(true)
  })

  it('a retry timer that fires after its device was forgotten does nothing', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const { driver, manager } = await startedList(['A'], { failOpen: new Error('busy') })
    driver.unplug('A')
    await manager.rescan()
    await vi.advanceTimersByTimeAsync(200)
    expect(driver.detects).toBe(3)
    expect(manager.isOpen('A')).toBe(false)
  })

  it('a detection failure is logged again after detection worked in between', async () => {
    const { driver, manager } = await startedList()
    const detect = driver.detect.bind(driver)
    driver.detect = () => Promise.reject(new Error('bus gone'))
    await manager.rescan()
    await manager.rescan()
    driver.detect = detect
    await manager.rescan()
    driver.detect = () => Promise.reject(new Error('bus gone'))
    await manager.rescan()
    expect(logs.startingWith('list: detection failed').map((l) => [l.level, l.message, l.fields])).toEqual([
      ['warn', 'list: detection failed; will try again', { error: 'bus gone' }],
      ['warn', 'list: detection failed; will try again', { error: 'bus gone' }],
    ])
  })

  it('a detect() that fails after its timeout is logged at debug level, not as a second fault', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const driver = new ListDriver()
    let fail!: (err: Error) => void
    driver.detect = () => new Promise((_resolve, reject) => (fail = reject))
    const { manager } = manage([driver])
    const starting = manager.start()
    await vi.advanceTimersByTimeAsync(500)
    await starting
    fail(new Error('late'))
    await vi.advanceTimersByTimeAsync(0)
    expect(logs.records.find((l) => l.message === 'list: detect failed after its timeout')).toMatchObject({
      level: 'debug',
      fields: { error: 'late' },
    })
  })

  it('logs one fault per device, and again after the device opened in between', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const { driver, manager } = await startedList(['A', 'B'])
    driver.last('A').hub.emit('error', new Error('EIO A'))
    driver.last('B').hub.emit('error', new Error('EIO B'))
    await vi.advanceTimersByTimeAsync(100) // both reopen
    expect(manager.list().map((d) => d.id)).toEqual(['A', 'B'])
    driver.last('A').hub.emit('error', new Error('EIO A'))
    await vi.advanceTimersByTimeAsync(0)
    expect(logs.startingWith('closed after a fault').map((l) => l.level)).toEqual(['warn', 'warn', 'warn'])
    expect(logs.startingWith('closed after a fault').map((l) => l.fields)).toEqual([
      { surface: 'A', device: 'A', error: 'EIO A' },
      { surface: 'B', device: 'B', error: 'EIO B' },
      { surface: 'A', device: 'A', error: 'EIO A' },
    ])
  })

  it('a retry timer from before an unplug does not cut the new backoff short', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const { driver, manager } = await startedList(['A'], { failOpen: new Error('busy') }) // fails at 0: retry timer at 100
    await vi.advanceTimersByTimeAsync(10)
    driver.unplug('A')
    await manager.rescan()
    driver.plug('A')
    await manager.rescan() // fails again at 10: backoff starts afresh, retry at 110
    driver.failOpen = undefined
    await vi.advanceTimersByTimeAsync(99) // t = 109: the first timer (100) must not have opened it
    expect(manager.isOpen('A')).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(manager.isOpen('A')).toBe(true)
  })

  it('an unplugged device forgets its backoff while another surface stays open', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const { driver, manager } = await startedList(['B'])
    driver.failOpen = new Error('busy')
    driver.plug('A')
    await manager.rescan()
    driver.unplug('A')
    await manager.rescan()
    driver.plug('A')
    driver.failOpen = undefined
    await manager.rescan() // at once: the backoff of A went with the unplug
    expect([manager.isOpen('A'), manager.isOpen('B')]).toEqual([true, true])
  })

  it("another driver's scan leaves a failing device's backoff alone: retried by its timer, with growing delays", async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const { manager, status } = failingBesideAnotherDriver()
    await manager.start() // fails at 0: retry at 100
    await vi.advanceTimersByTimeAsync(10)
    await manager.rescan() // at 10, still backing off: no attempt
    await vi.advanceTimersByTimeAsync(90) // the retry at 100 fails again: next delay 200
    expect(status.filter((s) => s.state === 'failed').map((s) => s.retryInMs)).toEqual([100, 200])
  })

  it('an open surface keeps its backoff count through scans of other drivers', async () => {
    vi.useFakeTimers(MANAGER_CLOCK)
    const { one, manager, status } = failingBesideAnotherDriver()
    await manager.start()
    one.failOpen = undefined
    await vi.advanceTimersByTimeAsync(100) // opened by the retry
    expect(manager.isOpen('A')).toBe(true)
    await manager.rescan()
    one.last('A').hub.emit('error', new Error('EIO')) // soon after opening: the backoff grows
    await vi.waitFor(() => expect(status.filter((s) => s.state === 'failed')).toHaveLength(2))
    expect(status.filter((s) => s.state === 'failed').map((s) => s.retryInMs)).toEqual([100, 200])
  })

  it('a retry timer that fires before the clock reaches the backoff still retries (timers may fire early)', async () => {
    // The clock stays real: the fake timer fires while performance.now() has moved only a little.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
    const driver = new ListDriver()
    driver.plug('A')
    driver.failOpen = new Error('busy')
    const { manager } = managed({
      drivers: [driver],
      retryInitialMs: 60_000,
      retryMaxMs: 60_000,
    })
    await manager.start()
    driver.failOpen = undefined
    await vi.advanceTimersByTimeAsync(60_000)
    expect(manager.isOpen('A')).toBe(true)
  })
})
