/**
 * A Replay Editor desk for the engine's tests and the bench: the real driver and library over the
 * in-memory device (`test/surfaces/helpers/fake-bmd.ts`), the real loader and engine, and the simulator's
 * own state answering the engine's commands in-process after a set delay on the (fake or real) timers, so
 * a storm of 20,000 reports runs on fake timers. It counts the scrubs in flight and what reached the
 * simulator.
 */
import { tmpdir } from 'node:os'
import { AppState } from '../../src/api/app-state.js'
import type { CallResult } from '../../src/api/client.js'
import { SimulatorState } from '../../src/app-kit/simulator/index.js'
import { bmdModelById } from '../../src/families/replay-editor.js'
import { lightFeedback, lightOnly } from '../../src/families/lights.js'
import { Engine } from '../../src/mappings/engine.js'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'
import type { CommandPort } from '../../src/mappings/sender.js'
import { BmdDriver } from '../../src/surfaces/replay-editor/driver.js'
import type { BmdSurface } from '../../src/surfaces/replay-editor/surface.js'
import { MemoryBmdTransport, type FakeBmdHid } from '../surfaces/helpers/fake-bmd.js'

export const EDITOR_MODEL = 'davinci-resolve-replay-editor'
export const SCRUB = 'replay_set_scrub_position'
export const SPEED = 'replay_set_replay_speed'
/** The simulator's scrub position before the storm, seconds (far from either end of the buffer). */
export const SEED_SECONDS = 100

/** `button:N` of the Replay Editor's button the library calls `name`. */
export const editorButton = (name: string): string => bmdModelById(EDITOR_MODEL)!.byName.get(name)!

/**
 * The family's own test config, in plain commands (the example's Cue/Run use the clip verbs of issue 43's
 * item 3): the jog scrubs a frame a step, the lever sets the speed 0..1, CAM1/CAM2 switch and show the
 * tally, Cue scrubs to the start, Run plays.
 */
export const EDITOR_CONFIG = `version: 1
surfaces:
  editor: { driver: replay-editor, model: ${EDITOR_MODEL} }
bindings:
  - on: editor/jog
    jog: { scrub: { step_frames: 1 } }
  - on: editor/tbar
    value: { command: ${SPEED}, param: speed, range: [0, 1] }
  - on: editor/${editorButton('cam1')}
    press: { command: switchVideoIn, params: { video: Camera 1, channel: 0 } }
    feedback: { input: Camera 1 }
  - on: editor/${editorButton('cam2')}
    press: { command: switchVideoIn, params: { video: Camera 2, channel: 0 } }
    feedback: { input: Camera 2 }
  - on: editor/${editorButton('cue')}
    press: { command: ${SCRUB}, params: { position: 0 } }
  - on: editor/${editorButton('run')}
    press: { command: replay_play_pause }
`

export interface Desk {
  sim: SimulatorState
  state: AppState
  engine: Engine
  transport: MemoryBmdTransport
  driver: BmdDriver
  surface: BmdSurface
  hid: FakeBmdHid
  /** Every command that reached the simulator, in order, with its parameters. */
  arrived: { name: string; params: Record<string, unknown> }[]
  /** Scrubs in flight now, and the most ever at once. */
  scrubsInFlight: number
  scrubHighWater: number
  /** Opens the panel again (after an unplug) and wires it to the engine in place of the old one. */
  replug(): Promise<void>
  /** Takes the panel away as node-hid does when it is unplugged: a read error, then the surface closes. */
  unplug(): Promise<void>
  close(): Promise<void>
}

/**
 * The desk over `config`, with the simulator in replay mode at SEED_SECONDS (buffer of an hour);
 * `delays` are the simulator's answer times per command, ms (others answer on the next microtask).
 */
export async function editorDesk(
  opts: { config?: string; delays?: Readonly<Record<string, number>> } = {},
): Promise<Desk> {
  const sim = new SimulatorState({ dataDir: tmpdir() })
  for (const [name, params] of [
    ['replay_arm_inputs', { inputs: ['Camera 1'] }],
    ['replay_enable', {}],
    ['replay_set_settings', { settings: { bufferLength: 3600 } }],
    ['replay_enable_scrubbing', { enable: true }],
    [SCRUB, { position: SEED_SECONDS }],
  ] as const) {
    const error = sim.dispatch(name, params).result?.error
    if (error) throw new Error(`${name}: ${String(error)}`)
  }
  const state = new AppState()
  state.setLink({ status: 'connected', since: Date.now() })
  const desk = { sim, state, arrived: [], scrubsInFlight: 0, scrubHighWater: 0 } as unknown as Desk
  const port: CommandPort = {
    callByName: (name, params = {}) => {
      desk.arrived.push({ name, params })
      if (name === SCRUB) desk.scrubHighWater = Math.max(desk.scrubHighWater, ++desk.scrubsInFlight)
      return new Promise<CallResult>((resolve, reject) => {
        const answer = (): void => {
          if (name === SCRUB) desk.scrubsInFlight--
          const result = sim.dispatch(name, params).result ?? {}
          if (typeof result.error === 'string' && result.error !== '') reject(new Error(result.error))
          else resolve({ command: name as never, requestId: '1', reply: result, raw: result, latencyMs: 0 })
        }
        const delay = opts.delays?.[name] ?? 0
        if (delay > 0) setTimeout(answer, delay)
        else queueMicrotask(answer)
      })
    },
  }
  const loaded = await loadConfigText(opts.config ?? EDITOR_CONFIG, 'replay-editor.yaml')
  if (!loaded.config) throw new Error(loaded.problems.map(formatProblem).join('\n'))
  const surfaces = {
    setFeedback(_surface: string, control: string, feedback: Parameters<BmdSurface['setFeedback']>[1]): void {
      const descriptor = desk.surface.description.controls.find((c) => c.id === control)
      // As the surface manager gives it: a light-only control gets the light's feedback (dark while stale).
      desk.surface.setFeedback(control, descriptor && lightOnly(descriptor) ? lightFeedback(feedback) : feedback)
    },
  }
  const engine = new Engine({ client: port, state, surfaces })
  const transport = new MemoryBmdTransport()
  transport.plug(EDITOR_MODEL, '/dev/hidraw-editor', 'RE-1')
  const driver = new BmdDriver({ transport })
  const open = async (): Promise<void> => {
    const surface = await driver.open((await driver.detect())[0]!)
    surface.events.on('input', (e) => engine.handle({ ...e, surface: 'editor' }))
    surface.events.on('error', () => void surface.close())
    Object.assign(desk, { surface, hid: transport.lastOpened('/dev/hidraw-editor')! })
  }
  await open()
  engine.apply(loaded.config)
  Object.assign(desk, {
    engine,
    transport,
    driver,
    replug: open,
    async unplug() {
      const { hid, surface } = desk
      hid.emit('error', new Error('could not read from HID device'))
      await surface.close()
    },
    async close() {
      engine.stop()
      await desk.surface.close()
    },
  })
  return desk
}
