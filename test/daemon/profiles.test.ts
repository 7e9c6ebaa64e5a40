/**
 * The daemon end to end against every application profile (issue 20 item 4; issue 30's
 * `feedback-signal-only`): one `describe.each` over `profileNames()`, so a profile file added to
 * `config/app-profiles` joins the matrix with no change here. Per case, in process: the simulator
 * playing the profile on port 0, and `Daemon.start` with `app: {url, notifications}` pointed at it and
 * a web surface. Each case states what a user sees, whatever the variant of the application:
 * a press reaches the application and lights its key; a play change made elsewhere colours the key;
 * an outage marks keys stale and fails a press that never arrives later, and the restarted application
 * is followed (by name, when its title ids changed); hold to confirm; jog exactness with one scrub in
 * flight; a reload adds a binding. What differs between profiles is read from the profile's facts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import type { ControlState } from '../../src/daemon/api.js'
import { ENGINE_TUNABLES, FEEDBACK_COLORS } from '../../src/mappings/constants.js'
import { TAP_HINT_MS } from '../../src/mappings/behaviours/press.js'
import { getProfile, profileNames, startSimulator, type SimulatorHandle } from '../../src/app-kit/simulator/index.js'
import { captureLogs } from '../helpers/logs.js'
import { until, SAFETY_MS } from '../helpers/until.js'
import { direct, readyToScrub } from './apps-rig.js'
import { E2E_TITLE, e2eConfig, saveAsEditors } from './helpers.js'

const WAIT = { timeout: 10_000, interval: 10 }
/** A key lights within this long of its press, however the profile announces play changes (issue 30). */
const LIT_WITHIN_MS = 300
/** In/out animations of the simulated titles: short, so that nothing waits on them. */
const ANIMATION_MS = 40
const TITLE = E2E_TITLE

afterEach(() => {
  vi.restoreAllMocks()
  vi.useRealTimers()
})

function configText(sim: SimulatorHandle, extra = ''): string {
  return e2eConfig({ http: sim.httpUrl, ws: sim.wsUrl }, extra, { stopKey: true })
}

function titleId(sim: SimulatorHandle, name: string): string | undefined {
  return sim.state.titles.find((t) => t.name === name)?.id
}

/** The simulator playing `profile`, and the daemon driving it, connected, its title key showing Off. */
async function bench(profile: string) {
  const records = captureLogs()
  const sim = await startSimulator({ profile, animationMs: ANIMATION_MS })
  onTestFinished(() => sim.close())
  const dir = await mkdtemp(join(tmpdir(), 'pb-profiles-'))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'config.yaml')
  await writeFile(file, configText(sim))
  const daemon = await Daemon.start({ config: file, drivers: [], reloadTimeoutMs: SAFETY_MS })
  onTestFinished(() => daemon.stop())
  await expect.poll(() => daemon.status().app.state, WAIT).toBe('connected')
  const key = (): ControlState => {
    const state = daemon.controlState('console', 'key:0')
    if ('status' in state) throw new Error(`console/key:0: ${state.message}`)
    return state
  }
  await expect.poll(key, WAIT).toMatchObject({ label: TITLE, color: FEEDBACK_COLORS.play.Off })
  return { sim, daemon, file, key, records }
}

