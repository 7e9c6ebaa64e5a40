import { describe, expect, it } from 'vitest'
import { JogCounter } from '../../src/surfaces/usb-hid/jog-counter.js'
import { ShuttleDriver, shuttleIdentity } from '../../src/surfaces/shuttle/driver.js'
import { SHUTTLE_MODEL_IDS, shuttleModelControls } from '../../src/families/shuttle.js'
import type { ShuttleSurface } from '../../src/surfaces/shuttle/surface.js'
import type { SurfaceEvent } from '../../src/surfaces/types.js'
import { checkProperty, fc } from '../fuzz/harness.js'
import { MemoryShuttleTransport, type FakeShuttleHid } from './helpers/fake-shuttle.js'
import { openFirstDetected } from './helpers/surfaces.js'

async function openModel(
  model = 'shuttlepro_v2',
  serial?: string,
): Promise<{
  surface: ShuttleSurface
  hid: FakeShuttleHid
  events: SurfaceEvent[]
  transport: MemoryShuttleTransport
}> {
  const transport = new MemoryShuttleTransport()
  transport.plug(model, `/dev/hidraw-${model}`, serial)
  const { surface, events } = await openFirstDetected(new ShuttleDriver({ transport }))
  return { surface, hid: transport.lastOpened(`/dev/hidraw-${model}`)!, events, transport }
}

const jogDeltas = (events: SurfaceEvent[]): number[] =>
  events.flatMap((e) => (e.type === 'rotate' && e.control === 'jog' ? [e.delta] : []))
const brief = (events: SurfaceEvent[]): string[] =>
  events.map((e) => `${e.type} ${e.control}${e.type === 'value' ? ' ' + e.value : ''}`)

describe('Contour Shuttle driver: detect and open', () => {
  it('lists every model with its config id, display name and identity, without opening any', async () => {
    const transport = new MemoryShuttleTransport()
    transport.plug('shuttlexpress', '/dev/hidraw3')
    transport.plug('shuttlepro_v2', '/dev/hidraw4', 'SP2-0042')
    transport.plug('shuttlepro_v1', '/dev/hidraw5')
    const detected = await new ShuttleDriver({ transport }).detect()
    expect(detected).toEqual([
      {
        driver: 'shuttle',
        id: '0b33:0020@/dev/hidraw3',
        model: 'ShuttleXpress',
        modelId: 'shuttlexpress',
        vendorId: 0x0b33,
        productId: 0x0020,
        path: '/dev/hidraw3',
      },
      {
        driver: 'shuttle',
        id: 'SP2-0042',
        model: 'ShuttlePro v2',
        modelId: 'shuttlepro_v2',
        vendorId: 0x0b33,
        productId: 0x0030,
        path: '/dev/hidraw4',
        serial: 'SP2-0042',
      },
      {
        driver: 'shuttle',
        id: '0b33:0010@/dev/hidraw5',
        model: 'ShuttlePro v1',
        modelId: 'shuttlepro_v1',
        vendorId: 0x0b33,
        productId: 0x0010,
        path: '/dev/hidraw5',
      },
    ])
    expect(transport.opened).toHaveLength(0)
  })

  it('identity: a blank serial falls back to vendor:product@path', () => {
    expect(shuttleIdentity({ serialNumber: '  ', vendorId: 0x0b33, productId: 0x30, path: '/dev/hidraw9' })).toBe(
      '0b33:0030@/dev/hidraw9',
    )
  })

  it('describes the model: its buttons, the jog and the ring; the opened surface matches the model table', async () => {
    const { surface } = await openModel('shuttlepro_v1', 'SP1')
    expect(surface.description).toMatchObject({ id: 'SP1', driver: 'shuttle', model: 'ShuttlePro v1' })
    expect(surface.description.controls.map((c) => c.id)).toEqual(
      shuttleModelControls('shuttlepro_v1')!.map((c) => c.id),
    )
    expect(surface.description.controls.filter((c) => c.kind === 'button')).toHaveLength(13)
    expect(SHUTTLE_MODEL_IDS).toEqual(['shuttlepro_v1', 'shuttlexpress', 'shuttlepro_v2'])
    expect(shuttleModelControls('shuttlexpress')!.map((c) => c.id)).not.toContain('button:5')
    expect(shuttleModelControls('nope')).toBeUndefined()
  })

  it('refuses a device whose vendor/product is no Contour model, opening nothing', async () => {
    const transport = new MemoryShuttleTransport()
    const driver = new ShuttleDriver({ transport })
    await expect(
      driver.open({ driver: 'shuttle', id: 'x', model: 'x', vendorId: 0x0b33, productId: 0x0099, path: '/dev/x' }),
    ).rejects.toThrow(/0b33:0099 is not a known Contour model/)
    expect(transport.opened).toHaveLength(0)
  })
})

