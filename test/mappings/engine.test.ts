/**
 * The binding engine against the simulator: every behaviour of the semantics list. Where engine logic
 * is the subject (a key following an animation, a sequence's wait) the application runs in memory
 * (`./memory-app.ts`) on fake timers; the rest runs over real sockets, its time-driven parts (hold,
 * confirm, failed badge) on fake timers.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { FAILED_BADGE_MS } from '../../src/surfaces/badge.js'
import { TAP_HINT_MS } from '../../src/mappings/behaviours/press.js'
import { CONSOLE, consoleHarness, engineHarness, loadOrThrow, pagedDesk, WAIT, type EngineHarness } from './helpers.js'
import { memoryHarness } from './memory-app.js'

const LOWER_THIRD = '{3f2b8c1e-7a4d-4e52-9b1a-5c6d7e8f9a01}'

let h: EngineHarness | undefined
// The real clock comes back before the harness closes (onTestFinished runs after afterEach).
afterEach(() => {
  vi.useRealTimers()
})

/** Fake only the timers the engine uses; sockets keep the real event loop. */
function fakeTimers(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] })
}

/** Waits for a socket round trip without moving the fake clock (setImmediate and Date stay real). */
async function settle(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + WAIT.timeout
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setImmediate(r))
  }
}

describe('press and feedback', () => {
  it('a press sends its command once; the key follows the title through notifications', async () => {
    // Engine logic: the application in memory, its animation on fake time.
    vi.useFakeTimers()
    const m = await memoryHarness(
      `${CONSOLE}bindings:
  - on: console/key:0
    label: "{{name}}\\n{{play}}"
    press: { command: schedule, params: { action: automatic, title: "Lower Third" } }
    feedback: { title: "Lower Third" }
`,
      { animationMs: 400 },
    )
    onTestFinished(() => m.close())
    await vi.advanceTimersByTimeAsync(0)
    expect(m.surfaces.of('console/key:0')).toMatchObject({ text: 'Lower Third\nOff', color: '#202020' })
    m.press('console/key:0')
    await vi.advanceTimersByTimeAsync(0)
    expect(m.sent('schedule')).toHaveLength(1)
    expect(m.sent('schedule')[0]).toMatchObject({ action: 'automatic', title: 'Lower Third' })
    expect(m.surfaces.of('console/key:0')).toMatchObject({ text: 'Lower Third\nRunning', color: '#c00000' })
    // Running for the whole animation, then Paused (held on air).
    await vi.advanceTimersByTimeAsync(399)
    expect(m.surfaces.of('console/key:0')?.text).toBe('Lower Third\nRunning')
    // The animation's end, then the loop turns that carry it to the key (the state batches a turn's changes).
    await vi.advanceTimersByTimeAsync(2)
    expect(m.surfaces.of('console/key:0')).toMatchObject({ text: 'Lower Third\nPaused', color: '#d08000' })
    expect(m.sent('schedule')).toHaveLength(1)
  })

  it('a sequence runs in order with its wait; a press meanwhile is ignored and the key shows pending', async () => {
    // Engine logic: the application in memory, the wait and the animation on fake time.
    vi.useFakeTimers()
    const m = await memoryHarness(
      `${CONSOLE}bindings:
  - on: console/key:1
    label: "Score {{var.Home Score}}-{{var.Away Score}}"
    press:
      - { command: schedule, params: { action: update, title: "Score Bug" } }
      - { wait_ms: 150 }
      - { command: schedule, params: { action: animateIn, title: "Score Bug" } }
    feedback: { title: "Score Bug", colors: { Running: "#0000ff", Paused: "#00ff00", Off: "#101010" } }
`,
      { animationMs: 40 },
    )
    onTestFinished(() => m.close())
    const key = (): ReturnType<typeof m.surfaces.of> => m.surfaces.of('console/key:1')
    await vi.advanceTimersByTimeAsync(0)
    expect(key()?.color).toBe('#101010')
    m.press('console/key:1')
    await vi.advanceTimersByTimeAsync(0)
    expect(m.sent('schedule')).toHaveLength(1)
    expect(key()!.badge).toBe('pending')
    m.press('console/key:1') // ignored: the sequence is still running
    await vi.advanceTimersByTimeAsync(149)
    expect(m.sent('schedule')).toHaveLength(1)
    expect(key()!.badge).toBe('pending')
    await vi.advanceTimersByTimeAsync(1)
    expect(m.sent('schedule').map((p) => p.action)).toEqual(['update', 'animateIn'])
    expect(key()!.badge).toBeUndefined()
    expect(key()!.color).toBe('#0000ff')
    // The animation's end, then the loop turns that carry it to the key.
    await vi.advanceTimersByTimeAsync(42)
    expect(key()!.color).toBe('#00ff00')
    expect(m.sent('schedule')).toHaveLength(2)
  })

  it('a failure shows failed with the application’s error text in detail, for FAILED_BADGE_MS', async () => {
    h = await consoleHarness(
      `  - on: console/key:2
    label: "Nope"
    press: { command: schedule, params: { action: cutin, title: "No Such Title" } }
`,
    )
    fakeTimers()
    h.press('console/key:2')
    await settle(() => h!.surfaces.of('console/key:2')?.badge === 'failed', 'the failure')
    expect(h.surfaces.of('console/key:2')!.detail).toBe("unable to find title from 'title' or 'id' attributes")
    await vi.advanceTimersByTimeAsync(FAILED_BADGE_MS - 1)
    expect(h.surfaces.of('console/key:2')!.badge).toBe('failed')
    await vi.advanceTimersByTimeAsync(1)
    expect(h.surfaces.of('console/key:2')).toEqual({ text: 'Nope', textColor: '#ffffff', color: '#202020' })
  })

  it('a command that cannot be sent while the application is down is reported at once, never queued', async () => {
    h = await consoleHarness(`  - on: console/key:0\n    press: { command: stopStreaming }\n    confirm_ms: 0\n`)
    await h.sim.close()
    h.press('console/key:0')
    await expect.poll(() => h!.surfaces.of('console/key:0')?.badge, WAIT).toBe('failed')
    expect(h.surfaces.of('console/key:0')!.detail).toBe('application not reachable')
  })
})