describe.each(profileNames())('the daemon against the %s profile', (name) => {
  const profile = getProfile(name)

  it(`a press reaches the application as its command, and its key lights within ${LIT_WITHIN_MS} ms`, async () => {
    const { sim, daemon, key } = await bench(name)
    sim.http.reset()
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    // cutin goes straight to Paused.
    await expect
      .poll(key, { timeout: LIT_WITHIN_MS, interval: 5 })
      .toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    expect(sim.http.commands('schedule').map((e) => e.parameters)).toEqual([
      expect.objectContaining({ action: 'cutin', title: TITLE }),
    ])
    expect(sim.state.titles.find((t) => t.name === TITLE)?.playState).toBe('Paused')
    // Where the profile announces no play change on onNotify, the key lit through a re-read of the
    // titles over the socket (and of the layer state, where the title list carries no play state).
    const read = (command: string) => sim.http.log.filter((e) => e.name === command && e.transport === 'qwebchannel')
    if (profile.facts.play_notification === 'none') expect(read('getTitleControlInfo').length).toBeGreaterThan(0)
    if (profile.facts.title_status === 'layer-state-only') expect(read('getValueForKey').length).toBeGreaterThan(0)
  })

  it('a play change made elsewhere colours the key: cutin → Paused, cutout → Off', async () => {
    const { sim, key } = await bench(name)
    await direct(sim, 'schedule', { action: 'cutin', title: TITLE })
    await expect.poll(key, WAIT).toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    await direct(sim, 'schedule', { action: 'cutout', title: TITLE })
    await expect.poll(key, WAIT).toMatchObject({ color: FEEDBACK_COLORS.play.Off })
  })

  it('the application down: keys stale, a press fails and never arrives later; back: connected, keys right again', async () => {
    const { sim, daemon, key } = await bench(name)
    await direct(sim, 'schedule', { action: 'cutin', title: TITLE })
    await expect.poll(key, WAIT).toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    const idBefore = titleId(sim, TITLE)
    // The restart holds both transports down until the test has pressed (the gate opens).
    let open: () => void = () => undefined
    const gate = new Promise<void>((r) => (open = r))
    const stop = sim.ws.stop.bind(sim.ws)
    vi.spyOn(sim.ws, 'stop').mockImplementation(async () => {
      await stop()
      await gate
    })
    const restarted = sim.restart()
    await expect.poll(() => daemon.status().app.state, WAIT).toBe('stale')
    await expect.poll(key, WAIT).toMatchObject({ badge: 'stale' })
    sim.http.reset()
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    await expect.poll(key, WAIT).toMatchObject({ badge: 'failed' })
    expect(daemon.status().commands).toMatchObject({ failed: 1 })
    open()
    await restarted
    await expect.poll(() => daemon.status().app.state, WAIT).toBe('connected')
    // Nothing is on air after a restart, and the failed press was never sent again.
    await expect.poll(key, WAIT).toMatchObject({ color: FEEDBACK_COLORS.play.Off })
    await expect.poll(() => key().badge, WAIT).toBeUndefined()
    expect(sim.http.commands('schedule')).toEqual([])
    // Title ids survive a restart or not, as the profile says; either way the name still resolves.
    const idAfter = titleId(sim, TITLE)
    if (profile.facts.title_ids_on_restart === 'new') expect(idAfter).not.toBe(idBefore)
    else expect(idAfter).toBe(idBefore)
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    await expect.poll(key, WAIT).toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    expect(sim.http.commands('schedule').map((e) => e.parameters)).toEqual([
      expect.objectContaining({ action: 'cutin', title: TITLE }),
    ])
  })

  it(`hold to confirm: stopStreaming is sent only after a ${ENGINE_TUNABLES.defaultConfirmMs} ms hold; an early release sends nothing`, async () => {
    const { sim, daemon } = await bench(name)
    // The hold's clock is the test's: the confirm and hint timers, performance.now() and Date (the
    // simulator stamps each command with it) are fake from here. The link's liveness interval stays real,
    // and every jump below is well inside its 4 s (LINK_TUNABLES.livenessTimeoutMs).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] })
    const stopKey = () => daemon.controlState('console', 'key:2')
    const sent = () => sim.http.commands('stopStreaming').length
    expect(daemon.inject('console', 'key:2', 'down')).toBeUndefined()
    expect(stopKey()).toMatchObject({ detail: `hold ${ENGINE_TUNABLES.defaultConfirmMs / 1000} s` })
    await vi.advanceTimersByTimeAsync(300)
    expect(daemon.inject('console', 'key:2', 'up')).toBeUndefined()
    // Released early: the key says how long to hold, for a moment (issue 22, item 11).
    expect(stopKey()).toMatchObject({ detail: `hold ${ENGINE_TUNABLES.defaultConfirmMs / 1000} s` })
    await vi.advanceTimersByTimeAsync(Math.max(ENGINE_TUNABLES.defaultConfirmMs, TAP_HINT_MS) + 200)
    expect(sent()).toBe(0)
    expect(stopKey()).not.toHaveProperty('detail')
    const downAt = Date.now()
    expect(daemon.inject('console', 'key:2', 'down')).toBeUndefined()
    await vi.advanceTimersByTimeAsync(ENGINE_TUNABLES.defaultConfirmMs)
    // The command goes out over a real socket: wait for it to arrive.
    await expect.poll(sent, WAIT).toBe(1)
    expect(Date.parse(sim.http.commands('stopStreaming')[0]!.time)).toBeGreaterThanOrEqual(
      downAt + ENGINE_TUNABLES.defaultConfirmMs - 20,
    )
    expect(daemon.inject('console', 'key:2', 'up')).toBeUndefined()
    await vi.advanceTimersByTimeAsync(100)
    // A command the release sent would reach the simulator before this read, sent after it.
    await direct(sim, 'replay_get_play_info')
    expect(sent()).toBe(1)
  })

  it('jog: with one scrub in flight at a time, the final position is the start plus the sum of the deltas × the step', async () => {
    const { sim, daemon } = await bench(name)
    await readyToScrub(sim)
    // Values may come as text (profile fact `values: strings`).
    const fps = Number((await direct(sim, 'replay_get_play_info')).frameRate)
    expect(fps).toBeGreaterThan(0)
    sim.http.setDelay('replay_set_scrub_position', 20)
    sim.http.reset()
    let sum = 0
    const scrubs = () => sim.http.commands('replay_set_scrub_position').length
    // Thirty turns at a time, the next thirty only once another scrub has reached the simulator: the turns
    // keep coming while a scrub is in flight, without a sleep.
    for (let i = 0; i < 300; i++) {
      const delta = [1, 2, -1][i % 3]!
      const before = scrubs()
      expect(daemon.inject('console', 'jog', 'rotate', delta)).toBeUndefined()
      sum += delta
      if (i % 30 === 29) await until('the next scrub at the simulator', () => scrubs() > before)
    }
    // The cursor is in whole frames, seeded from the scrub position (test/mappings/continuous.test.ts).
    const expected = (Math.round(5 * fps) + sum) / fps
    await expect.poll(() => sim.state.replay.scrubPosition, WAIT).toBeCloseTo(expected, 6)
    expect(sim.http.highWater('replay_set_scrub_position')).toBe(1)
    expect(sim.http.commands('replay_set_scrub_position').length).toBeLessThan(300)
  })

  it('a reload: the rewritten config adds a binding, the others stay', async () => {
    const { sim, daemon, file, key } = await bench(name)
    await saveAsEditors(file, configText(sim, '  - on: console/key:1\n    label: "Added"\n'))
    await expect.poll(() => daemon.controlState('console', 'key:1'), WAIT).toMatchObject({ label: 'Added' })
    expect(key()).toMatchObject({ label: TITLE, color: FEEDBACK_COLORS.play.Off })
    expect(daemon.status().app.state).toBe('connected')
  })
})
