/**
 * `panelbridge learn [--config FILE] [--url URL]`: opens every control surface the drivers find and
 * prints each control event as its canonical id (`desk/key:3 down`), the `surfaces:` entry that claims
 * the device (or one to add), and, once per control, a binding ready to paste into the mapping file.
 *
 * A running daemon holds the devices. Learning through its remote API is the aim (issue 13); until
 * that API offers an input stream, `learn` asks `GET /api/status` at the daemon's address first and,
 * when a daemon answers, says so and stops rather than taking its devices.
 */
import { parseArgs } from 'node:util'
import { DEFAULT_LISTEN_HOST, DEFAULT_PANELBRIDGE_PORT } from '../defaults.js'
import { isRecord } from '../wire.js'
import { formatStatus } from '../surface-check.js'
import { SurfaceManager } from '../surfaces/manager.js'
import type { ControlKind, DetectedDevice, SurfaceDriver, SurfaceEvent } from '../surfaces/types.js'
import {
  DEFAULT_HARDWARE_DEPS,
  SYSTEM_CONFIG,
  assignClaims,
  readClaims,
  surfaceEntryFor,
  yamlLine,
  type HardwareCommandDeps,
} from './devices.js'
import type { Subcommand } from './index.js'

/** How long `learn` waits for a daemon's `/api/status` before taking the devices itself, ms. */
export const LEARN_DAEMON_PROBE_MS = 700

export interface LearnDeps extends HardwareCommandDeps {
  /** Stops learning (default: SIGINT or SIGTERM). */
  stop?: AbortSignal
}

const HELP = `Usage: panelbridge learn [--config FILE] [--url URL]

Opens every control surface found and prints each press, turn or move as its canonical control id
(desk/key:3 down), the surfaces: entry that claims the device (or one to add), and, once per control,
a binding ready to paste into the mapping file. Ctrl+C stops.

A running daemon holds the devices: learn first asks the daemon's address (listen: of the config, or
--url) and, when a daemon answers, stops without taking them. Stop the daemon to learn
(sudo systemctl stop panelbridge), then start it again.

Options:
  --config FILE   the mapping file whose surfaces: name the devices
                  (default: ${SYSTEM_CONFIG} when it exists)
  --url URL       the daemon's address (default: the config's listen:, else http://${DEFAULT_LISTEN_HOST}:${DEFAULT_PANELBRIDGE_PORT})

Examples:
  panelbridge learn
  panelbridge learn --config /etc/panelbridge/config.yaml

Exit codes: 0 stopped, 1 a daemon holds the devices or the config is refused, 2 bad command line.
`

/** Where a running daemon would answer. A wildcard listen address is reached on loopback. */
function daemonUrl(url: string | undefined, listen: { host: string; port: number } | undefined): string {
  if (url !== undefined) return url.replace(/\/+$/, '')
  if (!listen) return `http://${DEFAULT_LISTEN_HOST}:${DEFAULT_PANELBRIDGE_PORT}`
  const host = listen.host === '0.0.0.0' || listen.host === '::' ? DEFAULT_LISTEN_HOST : listen.host
  return `http://${host.includes(':') ? `[${host}]` : host}:${listen.port}`
}

/** True when a panelbridge daemon answers `GET /api/status` at `base` within LEARN_DAEMON_PROBE_MS. */
export async function daemonRunning(base: string): Promise<boolean> {
  try {
    const res = await fetch(`${base}/api/status`, { signal: AbortSignal.timeout(LEARN_DAEMON_PROBE_MS) })
    // A 401 is a daemon too: one bound beyond loopback wants its token.
    if (res.status === 401) return true
    if (!res.ok) return false
    const body: unknown = await res.json()
    return isRecord(body) && typeof body.version === 'string' && Array.isArray(body.surfaces)
  } catch {
    // Nothing listens there, or something that is not a daemon: the devices are free to take.
    return false
  }
}

/** What a control of this kind does first when touched, for the snippet. */
function bindingBody(kind: ControlKind | undefined, event: SurfaceEvent): string[] {
  if (event.type === 'rotate') return ['jog: { scrub: { step_frames: 1 } }']
  if (event.type === 'value') {
    if (kind === 'shuttle') return ["label: '{{speed}}×'", 'shuttle: { speeds: [0, 0.1, 0.25, 0.5, 1, 2, 4, 8] }']
    return ["label: 'Speed'", 'value: { command: replay_set_replay_speed, param: speed, range: [0, 2] }']
  }
  return [
    'label: "{{name}}\\n{{play}}"',
    "press: { command: schedule, params: { action: automatic, title: 'Lower Third' } }",
    "feedback: { title: 'Lower Third' }",
  ]
}

function eventDetail(e: SurfaceEvent): string {
  if (e.type === 'rotate') return ` ${e.delta > 0 ? '+' : ''}${e.delta}`
  if (e.type === 'value') return ` ${e.value.toFixed(3)}${e.raw !== undefined ? ` (raw ${e.raw})` : ''}`
  return ''
}

