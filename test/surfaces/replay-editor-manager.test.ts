/**
 * The Blackmagic panels' driver under the surface manager: hot-plug add and remove, and a panel that
 * faults mid-storm closed and reopened, its input flowing again with nothing of the old device after.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { JOG_UNITS_PER_STEP } from '../../src/families/replay-editor.js'
import { BmdDriver } from '../../src/surfaces/replay-editor/driver.js'
import type { SurfaceEvent } from '../../src/surfaces/types.js'
import { captureLogs } from '../helpers/logs.js'
import { MemoryBmdTransport } from './helpers/fake-bmd.js'
import { FakeHotplug } from './helpers/fake-hotplug.js'
import { WAIT, managed } from './helpers/manager.js'

beforeEach(() => {
  captureLogs()
})

function setup() {
  const panels = new MemoryBmdTransport()
  const hotplug = new FakeHotplug(true)
  const { manager, input, removed } = managed({
    drivers: [new BmdDriver({ transport: panels })],
    hotplug,
    pollMs: 20,
    rescanDelaysMs: [0, 20, 60],
    retryInitialMs: 30,
    retryMaxMs: 200,
  })
  return { panels, hotplug, manager, input, removed }
}

const brief = (events: SurfaceEvent[]): string[] =>
  events.map((e) => `${e.surface} ${e.type} ${e.control}${e.type === 'rotate' ? ' ' + e.delta : ''}`)

describe('Blackmagic panels under the surface manager', () => {
  it('hot-plug: attach opens the Replay Editor, its input flows; detach closes it', async () => {
    const { panels, hotplug, manager, input, removed } = setup()
    await manager.start()
    panels.plug('davinci-resolve-replay-editor', '/dev/hidraw3', 'RE1')
    hotplug.fire('attach')
    await expect.poll(() => manager.isOpen('RE1'), WAIT).toBe(true)
    const hid = panels.lastOpened('/dev/hidraw3')!
    hid.buttons('run')
    hid.jog(JOG_UNITS_PER_STEP * 2)
    expect(brief(input)).toEqual(['RE1 down button:3', 'RE1 rotate jog 2'])
    panels.unplug('/dev/hidraw3')
    hotplug.fire('detach')
    await expect.poll(() => removed, WAIT).toEqual(['RE1'])
    expect(hid.closed).toBe(true)
  })

  it('a panel that faults mid-storm is closed and reopened; the old device is heard no more', async () => {
    const { panels, manager, input } = setup()
    panels.plug('davinci-resolve-replay-editor', '/dev/hidraw4', 'RE2')
    await manager.start()
    const first = panels.lastOpened('/dev/hidraw4')!
    for (let i = 0; i < 10; i++) first.jog(JOG_UNITS_PER_STEP)
    first.emit('error', new Error('EIO'))
    await expect.poll(() => panels.opened.length, WAIT).toBe(2)
    await expect.poll(() => manager.isOpen('RE2'), WAIT).toBe(true)
    expect(first.closed).toBe(true)
    first.jog(JOG_UNITS_PER_STEP * 50) // a late report of the old device
    const again = panels.lastOpened('/dev/hidraw4')!
    again.jog(JOG_UNITS_PER_STEP * 3)
    const steps = input.filter((e) => e.type === 'rotate').map((e) => (e.type === 'rotate' ? e.delta : 0))
    expect(steps).toEqual([...Array<number>(10).fill(1), 3])
  })
})