describe('hold and confirm', () => {
  const HOLD = `  - on: console/key:1
    press: { command: schedule, params: { action: update, title: "Score Bug" } }
    hold: { after_ms: 800, command: schedule, params: { action: animateOut, title: "Score Bug" } }
`
  it('a short press fires on release; a hold fires the hold and not the press', async () => {
    h = await consoleHarness(HOLD)
    const actions = (): unknown[] => h!.sent('schedule').map((p) => p.action)
    const idle = (): boolean => h!.surfaces.of('console/key:1')?.badge === undefined
    fakeTimers()
    h.down('console/key:1')
    await vi.advanceTimersByTimeAsync(799)
    h.up('console/key:1')
    await settle(() => actions().length === 1 && idle(), 'the short press')
    expect(actions()).toEqual(['update'])
    h.down('console/key:1')
    await vi.advanceTimersByTimeAsync(800)
    await settle(() => actions().length === 2 && idle(), 'the hold')
    h.up('console/key:1')
    // The release after a hold sends nothing: the next command seen is the one of a later press.
    h.press('console/key:1')
    await settle(() => actions().length === 3, 'the next press')
    expect(actions()).toEqual(['update', 'animateOut', 'update'])
  })

  it('stopStreaming needs a 1.5 s hold with a countdown; releasing early sends nothing', async () => {
    h = await consoleHarness(
      `  - on: console/key:3\n    label: "Stop"\n    press: { command: stopStreaming }\n    feedback: { streaming: true }\n`,
    )
    await expect.poll(() => h!.sent('getStreamHostServer').length, WAIT).toBeGreaterThan(0)
    fakeTimers()
    h.down('console/key:3')
    expect(h.surfaces.of('console/key:3')!.detail).toBe('hold 1.5 s')
    await vi.advanceTimersByTimeAsync(1000)
    expect(h.surfaces.of('console/key:3')!.detail).toBe('hold 0.5 s')
    h.up('console/key:3')
    // Released early: the key says how long to hold, for a moment (issue 22, item 11).
    expect(h.surfaces.of('console/key:3')!.detail).toBe('hold 1.5 s')
    await vi.advanceTimersByTimeAsync(TAP_HINT_MS - 1)
    expect(h.surfaces.of('console/key:3')!.detail).toBe('hold 1.5 s')
    await vi.advanceTimersByTimeAsync(1)
    expect(h.surfaces.of('console/key:3')!.detail).toBeUndefined()
    await vi.advanceTimersByTimeAsync(2000)
    h.down('console/key:3')
    await vi.advanceTimersByTimeAsync(1500)
    await settle(() => h!.sent('stopStreaming').length === 1, 'stopStreaming')
    h.up('console/key:3')
    // The early release above sent nothing: the one stopStreaming is the completed hold's.
    expect(h.sim.http.log.filter((e) => e.name === 'stopStreaming')).toHaveLength(1)
  })

  it('confirm_ms: 0 turns the countdown off, confirm_ms: N turns it on for any command', async () => {
    h = await consoleHarness(
      `  - on: console/key:0
    press: { command: stopStreaming }
    confirm_ms: 0
  - on: console/key:1
    press: { command: replay_play_pause }
    confirm_ms: 300
`,
    )
    fakeTimers()
    h.down('console/key:0')
    await settle(() => h!.sent('stopStreaming').length === 1, 'stopStreaming')
    h.up('console/key:0')
    h.down('console/key:1')
    expect(h.surfaces.of('console/key:1')!.detail).toBe('hold 0.3 s')
    await vi.advanceTimersByTimeAsync(300)
    await settle(() => h!.sent('replay_play_pause').length === 1, 'replay_play_pause')
    h.up('console/key:1')
  })
})

