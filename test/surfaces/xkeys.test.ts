import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { SurfaceManager, type SurfaceManagerOptions } from '../../src/surfaces/manager.js'
import { ShuttleDriver } from '../../src/surfaces/shuttle/driver.js'
import type { SurfaceEvent } from '../../src/surfaces/types.js'
import { XKEYS_INIT_TIMEOUT_MS, XkeysDriver } from '../../src/surfaces/xkeys/driver.js'
import { xkeysModelById, xkeysModelControls } from '../../src/families/xkeys.js'
import { xkeysReportBytes } from '../../src/surfaces/xkeys/report-guard.js'
import type { XkeysSurface } from '../../src/surfaces/xkeys/surface.js'
import { FakeHotplug } from './helpers/fake-hotplug.js'
import { MemoryShuttleTransport } from './helpers/fake-shuttle.js'
import { MemoryXkeysTransport, type FakeXkeysHid } from './helpers/fake-xkeys.js'
import { captureLogs } from '../helpers/logs.js'
import { openFirstDetected } from './helpers/surfaces.js'

const WAIT = { timeout: 8000, interval: 5 }
beforeEach(() => {
  captureLogs()
})
afterEach(() => {
  vi.useRealTimers()
})

async function openModel(
  model = 'XK24',
  unitId = 0,
): Promise<{ surface: XkeysSurface; hid: FakeXkeysHid; events: SurfaceEvent[] }> {
  const transport = new MemoryXkeysTransport()
  transport.plug(model, `/dev/hidraw-${model}`, { unitId })
  const { surface, events } = await openFirstDetected(new XkeysDriver({ transport }))
  return { surface, hid: transport.lastOpened(`/dev/hidraw-${model}`)!, events }
}

/** An XK-24 report: unit id, the program switch, then the key bits by the library's own index (1..24). */
function xk24Report(pressed: number[], ps = false): number[] {
  const r = new Array<number>(32).fill(0)
  if (ps) r[1] = 1
  for (const index of pressed) {
    const i = index - 1
    r[2 + Math.floor(i / 6)]! |= 1 << (i % 6)
  }
  return r
}

const brief = (events: SurfaceEvent[]): string[] =>
  events.map(
    (e) => `${e.type} ${e.control}${e.type === 'value' ? ' ' + e.raw : e.type === 'rotate' ? ' ' + e.delta : ''}`,
  )