describe('Contour Shuttle jog: exact deltas from the raw counter', () => {
  it('the first report after opening only seeds, even far from 0', async () => {
    const { hid, events } = await openModel()
    hid.report(0, 137)
    hid.report(0, 138)
    expect(jogDeltas(events)).toEqual([1])
  })

  it('a first report at counter 0 seeds too (the library stays silent on it)', async () => {
    const { hid, events } = await openModel()
    hid.report(0, 0)
    hid.report(0, 255)
    hid.report(0, 1)
    expect(jogDeltas(events)).toEqual([-1, 2])
  })

  it('wraps with a large step both ways: 248 → 3 is +11, 3 → 248 is -11, 200 → 70 is +126, 70 → 200 is -126', async () => {
    const { hid, events } = await openModel()
    for (const counter of [248, 3, 248, 200, 70, 200]) hid.report(0, counter)
    expect(jogDeltas(events)).toEqual([11, -11, -48, 126, -126])
  })

  it('a full turn in small steps sums exactly, both ways', async () => {
    const { hid, events } = await openModel()
    let counter = 201
    hid.report(0, counter)
    const steps = [3, 5, 1, 7, 2]
    let moved = 0
    for (let i = 0; moved < 256; i++) {
      const step = Math.min(steps[i % steps.length]!, 256 - moved)
      counter = (counter + step) % 256
      moved += step
      hid.report(0, counter)
    }
    expect(counter).toBe(201)
    expect(jogDeltas(events).reduce((a, b) => a + b, 0)).toBe(256)
    events.length = 0
    for (moved = 0; moved < 256; moved += 4) hid.report(0, (counter = (counter + 252) % 256))
    expect(jogDeltas(events).reduce((a, b) => a + b, 0)).toBe(-256)
    expect(jogDeltas(events).every((d) => d === -4)).toBe(true)
  })

  it('fuzz: for any true movements under 128 per report, the emitted deltas sum to the true movement', async () => {
    await checkProperty(
      'shuttle jog sum',
      fc.asyncProperty(
        fc.integer({ min: 0, max: 255 }),
        fc.array(fc.integer({ min: -127, max: 127 }), { maxLength: 200 }),
        async (start, moves) => {
          const { surface, hid, events } = await openModel('shuttlexpress')
          let counter = start
          hid.report(0, counter)
          for (const m of moves) {
            counter = (((counter + m) % 256) + 256) % 256
            hid.report(0, counter)
          }
          const sum = jogDeltas(events).reduce((a, b) => a + b, 0)
          await surface.close()
          expect(sum).toBe(moves.reduce((a, b) => a + b, 0))
          expect(jogDeltas(events)).toEqual(moves.filter((m) => m !== 0))
        },
      ),
    )
  })

  it('JogCounter: reset makes the next report seed again', () => {
    const jog = new JogCounter()
    expect(jog.next(10)).toBeUndefined()
    expect(jog.next(12)).toBe(2)
    jog.reset()
    expect(jog.next(200)).toBeUndefined()
    expect(jog.next(199)).toBe(-1)
  })
})

describe('Contour Shuttle ring and lifecycle', () => {
  it('closing with the ring off centre announces the return to centre before closed, and releases the device', async () => {
    const { surface, hid, events } = await openModel()
    hid.report(4, 0)
    const order: string[] = []
    surface.events.on('input', (e) => order.push(`input ${e.type} ${e.control}`))
    surface.events.on('closed', () => order.push('closed'))
    await surface.close()
    expect(brief(events)).toEqual(['value shuttle 0.5714285714285714', 'value shuttle 0'])
    expect(order).toEqual(['input value shuttle', 'closed'])
    expect(hid.closed).toBe(true)
    expect(hid.listenerCount('data')).toBe(0)
    hid.report(2, 9, 1)
    expect(events).toHaveLength(2)
  })

  it('closing with the ring at centre announces nothing', async () => {
    const { surface, hid, events } = await openModel()
    hid.report(3, 0)
    hid.report(0, 0)
    expect(events).toHaveLength(2)
    await surface.close()
    expect(events).toHaveLength(2)
  })

  it('unplugged while the ring is held: centre, then closed, device closed', async () => {
    const { surface, hid, events } = await openModel()
    const closed = new Promise<void>((resolve) => surface.events.on('closed', resolve))
    hid.report(-6, 0)
    // node-hid's read error when the device goes away; the library takes it as a disconnect.
    hid.emit('error', new Error('could not read from HID device'))
    await closed
    expect(brief(events)).toEqual([`value shuttle ${-6 / 7}`, 'value shuttle 0'])
    expect(hid.closed).toBe(true)
  })

  it('any other device error becomes the surface error event, after the ring is centred (the manager closes and retries)', async () => {
    const { surface, hid } = await openModel()
    const errors: Error[] = []
    const order: string[] = []
    surface.events.on('input', (e) => order.push(`${e.type} ${e.control} ${e.type === 'value' ? e.raw : ''}`))
    surface.events.on('error', (e) => (errors.push(e), order.push(`error ${e.message}`)))
    hid.report(2, 0)
    hid.emit('error', new Error('boom'))
    expect(order).toEqual(['value shuttle 2', 'value shuttle 0', 'error boom'])
    hid.emit('error', new Error('again'))
    expect(errors.map((e) => e.message)).toEqual(['boom'])
    await surface.close()
    // After close a late error goes nowhere and throws nothing.
    hid.emit('error', new Error('late'))
    expect(errors).toHaveLength(1)
  })

  it('feedback and brightness write nothing: the device has no lights', async () => {
    const { surface, hid } = await openModel()
    surface.setFeedback('button:0', { color: '#ff0000', led: 'on' })
    surface.setFeedback('key:99', { color: '#ff0000' })
    surface.setBrightness(50)
    expect(hid.writes).toEqual([])
  })
})