describe('toggles, steps and state the application does not notify', () => {
  it('a replay toggle sends on while the state is unknown, then follows the replies; its key is unknown until then', async () => {
    h = await consoleHarness(
      `  - on: console/key:2
    label: "Replay"
    toggle:
      on: { command: replay_enable_scrubbing, params: { enable: true } }
      off: { command: replay_enable_scrubbing, params: { enable: false } }
    feedback: { replay_state: replay }
`,
    )
    await h.client.call('replay_arm_inputs', { inputs: ['Camera 1'] })
    await h.client.call('replay_enable')
    await expect.poll(() => h!.surfaces.of('console/key:2'), WAIT).toMatchObject({ badge: 'unknown', color: '#202020' })
    h.press('console/key:2')
    await expect.poll(() => h!.surfaces.of('console/key:2')?.color, WAIT).toBe('#00a000')
    expect(h.surfaces.of('console/key:2')!.badge).toBeUndefined()
    h.press('console/key:2')
    await expect.poll(() => h!.sent('replay_enable_scrubbing').map((p) => p.enable), WAIT).toEqual(['true', 'false'])
    await expect.poll(() => h!.surfaces.of('console/key:2')?.color, WAIT).toBe('#202020')
    expect(h.state.replay.state).toBe('recording')
  })

  it('steps send the next step on each press; {{step}} is the step the next press sends; tally follows switches', async () => {
    h = await consoleHarness(
      `  - on: console/key:4
    label: "Cam {{step}}"
    steps:
      - { command: switchVideoIn, params: { channel: 0, video: "Camera 1" } }
      - { command: switchVideoIn, params: { channel: 0, video: "Camera 2" } }
  - on: console/key:5
    label: "Cam 1"
    feedback: { input: "Camera 1", channel: 0 }
`,
    )
    await expect.poll(() => h!.surfaces.of('console/key:4')?.text, WAIT).toBe('Cam 1')
    expect(h.surfaces.of('console/key:5')!.badge).toBe('unknown')
    h.press('console/key:4')
    await expect.poll(() => h!.surfaces.of('console/key:4')?.text, WAIT).toBe('Cam 2')
    expect(h.surfaces.of('console/key:5')).toMatchObject({ color: '#00a000', led: 'on' })
    h.press('console/key:4')
    await expect.poll(() => h!.surfaces.of('console/key:4')?.text, WAIT).toBe('Cam 1')
    expect(h.surfaces.of('console/key:5')).toMatchObject({ color: '#202020', led: 'off' })
    expect(h.sent('switchVideoIn').map((p) => p.video)).toEqual(['Camera 1', 'Camera 2'])
  })

  it('streaming comes from own commands and the poll', async () => {
    h = await consoleHarness(`  - on: console/key:3\n    feedback: { streaming: true }\n`)
    await expect.poll(() => h!.surfaces.of('console/key:3')?.color, WAIT).toBe('#202020')
    expect(h.surfaces.of('console/key:3')!.badge).toBeUndefined()
    await h.client.callByName('startStreaming', { choice: 'X', serverUrl: 'rtmp://127.0.0.1/live', streamKey: 'k' })
    expect(h.state.streaming.streaming).toBe(false) // the poll has not run again yet
  })
})

