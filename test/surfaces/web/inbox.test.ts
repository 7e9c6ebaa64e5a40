/**
 * A browser's frames handled in bounded slices (issue 24, item 3): `Inbox` and `FrameTurns` with a
 * socket that records pause and resume (the transport boundary) and a clock of the test's own, on which
 * each frame handled costs 0.1 ms; turns of the loop are real (`setImmediate`).
 */
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import {
  FRAMES_PER_VISIT,
  FrameTurns,
  Inbox,
  PAUSE_AT_FRAMES,
  RESUME_AT_FRAMES,
  TURN_BUDGET_MS,
  type PausableSocket,
} from '../../../src/surfaces/web/inbox.js'

/** One turn of the loop: the frame turns scheduled before this run first. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

class RecordingSocket implements PausableSocket {
  paused = false
  pauses = 0
  resumes = 0
  pause(): void {
    this.paused = true
    this.pauses++
  }
  resume(): void {
    this.paused = false
    this.resumes++
  }
}

const FRAME_COST_MS = 0.1
let clock = 0
afterEach(() => {
  clock = 0
})

function rig(): {
  turns: FrameTurns
  make: (name: string) => { inbox: Inbox; socket: RecordingSocket; got: string[] }
} {
  const turns = new FrameTurns(TURN_BUDGET_MS, () => clock)
  onTestFinished(() => turns.close())
  const make = (name: string): { inbox: Inbox; socket: RecordingSocket; got: string[] } => {
    const socket = new RecordingSocket()
    const got: string[] = []
    const inbox = new Inbox(turns, socket, (data) => {
      clock += FRAME_COST_MS
      got.push(`${name}:${(data as Buffer).toString()}`)
    })
    return { inbox, socket, got }
  }
  return { turns, make }
}

const frame = (i: number): Buffer => Buffer.from(String(i))

describe('a browser’s frames in bounded slices', () => {
  it('hands a burst on over many turns, a budget each, in order; pauses the socket while too many wait', async () => {
    const { make } = rig()
    const a = make('a')
    const BURST = 2000
    // As ws hands on a chunk it parsed: every frame at once, in one run of code.
    for (let i = 0; i < BURST; i++) a.inbox.push(frame(i), false)
    expect(a.got).toEqual([])
    expect(a.socket.paused).toBe(true)
    expect(a.socket.pauses).toBe(1)

    const perTurn: number[] = []
    while (a.got.length < BURST) {
      const before = a.got.length
      await nextTurn()
      perTurn.push(a.got.length - before)
      if (perTurn.length > 1000) throw new Error('the burst never went through')
    }
    // 5 ms a turn at 0.1 ms a frame: 50 frames a turn (the clock is read every 8 frames: up to 56).
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(56)
    expect(perTurn.length).toBeGreaterThanOrEqual(BURST / 56)
    expect(a.got).toEqual(Array.from({ length: BURST }, (_, i) => `a:${i}`))
    // Read again once few were left, and never paused twice for one backlog.
    expect(a.socket.resumes).toBe(1)
    expect(a.socket.paused).toBe(false)
    expect(a.inbox.waiting).toBe(0)
  })

  it('pauses at PAUSE_AT_FRAMES and reads again at RESUME_AT_FRAMES', async () => {
    const { make } = rig()
    const a = make('a')
    for (let i = 0; i < PAUSE_AT_FRAMES - 1; i++) a.inbox.push(frame(i), false)
    expect(a.socket.paused).toBe(false)
    a.inbox.push(frame(PAUSE_AT_FRAMES), false)
    expect(a.socket.paused).toBe(true)
    while (a.inbox.waiting > RESUME_AT_FRAMES) {
      expect(a.socket.paused).toBe(true)
      await nextTurn()
    }
    expect(a.socket.paused).toBe(false)
  })

  it('serves every browser in turn: a flooding one does not hold back another', async () => {
    const { make } = rig()
    const flood = make('flood')
    const other = make('other')
    for (let i = 0; i < 1000; i++) flood.inbox.push(frame(i), false)
    other.inbox.push(frame(0), false)
    // The flood's first visit spends this turn's budget; the other goes first on the next.
    await nextTurn()
    await nextTurn()
    expect(other.got).toEqual(['other:0'])
    expect(flood.got.length).toBeGreaterThan(0)
    expect(flood.got.length).toBeLessThanOrEqual(2 * FRAMES_PER_VISIT)
    expect(flood.got.length).toBeLessThan(1000)
  })

  it('drops what still waits when the browser goes', async () => {
    const { make } = rig()
    const a = make('a')
    for (let i = 0; i < 500; i++) a.inbox.push(frame(i), false)
    await nextTurn()
    const handled = a.got.length
    expect(handled).toBeGreaterThan(0)
    a.inbox.close()
    a.inbox.push(frame(999), false)
    await nextTurn()
    await nextTurn()
    expect(a.got.length).toBe(handled)
    expect(a.inbox.waiting).toBe(0)
  })
})
