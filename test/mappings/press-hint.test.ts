/**
 * Issue 22, item 11: a short tap on a hold-to-confirm key says "hold" for a moment (fake timers), and
 * sends nothing; a new press meanwhile starts the countdown at once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import { PressBehaviour, TAP_HINT_MS } from '../../src/mappings/behaviours/press.js'
import type { BehaviourHost } from '../../src/mappings/behaviours/types.js'
import { binding as bindingSchema } from '../../src/mappings/schema.js'

function harness(b: Record<string, unknown>): { press: PressBehaviour; sent: string[]; changes: () => number } {
  const sent: string[] = []
  let changed = 0
  const host: BehaviourHost = {
    origin: 'console/key:0',
    state: new AppState(),
    send: (command) => {
      sent.push(command)
      return Promise.resolve({ ok: true, reply: {} })
    },
    changed: () => void changed++,
    setPage: () => undefined,
    titleContext: () => ({}),
  }
  const press = new PressBehaviour(bindingSchema.parse({ on: 'console/key:0', ...b }), host)
  return { press, sent, changes: () => changed }
}

describe('the hold hint of a hold-to-confirm key', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('a tap shows "hold 1.5 s" for TAP_HINT_MS, redraws when it ends, and sends nothing', () => {
    const { press, sent, changes } = harness({ press: { command: 'stopStreaming' } })
    press.down()
    vi.advanceTimersByTime(200)
    press.up()
    expect(press.look().detail).toBe('hold 1.5 s')
    vi.advanceTimersByTime(TAP_HINT_MS - 1)
    expect(press.look().detail).toBe('hold 1.5 s')
    const before = changes()
    vi.advanceTimersByTime(1)
    expect(press.look().detail).toBeUndefined()
    expect(changes()).toBe(before + 1)
    expect(sent).toEqual([])
  })

  it('says the binding’s own time, and a press during the hint starts the countdown', () => {
    const { press, sent } = harness({ press: { command: 'replay_play_pause' }, confirm_ms: 800 })
    press.down()
    press.up()
    expect(press.look().detail).toBe('hold 0.8 s')
    vi.advanceTimersByTime(300)
    press.down()
    vi.advanceTimersByTime(300)
    expect(press.look().detail).toBe('hold 0.5 s')
    vi.advanceTimersByTime(500)
    expect(sent).toEqual(['replay_play_pause'])
    press.up()
    expect(press.look().detail).toBeUndefined()
    press.dispose()
  })

  it('a key without confirmation never shows the hint', () => {
    const { press, sent } = harness({ press: { command: 'replay_play_pause' } })
    press.down()
    press.up()
    expect(press.look().detail).toBeUndefined()
    expect(sent).toEqual(['replay_play_pause'])
  })
})
