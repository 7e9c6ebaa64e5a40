/**
 * Issue 43 item 1: the playhead is polled (`replay_get_play_info`) only while a shown label follows it
 * and the replay is on, at most one read in flight, stopped when the replay is off; the reply moves the
 * label. Fake timers: no time passes for real.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import type { CallResult } from '../../src/api/client.js'
import { Engine } from '../../src/mappings/engine.js'
import { PLAYHEAD_POLL_MS } from '../../src/mappings/playhead.js'
import type { CommandPort } from '../../src/mappings/sender.js'
import { CONSOLE, loadOrThrow, RecordingSurfaces } from './helpers.js'

afterEach(() => {
  vi.useRealTimers()
})

/** An application whose playhead advances a second per read; `hold` keeps replies back. */
function playingApp(): { port: CommandPort; reads: () => number; hold: (on: boolean) => void } {
  let reads = 0
  let held: (() => void)[] | undefined
  const port: CommandPort = {
    callByName: (name) => {
      if (name === 'replay_get_play_info') reads++
      const raw = name === 'replay_get_play_info' ? { replayTime: reads, replayStart: 2, replayEnd: 9 } : {}
      const result: CallResult = { command: name as never, requestId: '1', reply: raw, raw, latencyMs: 1 }
      if (held) return new Promise((resolve) => held!.push(() => resolve(result)))
      return Promise.resolve(result)
    },
  }
  return {
    port,
    reads: () => reads,
    hold: (on) => {
      if (on) held = []
      else {
        const waiting = held ?? []
        held = undefined
        for (const r of waiting) r()
      }
    },
  }
}

async function rig(label: string) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
  const app = playingApp()
  const state = new AppState()
  const surfaces = new RecordingSurfaces()
  const engine = new Engine({ client: app.port, state, surfaces })
  onTestFinished(() => engine.stop())
  engine.apply(await loadOrThrow(CONSOLE + `bindings:\n  - on: console/key:0\n    label: '${label}'\n`))
  return { app, state, engine }
}

describe('the playhead poll', () => {
  it('runs while a label shows the playhead and the replay is on; stops when the replay is off', async () => {
    const { app, state, engine } = await rig('{{replay.position}} of {{replay.in}}-{{replay.out}}')
    await vi.advanceTimersByTimeAsync(PLAYHEAD_POLL_MS * 3)
    expect(app.reads()).toBe(0) // the replay state not known: nothing moves
    state.setReplay({ state: 'playback' })
    await vi.advanceTimersByTimeAsync(PLAYHEAD_POLL_MS * 4)
    expect(app.reads()).toBe(4)
    expect(engine.controlView('console', 'key:0')?.feedback.text).toBe('4 of 2-9')
    state.setReplay({ state: 'recording' })
    await vi.advanceTimersByTimeAsync(PLAYHEAD_POLL_MS * 4)
    expect(app.reads()).toBe(4)
  })

  it('keeps at most one read in flight', async () => {
    const { app, state } = await rig('{{replay.position}}')
    app.hold(true)
    state.setReplay({ state: 'replay' })
    await vi.advanceTimersByTimeAsync(PLAYHEAD_POLL_MS * 10)
    expect(app.reads()).toBe(1)
    app.hold(false)
    await vi.advanceTimersByTimeAsync(PLAYHEAD_POLL_MS)
    expect(app.reads()).toBe(2)
  })

  it('does not run for a label that does not show the playhead', async () => {
    const { app, state } = await rig('Play')
    state.setReplay({ state: 'playback' })
    await vi.advanceTimersByTimeAsync(PLAYHEAD_POLL_MS * 4)
    expect(app.reads()).toBe(0)
  })
})
