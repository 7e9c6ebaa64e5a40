/**
 * Issue 27's three objections to mirroring, answered by design and pinned here against the engine with
 * its router (`src/mappings/app-router.ts`) and two applications whose clients record every call (the
 * transport boundary): a toggle runs once in the daemon, there is one page state, and whose feedback
 * shows (the main's; the backup's only while the main is stale, the key saying so; `diverged` when the
 * two disagree past the tolerance). The end-to-end cases against two simulators are in
 * test/daemon/mirror.test.ts.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import type { CallResult } from '../../src/api/client.js'
import { AppError } from '../../src/api/errors.js'
import { AppRouter } from '../../src/mappings/app-router.js'
import { appsOf } from '../../src/mappings/apps.js'
import { FEEDBACK_COLORS } from '../../src/mappings/constants.js'
import { Engine } from '../../src/mappings/engine.js'
import type { Config } from '../../src/mappings/schema.js'
import { createLogger } from '../../src/log.js'
import { loadOrThrow, RecordingSurfaces } from './helpers.js'

afterEach(() => {
  vi.useRealTimers()
})

const TITLE = 'Lower Third'

/** An application at the transport boundary: every call recorded; `fail` makes the next calls fail. */
class FakeApp {
  readonly calls: { name: string; params: Record<string, unknown> }[] = []
  readonly state = new AppState()
  fail: string | undefined
  /** Never answers (a hung application): the calls are still recorded. */
  hung = false
  constructor() {
    this.state.resetTitles([{ id: 't1', name: TITLE, play: 'Off' }])
    this.up()
  }
  client = {
    callByName: (name: string, params: Record<string, unknown> = {}): Promise<CallResult> => {
      this.calls.push({ name, params })
      if (this.hung) return new Promise<CallResult>(() => {})
      if (this.fail !== undefined) return Promise.reject(new AppError(name, this.fail, {}))
      return Promise.resolve({ raw: {}, reply: {} } as unknown as CallResult)
    },
  }
  up(): void {
    this.state.setLink({ status: 'connected', since: Date.now() })
  }
  down(): void {
    this.state.setLink({ status: 'stale', phase: 'waiting-to-retry', since: Date.now(), error: 'gone' })
  }
  play(play: 'Off' | 'Running' | 'Paused'): void {
    this.state.setTitlePlay('t1', play)
    this.state.flush()
  }
  named(name: string): { name: string; params: Record<string, unknown> }[] {
    return this.calls.filter((c) => c.name === name)
  }
}

const PAIR = `version: 1
apps:
  main: { url: "http://127.0.0.1:9022" }
  backup: { url: "http://127.0.0.1:9122", mirror_of: main, diverged_after_ms: 500 }
surfaces:
  console: { driver: web, rows: 1, columns: 4 }
pages:
  console: [one, two]
bindings:
  - on: console/key:0
    toggle:
      on: { command: schedule, params: { action: cutin, title: "${TITLE}" } }
      off: { command: schedule, params: { action: cutout, title: "${TITLE}" } }
    feedback: { title: "${TITLE}" }
  - on: console/key:1
    page: one
    press: { page: two }
  - on: console/key:1
    page: two
    press: { page: one }
  - on: console/key:2
    press: { resync: backup }
    confirm_ms: 0
  - on: console/key:3
    press: { command: schedule, params: { action: cutin, title: "${TITLE}" } }
`

async function rig(text = PAIR): Promise<{
  engine: Engine
  main: FakeApp
  backup: FakeApp
  surfaces: RecordingSurfaces
  config: Config
}> {
  const config = await loadOrThrow(text)
  const main = new FakeApp()
  const backup = new FakeApp()
  const log = createLogger('mirror-test')
  const router = new AppRouter({ log })
  const ports = new Map([
    ['main', { client: main.client, state: main.state }],
    ['backup', { client: backup.client, state: backup.state }],
  ])
  router.setApps(appsOf(config), ports)
  const surfaces = new RecordingSurfaces()
  const engine = new Engine({ surfaces, apps: router, logger: log })
  engine.apply(config)
  onTestFinished(() => {
    engine.stop()
    router.dispose()
  })
  return { engine, main, backup, surfaces, config }
}

function press(engine: Engine, control: string): void {
  const at = performance.now()
  engine.handle({ type: 'down', surface: 'console', control, at })
  engine.handle({ type: 'up', surface: 'console', control, at })
}

