/**
 * The surface manager's edges, pinned where mutation testing found them unwatched: claims matching and
 * ordering, start/stop and scan serialisation, set-up changes, back-off bookkeeping across unplugs,
 * log-once episodes and the listeners it leaves on a surface. Devices come from a driver whose list
 * the test edits (the manager's boundary to hardware), on a fake clock where time is the subject.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { EventHub } from '../../src/events.js'
import { setLogLevel, setLogSink, type LogRecord, type LogSink } from '../../src/log.js'
import type { AccessCheck } from '../../src/surfaces/hotplug.js'
import { SurfaceClaimError, claimMatches, validateClaims, type SurfaceClaim } from '../../src/surfaces/claims.js'
import { DriverTimeoutError, SurfaceManager, type SurfaceStatus } from '../../src/surfaces/manager.js'
import type { DetectedDevice, Surface, SurfaceDriver, SurfaceEvents } from '../../src/surfaces/types.js'
import { FakeHotplug } from './helpers/fake-hotplug.js'

const CLOCK: Parameters<typeof vi.useFakeTimers>[0] = {
  toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
}

let logs: LogRecord[]
let prevSink: LogSink
let managers: SurfaceManager[]
beforeEach(() => {
  logs = []
  managers = []
  prevSink = setLogSink((r) => logs.push(r))
  // Some of what is pinned here is logged at debug level.
  setLogLevel('debug')
})
afterEach(async () => {
  vi.useRealTimers()
  await Promise.all(managers.map((m) => m.stop()))
  setLogSink(prevSink)
  setLogLevel('info')
})

/** A surface as a driver hands it out: records what the manager does to it, and can fail on demand. */
class TestSurface implements Surface {
  readonly hub = new EventHub<SurfaceEvents>()
  readonly events = this.hub.listenable
  readonly feedback: string[] = []
  readonly brightness: number[] = []
  closed = false
  throwOnFeedback: Error | undefined
  throwOnBrightness: Error | undefined
  rejectClose: Error | undefined
  constructor(readonly description: Surface['description']) {}
  setFeedback(control: string, fb: { color?: string }): void {
    if (this.throwOnFeedback) throw this.throwOnFeedback
    this.feedback.push(`${control} ${fb.color}`)
  }
  setBrightness(percent: number): void {
    if (this.throwOnBrightness) throw this.throwOnBrightness
    this.brightness.push(percent)
  }
  close(): Promise<void> {
    this.closed = true
    return this.rejectClose ? Promise.reject(this.rejectClose) : Promise.resolve()
  }
}

/** A driver whose detected devices are `devices` (edit it to plug and unplug). */
class ListDriver implements SurfaceDriver {
  devices: DetectedDevice[] = []
  detects = 0
  opened: TestSurface[] = []
  failOpen: Error | undefined
  /** When set, detect() waits for it. */
  detectGate: Promise<void> | undefined
  openGate: Promise<void> | undefined
  constructor(readonly name = 'list') {}
  plug(id: string, extra: Partial<DetectedDevice> = {}): void {
    this.devices.push({ driver: this.name, id, model: `Model ${id}`, path: `/dev/${id}`, ...extra })
  }
  unplug(id: string): void {
    this.devices = this.devices.filter((d) => d.id !== id)
  }
  async detect(): Promise<DetectedDevice[]> {
    this.detects++
    if (this.detectGate) await this.detectGate
    return [...this.devices]
  }
  async open(d: DetectedDevice): Promise<Surface> {
    if (this.openGate) await this.openGate
    if (this.failOpen) throw this.failOpen
    const s = new TestSurface({ id: d.id, driver: this.name, model: d.model, controls: [] })
    this.opened.push(s)
    return s
  }
  last(id: string): TestSurface {
    return this.opened.filter((s) => s.description.id === id).at(-1)!
  }
}

