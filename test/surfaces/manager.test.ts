import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DeviceModelId } from '@elgato-stream-deck/core'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { setLogSink, type LogRecord, type LogSink } from '../../src/log.js'
import {
  checkDeviceAccess,
  usbHotplugSource,
  type AccessCheck,
  type HotplugChange,
} from '../../src/surfaces/hotplug.js'
import { SurfaceManager, type SurfaceStatus } from '../../src/surfaces/manager.js'
import { KeyRenderer } from '../../src/surfaces/render/key-renderer.js'
import { StreamDeckDriver } from '../../src/surfaces/streamdeck/driver.js'
import type { DetectedDevice, SurfaceDriver, SurfaceEvent } from '../../src/surfaces/types.js'
import { MemoryStreamDeckTransport, decodeGen2KeyImages, gen2KeyReport, rawImageEncoder } from './helpers/fake-hid.js'
import { FakeHotplug } from './helpers/fake-hotplug.js'

/** How long and how often `vi.waitFor` / `expect.poll` look (real timers only: with fake ones they move the clock). */
const WAIT = { timeout: 8000, interval: 5 }

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
  vi.useRealTimers()
  await Promise.all(managers.map((m) => m.stop()))
  setLogSink(prevSink)
})

function setup(opts: { live?: boolean; access?: AccessCheck; drivers?: SurfaceDriver[] } = {}) {
  const transport = new MemoryStreamDeckTransport()
  const hotplug = new FakeHotplug(opts.live ?? true)
  const driver = new StreamDeckDriver({ transport, renderer, encodeJPEG: rawImageEncoder, frameMs: 0 })
  const manager = new SurfaceManager({
    drivers: opts.drivers ?? [driver],
    hotplug,
    access: opts.access ?? (() => Promise.resolve('ok')),
    pollMs: 20,
    rescanDelaysMs: [0, 20, 60],
    retryInitialMs: 30,
    retryMaxMs: 200,
  })
  managers.push(manager)
  const events = {
    input: [] as SurfaceEvent[],
    added: [] as string[],
    removed: [] as string[],
    status: [] as SurfaceStatus[],
  }
  manager.events.on('input', (e) => events.input.push(e))
  manager.events.on('added', (d) => events.added.push(d.id))
  manager.events.on('removed', (id) => events.removed.push(id))
  manager.events.on('status', (s) => events.status.push(s))
  return { transport, hotplug, driver, manager, events }
}