/** Lets the sends' promises settle (no timer involved). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

async function pressAndSettle(engine: Engine, control: string): Promise<void> {
  press(engine, control)
  await settle()
}

describe('a main and its mirror: the objections', () => {
  it('a toggle runs once, in the daemon: both applications get the same resolved command, even when the backup says otherwise', async () => {
    const { engine, main, backup } = await rig()
    // The backup has the title on air already: its own flip would be a cutout; the main's state decides.
    backup.play('Paused')
    await pressAndSettle(engine, 'key:0')
    expect(main.named('schedule')).toEqual([{ name: 'schedule', params: { action: 'cutin', title: TITLE } }])
    expect(backup.named('schedule')).toEqual(main.named('schedule'))
    main.play('Paused')
    await pressAndSettle(engine, 'key:0')
    expect(main.named('schedule').map((c) => c.params.action)).toEqual(['cutin', 'cutout'])
    expect(backup.named('schedule')).toEqual(main.named('schedule'))
  })

  it('pages belong to the surfaces: a page key turns the one page state, and neither application hears of it', async () => {
    const { engine, main, backup } = await rig()
    expect(engine.pageOf('console')).toBe('one')
    press(engine, 'key:1')
    expect(engine.pageOf('console')).toBe('two')
    press(engine, 'key:1')
    expect(engine.pageOf('console')).toBe('one')
    await settle()
    expect(main.calls).toEqual([])
    expect(backup.calls).toEqual([])
  })

  it("whose feedback shows: the main's; the backup's while the main is stale, the key saying so; diverged past the tolerance", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const { main, backup, surfaces } = await rig()
    const key = (): ReturnType<typeof surfaces.of> => surfaces.of('console/key:0')
    main.play('Paused')
    expect(key()).toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    expect(key()?.badge).toBeUndefined()
    // The backup follows within the tolerance: never diverged.
    vi.advanceTimersByTime(300)
    backup.play('Paused')
    vi.advanceTimersByTime(1000)
    expect(key()?.badge).toBeUndefined()
    // The main goes away: the key shows the backup's state, and says whose.
    main.down()
    expect(key()).toMatchObject({ color: FEEDBACK_COLORS.play.Paused, detail: 'from backup' })
    expect(key()?.badge).toBeUndefined()
    backup.play('Off')
    expect(key()).toMatchObject({ color: FEEDBACK_COLORS.play.Off, detail: 'from backup' })
    // Both away: stale, as with one application.
    backup.down()
    expect(key()).toMatchObject({ badge: 'stale' })
    // Both back, apart (main on air, backup off): diverged only once the tolerance has passed.
    main.up()
    backup.up()
    vi.advanceTimersByTime(499)
    expect(key()?.badge).toBeUndefined()
    vi.advanceTimersByTime(1)
    expect(key()).toMatchObject({ badge: 'diverged', detail: `backup: ${TITLE} off air` })
    backup.play('Paused')
    expect(key()?.badge).toBeUndefined()
  })

  it('a command that reached one side only marks its key diverged (which side, why) until one reaches both', async () => {
    const { engine, main, backup, surfaces } = await rig()
    backup.fail = 'title not found'
    await pressAndSettle(engine, 'key:0')
    expect(surfaces.of('console/key:0')).toMatchObject({ badge: 'diverged', detail: 'backup: title not found' })
    backup.fail = undefined
    main.fail = undefined
    await pressAndSettle(engine, 'key:0')
    expect(surfaces.of('console/key:0')?.badge).toBeUndefined()
    expect(main.named('schedule')).toHaveLength(2)
    expect(backup.named('schedule')).toHaveLength(2)
  })

  it("resync sends the main's play state to the backup: one schedule per differing title, none to the main", async () => {
    const { engine, main, backup } = await rig()
    main.play('Paused')
    await pressAndSettle(engine, 'key:2')
    expect(backup.named('schedule')).toEqual([{ name: 'schedule', params: { action: 'cutin', title: TITLE } }])
    expect(main.named('schedule')).toEqual([])
    backup.play('Paused')
    await pressAndSettle(engine, 'key:2')
    expect(backup.named('schedule')).toHaveLength(1)
  })
})

describe('every press reaches the mirror (issue 46 item 6)', () => {
  it('with the main hung, ten presses 300 ms apart reach the backup ten times; the key says the main is behind', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
    const { engine, main, backup, surfaces } = await rig()
    main.hung = true
    for (let i = 0; i < 10; i++) {
      press(engine, 'key:3')
      await settle()
      vi.advanceTimersByTime(300)
    }
    // The main still has the first press (its at-most-one holds there); the backup had every one.
    expect(main.named('schedule')).toHaveLength(1)
    expect(backup.named('schedule')).toHaveLength(10)
    expect(surfaces.of('console/key:3')).toMatchObject({ badge: 'pending' })
  })

  it('a backup that has not answered its own press is not sent the next one; a mirror-only press never fails the key', async () => {
    const { engine, main, backup, surfaces } = await rig()
    main.hung = true
    backup.hung = true
    for (let i = 0; i < 3; i++) {
      press(engine, 'key:3')
      await settle()
    }
    expect(main.named('schedule')).toHaveLength(1)
    expect(backup.named('schedule')).toHaveLength(1)
    expect(surfaces.of('console/key:3')?.badge).toBe('pending')
  })

  it('with no mirror, a press while the previous one is unanswered is still ignored', async () => {
    const text = PAIR.replace(', mirror_of: main, diverged_after_ms: 500', '').replace(
      / {2}- on: console\/key:2\n.*\n.*\n/,
      '',
    )
    const { engine, main, backup } = await rig(text)
    main.hung = true
    for (let i = 0; i < 3; i++) {
      press(engine, 'key:3')
      await settle()
    }
    expect(main.named('schedule')).toHaveLength(1)
    expect(backup.calls).toEqual([])
  })
})
