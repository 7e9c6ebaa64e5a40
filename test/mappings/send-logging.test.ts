/**
 * What the sender writes down (issue 22, item 15): the streaming poll warns once per outage and says
 * once when it works again; a command panelbridge cancelled itself is no warning; the jog's "not in
 * replay mode" before `enter: true` enters replay mode is no warning (and a refusal right after
 * entering is one, without entering again and again).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import type { CallResult } from '../../src/api/client.js'
import { AppError, CommandError } from '../../src/api/errors.js'
import { createLogger, setLogSink, type LogRecord, type LogSink } from '../../src/log.js'
import { ENGINE_TUNABLES } from '../../src/mappings/constants.js'
import { Engine } from '../../src/mappings/engine.js'
import { Sender, type CommandPort, type SentCommand } from '../../src/mappings/sender.js'
import { CONSOLE, engineHarness, loadOrThrow, RecordingSurfaces, WAIT, type EngineHarness } from './helpers.js'

function capture(): { records: LogRecord[]; sink: LogSink } {
  const records: LogRecord[] = []
  return { records, sink: (r) => void records.push(r) }
}

const ok = (command: string): CallResult =>
  ({ command, requestId: 'r', reply: {}, raw: { streaming: 'false' }, latencyMs: 1 }) as unknown as CallResult

/** A client whose answer the test switches: up (a reply) or away (connection refused). */
class SwitchedClient implements CommandPort {
  up = false
  calls = 0
  callByName(name: string): Promise<CallResult> {
    this.calls++
    return this.up
      ? Promise.resolve(ok(name))
      : Promise.reject(new CommandError('CONNECTION_REFUSED', name, 'connection refused'))
  }
}

describe('the streaming poll', () => {
  afterEach(() => void vi.useRealTimers())

  it('warns once per outage, says once when the application answers again, and warns again at the next outage', async () => {
    const config = await loadOrThrow(CONSOLE + `bindings:\n  - on: console/key:3\n    feedback: { streaming: true }\n`)
    vi.useFakeTimers()
    const { records, sink } = capture()
    const client = new SwitchedClient()
    const engine = new Engine({
      client,
      state: new AppState(),
      surfaces: new RecordingSurfaces(),
      logger: createLogger('engine', { sink }),
    })
    const warnings = (): LogRecord[] => records.filter((r) => r.level === 'warn')
    const infos = (): LogRecord[] => records.filter((r) => r.level === 'info')
    try {
      engine.apply(config)
      // An hour of polls against an application that is away.
      await vi.advanceTimersByTimeAsync(60 * 60 * 1000)
      expect(client.calls).toBeGreaterThan(700)
      expect(warnings()).toHaveLength(1)
      expect(warnings()[0]!.message).toBe(
        'streaming poll: getStreamHostServer failed: application not reachable (said once until it works again)',
      )
      expect(infos()).toHaveLength(0)

      client.up = true
      await vi.advanceTimersByTimeAsync(3 * ENGINE_TUNABLES.streamingPollMs)
      expect(infos()).toHaveLength(1)
      expect(infos()[0]!.message).toMatch(/^streaming poll: getStreamHostServer works again \(after \d+ failed\)$/)
      expect(warnings()).toHaveLength(1)

      client.up = false
      await vi.advanceTimersByTimeAsync(5 * ENGINE_TUNABLES.streamingPollMs)
      expect(warnings()).toHaveLength(2)
    } finally {
      engine.stop()
    }
  })
})

