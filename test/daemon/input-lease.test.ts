/**
 * A remote API `down` without its `up` (issue 46 item 3): the control is held for its lease, then let
 * go (cancelled, as every unfinished press is: nothing of it fires late), and a later press is sent; a
 * `press` while an earlier `down` is still held cancels that one first instead of being swallowed by it. The real door and engine over an
 * in-memory simulator (the command port is the transport boundary); fake timers for the lease.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { API_LEASE, InputDoor } from '../../src/daemon/input.js'
import type { ControlId } from '../../src/face/control-id.js'
import { loggerInto, messages } from '../helpers/logs.js'
import { memoryHarness } from '../mappings/memory-app.js'

afterEach(() => {
  vi.useRealTimers()
})

const CONFIG = `version: 1
app: { url: http://127.0.0.1:9 }
surfaces:
  console: { driver: web, rows: 1, columns: 2 }
bindings:
  - on: console/key:0
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
  - on: console/key:1
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
    hold: { command: schedule, params: { action: cutout, title: "Lower Third" }, after_ms: 30000 }
`

async function rig() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  const h = await memoryHarness(CONFIG)
  const logs = loggerInto('input')
  const door = new InputDoor(h.engine, logs.logger)
  onTestFinished(() => {
    door.close()
    h.close()
  })
  const key = (n: number): ControlId => `key:${n}`
  /** Lets the in-memory sends settle (they answer in a later microtask). */
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 10; i++) await Promise.resolve()
  }
  return { h, door, key, settle, logs }
}

describe('a remote API down without its up', () => {
  it('holds the control for its lease, then lets it go, and the next press is sent', async () => {
    const { h, door, key, settle } = await rig()
    door.inject('console', key(0), 'down', 1000)
    await settle()
    expect(h.sent('schedule')).toHaveLength(1)
    vi.advanceTimersByTime(1000)
    await settle()
    door.inject('console', key(0), 'press')
    await settle()
    expect(h.sent('schedule')).toHaveLength(2)
  })

  it('a press while the down is still held cancels it first: the press is never swallowed', async () => {
    const { h, door, key, settle } = await rig()
    door.inject('console', key(0), 'down')
    await settle()
    door.inject('console', key(0), 'press')
    await settle()
    expect(h.sent('schedule')).toHaveLength(2)
    // The lease of the first down ended with it: nothing fires when its time comes.
    vi.advanceTimersByTime(API_LEASE.defaultMs)
    await settle()
    expect(h.sent('schedule')).toHaveLength(2)
  })

  it("on a hold binding, a press while a down is held is a press of its own: its short press fires, the held one's never", async () => {
    const { h, door, key, settle, logs } = await rig()
    door.inject('console', key(1), 'down')
    await settle()
    door.inject('console', key(1), 'press')
    await settle()
    expect(h.sent('schedule').map((p) => p.action)).toEqual(['cutin'])
    vi.advanceTimersByTime(API_LEASE.defaultMs)
    await settle()
    expect(h.sent('schedule').map((p) => p.action)).toEqual(['cutin'])
    expect(messages(logs.records, 'warn')).toEqual([])
  })
})
