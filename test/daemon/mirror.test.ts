/**
 * A main and its backup end to end (issue 27): the daemon against two simulators on port 0, the backup
 * `mirror_of: main`. A press reaches both logs once; a backup 2 s slow does not delay the main's jog; the
 * backup killed and restarted: presses meanwhile reach the main only, the key shows `diverged`, no late
 * command reaches the backup, and a resync brings it back in step; a title taken off air on the backup
 * alone shows `diverged` within the tolerance, logged once and counted.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import { PrometheusMetrics } from '../../src/daemon/metrics.js'
import { FEEDBACK_COLORS } from '../../src/mappings/constants.js'
import type { SimulatorHandle } from '../../src/app-kit/simulator/index.js'
import { captureLogs } from '../helpers/logs.js'
import { until, SAFETY_MS } from '../helpers/until.js'
import { appsHead, configFile, direct, ownSimulator, readyToScrub } from './apps-rig.js'

const WAIT = { timeout: 20_000, interval: 20 }
const TITLE = 'Lower Third'
/** The tolerance the tests give (`diverged_after_ms`): short, so the cases stay quick. */
const TOLERANCE_MS = 400

function configOf(main: SimulatorHandle, backup: SimulatorHandle, extra = ''): string {
  const backupMore = `, mirror_of: main, diverged_after_ms: ${TOLERANCE_MS}, timeout_ms: 5000`
  return `${appsHead({ main, backup: [backup, backupMore] })}surfaces:
  console: { driver: web, rows: 1, columns: 4, jog: true }
bindings:
  - on: console/key:0
    press: { command: schedule, params: { action: cutin, title: "${TITLE}" } }
    feedback: { title: "${TITLE}" }
  - on: console/key:1
    label: resync
    press: { resync: backup }
    confirm_ms: 300
  - on: console/jog
    jog: { scrub: { step_frames: 1 } }
${extra}`
}

async function startDaemon(text: string) {
  const file = await configFile('pb-mirror-', text)
  const logs = captureLogs()
  const metrics = new PrometheusMetrics({ processMetrics: false })
  const daemon = await Daemon.start({ config: file, drivers: [], watch: false, metrics, reloadTimeoutMs: SAFETY_MS })
  onTestFinished(() => daemon.stop())
  await expect.poll(() => daemon.status().apps?.map((a) => a.link.state), WAIT).toEqual(['connected', 'connected'])
  const key = (k: string) => daemon.controlState('console', k)
  const badgeOf = (k: string): unknown => (key(k) as { badge?: unknown }).badge
  return { daemon, metrics, logs, key, badgeOf }
}