describe('the sender', () => {
  it('takes a command panelbridge cancelled (the client closed at a stop) as no warning', async () => {
    const { records, sink } = capture()
    const client: CommandPort = {
      callByName: (name) => Promise.reject(new CommandError('ABORTED', name, 'client closed')),
    }
    const seen: SentCommand[] = []
    const sender = new Sender(client, new AppState(), createLogger('engine', { sink }), (_c, _o, s) => seen.push(s))
    const r = await sender.send('getStreamHostServer', {}, 'streaming poll', { repeating: true })
    expect(r).toEqual({ ok: false, code: 'ABORTED', message: 'cancelled' })
    expect(records.filter((x) => x.level === 'warn' || x.level === 'error')).toEqual([])
    // It is still a command with an outcome: logged at debug and reported.
    expect(seen.map((s) => s.outcome)).toEqual(['ABORTED'])
  })

  it('warns of a failure on every press (a key is not a poll)', async () => {
    const { records, sink } = capture()
    const client: CommandPort = {
      callByName: (name) => Promise.reject(new CommandError('CONNECTION_REFUSED', name, 'connection refused')),
    }
    const sender = new Sender(client, new AppState(), createLogger('engine', { sink }))
    await sender.send('schedule', { action: 'automatic', title: 'Lower Third' }, 'console/key:0')
    await sender.send('schedule', { action: 'automatic', title: 'Lower Third' }, 'console/key:0')
    expect(records.filter((x) => x.level === 'warn').map((x) => x.message)).toEqual([
      'console/key:0: schedule failed: application not reachable',
      'console/key:0: schedule failed: application not reachable',
    ])
  })
})

describe('the jog with enter: true', () => {
  let h: EngineHarness | undefined
  let records: LogRecord[]
  let previous: LogSink
  beforeEach(() => {
    const c = capture()
    records = c.records
    previous = setLogSink(c.sink)
  })
  afterEach(async () => {
    await h?.close()
    h = undefined
    setLogSink(previous)
  })

  it('enters replay mode on "not in replay mode" without a warning', async () => {
    h = await engineHarness(
      CONSOLE + `bindings:\n  - on: console/jog\n    jog: { scrub: { step_frames: 5, enter: true } }\n`,
    )
    await h.client.call('replay_arm_inputs', { inputs: ['Camera 1'] })
    await h.client.call('replay_enable')
    h.rotate('console/jog', 2)
    await expect.poll(() => h!.sim.state.replay.state, WAIT).toBe('replay')
    const fps = (await h.client.call('replay_get_play_info')).frameRate
    await expect.poll(() => h!.sim.state.replay.scrubPosition, WAIT).toBeCloseTo(10 / fps, 6)
    // The refusal that led into replay mode was sent and refused: the plan, not a fault.
    expect(h.sim.http.commands('replay_set_scrub_position').length).toBeGreaterThanOrEqual(2)
    expect(records.filter((r) => r.scope === 'engine' && (r.level === 'warn' || r.level === 'error'))).toEqual([])
    expect(h.surfaces.of('console/jog')?.badge).not.toBe('failed')
  })

  it('warns when the scrub is refused again right after entering, and enters only once', async () => {
    // An application that accepts scrubbing on and still refuses the scrub (no harness: the simulator
    // refuses scrubbing on whenever it refuses the scrub).
    const sent: string[] = []
    const client: CommandPort = {
      callByName(name) {
        sent.push(name)
        if (name === 'replay_set_scrub_position') return Promise.reject(new AppError(name, 'bad request', {}))
        const raw = name === 'replay_get_play_info' ? { frameRate: 30, replayTime: 1 } : {}
        return Promise.resolve({
          command: name,
          requestId: 'r',
          reply: raw,
          raw,
          latencyMs: 1,
        } as unknown as CallResult)
      },
    }
    const surfaces = new RecordingSurfaces()
    const engine = new Engine({ client, state: new AppState(), surfaces })
    try {
      engine.apply(await loadOrThrow(CONSOLE + `bindings:\n  - on: console/jog\n    jog: { scrub: { enter: true } }\n`))
      engine.handle({ surface: 'console', control: 'jog', type: 'rotate', delta: 1, at: performance.now() })
      await expect.poll(() => surfaces.of('console/jog')?.badge, WAIT).toBe('failed')
      expect(sent.filter((c) => c === 'replay_enable_scrubbing')).toHaveLength(1)
      expect(sent.filter((c) => c === 'replay_set_scrub_position')).toHaveLength(2)
      const warnings = records.filter((r) => r.scope === 'engine' && r.level === 'warn')
      expect(warnings.map((w) => w.message)).toEqual(['console/jog: replay_set_scrub_position failed: bad request'])
      expect(surfaces.of('console/jog')?.detail).toBe('not in replay mode')
    } finally {
      engine.stop()
    }
  })
})
