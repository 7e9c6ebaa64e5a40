/**
 * Test seams for the daemon's HTTP server: a small `DaemonApi` over a Map of surfaces (the boundary
 * between server and daemon), and an HTTP client on real sockets that sets any header it is given.
 * For the end-to-end tests (a daemon against the simulator, in process or as its own process): the
 * config they start from, and saving a config file as editors do.
 */
import { rename, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { afterAll, beforeEach, onTestFinished } from 'vitest'
import type {
  ControlState,
  DaemonApi,
  DaemonEvent,
  DaemonStatus,
  InjectKind,
  InjectRefusal,
  RecentError,
  SurfaceStateEvent,
} from '../../src/daemon/api.js'
import { setLogSink, type LogRecord } from '../../src/log.js'
import { controlSends, parseControlId, type ControlId } from '../../src/face/control-id.js'

interface FakeSurface {
  driver: string
  open: boolean
  controls: Map<ControlId, Omit<ControlState, 'surface' | 'control'>>
}

export interface Injection {
  surface: string
  control: ControlId
  kind: InjectKind
  arg?: number
}

/** A daemon as the server sees it: surfaces and their controls in a Map, injections recorded. */
export class FakeDaemon implements DaemonApi {
  readonly surfaces = new Map<string, FakeSurface>()
  readonly injections: Injection[] = []
  errors: RecentError[] = []
  simulated = false
  link: DaemonStatus['app'] = { state: 'connected', since: '2026-11-23T01:00:00.000Z' }

  addSurface(
    name: string,
    driver: string,
    controls: Record<ControlId, Omit<ControlState, 'surface' | 'control'>>,
    open = true,
  ): void {
    this.surfaces.set(name, { driver, open, controls: new Map(Object.entries(controls)) })
  }

  status(): DaemonStatus {
    return {
      version: '0.1.0',
      config: '/etc/panelbridge/config.yaml',
      simulated: this.simulated,
      app: this.link,
      surfaces: [...this.surfaces].map(([name, s]) => ({ name, driver: s.driver, state: s.open ? 'open' : 'waiting' })),
      commands: { sent: this.injections.length, failed: 0 },
    }
  }

  controlState(surface: string, control: ControlId): ControlState | InjectRefusal {
    const found = this.find(surface, control)
    if ('status' in found) return found
    return { surface, control, ...found.state }
  }

  inject(surface: string, control: ControlId, kind: InjectKind, arg?: number): InjectRefusal | undefined {
    const found = this.find(surface, control)
    if ('status' in found) return found
    if (!found.open) return { status: 409, code: 'SURFACE_NOT_OPEN', message: `${surface} is not open` }
    const event = kind === 'press' ? 'down' : kind
    if (!controlSends(parseControlId(control).kind, event)) {
      return { status: 409, code: 'EVENT_NOT_TAKEN', message: `${control} does not take ${kind}` }
    }
    this.injections.push(arg === undefined ? { surface, control, kind } : { surface, control, kind, arg })
    return undefined
  }

  recentErrors(): RecentError[] {
    return this.errors
  }

  private find(
    surface: string,
    control: ControlId,
  ): InjectRefusal | { open: boolean; state: Omit<ControlState, 'surface' | 'control'> } {
    const s = this.surfaces.get(surface)
    if (!s) return { status: 404, code: 'UNKNOWN_SURFACE', message: `no surface named ${surface}` }
    const state = s.controls.get(control)
    if (!state) return { status: 404, code: 'UNKNOWN_CONTROL', message: `${surface} has no ${control}` }
    return { open: s.open, state }
  }
}

/** A daemon whose surfaces and events the test drives: each watcher is told `states` first, then what `emit` sends. */
export class WatchedDaemon extends FakeDaemon {
  readonly watchers = new Set<(e: DaemonEvent) => void>()
  constructor(public states: SurfaceStateEvent[]) {
    super()
  }
  watchEvents(listener: (e: DaemonEvent) => void): () => void {
    for (const s of this.states) listener({ type: 'surface', surface: s })
    this.watchers.add(listener)
    return () => void this.watchers.delete(listener)
  }
  emit(e: DaemonEvent): void {
    for (const w of this.watchers) w(e)
  }
}

/** The listen token of the server tests (long enough for the server's minimum). */
export const TOKEN = 'correct-horse-battery-staple-42'

/**
 * Every record the process-wide log sink gets during each test of this file (the server logs through
 * `createLogger`): emptied before each test; the sink comes back after the file.
 */
export function fileLogs(): LogRecord[] {
  const records: LogRecord[] = []
  const previousSink = setLogSink((r) => records.push(r))
  beforeEach(() => {
    records.length = 0
  })
  afterAll(() => setLogSink(previousSink))
  return records
}

/** A daemon with a web console (keys, a fader, a shuttle) open and a Stream Deck still waiting. */
export function sampleDaemon(): FakeDaemon {
  const daemon = new FakeDaemon()
  daemon.addSurface('console', 'web', {
    'key:0': { page: null, label: 'Lower Third\nOff', color: '#202020', textColor: '#ffffff' },
    'key:3': { page: null, label: 'Cam 3', color: '#00ff00', badge: 'stale', detail: 'no tally yet' },
    'fader:0': { page: null, value: 0.5 },
    shuttle: { page: null, value: 0 },
    jog: { page: null },
  })
  daemon.addSurface('desk', 'streamdeck', { 'key:0': { page: 'main', led: 'on' } }, false)
  return daemon
}

export interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: unknown
}