function manage(
  drivers: SurfaceDriver[],
  opts: {
    claims?: readonly SurfaceClaim[]
    live?: boolean
    access?: AccessCheck
    hotplug?: FakeHotplug
    noLogger?: boolean
  } = {},
) {
  const hotplug = opts.hotplug ?? new FakeHotplug(opts.live ?? true)
  const manager = new SurfaceManager({
    drivers,
    hotplug,
    access: opts.access ?? (() => Promise.resolve('ok')),
    ...(opts.claims ? { claims: opts.claims } : {}),
    pollMs: 50,
    rescanDelaysMs: [0, 20, 60],
    retryInitialMs: 100,
    retryMaxMs: 1000,
    stableMs: 10_000,
    callTimeoutMs: 500,
  })
  managers.push(manager)
  const status: SurfaceStatus[] = []
  const added: string[] = []
  const removed: string[] = []
  manager.events.on('status', (s) => status.push(s))
  manager.events.on('added', (d) => added.push(d.id))
  manager.events.on('removed', (id) => removed.push(id))
  return { manager, hotplug, status, added, removed }
}

const claim = (name: string, match: SurfaceClaim['match'], driver = 'list'): SurfaceClaim => ({ name, driver, match })
const device = (extra: Partial<DetectedDevice>): DetectedDevice => ({ driver: 'x', id: 'D', model: 'Deck', ...extra })
const messages = (prefix: string): LogRecord[] => logs.filter((l) => l.message.startsWith(prefix))

/** A promise with its resolve. */
function gate() {
  let open!: () => void
  const done = new Promise<void>((resolve) => (open = resolve))
  return { done, open }
}

describe('claims: matching and validation', () => {
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

  it('a DriverTimeoutError carries its name, code and message', () => {
    const err = new DriverTimeoutError('deck: detect', 250)
    expect([err.name, err.code, err.message]).toEqual([
      'DriverTimeoutError',
      'ETIMEDOUT',
      'deck: detect did not answer within 250 ms',
    ])
  })
})

describe('claims: which device each surface takes', () => {
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
    const unclaimed = messages('device not claimed by any surface; left to other software')
    expect(unclaimed.map((l) => l.level)).toEqual(['info', 'info', 'info'])
    expect(unclaimed.map((l) => l.fields)).toEqual(
      ['A', 'B', 'C'].map((id) => ({ driver: 'list', model: `Model ${id}`, device: id })),
    )
  })
})