describe('X-keys driver: detect and open', () => {
  it('lists panels with their config model id, name, unit id and identity; each panel is opened once to read its unit id', async () => {
    const transport = new MemoryXkeysTransport()
    transport.plug('XK24', '/dev/hidraw1', { unitId: 4 })
    transport.plug('XK68JOGSHUTTLE', '/dev/hidraw2', { serialNumber: 'JS-9' })
    const driver = new XkeysDriver({ transport })
    const expected = [
      {
        driver: 'xkeys',
        id: '05f3:0405@/dev/hidraw1#unit4',
        model: 'XK-24',
        modelId: 'XK24',
        vendorId: 0x05f3,
        productId: 1029,
        path: '/dev/hidraw1',
        unitId: 4,
      },
      {
        driver: 'xkeys',
        id: 'JS-9#unit0',
        model: 'XK-68 Jog-Shuttle',
        modelId: 'XK68JOGSHUTTLE',
        vendorId: 0x05f3,
        productId: 1114,
        path: '/dev/hidraw2',
        serial: 'JS-9',
        unitId: 0,
      },
    ]
    expect(await driver.detect()).toEqual(expected)
    // The probe asks only for the version and the state (read-only requests), and releases the panel.
    expect(transport.opened.map((d) => [d.path, d.initWrites.map((w) => w.slice(0, 5)), d.writes, d.closed])).toEqual([
      ['/dev/hidraw1', ['00 d6', '00 b1'], [], true],
      ['/dev/hidraw2', ['00 d6', '00 b1'], [], true],
    ])
    // While a panel stays at its path, its unit id is remembered: no second probe.
    expect(await driver.detect()).toEqual(expected)
    expect(transport.opened).toHaveLength(2)
  })

  it('a panel replugged at a path is probed again; one that never answers is listed without a unit id', async () => {
    vi.useFakeTimers()
    const transport = new MemoryXkeysTransport()
    transport.plug('XK24', '/dev/hidraw1', { unitId: 4 })
    const driver = new XkeysDriver({ transport })
    expect((await driver.detect()).map((d) => d.id)).toEqual(['05f3:0405@/dev/hidraw1#unit4'])
    transport.unplug('/dev/hidraw1')
    expect(await driver.detect()).toEqual([])
    transport.plug('XK24', '/dev/hidraw1', { unitId: 9 })
    transport.onOpen = (dev) => (dev.answers = false)
    const listed = driver.detect()
    await vi.advanceTimersByTimeAsync(XKEYS_INIT_TIMEOUT_MS)
    expect((await listed).map((d) => [d.id, d.unitId])).toEqual([['05f3:0405@/dev/hidraw1', undefined]])
    expect(transport.lastOpened('/dev/hidraw1')!.closed).toBe(true)
    transport.onOpen = undefined
    expect((await driver.detect()).map((d) => d.id)).toEqual(['05f3:0405@/dev/hidraw1#unit9'])
  })

  it('open refuses a panel whose unit id is not the one detected (another panel now at that path)', async () => {
    const transport = new MemoryXkeysTransport()
    transport.plug('XK24', '/dev/hidraw1', { unitId: 4 })
    const driver = new XkeysDriver({ transport })
    const [detected] = await driver.detect()
    transport.plug('XK24', '/dev/hidraw1', { unitId: 5 })
    await expect(driver.open(detected!)).rejects.toThrow(
      'xkeys: 05f3:0405@/dev/hidraw1#unit4 answered with unit id 5, not 4: another panel is at that path now',
    )
    expect(transport.lastOpened('/dev/hidraw1')!.closed).toBe(true)
    expect((await driver.detect()).map((d) => d.id)).toEqual(['05f3:0405@/dev/hidraw1#unit5'])
  })

  it('XK-24: 24 keys row-major in a 6 × 4 grid, the program switch as button:0, the same ids as the model table', async () => {
    const { surface, hid, events } = await openModel('XK24')
    expect(surface.description.grid).toEqual({ rows: 6, columns: 4 })
    const keys = surface.description.controls.filter((c) => c.kind === 'key')
    expect(keys).toHaveLength(24)
    // The label is the panel's own numbering (down the columns from 1), for learn to show.
    expect(keys[1]).toMatchObject({ id: 'key:1', label: 'key 7', row: 0, column: 1, capabilities: { led: true } })
    expect(keys[23]).toMatchObject({ id: 'key:23', label: 'key 24', row: 5, column: 3 })
    expect(surface.description.controls.find((c) => c.id === 'button:0')!.label).toBe('program switch')
    expect(surface.description.controls.map((c) => c.id)).toEqual(xkeysModelControls('XK24')!.map((c) => c.id))
    // The library counts down the columns: its key 7 is the top of the second column, key:1 here.
    hid.input(xk24Report([7]))
    hid.input(xk24Report([7, 2]))
    hid.input(xk24Report([], true))
    hid.input(xk24Report([]))
    // Releases in one report come in the library's index order (its key 2 before its key 7).
    expect(brief(events)).toEqual(['down key:1', 'down key:4', 'up key:4', 'up key:1', 'down button:0', 'up button:0'])
  })

  it('two identical panels are told apart by their unit id', async () => {
    const a = await openModel('XK24', 3)
    const b = await openModel('XK24', 7)
    expect([a.surface.unitId, b.surface.unitId]).toEqual([3, 7])
  })

  it('two XK-24s with the same serial number are two devices, one per unit id', async () => {
    const transport = new MemoryXkeysTransport()
    transport.plug('XK24', '/dev/hidraw1', { serialNumber: 'SAME', unitId: 3 })
    transport.plug('XK24', '/dev/hidraw2', { serialNumber: 'SAME', unitId: 7 })
    const detected = await new XkeysDriver({ transport }).detect()
    expect(detected.map((d) => [d.id, d.serial, d.unitId])).toEqual([
      ['SAME#unit3', 'SAME', 3],
      ['SAME#unit7', 'SAME', 7],
    ])
  })

  it('a panel that never answers the init handshake fails the open after the timeout and is released', async () => {
    vi.useFakeTimers()
    const transport = new MemoryXkeysTransport()
    transport.plug('XK24', '/dev/hidraw1')
    const driver = new XkeysDriver({ transport })
    const [detected] = await driver.detect()
    transport.opened.length = 0
    transport.onOpen = (dev) => (dev.answers = false)
    const opening = driver.open(detected!)
    const failed = expect(opening).rejects.toThrow(`did not answer the init handshake in ${XKEYS_INIT_TIMEOUT_MS} ms`)
    await vi.advanceTimersByTimeAsync(XKEYS_INIT_TIMEOUT_MS - 1)
    expect(transport.opened[0]!.closed).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await failed
    expect(transport.opened[0]!.closed).toBe(true)
  })

  it('drops a report too short to decode, and keeps decoding after it', async () => {
    const { hid, events } = await openModel('XK24')
    // One past the last byte the library reads: the RailDriver remap (bytes 0..12) bounds every product.
    expect(xkeysReportBytes(xkeysModelById('XK24')!.product)).toBe(13)
    expect(() => hid.input([0, 0, 1])).not.toThrow()
    hid.input(xk24Report([1]))
    expect(brief(events)).toEqual(['down key:0'])
  })
})

