/**
 * Find by pressing in the input door (issue 42 item 1), with fake timers: an armed surface's press, turn
 * or move is selected and never reaches the engine, other surfaces keep working, arming ends after
 * FIND_TIMEOUT_MS without a press (then the surface sends again), on disarm and when the page that armed
 * it closes; no press is left half done across arming.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { SelectedEvent } from '../../src/daemon/api.js'
import { FIND_TIMEOUT_MS, FindMode } from '../../src/daemon/find.js'
import { InputDoor } from '../../src/daemon/input.js'
import type { SurfaceEvent } from '../../src/surfaces/types.js'

function rig() {
  const handled: SurfaceEvent[] = []
  const selected: SelectedEvent[] = []
  const flashed: string[] = []
  const ended: string[] = []
  const door = new InputDoor({ handle: (e) => void handled.push(e), cancelPresses: () => 0 })
  const find = new FindMode({
    pageOf: (s) => (s === 'desk' ? 'main' : undefined),
    selected: (e) => void selected.push(e),
    flash: (s, c) => void flashed.push(`${s}/${c}`),
    ended: (why) => void ended.push(why),
  })
  door.gate = find
  const at = 0
  const down = (surface: string, control: string): void => door.enter({ type: 'down', surface, control, at }, 'surface')
  const up = (surface: string, control: string): void => door.enter({ type: 'up', surface, control, at }, 'surface')
  const turn = (surface: string, control: string, delta: number): void =>
    door.enter({ type: 'rotate', surface, control, delta, at }, 'surface')
  const move = (surface: string, control: string, value: number): void =>
    door.enter({ type: 'value', surface, control, value, at }, 'surface')
  const names = (): string[] => handled.map((e) => `${e.type} ${e.surface}/${e.control}`)
  return { door, find, handled, selected, flashed, ended, down, up, turn, move, names }
}

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('find by pressing', () => {
  it('selects the armed surface’s press, flashes it and sends nothing; another surface keeps working', () => {
    const r = rig()
    r.find.arm(['desk'])
    r.down('desk', 'key:3')
    r.up('desk', 'key:3')
    r.down('pedal', 'key:0')
    r.up('pedal', 'key:0')
    expect(r.names()).toEqual(['down pedal/key:0', 'up pedal/key:0'])
    expect(r.selected).toEqual([{ surface: 'desk', control: 'key:3', page: 'main' }])
    expect(r.flashed).toEqual(['desk/key:3'])
  })

  it('a turn or a move selects its control once and is never sent', async () => {
    const r = rig()
    r.find.arm(undefined)
    r.turn('shuttle', 'jog', 2)
    r.turn('shuttle', 'jog', 3)
    await Promise.resolve()
    r.move('desk', 'fader:0', 0.5)
    r.move('desk', 'fader:0', 0.6)
    expect(r.handled).toEqual([])
    expect(r.selected).toEqual([
      { surface: 'shuttle', control: 'jog', page: null },
      { surface: 'desk', control: 'fader:0', page: 'main' },
    ])
  })

  it(`ends ${FIND_TIMEOUT_MS / 1000} s after the last press, and the surface sends again`, () => {
    const r = rig()
    r.find.arm(['desk'])
    vi.advanceTimersByTime(FIND_TIMEOUT_MS - 1)
    r.down('desk', 'key:1')
    r.up('desk', 'key:1')
    // A press restarts the time.
    vi.advanceTimersByTime(FIND_TIMEOUT_MS - 1)
    expect(r.find.armed).toBe(true)
    expect(r.handled).toEqual([])
    vi.advanceTimersByTime(1)
    expect(r.find.armed).toBe(false)
    expect(r.ended).toEqual(['timeout'])
    r.down('desk', 'key:1')
    expect(r.names()).toEqual(['down desk/key:1'])
  })

  it('ends on disarm, and when the page that armed it closes (not another page)', () => {
    const r = rig()
    r.find.arm(undefined, { page: 7 })
    r.find.ownerGone({ page: 8 })
    expect(r.find.armed).toBe(true)
    r.find.ownerGone({ page: 7 })
    expect(r.find.armed).toBe(false)
    r.find.arm(undefined)
    r.find.disarm()
    expect(r.ended).toEqual(['closed', 'disarmed'])
    r.turn('desk', 'encoder:0', 1)
    expect(r.names()).toEqual(['rotate desk/encoder:0'])
  })

  it('leaves no press half done: an up follows its down, wherever the down went', () => {
    const r = rig()
    r.down('desk', 'key:0') // before arming: to the engine
    r.find.arm(['desk'])
    r.up('desk', 'key:0') // its up goes there too
    r.down('desk', 'key:1') // selected
    r.find.disarm()
    r.up('desk', 'key:1') // its up is taken, even disarmed
    expect(r.names()).toEqual(['down desk/key:0', 'up desk/key:0'])
  })
})