describe('setClaims', () => {
  it("from 'all' to named claims and back: surfaces reopen under their new names", async () => {
    const driver = new ListDriver()
    driver.plug('A')
    const { manager, added, removed } = manage([driver])
    await manager.start()
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
    const driver = new ListDriver()
    driver.plug('A')
    const { manager } = manage([driver])
    await manager.start()
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
})

describe('start, scans and stop', () => {
  it('without drivers starts no hot-plug source and logs nothing', async () => {
    const hotplug = new FakeHotplug()
    const manager = new SurfaceManager({ hotplug, access: () => Promise.resolve('ok') })
    managers.push(manager)
    await manager.start()
    expect(hotplug.listener).toBeUndefined()
    expect(logs.filter((l) => l.level !== 'debug')).toEqual([])
  })

  it('logs under the scope "surfaces" by default', async () => {
    const driver = new ListDriver()
    driver.plug('A')
    const manager = new SurfaceManager({
      drivers: [driver],
      hotplug: new FakeHotplug(),
      access: () => Promise.resolve('ok'),
    })
    managers.push(manager)
    await manager.start()
    expect(logs.find((l) => l.message === 'surface open')).toEqual({
      level: 'info',
      scope: 'surfaces',
      message: 'surface open',
      fields: { surface: 'A', device: 'A', driver: 'list', model: 'Model A' },
    })
  })

  it('a second start() does nothing: one detection, one poll', async () => {
    vi.useFakeTimers(CLOCK)
    const driver = new ListDriver()
    const { manager } = manage([driver], { live: false })
    await manager.start()
    await manager.start()
    expect(driver.detects).toBe(1)
    await vi.advanceTimersByTimeAsync(50)
    expect(driver.detects).toBe(2)
  })

  it('polls when the hot-plug source fails to start, and says so once', async () => {
    vi.useFakeTimers(CLOCK)
    const driver = new ListDriver()
    const hotplug = new FakeHotplug()
    hotplug.start = () => Promise.reject(new Error('no libusb'))
    const { manager } = manage([driver], { hotplug })
    await manager.start()
    await vi.advanceTimersByTimeAsync(100)
    expect(driver.detects).toBe(3)
    expect(logs.filter((l) => l.level === 'warn').map((l) => [l.message, l.fields])).toEqual([
      ['hot-plug source failed to start; polling instead', { error: 'no libusb' }],
    ])
  })

  it('does not poll when hot-plug works', async () => {
    vi.useFakeTimers(CLOCK)
    const driver = new ListDriver()
    const { manager } = manage([driver], { live: true })
    await manager.start()
    await vi.advanceTimersByTimeAsync(500)
    expect(driver.detects).toBe(1)
  })

  it('stopped while the hot-plug source starts: no poll and no scan afterwards', async () => {
    vi.useFakeTimers(CLOCK)
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

  it('rescans asked for during a scan are served by one more scan', async () => {
    const driver = new ListDriver()
    const { manager } = manage([driver])
    await manager.start()
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
    vi.useFakeTimers(CLOCK)
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

  it('logs each hot-plug change at debug level', async () => {
    const driver = new ListDriver()
    const { manager, hotplug } = manage([driver])
    await manager.start()
    hotplug.fire('detach')
    expect(logs.find((l) => l.message === 'usb change')).toMatchObject({ level: 'debug', fields: { change: 'detach' } })
  })

  it('a new hot-plug change replaces the pending rescans of the last one', async () => {
    vi.useFakeTimers(CLOCK)
    const driver = new ListDriver()
    const { manager, hotplug } = manage([driver])
    await manager.start()
    hotplug.fire('attach') // rescans at 0, 20, 60
    await vi.advanceTimersByTimeAsync(10)
    hotplug.fire('attach') // rescans at 10, 30, 70 instead
    await vi.advanceTimersByTimeAsync(100)
    expect(driver.detects).toBe(1 + 1 + 3)
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
    vi.useFakeTimers(CLOCK)
    const driver = new ListDriver()
    driver.plug('A')
    const { manager, status } = manage([driver])
    await manager.start()
    driver.last('A').hub.emit('error', new Error('EIO'))
    await manager.stop()
    await vi.advanceTimersByTimeAsync(1000)
    expect(status.map((s) => s.state)).toEqual(['open', 'closed'])
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('backoff and log episodes', () => {
  it('an unplugged device forgets its backoff: plugged back, it is opened at once and its retry timer does no harm', async () => {
    vi.useFakeTimers(CLOCK)
    const driver = new ListDriver()
    driver.plug('A')
    driver.failOpen = new Error('busy')
    const { manager, status } = manage([driver])
    await manager.start()
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
    vi.useFakeTimers(CLOCK)
    const driver = new ListDriver()
    driver.plug('A')
    driver.failOpen = new Error('busy')
    const { manager } = manage([driver])
    await manager.start()
    driver.unplug('A')
    await manager.rescan()
    await vi.advanceTimersByTimeAsync(200)
    expect(driver.detects).toBe(3)
    expect(manager.isOpen('A')).toBe(false)
  })

  it('a detection failure is logged again after detection worked in between', async () => {
    const driver = new ListDriver()
    const { manager } = manage([driver])
    await manager.start()
    const detect = driver.detect.bind(driver)
    driver.detect = () => Promise.reject(new Error('bus gone'))
    await manager.rescan()
    await manager.rescan()
    driver.detect = detect
    await manager.rescan()
    driver.detect = () => Promise.reject(new Error('bus gone'))
    await manager.rescan()
    expect(messages('list: detection failed').map((l) => [l.level, l.message, l.fields])).toEqual([
      ['warn', 'list: detection failed; will try again', { error: 'bus gone' }],
      ['warn', 'list: detection failed; will try again', { error: 'bus gone' }],
    ])
  })

  it('a detect() that fails after its timeout is logged at debug level, not as a second fault', async () => {
    vi.useFakeTimers(CLOCK)
    const driver = new ListDriver()
    let fail!: (err: Error) => void
    driver.detect = () => new Promise((_resolve, reject) => (fail = reject))
    const { manager } = manage([driver])
    const starting = manager.start()
    await vi.advanceTimersByTimeAsync(500)
    await starting
    fail(new Error('late'))
    await vi.advanceTimersByTimeAsync(0)
    expect(logs.find((l) => l.message === 'list: detect failed after its timeout')).toMatchObject({
      level: 'debug',
      fields: { error: 'late' },
    })
  })

  it('logs one fault per device, and again after the device opened in between', async () => {
    vi.useFakeTimers(CLOCK)
    const driver = new ListDriver()
    driver.plug('A')
    driver.plug('B')
    const { manager } = manage([driver])
    await manager.start()
    driver.last('A').hub.emit('error', new Error('EIO A'))
    driver.last('B').hub.emit('error', new Error('EIO B'))
    await vi.advanceTimersByTimeAsync(100) // both reopen
    expect(manager.list().map((d) => d.id)).toEqual(['A', 'B'])
    driver.last('A').hub.emit('error', new Error('EIO A'))
    await vi.advanceTimersByTimeAsync(0)
    expect(messages('closed after a fault').map((l) => l.level)).toEqual(['warn', 'warn', 'warn'])
    expect(messages('closed after a fault').map((l) => l.fields)).toEqual([
      { surface: 'A', device: 'A', error: 'EIO A' },
      { surface: 'B', device: 'B', error: 'EIO B' },
      { surface: 'A', device: 'A', error: 'EIO A' },
    ])
  })

  it('a denied device is reported again after it was accessible in between', async () => {
    let answer: 'denied' | 'ok' = 'denied'
    const driver = new ListDriver()
    driver.plug('A')
    const { manager, status } = manage([driver], { access: () => Promise.resolve(answer) })
    await manager.start()
    answer = 'ok'
    await manager.rescan()
    driver.last('A').hub.emit('error', new Error('EIO'))
    await vi.waitFor(() => expect(manager.isOpen('A')).toBe(false))
    answer = 'denied'
    await vi.waitFor(async () => {
      await manager.rescan()
      expect(status.filter((s) => s.state === 'permission-denied')).toHaveLength(2)
    })
    expect(messages('no permission').map((l) => l.level)).toEqual(['warn', 'warn'])
    expect(messages('no permission').map((l) => l.fields)).toEqual([
      { surface: 'A', device: 'A' },
      { surface: 'A', device: 'A' },
    ])
  })

  it('an unplugged denied device is reported again when it comes back denied', async () => {
    const driver = new ListDriver()
    driver.plug('A')
    const { manager } = manage([driver], { access: () => Promise.resolve('denied') })
    await manager.start()
    driver.unplug('A')
    await manager.rescan()
    driver.plug('A')
    await manager.rescan()
    expect(messages('no permission')).toHaveLength(2)
  })

  it('checks access only for devices with a node path', async () => {
    const checked: string[] = []
    const driver = new ListDriver()
    driver.plug('A', { path: undefined })
    driver.plug('B')
    const { manager } = manage([driver], {
      access: (p) => {
        checked.push(p)
        return Promise.resolve('ok')
      },
    })
    await manager.start()
    expect(checked).toEqual(['/dev/B'])
    expect(manager.list().map((d) => d.id)).toEqual(['A', 'B'])
  })

  it('logs the unplug of an open surface', async () => {
    const driver = new ListDriver()
    driver.plug('A')
    const { manager } = manage([driver])
    await manager.start()
    driver.unplug('A')
    await manager.rescan()
    expect(logs.find((l) => l.message === 'surface unplugged')?.fields).toEqual({ surface: 'A', device: 'A' })
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

describe('more edges', () => {
  it("setClaims('all') keeps the status of a surface that stays open", async () => {
    const driver = new ListDriver()
    driver.plug('A')
    const { manager } = manage([driver])
    await manager.start()
    await manager.setClaims('all')
    expect(manager.statuses().map((s) => [s.name, s.state])).toEqual([['A', 'open']])
  })

  it('opens a device whose access check fails, and says so once', async () => {
    const driver = new ListDriver()
    driver.plug('A')
    const { manager } = manage([driver], { access: () => Promise.reject(new Error('EIO on stat')) })
    await manager.start()
    await manager.rescan()
    expect(manager.isOpen('A')).toBe(true)
    expect(logs.filter((l) => l.message === 'could not check access to the device node')).toEqual([
      {
        level: 'warn',
        scope: 'surfaces',
        message: 'could not check access to the device node',
        fields: { surface: 'A', path: '/dev/A', error: 'EIO on stat' },
      },
    ])
  })

  it('a retry timer from before an unplug does not cut the new backoff short', async () => {
    vi.useFakeTimers(CLOCK)
    const driver = new ListDriver()
    driver.plug('A')
    driver.failOpen = new Error('busy')
    const { manager } = manage([driver])
    await manager.start() // fails at 0: retry timer at 100
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
})

describe('feedback, brightness and surfaces added by hand', () => {
  it('remembers feedback per control for a surface not open, and emits it', () => {
    const { manager } = manage([])
    const seen: string[] = []
    manager.events.on('feedback', (id, control, fb) => seen.push(`${id} ${control} ${fb.color}`))
    manager.setFeedback('later', 'key:1', { color: '#111111' })
    manager.setFeedback('later', 'key:2', { color: '#222222' })
    manager.setBrightness('later', 40)
    expect([...manager.feedbackOf('later').keys()]).toEqual(['key:1', 'key:2'])
    expect(seen).toEqual(['later key:1 #111111', 'later key:2 #222222'])
    const s = new TestSurface({ id: 'later', driver: 'web', model: 'Web', controls: [] })
    manager.addSurface(s)
    expect(s.feedback).toEqual(['key:1 #111111', 'key:2 #222222'])
    expect(s.brightness).toEqual([40])
  })

  it('gives an opened surface no brightness or feedback unless one was set', () => {
    const { manager } = manage([])
    const s = new TestSurface({ id: 'web', driver: 'web', model: 'Web', controls: [] })
    manager.addSurface(s)
    expect(s.feedback).toEqual([])
    expect(s.brightness).toEqual([])
    manager.setBrightness('web', 70)
    expect(s.brightness).toEqual([70])
  })

  it('a surface whose setFeedback or setBrightness throws is closed, and the feedback is not announced', async () => {
    const { manager, removed } = manage([])
    const seen: string[] = []
    manager.events.on('feedback', (id) => seen.push(id))
    const a = new TestSurface({ id: 'a', driver: 'web', model: 'Web', controls: [] })
    const b = new TestSurface({ id: 'b', driver: 'web', model: 'Web', controls: [] })
    manager.addSurface(a)
    manager.addSurface(b)
    a.throwOnFeedback = new Error('gone a')
    b.throwOnBrightness = new Error('gone b')
    manager.setFeedback('a', 'key:0', { color: '#000000' })
    manager.setBrightness('b', 10)
    await vi.waitFor(() => expect(removed.sort()).toEqual(['a', 'b']))
    expect(seen).toEqual([])
    expect([a.closed, b.closed]).toEqual([true, true])
    expect(messages('surface a failed').map((l) => [l.level, l.fields])).toEqual([['warn', { error: 'gone a' }]])
    expect(messages('surface b failed').map((l) => l.fields)).toEqual([{ error: 'gone b' }])
  })

  it('a surface closed from its own side is removed', async () => {
    const driver = new ListDriver()
    driver.plug('A')
    const { manager, removed } = manage([driver])
    await manager.start()
    driver.last('A').hub.emit('closed')
    await vi.waitFor(() => expect(removed).toEqual(['A']))
    expect(manager.isOpen('A')).toBe(false)
  })

  it('removeSurface closes a surface, leaves none of its listeners on it, and ignores an unknown id', async () => {
    const { manager, removed } = manage([])
    const s = new TestSurface({ id: 'web', driver: 'web', model: 'Web', controls: [] })
    manager.addSurface(s)
    expect(['input', 'error', 'closed'].map((e) => s.events.listenerCount(e as 'input'))).toEqual([1, 1, 1])
    await manager.removeSurface('web')
    await manager.removeSurface('nothing')
    expect(s.closed).toBe(true)
    expect(removed).toEqual(['web'])
    expect(['input', 'error', 'closed'].map((e) => s.events.listenerCount(e as 'input'))).toEqual([0, 0, 0])
  })

  it('a surface whose close() rejects is still removed, and the rejection is logged at debug level', async () => {
    const { manager, removed } = manage([])
    const s = new TestSurface({ id: 'web', driver: 'web', model: 'Web', controls: [] })
    s.rejectClose = new Error('stuck')
    manager.addSurface(s)
    await manager.removeSurface('web')
    expect(removed).toEqual(['web'])
    expect(logs.find((l) => l.message === 'surface did not close cleanly')).toMatchObject({
      level: 'debug',
      fields: { surface: 'web', error: 'stuck' },
    })
    expect(s.events.listenerCount('error')).toBe(0)
  })

  it('refuses a surface added after stop()', async () => {
    const { manager } = manage([])
    await manager.stop()
    const s = new TestSurface({ id: 'web', driver: 'web', model: 'Web', controls: [] })
    expect(() => manager.addSurface(s)).toThrow('surface manager is stopped; cannot add web')
  })
})

/** Device A of driver `one` failing to open (busy), beside a second driver `two` that offers nothing. */
function failingBesideAnotherDriver() {
  const one = new ListDriver('one')
  const two = new ListDriver('two')
  one.plug('A')
  one.failOpen = new Error('busy')
  return { one, ...manage([one, two]) }
}
describe('edges found by the second mutation run', () => {
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
    vi.useFakeTimers(CLOCK)
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

  it('rescan() after stop() began resolves at once, without waiting for the scan in progress', async () => {
    const driver = new ListDriver()
    const { manager } = manage([driver])
    await manager.start()
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

  it('an unplugged device forgets its backoff while another surface stays open', async () => {
    vi.useFakeTimers(CLOCK)
    const driver = new ListDriver()
    driver.plug('B')
    const { manager } = manage([driver])
    await manager.start()
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
    vi.useFakeTimers(CLOCK)
    const { manager, status } = failingBesideAnotherDriver()
    await manager.start() // fails at 0: retry at 100
    await vi.advanceTimersByTimeAsync(10)
    await manager.rescan() // at 10, still backing off: no attempt
    await vi.advanceTimersByTimeAsync(90) // the retry at 100 fails again: next delay 200
    expect(status.filter((s) => s.state === 'failed').map((s) => s.retryInMs)).toEqual([100, 200])
  })

  it('an open surface keeps its backoff count through scans of other drivers', async () => {
    vi.useFakeTimers(CLOCK)
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

  it('says once per device that its access check failed', async () => {
    const driver = new ListDriver()
    driver.plug('A')
    driver.plug('B')
    const { manager } = manage([driver], { access: () => Promise.reject(new Error('EIO on stat')) })
    await manager.start()
    await manager.rescan()
    const warned = logs.filter((l) => l.message === 'could not check access to the device node')
    expect(warned.map((l) => l.fields?.surface)).toEqual(['A', 'B'])
  })

  it('a retry timer that fires before the clock reaches the backoff still retries (timers may fire early)', async () => {
    // The clock stays real: the fake timer fires while performance.now() has moved only a little.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
    const driver = new ListDriver()
    driver.plug('A')
    driver.failOpen = new Error('busy')
    const manager = new SurfaceManager({
      drivers: [driver],
      hotplug: new FakeHotplug(),
      access: () => Promise.resolve('ok'),
      retryInitialMs: 60_000,
      retryMaxMs: 60_000,
    })
    managers.push(manager)
    await manager.start()
    driver.failOpen = undefined
    await vi.advanceTimersByTimeAsync(60_000)
    expect(manager.isOpen('A')).toBe(true)
  })

  it('a surface that reports an error and then throws from setFeedback is closed once, and the call does not throw', async () => {
    const { manager, removed } = manage([])
    const s = new TestSurface({ id: 'web', driver: 'web', model: 'Web', controls: [] })
    manager.addSurface(s)
    s.setFeedback = () => {
      s.hub.emit('error', new Error('EIO'))
      throw new Error('EIO')
    }
    expect(() => manager.setFeedback('web', 'key:0', { color: '#000000' })).not.toThrow()
    await vi.waitFor(() => expect(removed).toEqual(['web']))
  })
})