describe('X-keys backlights', () => {
  it('the same state twice writes once; a change writes again', async () => {
    const { surface, hid } = await openModel('XK24')
    surface.setFeedback('key:0', { color: '#0000ff' })
    surface.setFeedback('key:0', { color: '#0000ff' })
    expect(hid.writes).toHaveLength(2)
    surface.setFeedback('key:0', { color: '#0000ff', led: 'blink' })
    expect(hid.writes).toHaveLength(4)
    expect(surface.stats).toEqual({ writes: 2, skipped: 1 })
  })

  it('feedback on a control without a light writes nothing', async () => {
    const { surface, hid } = await openModel('XK68JOGSHUTTLE')
    surface.setFeedback('jog', { color: '#ff0000' })
    surface.setFeedback('button:0', { color: '#ff0000' })
    surface.setFeedback('key:999', { color: '#ff0000' })
    expect(hid.writes).toEqual([])
  })

  it('brightness sets the backlight intensity, 0..100 % as 0..255', async () => {
    const { surface, hid } = await openModel('XK24')
    surface.setBrightness(100)
    surface.setBrightness(-5)
    expect(hid.writes.map((w) => w.split(' ').slice(0, 4).join(' '))).toEqual(['00 bb ff ff', '00 bb 00 00'])
  })

  it('a panel that fails mid-write reports an error and writes no more', async () => {
    const { surface, hid } = await openModel('XK24')
    const errors: string[] = []
    surface.events.on('error', (e) => errors.push(e.message))
    hid.failWith = new Error('EIO on write')
    surface.setFeedback('key:3', { color: '#ff0000' })
    expect(errors).toEqual(['EIO on write'])
    hid.failWith = undefined
    surface.setFeedback('key:4', { color: '#ff0000' })
    expect(hid.writes).toEqual([])
  })

  it('closing blanks every backlight and releases the panel', async () => {
    const { surface, hid } = await openModel('XK24')
    let closed = 0
    surface.events.on('closed', () => closed++)
    await surface.close()
    expect(hid.writes.map((w) => w.split(' ').slice(0, 4).join(' '))).toEqual(['00 b6 00 00', '00 b6 01 00'])
    expect(hid.closed).toBe(true)
    expect(hid.listenerCount('data')).toBe(0)
    expect(closed).toBe(1)
  })
})

describe('X-keys jog and shuttle', () => {
  it('unplugged with the ring held: centre, then closed', async () => {
    const { surface, hid, events } = await openModel('XK68JOGSHUTTLE')
    const closed = new Promise<void>((resolve) => surface.events.on('closed', resolve))
    const r = new Array<number>(32).fill(0)
    r[0] = 2
    r[17] = 0xfd // the XK-68 Jog-Shuttle's shuttle byte: -3
    hid.input(r)
    hid.emit('error', new Error('could not read from HID device'))
    await closed
    expect(brief(events)).toEqual(['value shuttle -3', 'value shuttle 0'])
  })
})

describe('X-keys joystick', () => {
  /** An XK-12 Joystick report: x, y, z at bytes 6, 7, 8 as the panel sends them (y down positive). */
  function stick(x: number, y: number, z: number): number[] {
    const r = new Array<number>(32).fill(0)
    r[6] = x & 0xff
    r[7] = y & 0xff
    r[8] = z & 0xff
    return r
  }

  it('the twist is taken the shorter way round modulo 256 and its first report only seeds', async () => {
    const { hid, events } = await openModel('XK12JOYSTICK')
    hid.input(stick(0, 0, 137))
    hid.input(stick(0, 0, 250))
    hid.input(stick(0, 0, 4))
    hid.input(stick(0, 0, 250))
    expect(brief(events)).toEqual(['rotate joystick:z 113', 'rotate joystick:z 10', 'rotate joystick:z -10'])
  })

  it('axes are -1..1 with up positive; a held stick returns to centre before closed, a centred one does not', async () => {
    const { surface, hid, events } = await openModel('XK12JOYSTICK')
    hid.input(stick(127, -127, 0))
    hid.input(stick(-64, 0, 0))
    expect(events.map((e) => (e.type === 'value' ? [e.control, e.value] : e.type))).toEqual([
      ['joystick:x', 1],
      ['joystick:y', 1],
      ['joystick:x', -64 / 127],
      ['joystick:y', 0],
    ])
    events.length = 0
    const closed = new Promise<void>((resolve) => surface.events.on('closed', resolve))
    hid.emit('error', new Error('could not read from HID device'))
    await closed
    expect(brief(events)).toEqual(['value joystick:x 0'])
  })
})