describe('SurfaceManager', () => {
  it('opens the devices present at start and forwards their input', async () => {
    const { transport, manager, events } = setup()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'AAA')
    transport.plug(DeviceModelId.XL, '/dev/hidraw2') // no serial: vendor:product@path
    await manager.start()
    expect(
      manager
        .list()
        .map((d) => d.id)
        .sort(),
    ).toEqual(['0fd9:006c@/dev/hidraw2', 'AAA'])
    expect(events.added.sort()).toEqual(['0fd9:006c@/dev/hidraw2', 'AAA'])
    transport.lastOpened('/dev/hidraw1')!.input(gen2KeyReport([4], 15))
    expect(events.input.map((e) => `${e.surface} ${e.type} ${e.control}`)).toEqual(['AAA down key:4'])
  })

  it('follows hot-plug: attach opens the new device, detach closes the one that is gone', async () => {
    const { transport, hotplug, manager, events } = setup()
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
    const { transport, hotplug, manager } = setup() // rescans at 0, 20 and 60 ms after a change
    await manager.start()
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] })
    hotplug.fire('attach') // the USB attach arrives before the HID node exists
    await vi.advanceTimersByTimeAsync(0)
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw7', 'LATE')
    await vi.advanceTimersByTimeAsync(19)
    expect(manager.isOpen('LATE')).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(manager.isOpen('LATE')).toBe(true)
  })

  it('polls detection when no hot-plug events are available', async () => {
    const { transport, manager } = setup({ live: false })
    await manager.start()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw3', 'POLL')
    await expect.poll(() => manager.isOpen('POLL'), WAIT).toBe(true)
  })

  it('re-applies the last feedback when a device comes back after an unplug', async () => {
    const { transport, hotplug, manager } = setup()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'AAA')
    await manager.start()
    manager.setFeedback('AAA', 'key:2', { color: '#ff0000' })
    manager.setBrightness('AAA', 55)
    transport.unplug('/dev/hidraw1')
    hotplug.fire('detach')
    await expect.poll(() => manager.isOpen('AAA'), WAIT).toBe(false)
    expect(manager.feedbackOf('AAA').get('key:2')).toEqual({ color: '#ff0000' })
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw9', 'AAA') // same serial, another port
    hotplug.fire('attach')
    await expect.poll(() => manager.isOpen('AAA'), WAIT).toBe(true)
    const hid = transport.lastOpened('/dev/hidraw9')!
    await expect.poll(() => hid.reports.length > 0, WAIT).toBe(true)
    const img = decodeGen2KeyImages(hid.reports).get(2)![0]!
    expect([...img.rgba.subarray(0, 4)]).toEqual([255, 0, 0, 255])
    expect(hid.features.some((f) => f[0] === 0x03 && f[1] === 0x08 && f[2] === 55)).toBe(true)
  })

  it('a device that errors mid-write is closed and reopened without affecting another device', async () => {
    const { transport, manager, events } = setup()
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
    expect(logs.filter((l) => l.message.includes('closed after a fault') && l.fields?.surface === 'BAD')).toHaveLength(
      1,
    )
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
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] })
    const { manager, events } = setup({ live: false, drivers: [broken, flaky] })
    await manager.start()
    await vi.advanceTimersByTimeAsync(610)
    // backoff 30, 60, 120, then the 200 ms cap; the 20 ms detection poll in between does not cut it short
    expect(opens).toEqual([0, 30, 90, 210, 410, 610])
    expect(detects).toBeGreaterThan(opens.length)
    expect(events.status.filter((s) => s.name === 'F1').map((s) => s.retryInMs)).toEqual([30, 60, 120, 200, 200, 200])
    expect(logs.filter((l) => l.message.startsWith('could not open Flaky'))).toHaveLength(1)
    expect(logs.filter((l) => l.message.startsWith('broken: detection failed'))).toHaveLength(1)
  })

  it('a driver call that hangs times out as a fault and does not stall the other drivers', async () => {
    const transport = new MemoryStreamDeckTransport()
    const deckDriver = new StreamDeckDriver({ transport, renderer, encodeJPEG: rawImageEncoder, frameMs: 0 })
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/slow', 'SLOW')
    const hung: SurfaceDriver = {
      name: 'hung',
      detect: () => Promise.resolve([{ driver: 'hung', id: 'H1', model: 'Hung' }]),
      open: () => new Promise(() => undefined),
    }
    // answers, but only after its timeout: the late surface must be closed, not leaked
    const slow: SurfaceDriver = {
      name: 'slow',
      detect: () => deckDriver.detect(),
      open: async (d) => {
        await new Promise((r) => setTimeout(r, 150))
        return deckDriver.open(d)
      },
    }
    const other = new MemoryStreamDeckTransport()
    other.plug(DeviceModelId.XL, '/dev/fine', 'FINE')
    const fine = new StreamDeckDriver({ transport: other, renderer, encodeJPEG: rawImageEncoder, frameMs: 0 })
    const hotplug = new FakeHotplug()
    const manager = new SurfaceManager({
      drivers: [hung, slow, fine],
      hotplug,
      access: () => Promise.resolve('ok'),
      callTimeoutMs: 50,
      retryInitialMs: 5000,
    })
    managers.push(manager)
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

  it('says once which udev rule file to install when a device node is not accessible', async () => {
    let answer: 'denied' | 'ok' = 'denied'
    const checked: string[] = []
    const { transport, manager, events } = setup({
      live: false,
      access: (path) => {
        checked.push(path)
        return Promise.resolve(answer)
      },
    })
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw4', 'PERM')
    await manager.start()
    await manager.rescan()
    expect(checked.filter((p) => p === '/dev/hidraw4').length).toBeGreaterThanOrEqual(2)
    expect(transport.opened).toHaveLength(0)
    const warnings = logs.filter((l) => l.message.startsWith('no permission'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.message).toContain('systemd/60-panelbridge.rules')
    expect(warnings[0]!.message).toContain('systemd/70-panelbridge-uaccess.rules')
    expect(warnings[0]!.message).toContain('/dev/hidraw4')
    expect(events.status.filter((s) => s.state === 'permission-denied').map((s) => s.name)).toEqual(['PERM'])
    answer = 'ok'
    await expect.poll(() => manager.isOpen('PERM'), WAIT).toBe(true)
  })

  it('cuts off a detect() that hangs after callTimeoutMs and still scans the other drivers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] })
    const hung: SurfaceDriver = {
      name: 'hung',
      detect: () => new Promise<DetectedDevice[]>(() => undefined),
      open: () => Promise.reject(new Error('never detected, never opened')),
    }
    const transport = new MemoryStreamDeckTransport()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'FINE')
    const deck = new StreamDeckDriver({ transport, renderer, encodeJPEG: rawImageEncoder, frameMs: 0 })
    const manager = new SurfaceManager({
      drivers: [hung, deck],
      hotplug: new FakeHotplug(),
      access: () => Promise.resolve('ok'),
      callTimeoutMs: 500,
    })
    managers.push(manager)
    let started = false
    const start = manager.start().then(() => (started = true))
    await vi.advanceTimersByTimeAsync(499)
    expect([started, manager.isOpen('FINE')]).toEqual([false, false])
    await vi.advanceTimersByTimeAsync(1)
    expect([started, manager.isOpen('FINE')]).toEqual([true, true])
    await start
    const failed = logs.filter((l) => l.message === 'hung: detection failed; will try again')
    expect(failed.map((l) => l.fields?.error)).toEqual(['hung: detect did not answer within 500 ms'])
  })

  it('starts the backoff afresh once a device has stayed open for stableMs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] })
    const transport = new MemoryStreamDeckTransport()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'AAA')
    const driver = new StreamDeckDriver({ transport, renderer, encodeJPEG: rawImageEncoder, frameMs: 0 })
    const manager = new SurfaceManager({
      drivers: [driver],
      hotplug: new FakeHotplug(),
      access: () => Promise.resolve('ok'),
      retryInitialMs: 100,
      retryMaxMs: 10_000,
      stableMs: 1000,
    })
    managers.push(manager)
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

  it('adds static surfaces, forwards feedback to them and closes them on error without retrying', async () => {
    const transport = new MemoryStreamDeckTransport()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/static', 'STATIC')
    const driver = new StreamDeckDriver({ transport, renderer, encodeJPEG: rawImageEncoder, frameMs: 0 })
    const surface = await driver.open((await driver.detect())[0]!)
    const { manager, events } = setup({ drivers: [] })
    const seen: string[] = []
    manager.events.on('feedback', (id, control, fb) => seen.push(`${id} ${control} ${fb.color}`))
    manager.events.on('added', (d) => seen.push(`added ${d.id}`))
    await manager.start()
    manager.addSurface(surface)
    expect(() => manager.addSurface(surface)).toThrow('a surface with id "STATIC" is already open')
    manager.setFeedback('STATIC', 'key:1', { color: '#ffffff' })
    await surface.drain()
    expect(transport.lastOpened('/dev/static')!.reports).toHaveLength(1)
    expect(seen).toEqual(['added STATIC', 'STATIC key:1 #ffffff'])
    transport.lastOpened('/dev/static')!.emit('error', new Error('gone'))
    await expect.poll(() => events.removed.includes('STATIC'), WAIT).toBe(true)
    // A detected surface would now get a 'failed' status with its retry; a static one is logged instead.
    await expect.poll(() => logs.some((l) => l.message === 'surface STATIC failed and was closed'), WAIT).toBe(true)
    expect(events.status.map((s) => s.state)).toEqual(['open', 'closed'])
    expect(manager.isOpen('STATIC')).toBe(false)
    expect(transport.opened).toHaveLength(1)
  })

  it("stop() blanks and closes every surface, stops hot-plug, keeps others' listeners, and is idempotent", async () => {
    const { transport, hotplug, manager, events } = setup()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'AAA')
    await manager.start()
    const hid = transport.lastOpened('/dev/hidraw1')!
    await Promise.all([manager.stop(), manager.stop()])
    await manager.stop()
    expect(hid.closed).toBe(true)
    expect(hid.features.some((f) => f[0] === 0x03 && f[1] === 0x05)).toBe(true) // cleared
    expect(events.removed).toEqual(['AAA'])
    expect(hotplug.stops).toBe(1)
    // The listeners setup() added belong to the test, not to the manager: they stay.
    expect(manager.events.listenerCount('input')).toBe(1)
    expect(manager.events.listenerCount('added')).toBe(1)
    transport.plug(DeviceModelId.XL, '/dev/hidraw2', 'AFTER')
    await manager.rescan()
    expect(transport.opened).toHaveLength(1)
  })
})

