/**
 * The reference file of the YAML issue, binding by binding: loaded with app.url and listen.port
 * overridden (port 0) and app.simulate on, its Stream Deck + as a real library deck over an in-memory
 * HID device (the real library decodes the reports), its web surface as a real WebSurface, both
 * behind the real surface manager, the engine, the client and the link against the simulator.
 */
import { readFileSync } from 'node:fs'
import { DeviceModelId } from '@elgato-stream-deck/core'
import { parseDocument } from 'yaml'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import { CommandClient } from '../../src/api/client.js'
import { NotificationLink } from '../../src/api/notifications.js'
import { ENGINE_TUNABLES } from '../../src/mappings/constants.js'
import { Engine } from '../../src/mappings/engine.js'
import type { Config } from '../../src/mappings/schema.js'
import { claimOf } from '../../src/mappings/surfaces.js'
import { startSimulator, type SimulatorHandle } from '../../src/app-kit/simulator/index.js'
import { SurfaceManager } from '../../src/surfaces/manager.js'
import { KeyRenderer } from '../../src/surfaces/render/key-renderer.js'
import { StreamDeckDriver } from '../../src/surfaces/streamdeck/driver.js'
import { WebSurface } from '../../src/surfaces/web/web-surface.js'
import { FakeHotplug } from '../surfaces/helpers/fake-hotplug.js'
import {
  MemoryStreamDeckTransport,
  encoderRotateReport,
  gen2KeyReport,
  rawImageEncoder,
} from '../surfaces/helpers/fake-hid.js'
import { loadOrThrow, WAIT } from './helpers.js'

const REFERENCE = readFileSync(new URL('../../config/reference.yaml', import.meta.url), 'utf8')

/** The reference text with the overrides the issue names, set through the YAML document (comments kept). */
function referenceFor(sim: SimulatorHandle, edit: (text: string) => string = (t) => t): string {
  const doc = parseDocument(edit(REFERENCE))
  doc.setIn(['app', 'url'], sim.httpUrl)
  doc.setIn(['app', 'notifications'], sim.wsUrl)
  doc.setIn(['app', 'simulate'], true)
  doc.setIn(['listen', 'port'], 0)
  return String(doc)
}

interface World {
  sim: SimulatorHandle
  config: Config
  state: AppState
  engine: Engine
  manager: SurfaceManager
  web: WebSurface
  transport: MemoryStreamDeckTransport
  client: CommandClient
  link: NotificationLink
  /** The command of every reply the client has read, in order. */
  replies: string[]
}
let w: World

beforeEach(async () => {
  const sim = await startSimulator({ animationMs: 40 })
  const config = await loadOrThrow(referenceFor(sim))
  const transport = new MemoryStreamDeckTransport()
  transport.plug(DeviceModelId.PLUS, '/dev/hidraw-plus', 'CL12K1A00042')
  const driver = new StreamDeckDriver({
    transport,
    renderer: new KeyRenderer(),
    encodeJPEG: rawImageEncoder,
    frameMs: 0,
  })
  const claims = Object.entries(config.surfaces).flatMap(([n, s]) => claimOf(n, s) ?? [])
  const manager = new SurfaceManager({
    drivers: [driver],
    claims,
    hotplug: new FakeHotplug(),
    access: () => Promise.resolve('ok'),
  })
  const consoleCfg = config.surfaces.console
  if (consoleCfg?.driver !== 'web') throw new Error('the reference has a web console')
  const web = new WebSurface({
    id: 'console',
    rows: consoleCfg.rows,
    columns: consoleCfg.columns,
    jog: true,
    shuttle: true,
    faders: 1,
  })
  const replies: string[] = []
  const client = new CommandClient({ baseUrl: config.app.url, onReply: (r) => void replies.push(r.command) })
  const state = new AppState()
  const link = new NotificationLink({ url: config.app.notifications!, state, timing: { resyncDebounceMs: 10 } })
  const engine = new Engine({ client, state, surfaces: manager })
  manager.events.on('input', (e) => engine.handle(e))
  await manager.start()
  manager.addSurface(web)
  engine.apply(config)
  link.start()
  await vi.waitFor(() => expect(state.link.status).toBe('connected'), WAIT)
  w = { sim, config, state, engine, manager, web, transport, client, link, replies }
})
afterEach(async () => {
  vi.useRealTimers()
  w.engine.stop()
  w.link.stop()
  await w.manager.stop()
  await w.client.close()
  await w.sim.close()
})

