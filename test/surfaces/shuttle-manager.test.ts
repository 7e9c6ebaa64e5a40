/**
 * The Contour Shuttle driver under the surface manager, next to a Stream Deck: hot-plug add and remove,
 * the ring's centre reaching the manager when the device goes, and a failing Shuttle reopened without
 * touching the deck.
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { beforeEach, describe, expect, it } from 'vitest'
import { ShuttleDriver } from '../../src/surfaces/shuttle/driver.js'
import type { SurfaceEvent } from '../../src/surfaces/types.js'
import { MemoryStreamDeckTransport, gen2KeyReport } from './helpers/fake-hid.js'
import { FakeHotplug } from './helpers/fake-hotplug.js'
import { MemoryShuttleTransport } from './helpers/fake-shuttle.js'
import { captureLogs } from '../helpers/logs.js'
import { WAIT, deckDriver, managed } from './helpers/manager.js'

beforeEach(() => {
  captureLogs()
})

function setup() {
  const shuttles = new MemoryShuttleTransport()
  const decks = new MemoryStreamDeckTransport()
  const hotplug = new FakeHotplug(true)
  const { manager, input, removed } = managed({
    drivers: [deckDriver(decks), new ShuttleDriver({ transport: shuttles })],
    hotplug,
    pollMs: 20,
    rescanDelaysMs: [0, 20, 60],
    retryInitialMs: 30,
    retryMaxMs: 200,
  })
  const added: string[] = []
  manager.events.on('added', (d) => added.push(`${d.driver} ${d.id} ${d.model}`))
  return { shuttles, decks, hotplug, manager, input, added, removed }
}

const brief = (events: SurfaceEvent[]): string[] =>
  events.map(
    (e) =>
      `${e.surface} ${e.type} ${e.control}${e.type === 'value' ? ' ' + e.raw : e.type === 'rotate' ? ' ' + e.delta : ''}`,
  )

describe('Contour Shuttle under the surface manager', () => {
  it('hot-plug: attach opens the ShuttleXpress, its input flows; detach closes it', async () => {
    const { shuttles, hotplug, manager, input, added, removed } = setup()
    await manager.start()
    shuttles.plug('shuttlexpress', '/dev/hidraw3', 'XP1')
    hotplug.fire('attach')
    await expect.poll(() => manager.isOpen('XP1'), WAIT).toBe(true)
    expect(added).toEqual(['shuttle XP1 ShuttleXpress'])
    const hid = shuttles.lastOpened('/dev/hidraw3')!
    hid.report(0, 10)
    hid.report(0, 12, 0x10)
    expect(brief(input)).toEqual(['XP1 down button:0', 'XP1 rotate jog 2'])
    shuttles.unplug('/dev/hidraw3')
    hotplug.fire('detach')
    await expect.poll(() => removed, WAIT).toEqual(['XP1'])
    expect(hid.closed).toBe(true)
    expect(manager.list()).toEqual([])
  })

  it('unplugged with the ring held: the manager hears the ring centre before the surface is removed', async () => {
    const { shuttles, manager, input, removed } = setup()
    shuttles.plug('shuttlepro_v2', '/dev/hidraw4', 'PRO')
    await manager.start()
    const hid = shuttles.lastOpened('/dev/hidraw4')!
    hid.report(5, 0)
    let removedAfter = -1
    manager.events.on('removed', () => (removedAfter = input.length))
    shuttles.unplug('/dev/hidraw4')
    hid.emit('error', new Error('could not read from HID device'))
    await expect.poll(() => removed, WAIT).toEqual(['PRO'])
    expect(brief(input)).toEqual(['PRO value shuttle 5', 'PRO value shuttle 0'])
    expect(removedAfter).toBe(2)
  })

  it('a Shuttle that faults is closed and reopened; the Stream Deck beside it is untouched', async () => {
    const { shuttles, decks, manager, input } = setup()
    shuttles.plug('shuttlepro_v2', '/dev/hidraw4', 'PRO')
    decks.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'DECK')
    await manager.start()
    const first = shuttles.lastOpened('/dev/hidraw4')!
    const deck = decks.lastOpened('/dev/hidraw1')!
    first.report(-3, 0)
    first.emit('error', new Error('EIO'))
    await expect.poll(() => shuttles.opened.length, WAIT).toBe(2)
    await expect.poll(() => manager.isOpen('PRO'), WAIT).toBe(true)
    expect(first.closed).toBe(true)
    expect(deck.closed).toBe(false)
    expect(manager.isOpen('DECK')).toBe(true)
    deck.input(gen2KeyReport([1], 15))
    const again = shuttles.lastOpened('/dev/hidraw4')!
    again.report(0, 50)
    again.report(0, 49)
    expect(brief(input)).toEqual([
      'PRO value shuttle -3',
      'PRO value shuttle 0',
      'DECK down key:1',
      'PRO rotate jog -1',
    ])
  })
})