describe('a main and its backup', () => {
  it('a press reaches both logs once; the key follows the main', async () => {
    const [main, backup] = [await ownSimulator(), await ownSimulator()]
    const { daemon, key } = await startDaemon(configOf(main, backup))
    expect(daemon.status().apps).toEqual([
      expect.objectContaining({ name: 'main', default: true }),
      expect.objectContaining({ name: 'backup', mirrorOf: 'main', default: false }),
    ])
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    await until(
      'the press at both',
      () => main.http.commands('schedule').length === 1 && backup.http.commands('schedule').length === 1,
    )
    await expect.poll(() => key('key:0'), WAIT).toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    // The same resolved command (each client numbers its own requests).
    const { requestId: _m, ...atMain } = main.http.commands('schedule')[0]!.parameters
    const { requestId: _b, ...atBackup } = backup.http.commands('schedule')[0]!.parameters
    expect(atBackup).toEqual(atMain)
    expect(atMain).toEqual({ action: 'cutin', title: TITLE })
    // Once each: nothing more arrives (a read straight at each simulator comes after anything sent before it).
    await direct(main, 'getTitlesPlayStatus')
    await direct(backup, 'getTitlesPlayStatus')
    expect(main.http.commands('schedule')).toHaveLength(1)
    expect(backup.http.commands('schedule')).toHaveLength(1)
    expect(key('key:0')).not.toHaveProperty('badge')
  })

  it("a backup 2 s slow does not delay the main's jog: the main's final position arrives while the backup's first is still held", async () => {
    const [main, backup] = [await ownSimulator(), await ownSimulator()]
    for (const s of [main, backup]) await readyToScrub(s)
    const fps = Number((await direct(main, 'replay_get_play_info')).frameRate)
    expect(fps).toBeGreaterThan(0)
    for (const c of ['replay_get_play_info', 'replay_get_settings', 'replay_set_scrub_position']) {
      backup.http.setDelay(c, 2000)
    }
    main.http.reset()
    backup.http.reset()
    const { daemon } = await startDaemon(configOf(main, backup))
    let sum = 0
    for (let i = 0; i < 60; i++) {
      const delta = [1, 2, -1][i % 3]!
      expect(daemon.inject('console', 'jog', 'rotate', delta)).toBeUndefined()
      sum += delta
      if (i % 20 === 19) {
        const before = main.http.commands('replay_set_scrub_position').length
        await until('the next scrub at the main', () => main.http.commands('replay_set_scrub_position').length > before)
      }
    }
    const expected = (Math.round(5 * fps) + sum) / fps
    await expect.poll(() => main.state.replay.scrubPosition, WAIT).toBeCloseTo(expected, 6)
    // The main got there first: the backup, whose every answer is held, has not moved yet. The order shows
    // it, not this test's clock.
    expect(backup.state.replay.scrubPosition).toBeCloseTo(5, 6)
    // The backup gets there too, latest-wins: one scrub in flight at a time, far fewer than the turns.
    await expect.poll(() => backup.state.replay.scrubPosition, WAIT).toBeCloseTo(expected, 6)
    expect(backup.http.highWater('replay_set_scrub_position')).toBe(1)
    expect(backup.http.commands('replay_set_scrub_position').length).toBeLessThan(10)
    expect(main.http.highWater('replay_set_scrub_position')).toBe(1)
  })

  it('the backup killed and restarted: presses reach the main only, the key shows diverged, no late command, resync brings it back', async () => {
    const main = await ownSimulator()
    let backup = await ownSimulator()
    const ports = { httpPort: backup.httpPort, wsPort: backup.wsPort }
    const { daemon, key, logs, badgeOf } = await startDaemon(configOf(main, backup))
    await backup.close()
    await expect.poll(() => daemon.status().apps?.[1]?.link.state, WAIT).toBe('stale')
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    await until('the press at the main', () => main.http.commands('schedule').length === 1)
    await expect
      .poll(() => key('key:0'), WAIT)
      .toMatchObject({ badge: 'diverged', detail: expect.stringMatching(/^backup: /) })
    expect(key('key:0')).toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    expect(logs.filter((l) => l.message.startsWith('diverged: console/key:0'))).toHaveLength(1)

    backup = await ownSimulator(ports)
    await expect.poll(() => daemon.status().apps?.[1]?.link.state, WAIT).toBe('connected')
    // Back, and not replayed what it missed: still apart, still shown so.
    await direct(backup, 'getTitlesPlayStatus')
    expect(backup.http.commands('schedule')).toHaveLength(0)
    expect(key('key:0')).toMatchObject({ badge: 'diverged' })
    await expect.poll(() => key('key:0'), WAIT).toMatchObject({ badge: 'diverged', detail: `backup: ${TITLE} off air` })

    // Resync, held to confirm: one schedule to the backup for the one differing title, nothing to the main.
    expect(daemon.inject('console', 'key:1', 'down')).toBeUndefined()
    await until('the resync at the backup', () => backup.http.commands('schedule').length === 1, 5000)
    expect(daemon.inject('console', 'key:1', 'up')).toBeUndefined()
    expect(backup.http.commands('schedule')[0]!.parameters).toMatchObject({ action: 'cutin', title: TITLE })
    expect(main.http.commands('schedule')).toHaveLength(1)
    await expect.poll(() => badgeOf('key:0'), WAIT).toBeUndefined()
  })

  it('a title taken off air on the backup alone shows diverged once the tolerance has passed; logged once, counted', async () => {
    const [main, backup] = [await ownSimulator(), await ownSimulator()]
    const { daemon, key, logs, metrics, badgeOf } = await startDaemon(configOf(main, backup))
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    await expect.poll(() => key('key:0'), WAIT).toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    await until('the backup on air', () => backup.state.titles.some((t) => t.name === TITLE && t.playState !== 'Off'))
    const cut = Date.now()
    await direct(backup, 'schedule', { action: 'cutout', title: TITLE })
    await expect.poll(() => key('key:0'), WAIT).toMatchObject({ badge: 'diverged', detail: `backup: ${TITLE} off air` })
    // Not before the tolerance has passed (a lower bound, which a busy machine cannot break).
    expect(Date.now() - cut).toBeGreaterThanOrEqual(TOLERANCE_MS)
    expect(key('key:0')).toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    expect(logs.filter((l) => l.message.startsWith(`diverged: ${TITLE}`))).toHaveLength(1)
    expect(await metrics.text()).toMatch(/panelbridge_mirror_diverged_total\{app="backup",reason="state"\} 1/)
    // Back on air there: in step again.
    await direct(backup, 'schedule', { action: 'cutin', title: TITLE })
    await expect.poll(() => badgeOf('key:0'), WAIT).toBeUndefined()
  })

  it('two profiles of the application (main captivate, backup titler-live-2021): a press reaches both logs once, in step', async () => {
    const main = await ownSimulator({ profile: 'captivate' })
    const backup = await ownSimulator({ profile: 'titler-live-2021' })
    const { daemon, key, badgeOf } = await startDaemon(configOf(main, backup))
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    await until(
      'the press at both',
      () => main.http.commands('schedule').length === 1 && backup.http.commands('schedule').length === 1,
    )
    await expect.poll(() => key('key:0'), WAIT).toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    await until('the backup on air', () => backup.state.titles.some((t) => t.name === TITLE && t.playState !== 'Off'))
    // Both on air: in step, so no divergence is being timed.
    expect(badgeOf('key:0')).toBeUndefined()
    expect(main.http.commands('schedule')).toHaveLength(1)
    expect(backup.http.commands('schedule')).toHaveLength(1)
  })

  it('while the main is away the key follows the backup and says so', async () => {
    const [main, backup] = [await ownSimulator(), await ownSimulator()]
    const { daemon, key } = await startDaemon(configOf(main, backup))
    await main.close()
    await expect.poll(() => daemon.status().app.state, WAIT).toBe('stale')
    await expect
      .poll(() => key('key:0'), WAIT)
      .toMatchObject({ color: FEEDBACK_COLORS.play.Off, detail: 'from backup' })
    expect(key('key:0')).not.toHaveProperty('badge')
    await direct(backup, 'schedule', { action: 'cutin', title: TITLE })
    await expect
      .poll(() => key('key:0'), WAIT)
      .toMatchObject({ color: FEEDBACK_COLORS.play.Paused, detail: 'from backup' })
  })
})