const holder = {}
const press = (control: string): void => {
  w.web.press(control, holder)
  w.web.release(control, holder)
}
const sent = (name: string) => w.sim.http.commands(name).map((e) => e.parameters)
const shows = (surface: string, control: string) => w.manager.feedbackOf(surface).get(control)
const deck = () => w.transport.lastOpened('/dev/hidraw-plus')!
async function replayMode(): Promise<void> {
  await w.client.call('replay_arm_inputs', { inputs: ['Camera 1'] })
  await w.client.call('replay_enable')
  await w.client.call('replay_enable_scrubbing', { enable: true })
}

describe('the reference file, binding by binding', () => {
  it('loads with the overrides: simulate on, port 0, the Plus claimed by serial', () => {
    expect(w.config.app.simulate).toBe(true)
    expect(w.config.listen.port).toBe(0)
    expect(w.manager.list().map((d) => [d.id, d.device])).toEqual([
      ['desk', 'CL12K1A00042'],
      ['console', undefined],
    ])
  })

  it('console/key:0 plays Lower Third and shows its name and ON AIR or off', async () => {
    await expect.poll(() => shows('console', 'key:0')?.text, WAIT).toBe('Lower Third\noff')
    press('key:0')
    await expect.poll(() => shows('console', 'key:0')?.text, WAIT).toBe('Lower Third\nON AIR')
    expect(sent('schedule')).toEqual([expect.objectContaining({ action: 'automatic', title: 'Lower Third' })])
  })

  it('console/key:1 updates then animates the score bug in, shows the score, and takes it out on a hold', async () => {
    await expect.poll(() => shows('console', 'key:1')?.text, WAIT).toMatch(/^Score\n\d*-\d*$/)
    press('key:1')
    await expect.poll(() => sent('schedule').map((p) => p.action), WAIT).toEqual(['update', 'animateIn'])
    await expect.poll(() => w.sim.state.titles.find((x) => x.name === 'Score Bug')?.playState, WAIT).toBe('Paused')
    // Paused (holding on screen) is on air: red, as Running.
    await expect.poll(() => shows('console', 'key:1')?.color, WAIT).toBe('#c00000')
    w.web.press('key:1', holder)
    await expect.poll(() => sent('schedule').length, { timeout: 3000, interval: 20 }).toBe(3)
    w.web.release('key:1', holder)
    expect(sent('schedule')[2]).toMatchObject({ action: 'animateOut', title: 'Score Bug' })
  })

  it('console/key:2 toggles replay mode; lit while in replay', async () => {
    await w.client.call('replay_arm_inputs', { inputs: ['Camera 1'] })
    await w.client.call('replay_enable')
    await expect.poll(() => shows('console', 'key:2')?.badge, WAIT).toBe('unknown')
    press('key:2')
    await expect.poll(() => shows('console', 'key:2')?.color, WAIT).toBe('#00a000')
    expect(w.sim.state.replay.state).toBe('replay')
  })

  it('console/key:3 stops the stream only after a 1.5 s hold, with a countdown', async () => {
    await w.client.callByName('startStreaming', { choice: 'X', serverUrl: 'rtmp://127.0.0.1/live', streamKey: 'k' })
    w.web.press('key:3', holder)
    expect(shows('console', 'key:3')?.detail).toMatch(/^hold 1\.\d s$/)
    await expect.poll(() => sent('stopStreaming').length, { timeout: 4000, interval: 20 }).toBe(1)
    w.web.release('key:3', holder)
    await expect.poll(() => shows('console', 'key:3')?.color, WAIT).toBe('#202020')
  })

  it('console/key:4 steps through the cameras', async () => {
    await expect.poll(() => shows('console', 'key:4')?.text, WAIT).toBe('Cam 1')
    press('key:4')
    await expect.poll(() => shows('console', 'key:4')?.text, WAIT).toBe('Cam 2')
    press('key:4')
    await expect.poll(() => sent('switchVideoIn').map((p) => p.video), WAIT).toEqual(['Camera 1', 'Camera 2'])
  })

  it('console/jog scrubs one frame a detent', async () => {
    await replayMode()
    w.web.rotate('jog', 3)
    const fps = (await w.client.call('replay_get_play_info')).frameRate
    await expect.poll(() => w.sim.state.replay.scrubPosition, WAIT).toBeCloseTo(3 / fps, 6)
  })

  it('console/shuttle sets the speed by zone and stops at centre', async () => {
    w.web.value('shuttle', 4 / 7, holder)
    await expect.poll(() => w.sim.state.replay.speed, WAIT).toBe(1)
    w.web.value('shuttle', -2 / 7, holder)
    await expect.poll(() => w.sim.state.replay.speed, WAIT).toBe(-0.25)
    w.web.value('shuttle', 0, holder)
    await expect.poll(() => w.sim.state.replay.speed, WAIT).toBe(0)
  })

  it('console/fader:0 sets the replay speed over -2..2', async () => {
    w.web.value('fader:0', 0.25, holder)
    await expect.poll(() => w.sim.state.replay.speed, WAIT).toBe(-1)
  })

  it('desk/key:0 goes to the cameras page and back; desk/key:1 there switches Camera 1 and shows the tally', async () => {
    expect(w.engine.pageOf('desk')).toBe('titles')
    await expect.poll(() => shows('desk', 'key:0')?.text, WAIT).toBe('Cameras →')
    deck().input(gen2KeyReport([0], 8))
    deck().input(gen2KeyReport([], 8))
    expect(w.engine.pageOf('desk')).toBe('cameras')
    expect(shows('desk', 'key:0')?.text).toBe('← Titles')
    expect(shows('desk', 'key:1')).toMatchObject({ text: 'Cam 1', badge: 'unknown' })
    deck().input(gen2KeyReport([1], 8))
    deck().input(gen2KeyReport([], 8))
    await expect.poll(() => shows('desk', 'key:1')?.color, WAIT).toBe('#00a000')
    expect(sent('switchVideoIn')).toEqual([expect.objectContaining({ channel: '0', video: 'Camera 1' })])
    deck().input(gen2KeyReport([0], 8))
    deck().input(gen2KeyReport([], 8))
    expect(w.engine.pageOf('desk')).toBe('titles')
  })

  it('desk/encoder:0 scrubs five frames a detent', async () => {
    await replayMode()
    deck().input(encoderRotateReport([2, 0, 0, 0]))
    const fps = (await w.client.call('replay_get_play_info')).frameRate
    await expect.poll(() => w.sim.state.replay.scrubPosition, WAIT).toBeCloseTo(10 / fps, 6)
  })
})

