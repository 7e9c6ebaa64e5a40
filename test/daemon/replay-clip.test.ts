/**
 * Issue 43 end to end, against the simulator (the default profile and `strict-unknowns`, whose values
 * all come as text): arm an input, scrub to 7.5 s with the web jog, `mark_in`, scrub to 12 s,
 * `mark_out` → the simulator's replay holds in 7.5 and out 12; `play_clip` at 0.5 sends scrub-to-in,
 * speed 0.5 and play, in that order, once each; the status and a key's label show in, out and the
 * clip's length. And a parameter whose template is empty at the press sends nothing and says so.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import { PrometheusMetrics } from '../../src/daemon/metrics.js'
import { startSimulator, type SimulatorHandle } from '../../src/app-kit/simulator/index.js'
import { direct } from './apps-rig.js'

const WAIT = { timeout: 10_000, interval: 10 }

function configText(sim: SimulatorHandle): string {
  return `version: 1
app: { url: ${sim.httpUrl}, notifications: ${sim.wsUrl} }
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  console: { driver: web, rows: 2, columns: 4, jog: true }
bindings:
  - on: console/key:0
    label: Arm
    press: [{ command: replay_arm_inputs, params: { inputs: [Camera 1] } }, { command: replay_enable }]
  - on: console/key:1
    label: In
    press: { clip: mark_in }
  - on: console/key:2
    label: Out
    press: { clip: mark_out }
  - on: console/key:3
    label: Play
    press: { clip: play_clip, speed: 0.5 }
  - on: console/key:4
    label: '{{replay.in}}-{{replay.out}} ({{replay.length}} s) at {{replay.position}}'
  - on: console/key:5
    label: Here
    press: { command: replay_set_in_point, params: { position: '{{replay.position}}' } }
  - on: console/jog
    jog: { scrub: { step_seconds: 0.5, enter: true } }
`
}

async function bench(profile?: string) {
  const sim = await startSimulator(profile !== undefined ? { profile } : {})
  onTestFinished(() => sim.close())
  // Whole frames at 30 fps: 0.5 s is 15 frames, so 7.5 s and 12 s are exact (29.97 would round them).
  await direct(sim, 'setVideoFormat', { width: '1920', height: '1080', frameRate: '30' })
  const dir = await mkdtemp(join(tmpdir(), 'pb-clip-'))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'config.yaml')
  await writeFile(file, configText(sim))
  const metrics = new PrometheusMetrics({ processMetrics: false })
  const daemon = await Daemon.start({ config: file, drivers: [], metrics })
  onTestFinished(() => daemon.stop())
  await expect.poll(() => daemon.status().app.state, WAIT).toBe('connected')
  const press = async (key: string): Promise<void> => {
    expect(daemon.inject('console', key, 'press')).toBeUndefined()
    await expect.poll(() => label(key).badge, WAIT).not.toBe('pending')
  }
  const label = (key: string): { label?: string; badge?: string; detail?: string } => {
    const state = daemon.controlState('console', key)
    if ('status' in state) throw new Error(`console/${key}: ${state.message}`)
    return state
  }
  /** `panelbridge_sent_command_failures_total` by whose. */
  const failures = async (by: string): Promise<number> => {
    const line = (await metrics.text())
      .split('\n')
      .find((l) => l.startsWith(`panelbridge_sent_command_failures_total{by="${by}"}`))
    return Number(line?.split(' ').at(-1))
  }
  return { sim, daemon, press, label, failures }
}

describe.each([undefined, 'strict-unknowns'])('clips against the simulator (%s profile)', (profile) => {
  it('marks in at 7.5 s and out at 12 s with the web jog; play_clip sends scrub, speed, play once each', async () => {
    const { sim, daemon, press, label, failures } = await bench(profile)
    await press('key:0')
    await expect.poll(() => sim.state.replay.state, WAIT).toBe('recording')

    // 15 detents × 0.5 s: the jog enters replay mode on its own, then scrubs to 7.5 s.
    for (let i = 0; i < 15; i++) expect(daemon.inject('console', 'jog', 'rotate', 1)).toBeUndefined()
    await expect.poll(() => sim.state.replay.scrubPosition, WAIT).toBe(7.5)
    await expect.poll(() => daemon.status().replay?.position, WAIT).toBe(7.5)
    await press('key:1')
    await expect.poll(() => sim.state.replay.inPoint, WAIT).toBe(7.5)

    for (let i = 0; i < 9; i++) expect(daemon.inject('console', 'jog', 'rotate', 1)).toBeUndefined()
    await expect.poll(() => sim.state.replay.scrubPosition, WAIT).toBe(12)
    await expect.poll(() => daemon.status().replay?.position, WAIT).toBe(12)
    await press('key:2')
    await expect.poll(() => sim.state.replay.outPoint, WAIT).toBe(12)
    expect(sim.state.replay.inPoint).toBe(7.5)

    // The status and a label show in, out, the clip's length and the playhead.
    expect(daemon.status().replay).toMatchObject({ in: 7.5, out: 12, length: 4.5, position: 12, state: 'replay' })
    await expect.poll(() => label('key:4').label, WAIT).toBe('7.5-12 (4.5 s) at 12')

    sim.http.reset()
    await press('key:3')
    await expect.poll(() => sim.state.replay.playing, WAIT).toBe(true)
    // In order, once each (the rest of the log is the notification side's reads, and the label's
    // play-info poll, which may fall in between on a slow machine).
    const sent = sim.http.log.map((e) => e.name).filter((n) => n.startsWith('replay_') && n !== 'replay_get_play_info')
    expect(sent).toEqual(['replay_set_scrub_position', 'replay_set_replay_speed', 'replay_play_pause'])
    expect(sim.http.commands('replay_set_scrub_position').map((e) => Number(e.parameters.position))).toEqual([7.5])
    expect(sim.http.commands('replay_set_replay_speed').map((e) => Number(e.parameters.speed))).toEqual([0.5])
    expect(sim.state.replay.speed).toBe(0.5)
    expect(sim.state.replay.scrubPosition).toBe(7.5)
    // The engine's own steps (the jog's refused first scrub, entering replay mode, its reads) are not the operator's.
    // The first scrub was refused (not in replay mode yet) and the jog entered it: the engine's plan.
    const { commands } = daemon.status()
    expect(commands.failed).toBe(0)
    expect(commands.own?.failed).toBeGreaterThanOrEqual(1)
    expect(await failures('operator')).toBe(0)
    expect(await failures('engine')).toBeGreaterThanOrEqual(1)
  })

  it('a parameter whose template is empty at the press sends nothing, and the key says why', async () => {
    const { sim, daemon, press, label } = await bench(profile)
    await press('key:0')
    await expect.poll(() => sim.state.replay.state, WAIT).toBe('recording')
    sim.http.reset()
    await press('key:5')
    await expect.poll(() => label('key:5').badge, WAIT).toBe('failed')
    expect(label('key:5').detail).toMatch(/position: \{\{replay\.position\}\} is empty now, so nothing was sent/)
    expect(sim.http.commands('replay_set_in_point')).toEqual([])
    // The playhead unknown shows as such on a label.
    expect(label('key:4').label).toBe('?-? (? s) at ?')
    expect(daemon.status().replay?.position).toBeUndefined()
  })
})
