/**
 * The engine under test: the real loader, engine, command client, app state and notification link,
 * against the simulator in-process on port 0. The only stand-in is the surface: a recording sink in
 * place of the manager, keeping what each control shows.
 */
import { expect, onTestFinished, vi } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import { CommandClient, type CallResult } from '../../src/api/client.js'
import { NotificationLink } from '../../src/api/notifications.js'
import { Engine, type FeedbackSink } from '../../src/mappings/engine.js'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'
import type { CommandPort } from '../../src/mappings/sender.js'
import type { ControlId } from '../../src/face/control-id.js'
import type { Feedback } from '../../src/face/feedback.js'
import type { SurfaceEvent } from '../../src/surfaces/types.js'
import type { SimulatorHandle } from '../../src/app-kit/simulator/index.js'
import { startSimulator } from '../../src/app-kit/simulator/index.js'

export const WAIT = { timeout: 5000, interval: 5 }

/** What the engine drew, per `surface/control`, and in order. */
export class RecordingSurfaces implements FeedbackSink {
  readonly now = new Map<string, Feedback>()
  readonly history: { control: string; feedback: Feedback }[] = []
  setFeedback(surface: string, control: ControlId, feedback: Feedback): void {
    const key = `${surface}/${control}`
    this.now.set(key, feedback)
    this.history.push({ control: key, feedback })
  }
  of(key: string): Feedback | undefined {
    return this.now.get(key)
  }
}

export const CONSOLE = `version: 1
surfaces:
  console: { driver: web, rows: 2, columns: 4, jog: true, shuttle: true, faders: 1, encoders: 1 }
`

/**
 * The paged desk of the pages tests (engine, page views, the web page): a 1×3 web surface with the pages
 * titles and cameras, key:0 turning from one to the other, key:2 a camera key on cameras. `listen` writes
 * `listen.pages`; `everywhere` adds key:1 on every page; `hold` gives key:2 a 500 ms hold that switches
 * Camera 1.
 */
export function pagedDesk(
  opts: { listen?: 'shared' | 'per-browser'; everywhere?: boolean; hold?: boolean } = {},
): string {
  return `version: 1
${opts.listen ? `listen: { pages: ${opts.listen} }\n` : ''}surfaces:
  desk: { driver: web, rows: 1, columns: 3 }
pages:
  desk: [titles, cameras]
bindings:
  - on: desk/key:0
    page: titles
    label: "Cameras →"
    press: { page: cameras }
  - on: desk/key:0
    page: cameras
    label: "← Titles"
    press: { page: previous }
${opts.everywhere ? '  - on: desk/key:1\n    label: "Everywhere"\n' : ''}  - on: desk/key:2
    page: cameras
    label: "Cam 1"
${opts.hold ? '    hold: { after_ms: 500, command: switchVideoIn, params: { channel: 0, video: "Camera 1" } }\n' : ''}`
}

export interface EngineHarness {
  sim: SimulatorHandle
  client: CommandClient
  state: AppState
  link: NotificationLink
  engine: Engine
  surfaces: RecordingSurfaces
  event(e: Omit<SurfaceEvent, 'surface' | 'at' | 'control'> & { on: string }): void
  down(on: string): void
  up(on: string): void
  press(on: string): void
  rotate(on: string, delta: number): void
  value(on: string, value: number): void
  /** Commands the simulator received, by name. */
  sent(name: string): Record<string, unknown>[]
  close(): Promise<void>
}

export async function loadOrThrow(yaml: string) {
  const r = await loadConfigText(yaml, 'test.yaml')
  if (!r.config) throw new Error(r.problems.map(formatProblem).join('\n'))
  return r.config
}

/**
 * The harness over CONSOLE with `bindings` (the list's YAML lines, without the `bindings:` key), closed when
 * the test finishes.
 */
export async function consoleHarness(
  bindings: string,
  opts: { link?: boolean; animationMs?: number } = {},
): Promise<EngineHarness> {
  const h = await engineHarness(`${CONSOLE}bindings:\n${bindings}`, opts)
  onTestFinished(() => h.close())
  return h
}

/** One application as the engine tests meet it: a simulator on port 0, its command client, app state and link. */
export interface AppSide {
  sim: SimulatorHandle
  client: CommandClient
  state: AppState
  /** Not started: the caller starts it once its engine is there. */
  link: NotificationLink
}

/** A simulator (titles animating for `animationMs`, 40 unless told) and the client, state and quick link onto it. */
export async function appSide(opts: { animationMs?: number } = {}): Promise<AppSide> {
  const sim = await startSimulator({ animationMs: opts.animationMs ?? 40 })
  const client = new CommandClient({ baseUrl: sim.httpUrl, timeoutMs: 4000 })
  const state = new AppState()
  const link = new NotificationLink({
    url: sim.wsUrl,
    state,
    timing: { backoffInitialMs: 20, backoffMaxMs: 80, resyncDebounceMs: 10 },
  })
  return { sim, client, state, link }
}

export async function engineHarness(
  yaml: string,
  opts: { link?: boolean; animationMs?: number } = {},
): Promise<EngineHarness> {
  const { sim, client, state, link } = await appSide(opts)
  const surfaces = new RecordingSurfaces()
  const engine = new Engine({ client, state, surfaces })
  engine.apply(await loadOrThrow(yaml))
  if (opts.link !== false) {
    link.start()
    await vi.waitFor(() => expect(state.link.status).toBe('connected'), WAIT)
  }
  const event: EngineHarness['event'] = (e) => {
    const [surface, control] = [e.on.slice(0, e.on.indexOf('/')), e.on.slice(e.on.indexOf('/') + 1)]
    const { on: _on, ...rest } = e
    engine.handle({ ...rest, surface, control, at: performance.now() } as SurfaceEvent)
  }
  return {
    sim,
    client,
    state,
    link,
    engine,
    surfaces,
    event,
    down: (on) => event({ on, type: 'down' }),
    up: (on) => event({ on, type: 'up' }),
    press: (on) => {
      event({ on, type: 'down' })
      event({ on, type: 'up' })
    },
    rotate: (on, delta) => event({ on, type: 'rotate', delta } as never),
    value: (on, value) => event({ on, type: 'value', value } as never),
    sent: (name) => sim.http.commands(name).map((e) => e.parameters),
    async close() {
      engine.stop()
      link.stop()
      await client.close()
      await sim.close()
    },
  }
}

/**
 * A command port that answers every call at once with an empty reply, telling `seen` each call's name and
 * parameters first: for engine tests that count what was sent without an application.
 */
export function answeringPort(seen: (name: string, params?: Record<string, unknown>) => void): CommandPort {
  return {
    callByName: (name, params) => {
      seen(name, params)
      const result: CallResult = { command: name as never, requestId: '1', reply: {}, raw: {}, latencyMs: 1 }
      return Promise.resolve(result)
    },
  }
}