describe('apply: a new mapping as a diff', () => {
  it('changes bindings without closing or reopening a device, and redraws only controls whose look changed', async () => {
    await expect.poll(() => shows('desk', 'key:0')?.text, WAIT).toBe('Cameras →')
    await expect.poll(() => shows('console', 'key:4')?.text, WAIT).toBe('Cam 1')
    const drawn: string[] = []
    w.manager.events.on('feedback', (surface, control) => drawn.push(`${surface}/${control}`))
    const text = referenceFor(w.sim, (t) => t.replace('label: "Cameras →"', 'label: "Go to cameras"'))
    expect(text).toContain('Go to cameras')
    w.engine.apply(await loadOrThrow(text))
    expect(drawn).toEqual(['desk/key:0'])
    expect(shows('desk', 'key:0')?.text).toBe('Go to cameras')
    expect(w.transport.opened).toHaveLength(1)
    expect(deck().closed).toBe(false)
    // An unchanged stepper keeps its step across the reload.
    press('key:4')
    await expect.poll(() => shows('console', 'key:4')?.text, WAIT).toBe('Cam 2')
    w.engine.apply(await loadOrThrow(text))
    expect(shows('console', 'key:4')?.text).toBe('Cam 2')
  })

  it('a jog burst in flight finishes on its old definition; the next burst uses the new one', async () => {
    // Only performance.now() is fake: the wheel rests when the test moves it on; the sockets keep the real timers.
    vi.useFakeTimers({ toFake: ['performance'] })
    await replayMode()
    await w.client.call('replay_set_scrub_position', { position: 2 })
    const fps = (await w.client.call('replay_get_play_info')).frameRate
    const seeded = Math.round(2 * fps)
    w.sim.http.setDelay('replay_set_scrub_position', 40)
    w.web.rotate('jog', 1)
    await expect.poll(() => w.sim.http.inFlight('replay_set_scrub_position'), WAIT).toBe(1)
    w.engine.apply(
      await loadOrThrow(
        referenceFor(w.sim, (t) =>
          t.replace('jog: { scrub: { step_frames: 1 } }', 'jog: { scrub: { step_frames: 10 } }'),
        ),
      ),
    )
    w.web.rotate('jog', 1)
    w.web.rotate('jog', 1)
    await expect.poll(() => w.sim.state.replay.scrubPosition, WAIT).toBeCloseTo((seeded + 3) / fps, 6)
    expect(w.sim.http.highWater('replay_set_scrub_position')).toBe(1)
    // After the wheel rests, the new definition (10 frames a detent) takes over, from a fresh seed.
    // The wheel rests: every position sent has had its reply (the old binding has nothing in flight), then the pause passes.
    await expect
      .poll(() => w.replies.filter((c) => c === 'replay_set_scrub_position').length, WAIT)
      .toBe(sent('replay_set_scrub_position').length)
    vi.advanceTimersByTime(ENGINE_TUNABLES.jogReseedAfterMs)
    w.web.rotate('jog', 1)
    await expect.poll(() => w.sim.state.replay.scrubPosition, WAIT).toBeCloseTo((seeded + 13) / fps, 6)
  })
})