describe('pages', () => {
  const PAGED = pagedDesk({ everywhere: true, hold: true })
  /** The harness over the paged desk, closed when the test finishes. */
  const pagedHarness = async (): Promise<EngineHarness> => {
    const paged = await engineHarness(PAGED)
    onTestFinished(() => paged.close())
    return paged
  }
  it('switches pages locally; page-less bindings show on every page; unbound controls are blanked', async () => {
    h = await pagedHarness()
    expect(h.engine.pageOf('desk')).toBe('titles')
    expect(h.surfaces.of('desk/key:0')!.text).toBe('Cameras →')
    expect(h.surfaces.of('desk/key:2')).toBeUndefined()
    h.press('desk/key:0')
    expect(h.engine.pageOf('desk')).toBe('cameras')
    expect(h.surfaces.of('desk/key:0')!.text).toBe('← Titles')
    expect(h.surfaces.of('desk/key:1')!.text).toBe('Everywhere')
    expect(h.surfaces.of('desk/key:2')!.text).toBe('Cam 1')
    h.press('desk/key:0')
    expect(h.engine.pageOf('desk')).toBe('titles')
    expect(h.surfaces.of('desk/key:2')).toEqual({})
    // A local action: no command was sent (the link's own reads on the socket are not commands of the engine).
    expect(h.sim.http.log.filter((e) => e.transport !== 'qwebchannel')).toEqual([])
  })

  it('an up goes to the binding that took the down, even after the page changed', async () => {
    h = await pagedHarness()
    fakeTimers()
    h.press('desk/key:0') // → cameras
    h.down('desk/key:2')
    h.engine.apply(await loadOrThrow(PAGED)) // a reload in the middle changes nothing
    h.press('desk/key:0') // ← titles, while key:2 is still held
    await vi.advanceTimersByTimeAsync(500)
    await settle(() => h!.sent('switchVideoIn').length === 1, 'switchVideoIn')
    h.up('desk/key:2')
    expect(h.engine.pageOf('desk')).toBe('titles')
  })

  it('keeps the current page across a reload when the page still exists', async () => {
    h = await pagedHarness()
    h.press('desk/key:0')
    h.engine.apply(await loadOrThrow(PAGED.replace('label: "Everywhere"', 'label: "Changed"')))
    expect(h.engine.pageOf('desk')).toBe('cameras')
    expect(h.surfaces.of('desk/key:1')!.text).toBe('Changed')
    const onePage = `version: 1
surfaces:
  desk: { driver: web, rows: 1, columns: 3 }
pages:
  desk: [titles]
bindings:
  - on: desk/key:1
    label: "Only"
`
    h.engine.apply(await loadOrThrow(onePage))
    expect(h.engine.pageOf('desk')).toBe('titles')
    expect(h.surfaces.of('desk/key:0')).toEqual({})
    expect(h.surfaces.of('desk/key:1')!.text).toBe('Only')
  })
})

describe('stale while the link is down', () => {
  it('marks every state-driven control stale when the notification link drops, and clears it on return', async () => {
    h = await consoleHarness(
      `  - on: console/key:0\n    label: "{{play}}"\n    feedback: { title: "Lower Third" }\n  - on: console/key:1\n    label: "static"\n`,
    )
    await expect.poll(() => h!.surfaces.of('console/key:0')?.badge, WAIT).toBeUndefined()
    h.sim.ws.dropAll()
    await expect.poll(() => h!.surfaces.of('console/key:0')?.badge, WAIT).toBe('stale')
    expect(h.surfaces.of('console/key:1')!.badge).toBeUndefined()
    await expect.poll(() => h!.surfaces.of('console/key:0')?.badge, WAIT).toBeUndefined()
    expect(h.state.title(LOWER_THIRD)?.name).toBe('Lower Third')
  })
})