describe('checkDeviceAccess (real fs.access)', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'panelbridge-access-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('tells a missing node from an accessible one', async () => {
    const node = join(dir, 'hidraw0')
    expect(await checkDeviceAccess(node)).toBe('missing')
    await writeFile(node, '')
    expect(await checkDeviceAccess(node)).toBe('ok')
  })

  it('reports a mode-000 node as denied (root bypasses file modes, so there it is ok)', async () => {
    const node = join(dir, 'hidraw1')
    await writeFile(node, '')
    await chmod(node, 0o000)
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
    // Why both answers: access(2) grants root read/write regardless of mode bits; the manager's
    // permission path is covered above through the injected check at this same boundary.
    expect(await checkDeviceAccess(node)).toBe(isRoot ? 'ok' : 'denied')
  })

  it('drives the manager: a missing node is not opened, a mode-000 node is refused with the rule files (as non-root)', async () => {
    const transport = new MemoryStreamDeckTransport()
    const missing = join(dir, 'hidraw-missing')
    const locked = join(dir, 'hidraw-locked')
    await writeFile(locked, '')
    await chmod(locked, 0o000)
    transport.plug(DeviceModelId.ORIGINALMK2, missing, 'MISSING')
    transport.plug(DeviceModelId.ORIGINALMK2, locked, 'LOCKED')
    const driver = new StreamDeckDriver({ transport, renderer, encodeJPEG: rawImageEncoder, frameMs: 0 })
    const manager = new SurfaceManager({ drivers: [driver], hotplug: new FakeHotplug(), access: checkDeviceAccess })
    managers.push(manager)
    await manager.start()
    expect(manager.isOpen('MISSING')).toBe(false)
    const warned = logs.filter((l) => l.message.startsWith('no permission'))
    if (typeof process.getuid === 'function' && process.getuid() === 0) {
      // root may open anything: access(2) says ok, so the device opens and nothing is reported
      expect(manager.isOpen('LOCKED')).toBe(true)
      expect(warned).toHaveLength(0)
    } else {
      expect(manager.isOpen('LOCKED')).toBe(false)
      expect(warned.map((l) => l.fields?.surface)).toEqual(['LOCKED'])
      expect(warned[0]!.message).toContain('systemd/60-panelbridge.rules')
    }
    expect(transport.opened.map((d) => d.info.path)).not.toContain(missing)
  })

  it('treats non-file paths (macOS IOService paths) as nothing to check', async () => {
    expect(await checkDeviceAccess('IOService:/AppleACPIPlatformExpert/XHC1')).toBe('ok')
  })
})

describe('usbHotplugSource (real usb package)', () => {
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