describe('X-keys under the surface manager', () => {
  /** A manager with live hot-plug, every device accessible and short scan and retry delays. */
  function fastManager(opts: Pick<SurfaceManagerOptions, 'drivers' | 'claims'>): SurfaceManager {
    const manager = new SurfaceManager({
      ...opts,
      hotplug: new FakeHotplug(true),
      access: () => Promise.resolve('ok'),
      pollMs: 20,
      rescanDelaysMs: [0, 20, 60],
      retryInitialMs: 30,
      retryMaxMs: 200,
    })
    onTestFinished(() => manager.stop())
    return manager
  }

  it('two identical XK-24s without serial numbers: the claims take each by its unit id, whichever port it is in', async () => {
    const xkeys = new MemoryXkeysTransport()
    const manager = fastManager({
      drivers: [new XkeysDriver({ transport: xkeys })],
      claims: [
        { name: 'left', driver: 'xkeys', match: { model: 'XK24', unitId: 7 } },
        { name: 'right', driver: 'xkeys', match: { model: 'XK24', unitId: 3 } },
      ],
    })
    xkeys.plug('XK24', '/dev/hidraw1', { unitId: 3 })
    xkeys.plug('XK24', '/dev/hidraw2', { unitId: 7 })
    await manager.start()
    const devices = (): [string, string | undefined][] =>
      manager
        .list()
        .map((d): [string, string | undefined] => [d.id, d.device])
        .sort()
    await expect.poll(devices, WAIT).toEqual([
      ['left', '05f3:0405@/dev/hidraw2#unit7'],
      ['right', '05f3:0405@/dev/hidraw1#unit3'],
    ])
    // Swapped between the ports: the names follow the unit ids.
    xkeys.unplug('/dev/hidraw1')
    xkeys.unplug('/dev/hidraw2')
    await manager.rescan()
    await expect.poll(devices, WAIT).toEqual([])
    xkeys.plug('XK24', '/dev/hidraw1', { unitId: 7 })
    xkeys.plug('XK24', '/dev/hidraw2', { unitId: 3 })
    await manager.rescan()
    await expect.poll(devices, WAIT).toEqual([
      ['left', '05f3:0405@/dev/hidraw1#unit7'],
      ['right', '05f3:0405@/dev/hidraw2#unit3'],
    ])
  })

  it('a panel that fails mid-write is closed and reopened with its backlight; a Shuttle beside it is untouched', async () => {
    const xkeys = new MemoryXkeysTransport()
    const shuttles = new MemoryShuttleTransport()
    const manager = fastManager({
      drivers: [new XkeysDriver({ transport: xkeys }), new ShuttleDriver({ transport: shuttles })],
    })
    xkeys.plug('XK24', '/dev/hidraw1', { serialNumber: 'PAD' })
    shuttles.plug('shuttlexpress', '/dev/hidraw2', 'XP')
    await manager.start()
    const bad = xkeys.lastOpened('/dev/hidraw1')!
    const wheel = shuttles.lastOpened('/dev/hidraw2')!
    bad.failWith = new Error('EIO on write')
    manager.setFeedback('PAD#unit0', 'key:0', { color: '#0000ff' })
    // The probe that read the unit id, the first open, the reopen.
    await expect.poll(() => xkeys.opened.length, WAIT).toBe(3)
    await expect.poll(() => manager.isOpen('PAD#unit0'), WAIT).toBe(true)
    expect(bad.closed).toBe(true)
    const again = xkeys.lastOpened('/dev/hidraw1')!
    // The recorded bytes for key 1 (key:0 here) in blue (SuperFlyTV/xkeys recording 1029_XK-24.json).
    await expect.poll(() => again.writes.map((w) => w.slice(0, 14)), WAIT).toEqual(['00 b5 00 01 01', '00 b5 20 00 01'])
    expect(wheel.closed).toBe(false)
    expect(manager.isOpen('XP')).toBe(true)
  })
})
