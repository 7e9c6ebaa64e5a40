/**
 * The streaming poll goes to each application a key follows (issue 41, item 5): with `apps:`, a key showing
 * `feedback: { app: graphics2, streaming: true }` is polled on graphics2 and shows what graphics2 says, not
 * `unknown` forever while only the default application is asked. Two applications at the transport boundary
 * (clients that answer from memory and record every call), the engine with its router, fake timers.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import type { CallResult } from '../../src/api/client.js'
import { createLogger } from '../../src/log.js'
import { AppRouter } from '../../src/mappings/app-router.js'
import { appsOf } from '../../src/mappings/apps.js'
import { FEEDBACK_COLORS, ENGINE_TUNABLES } from '../../src/mappings/constants.js'
import { Engine } from '../../src/mappings/engine.js'
import { loadOrThrow, RecordingSurfaces } from './helpers.js'

afterEach(() => {
  vi.useRealTimers()
})

/** An application that streams or not, answering `getStreamHostServer` as the application does. */
class StreamingApp {
  readonly calls: string[] = []
  readonly state = new AppState()
  streaming = false
  constructor() {
    this.state.setLink({ status: 'connected', since: Date.now() })
  }
  client = {
    callByName: (name: string): Promise<CallResult> => {
      this.calls.push(name)
      const raw = name === 'getStreamHostServer' ? { streaming: String(this.streaming) } : {}
      return Promise.resolve({ raw, reply: raw } as unknown as CallResult)
    },
  }
  polls(): number {
    return this.calls.filter((c) => c === 'getStreamHostServer').length
  }
}

const TWO = `version: 1
apps:
  main: { url: "http://127.0.0.1:9022" }
  graphics2: { url: "http://127.0.0.1:9122" }
surfaces:
  console: { driver: web, rows: 1, columns: 4 }
bindings:
  - on: console/key:0
    feedback: { app: graphics2, streaming: true }
`

/** Lets the sends' promises settle (no timer involved). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

/** The engine with its router over `main` and a second application named `second`, the mapping applied. */
async function rig(text: string, second: string) {
  const config = await loadOrThrow(text)
  const main = new StreamingApp()
  const other = new StreamingApp()
  const log = createLogger('streaming-apps-test')
  const router = new AppRouter({ log })
  router.setApps(
    appsOf(config),
    new Map([
      ['main', { client: main.client, state: main.state }],
      [second, { client: other.client, state: other.state }],
    ]),
  )
  const surfaces = new RecordingSurfaces()
  const engine = new Engine({ surfaces, apps: router, logger: log })
  onTestFinished(() => {
    engine.stop()
    router.dispose()
  })
  return { config, engine, main, other, surfaces }
}

describe('the streaming poll with two applications', () => {
  it('a key following graphics2 is polled there and shows what graphics2 says; main is not asked', async () => {
    vi.useFakeTimers()
    const { config, engine, main, other: graphics2, surfaces } = await rig(TWO, 'graphics2')
    graphics2.streaming = true
    engine.apply(config)
    await settle()
    expect(graphics2.polls()).toBe(1)
    expect(main.polls()).toBe(0)
    expect(surfaces.of('console/key:0')).toMatchObject({ led: 'on', color: FEEDBACK_COLORS.indicatorOn })
    expect(surfaces.of('console/key:0')?.badge).toBeUndefined()

    // The poll keeps asking graphics2: its stream stopping shows on the key.
    graphics2.streaming = false
    await vi.advanceTimersByTimeAsync(ENGINE_TUNABLES.streamingPollMs)
    expect(graphics2.polls()).toBe(2)
    expect(main.polls()).toBe(0)
    expect(surfaces.of('console/key:0')).toMatchObject({ led: 'off' })
    expect(surfaces.of('console/key:0')?.badge).toBeUndefined()
  })

  it('a key following a mirrored main: both are polled (the backup stands in while the main is away), and no poll is mirrored', async () => {
    vi.useFakeTimers()
    const text = TWO.replace(
      'graphics2: { url: "http://127.0.0.1:9122" }',
      'backup: { url: "http://127.0.0.1:9122", mirror_of: main }',
    ).replace('feedback: { app: graphics2, streaming: true }', 'feedback: { streaming: true }')
    const { config, engine, main, other: backup, surfaces } = await rig(text, 'backup')
    backup.streaming = true
    engine.apply(config)
    await settle()
    expect([main.polls(), backup.polls()]).toEqual([1, 1])
    expect(surfaces.of('console/key:0')).toMatchObject({ led: 'off' })
    main.state.setLink({ status: 'stale', phase: 'waiting-to-retry', since: Date.now(), error: 'gone' })
    expect(surfaces.of('console/key:0')).toMatchObject({ led: 'on', detail: 'from backup' })
    await vi.advanceTimersByTimeAsync(ENGINE_TUNABLES.streamingPollMs)
    expect([main.polls(), backup.polls()]).toEqual([2, 2])
  })
})