/** `learn` with its seams: the subcommand runs this with the defaults. */
export async function runLearn(argv: readonly string[], deps: LearnDeps = DEFAULT_HARDWARE_DEPS): Promise<number> {
  let values: { config?: string; url?: string }
  try {
    ;({ values } = parseArgs({
      args: [...argv],
      options: { config: { type: 'string' }, url: { type: 'string' } },
      strict: true,
    }))
    if (values.url !== undefined && !/^https?:\/\/[^/]/.test(values.url))
      throw new Error('--url must be an http:// URL')
  } catch (err) {
    deps.err(`panelbridge learn: ${err instanceof Error ? err.message : String(err)}`)
    deps.err(`Run 'panelbridge learn --help' for usage.`)
    return 2
  }
  const read = await readClaims(values.config, deps)
  if (!read) return 1
  const base = daemonUrl(values.url, read.config?.listen)
  if (await daemonRunning(base)) {
    deps.err(`panelbridge learn: a panelbridge daemon is running at ${base} and holds the devices.`)
    deps.err('Learning through a running daemon is not available yet: stop it (sudo systemctl stop panelbridge),')
    deps.err('run panelbridge learn, then start it again.')
    return 1
  }

  /** Every device detection listed, by identity: what claims and snippets are made from. */
  const detected = new Map<string, DetectedDevice>()
  const recording = (driver: SurfaceDriver): SurfaceDriver => ({
    name: driver.name,
    async detect() {
      const list = await driver.detect()
      for (const d of list) detected.set(d.id, d)
      return list
    },
    open: (device) => driver.open(device),
  })
  const manager = new SurfaceManager({
    drivers: deps.drivers().map((e) => recording(e.driver)),
    claims: 'all',
    access: deps.access,
    ...(deps.hotplug ? { hotplug: deps.hotplug } : {}),
  })
  /** Device identity → the surface name used in ids and snippets (configured, else suggested). */
  const names = new Map<string, string>()
  let suggested = 0
  const nameOf = (device: string): string => {
    let name = names.get(device)
    if (name === undefined) {
      const d = detected.get(device)
      name = assignClaims(read.claims, [...detected.values()]).get(device) ?? `${d?.driver ?? 'surface'}${++suggested}`
      names.set(device, name)
    }
    return name
  }
  const kinds = new Map<string, Map<string, ControlKind>>()
  const shown = new Set<string>()

  manager.events.on('status', (s) => {
    if (s.state !== 'open') {
      deps.out(formatStatus(s))
      return
    }
    const device = detected.get(s.name)
    const name = nameOf(s.name)
    const configured = read.config?.surfaces[name]
    deps.out(`${formatStatus(s)}: learning as ${name}`)
    if (configured) deps.out(`  claimed by surfaces: ${yamlLine({ [name]: configured })}`)
    else if (device) deps.out(`  not in the config; add under surfaces: ${surfaceEntryFor(name, device)}`)
  })
  manager.events.on('added', (d) => kinds.set(d.id, new Map(d.controls.map((c) => [c.id, c.kind]))))
  manager.events.on('input', (e) => {
    const name = nameOf(e.surface)
    const id = `${name}/${e.control}`
    deps.out(`${id} ${e.type}${eventDetail(e)}`)
    if (e.type === 'up') return
    const key = `${id} ${e.type === 'down' ? 'press' : e.type}`
    if (shown.has(key)) return
    shown.add(key)
    const body = bindingBody(kinds.get(e.surface)?.get(e.control), e)
    deps.out(['  binding:', `    - on: ${id}`, ...body.map((line) => `      ${line}`)].join('\n'))
  })

  const stop = deps.stop ?? signalStop()
  deps.out(
    `learning: press, turn or move a control; Ctrl+C stops${read.file !== undefined ? ` (surface names from ${read.file})` : ''}`,
  )
  // Why a timer: with live hot-plug and no device nothing else holds the event loop (a waiting promise
  // does not), so the process would end at once instead of waiting for Ctrl+C.
  const keepAlive = setInterval(() => undefined, 60_000)
  try {
    await manager.start()
    if (!stop.aborted)
      await new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }))
  } finally {
    clearInterval(keepAlive)
    await manager.stop()
  }
  return 0
}

/** An AbortSignal that fires on the first SIGINT or SIGTERM; its listeners are removed then. */
function signalStop(): AbortSignal {
  const controller = new AbortController()
  const onSignal = (): void => {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    controller.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return controller.signal
}

export const learnCommand: Subcommand = {
  usage: 'learn [--config FILE] [--url URL]',
  summary: 'print each control event as its id, the surface that claims it, and a binding to paste',
  help: HELP,
  run: (argv) => runLearn(argv),
}
