/**
 * The application in memory, for engine tests whose subject is engine logic, not the transport: the
 * simulator's own state (its titles, handlers and animations, on whatever timers the test runs) behind
 * a command port and an application state, with no socket between. Commands go through the client's
 * own parameter encoding, the simulator's own URL decoding and reply shaping, and the client's reply
 * decoding, as over HTTP; notifications through the link's own parser into the state. What a socket
 * adds (connections, the link's session and resync) is tested at the transport boundary
 * (test/api, the client and notification tests) and in the harness over real sockets (`./helpers.ts`).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AppState } from '../../src/api/app-state.js'
import type { CallResult } from '../../src/api/client.js'
import { decodeReply, encodeParams, unlistedSpec } from '../../src/api/codec.js'
import { getCommandSpec, type CommandName } from '../../src/api/commands.js'
import { CommandError } from '../../src/api/errors.js'
import { parseNotification } from '../../src/api/notifications.js'
import { SimulatorState } from '../../src/app-kit/simulator/index.js'
import { decodeRequestUrl } from '../../src/app-kit/simulator/http.js'
import { httpReplyBody } from '../../src/app-kit/simulator/profile-shapes.js'
import { Engine } from '../../src/mappings/engine.js'
import type { CommandPort } from '../../src/mappings/sender.js'
import { loadOrThrow, RecordingSurfaces } from './helpers.js'

export interface MemoryApp {
  sim: SimulatorState
  client: CommandPort
  state: AppState
  /** Commands the simulator received, by name: their parameters as it decoded them. */
  sent(name: string): Record<string, unknown>[]
  close(): void
}

/**
 * A simulator state (titles animating for `animationMs`) with a command port and an application state
 * that follows it: the titles read once at the start, then every notification the simulator sends.
 */
export function memoryApp(opts: { animationMs?: number } = {}): MemoryApp {
  const dataDir = mkdtempSync(join(tmpdir(), 'pb-memory-app-'))
  const sim = new SimulatorState({ dataDir, animationMs: opts.animationMs ?? 40 })
  const state = new AppState()
  const received: { name: string; params: Record<string, unknown> }[] = []
  let seq = 0

  const client: CommandPort = {
    // Async: whatever goes wrong is a rejection, as the client's are.
    async callByName(name, params, options) {
      const requestId = `memory-${++seq}`
      // Never answered in the turn of the call, as over a socket.
      await Promise.resolve()
      const spec = getCommandSpec(name) ?? (options?.unlisted ? unlistedSpec(name, params ?? {}) : undefined)
      if (spec === undefined) throw new CommandError('BAD_PARAMS', name, 'unknown command', { requestId })
      const encoded = encodeParams(name, spec, params ?? {}, 'get', requestId)
      if ('message' in encoded) throw new CommandError('BAD_PARAMS', name, encoded.message, { requestId })
      const target = decodeRequestUrl(`/api/command/${encodeURIComponent(name)}${encoded.query}`)
      if (target.kind !== 'command') throw new Error(`not a command URL: ${name}`)
      const { requestId: _id, ...decoded } = target.params
      received.push({ name, params: decoded })
      const text = JSON.stringify(httpReplyBody(sim.dispatch(name, target.params), sim.profile.facts))
      // An application error throws here, as the client's decoding does.
      const { reply, raw } = decodeReply(name, spec, 200, text, requestId)
      const result: CallResult = { command: name as CommandName, requestId, reply, raw, latencyMs: 0 }
      return result
    },
  }

  const snapshot = (): void =>
    state.resetTitles(
      sim.orderedTitles().map((t) => ({
        id: t.id,
        name: t.name,
        play: t.playState,
        variables: Object.fromEntries(t.variables.map((v) => [v.name, v.value])),
      })),
    )
  snapshot()
  state.setLink({ status: 'connected', since: Date.now() })
  // As the link takes them (src/api/notifications.ts onNotify): JSON text, parsed by its own parser;
  // a title it does not know, or a control or update change, has it read the titles again.
  const onNotify = (payload: object): void => {
    const n = parseNotification(JSON.stringify(payload))
    if (!n) return snapshot()
    if (n.kind === 'control' || n.kind === 'update') return snapshot()
    const known = n.kind === 'play' ? state.setTitlePlay(n.id, n.play) : state.setTitleVariables(n.id, n.variables)
    if (!known) snapshot()
  }
  sim.notifications.on('notify', onNotify)

  return {
    sim,
    client,
    state,
    sent: (name) => received.filter((r) => r.name === name).map((r) => r.params),
    close() {
      sim.notifications.off('notify', onNotify)
      sim.close()
      state.dispose()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** The engine over a `memoryApp`, the mapping `yaml` applied; as `engineHarness` without sockets. */
export interface MemoryHarness extends MemoryApp {
  engine: Engine
  surfaces: RecordingSurfaces
  down(on: string): void
  up(on: string): void
  press(on: string): void
}

export async function memoryHarness(yaml: string, opts: { animationMs?: number } = {}): Promise<MemoryHarness> {
  const app = memoryApp(opts)
  const surfaces = new RecordingSurfaces()
  const engine = new Engine({ client: app.client, state: app.state, surfaces })
  engine.apply(await loadOrThrow(yaml))
  const event = (on: string, type: 'down' | 'up'): void => {
    const at = on.indexOf('/')
    engine.handle({ type, surface: on.slice(0, at), control: on.slice(at + 1), at: performance.now() })
  }
  return {
    ...app,
    engine,
    surfaces,
    down: (on) => event(on, 'down'),
    up: (on) => event(on, 'up'),
    press: (on) => {
      event(on, 'down')
      event(on, 'up')
    },
    close() {
      engine.stop()
      app.close()
    },
  }
}
