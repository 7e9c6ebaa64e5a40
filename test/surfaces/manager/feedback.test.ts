/**
 * Feedback and brightness through the surface manager: remembered per control while a surface is away and
 * drawn again when it returns, surfaces added by hand, and a surface that fails while drawing is closed.
 * Cases from the former manager.test.ts, over Stream Decks.
 * Cases from the former manager-mutants.test.ts (mutation survivors), over hand-made surfaces.
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { describe, expect, it, vi } from 'vitest'
import { MemoryStreamDeckTransport, decodeGen2KeyImages } from '../helpers/fake-hid.js'
import { WAIT, deckDriver, deckRig, manage, startedDeckRig, startedList, useManagerLogs } from '../helpers/manager.js'
import { handSurface } from '../helpers/surfaces.js'

const logs = useManagerLogs()

describe('feedback over Stream Decks', () => {
  logs.capture()

  it('re-applies the last feedback when a device comes back after an unplug', async () => {
    const { transport, hotplug, manager } = await startedDeckRig()
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

  it('adds static surfaces, forwards feedback to them and closes them on error without retrying', async () => {
    const transport = new MemoryStreamDeckTransport()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/static', 'STATIC')
    const driver = deckDriver(transport)
    const surface = await driver.open((await driver.detect())[0]!)
    const { manager, events } = deckRig({ drivers: [] })
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
    await expect
      .poll(() => logs.records.some((l) => l.message === 'surface STATIC failed and was closed'), WAIT)
      .toBe(true)
    expect(events.status.map((s) => s.state)).toEqual(['open', 'closed'])
    expect(manager.isOpen('STATIC')).toBe(false)
    expect(transport.opened).toHaveLength(1)
  })
})

describe('feedback, brightness and surfaces added by hand', () => {
  logs.capture('debug')

  it('remembers feedback per control for a surface not open, and emits it', () => {
    const { manager } = manage([])
    const seen: string[] = []
    manager.events.on('feedback', (id, control, fb) => seen.push(`${id} ${control} ${fb.color}`))
    manager.setFeedback('later', 'key:1', { color: '#111111' })
    manager.setFeedback('later', 'key:2', { color: '#222222' })
    manager.setBrightness('later', 40)
    expect([...manager.feedbackOf('later').keys()]).toEqual(['key:1', 'key:2'])
    expect(seen).toEqual(['later key:1 #111111', 'later key:2 #222222'])
    const s = handSurface('later')
    manager.addSurface(s)
    expect(s.feedback).toEqual(['key:1 #111111', 'key:2 #222222'])
    expect(s.brightness).toEqual([40])
  })

  it('flash lights a control once, then shows its own feedback again, unrecorded and unannounced', () => {
    vi.useFakeTimers()
    try {
      const { manager } = manage([])
      const seen: string[] = []
      manager.events.on('feedback', (id, control) => seen.push(`${id} ${control}`))
      const s = handSurface('desk')
      manager.addSurface(s)
      manager.setFeedback('desk', 'key:1', { color: '#123456' })
      manager.flash('desk', 'key:1', 300)
      manager.flash('nowhere', 'key:1', 300)
      expect(s.feedback).toEqual(['key:1 #123456', 'key:1 #ffffff'])
      vi.advanceTimersByTime(299)
      expect(s.feedback).toHaveLength(2)
      vi.advanceTimersByTime(1)
      expect(s.feedback).toEqual(['key:1 #123456', 'key:1 #ffffff', 'key:1 #123456'])
      expect(manager.feedbackOf('desk').get('key:1')).toEqual({ color: '#123456' })
      expect(seen).toEqual(['desk key:1'])
    } finally {
      vi.useRealTimers()
    }
  })

  it('gives an opened surface no brightness or feedback unless one was set', () => {
    const { manager } = manage([])
    const s = handSurface('web')
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
    const a = handSurface('a')
    const b = handSurface('b')
    manager.addSurface(a)
    manager.addSurface(b)
    a.throwOnFeedback = new Error('gone a')
    b.throwOnBrightness = new Error('gone b')
    manager.setFeedback('a', 'key:0', { color: '#000000' })
    manager.setBrightness('b', 10)
    await vi.waitFor(() => expect(removed.sort()).toEqual(['a', 'b']))
    expect(seen).toEqual([])
    expect([a.closed, b.closed]).toEqual([true, true])
    expect(logs.startingWith('surface a failed').map((l) => [l.level, l.fields])).toEqual([
      ['warn', { error: 'gone a' }],
    ])
    expect(logs.startingWith('surface b failed').map((l) => l.fields)).toEqual([{ error: 'gone b' }])
  })

  it('a surface closed from its own side is removed', async () => {
    const { driver, manager, removed } = await startedList(['A'])
    driver.last('A').hub.emit('closed')
    await vi.waitFor(() => expect(removed).toEqual(['A']))
    expect(manager.isOpen('A')).toBe(false)
  })

  it('removeSurface closes a surface, leaves none of its listeners on it, and ignores an unknown id', async () => {
    const { manager, removed } = manage([])
    const s = handSurface('web')
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
    const s = handSurface('web')
    s.rejectClose = new Error('stuck')
    manager.addSurface(s)
    await manager.removeSurface('web')
    expect(removed).toEqual(['web'])
    expect(logs.records.find((l) => l.message === 'surface did not close cleanly')).toMatchObject({
      level: 'debug',
      fields: { surface: 'web', error: 'stuck' },
    })
    expect(s.events.listenerCount('error')).toBe(0)
  })

  it('refuses a surface added after stop()', async () => {
    const { manager } = manage([])
    await manager.stop()
    const s = handSurface('web')
    expect(() => manager.addSurface(s)).toThrow('surface manager is stopped; cannot add web')
  })

  it('a surface that reports an error and then throws from setFeedback is closed once, and the call does not throw', async () => {
    const { manager, removed } = manage([])
    const s = handSurface('web')
    manager.addSurface(s)
    s.setFeedback = () => {
      s.hub.emit('error', new Error('EIO'))
      throw new Error('EIO')
    }
    expect(() => manager.setFeedback('web', 'key:0', { color: '#000000' })).not.toThrow()
    await vi.waitFor(() => expect(removed).toEqual(['web']))
  })
})