/**
 * One HTTP request on a fresh connection to `base`'s host and port; `path` is sent as written (not
 * normalised) and `headers` as given (Host and Origin included).
 */
export function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(base)
    const req = request({ host: hostname, port, path, method, headers, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => {
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          json = undefined
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** The title the end-to-end configs bind key:0 to (play feedback from it). */
export const E2E_TITLE = 'Lower Third'

/**
 * A config for a daemon against an application at `app` (its HTTP and notification URLs): a web surface
 * `console` (1×4 keys and a jog), key:0 cuts in E2E_TITLE and shows its play state, the jog scrubs a
 * frame a step; `stopKey` adds key:2 "Stop" (stopStreaming, which asks for a hold to confirm). `extra`
 * is more bindings.
 */
export function e2eConfig(app: { http: string; ws: string }, extra = '', opts: { stopKey?: boolean } = {}): string {
  const stop = opts.stopKey
    ? `  - on: console/key:2
    label: "Stop"
    press: { command: stopStreaming }
`
    : ''
  return `version: 1
app: { url: ${app.http}, notifications: ${app.ws} }
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  console: { driver: web, rows: 1, columns: 4, jog: true }
bindings:
  - on: console/key:0
    label: "{{name}}"
    press: { command: schedule, params: { action: cutin, title: "${E2E_TITLE}" } }
    feedback: { title: "${E2E_TITLE}" }
${stop}  - on: console/jog
    jog: { scrub: { step_frames: 1 } }
${extra}`
}

/** Replaces the file the way editors do: write a new file, rename it over the old one. */
export async function saveAsEditors(file: string, text: string): Promise<void> {
  await writeFile(`${file}.tmp`, text)
  await rename(`${file}.tmp`, file)
}

/** A port bound on 127.0.0.1 now: held until the test ends, or released at once (`free`). */
async function boundPort(free: boolean): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const close = (): Promise<void> => new Promise<void>((resolve) => server.close(() => resolve()))
  if (free) await close()
  else onTestFinished(close)
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

/** A port another program holds (until the test ends). */
export const takenPort = (): Promise<number> => boundPort(false)

/**
 * A port free now, for a listener the daemon binds later by number. Asking the kernel for one (port 0,
 * then release) races every other test that binds port 0: the kernel may hand the same port out again
 * before the daemon binds it. So these come from below the kernel's ephemeral range (32768 up on Linux),
 * from a slice of its own for each test worker, and are checked free by binding them.
 */
export async function freePort(): Promise<number> {
  const worker = Number(process.env['VITEST_POOL_ID'] ?? '1')
  const base = FREE_PORTS.first + ((worker - 1) % FREE_PORTS.workers) * FREE_PORTS.perWorker
  for (let tries = 0; tries < FREE_PORTS.perWorker; tries++) {
    const port = base + (nextFree++ % FREE_PORTS.perWorker)
    if (await bindable(port)) return port
  }
  return boundPort(true)
}

const FREE_PORTS = { first: 20000, workers: 12, perWorker: 1000 }
let nextFree = Math.floor(Math.random() * FREE_PORTS.perWorker)

function bindable(port: number): Promise<boolean> {
  const server = createServer()
  return new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}
