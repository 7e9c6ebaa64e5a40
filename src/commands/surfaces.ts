/**
 * `panelbridge surfaces [--port N] [--host ADDR] [--no-hardware]`: the surface layer on its own, for
 * setting up a box before any mapping exists.
 *
 * It runs the real SurfaceManager with every hardware driver and one web surface, prints each
 * device's state (open, failed, or permission denied with the udev rule file to install) and every
 * input event, and echoes input as feedback: a key lights while held, an encoder or jog shows its
 * running count, a shuttle its zone and a fader its value. So an operator sees at once that a device
 * is found, readable and writable, and the web page (which mirrors every device) shows the same from a
 * browser.
 *
 * The page is served by the daemon's own server (`startDaemonServer`: its Host, Origin and token checks,
 * its bounds) with a stub for the daemon's side: its API answers 404, as a page with no daemon behind it
 * expects. Bound to anything but loopback, the server wants a token, so one is made for the run and the
 * printed URL carries it (a `?token=` link, which sets the page's cookie).
 *
 * Nothing here talks to the application: that is the daemon's job, with the binding engine. SIGINT and
 * SIGTERM stop it within STOP_BOUND_MS (`untilStopped`). Exit codes: 0 stopped cleanly, 1 could not
 * start (e.g. the port is taken), 2 bad command line.
 */
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import type { DaemonApi, InjectRefusal } from '../daemon/api.js'
import { HttpError } from '../daemon/http.js'
import { startDaemonServer, type DaemonServer } from '../daemon/server.js'
import { DEFAULT_LISTEN_HOST, DEFAULT_PANELBRIDGE_PORT } from '../defaults.js'
import { isLoopbackAddress } from '../http-guard.js'
import { createLogger } from '../log.js'
import { SurfaceManager, type SurfaceManagerOptions } from '../surfaces/manager.js'
import { KeyRenderer } from '../surfaces/render/key-renderer.js'
import { hardwareDrivers, hardwareHotplug } from '../surfaces/drivers.js'
import type { SurfaceEvent } from '../surfaces/types.js'
import type { Feedback } from '../face/feedback.js'
import { KeyImages, WEB_DRIVER, WebSurface, WebSurfaceServer } from '../surfaces/web/index.js'
import { portArg, UsageError, usageFailure } from './args.js'
import { formatStatus } from './hardware.js'
import { EXIT, type Subcommand } from './subcommand.js'
import { untilStopped } from './until-stopped.js'
import type { ControlDescriptor, SurfaceDescription } from '../face/surface.js'

const log = createLogger('surfaces/check')

/**
 * The web surface this command shows: a Stream Deck XL-sized grid, two encoders, a jog wheel, a
 * shuttle ring and two faders, so every kind of control can be tried from a browser.
 */
const CHECK_WEB_SURFACE = {
  id: 'web',
  rows: 4,
  columns: 8,
  encoders: 2,
  jog: true,
  shuttle: true,
  faders: 2,
} as const

/** Echo looks: idle (also while a rotary control shows its count) and held; LEDs light only while held. */
const IDLE: Feedback = { color: '#202830', textColor: '#c8d0d8', led: 'off' }
const HELD: Feedback = { color: '#1e8e3e', textColor: '#ffffff', led: 'on' }

export interface SurfaceCheckOptions {
  host: string
  /** Web page port; 0 picks a free one. */
  port: number
  /** Open hardware (every driver of `hardwareDrivers`). False: only the web surface. */
  hardware: boolean
  /** Test seams: the manager's drivers, hot-plug source and permission check. */
  manager?: Pick<SurfaceManagerOptions, 'drivers' | 'hotplug' | 'access' | 'rescanDelaysMs'>
  /** Where the report lines go (default stdout). */
  out?: (line: string) => void
}

export interface SurfaceCheckHandle {
  /** The web page's URL (with `?token=` when the bind is not loopback). */
  url: string
  manager: SurfaceManager
  close(): Promise<void>
}

/** One line per input event, e.g. `web key:3 down`, `A1 encoder:0 rotate -2`. */
export function formatInput(e: SurfaceEvent): string {
  const detail =
    e.type === 'rotate'
      ? ` ${e.delta > 0 ? '+' : ''}${e.delta}`
      : e.type === 'value'
        ? ` ${e.value.toFixed(3)}${e.raw !== undefined ? ` (raw ${e.raw})` : ''}`
        : ''
  return `${e.surface} ${e.control} ${e.type}${detail}`
}

/** The label a control shows while idle: its id without the kind for keys (`key:5` → `5`). */
function idleLabel(control: ControlDescriptor): string {
  return control.kind === 'key' ? control.id.slice('key:'.length) : control.id
}

function echoesOn(control: ControlDescriptor): boolean {
  return (
    control.capabilities.image !== undefined || control.capabilities.rgb === true || control.capabilities.led === true
  )
}

/**
 * Prints each status change and input event, and echoes input on the control that sent it: a key
 * lights while held, a rotary control shows its running count, a shuttle or fader its value.
 */
function echoInput(manager: SurfaceManager, out: (line: string) => void): void {
  /** Running count per rotary control, so the echo shows where a wheel has got to. */
  const counts = new Map<string, number>()
  const descriptions = new Map<string, SurfaceDescription>()

  const show = (surfaceId: string, control: ControlDescriptor, base: Feedback, text: string): void => {
    if (!echoesOn(control)) return
    manager.setFeedback(surfaceId, control.id, { ...base, text })
  }

  manager.events.on('status', (s) => out(formatStatus(s)))
  manager.events.on('added', (d) => {
    descriptions.set(d.id, d)
    for (const control of d.controls) show(d.id, control, IDLE, idleLabel(control))
  })
  manager.events.on('removed', (id) => {
    descriptions.delete(id)
    for (const key of [...counts.keys()]) if (key.startsWith(`${id}\u0000`)) counts.delete(key)
  })
  manager.events.on('input', (e) => {
    out(formatInput(e))
    const control = descriptions.get(e.surface)?.controls.find((c) => c.id === e.control)
    if (!control) return
    const key = `${e.surface}\u0000${e.control}`
    switch (e.type) {
      case 'down':
        show(e.surface, control, HELD, `${idleLabel(control)}\ndown`)
        break
      case 'up':
        show(
          e.surface,
          control,
          IDLE,
          counts.has(key) ? `${idleLabel(control)}\n${counts.get(key)}` : idleLabel(control),
        )
        break
      case 'rotate': {
        const count = (counts.get(key) ?? 0) + e.delta
        counts.set(key, count)
        show(e.surface, control, IDLE, `${idleLabel(control)}\n${count}`)
        break
      }
      case 'value':
        if (control.kind === 'shuttle' || control.kind === 'fader') {
          // Shown under the control (it has no key to light); a fader's thumb follows the value too.
          manager.setFeedback(e.surface, control.id, {
            text: `${control.id}\n${e.raw ?? e.value.toFixed(2)}`,
            ...(control.kind === 'fader' ? { value: e.value } : {}),
          })
        } else {
          show(e.surface, control, IDLE, `${idleLabel(control)}\n${e.raw ?? e.value.toFixed(2)}`)
        }
        break
    }
  })
}

/** Why the stub answers no daemon question: there is no daemon behind this page. */
const NO_DAEMON = 'no daemon: panelbridge surfaces serves the surfaces alone'
const noDaemon = (): never => {
  throw new HttpError(404, 'NOT_FOUND', NO_DAEMON)
}
const noSurface: InjectRefusal = { status: 404, code: 'UNKNOWN_SURFACE', message: NO_DAEMON }

/**
 * The daemon's side of the server, stubbed: every `/api` route answers 404 (the page's status strip then
 * stays hidden, as it does with no daemon behind it), and nothing is injected.
 */
const SURFACES_ONLY_API: DaemonApi = {
  status: noDaemon,
  recentErrors: noDaemon,
  controlState: () => noSurface,
  inject: () => noSurface,
}

/** A token for a run bound beyond loopback: 32 characters of base64url (24 random bytes). */
const runToken = (): string => randomBytes(24).toString('base64url')

export async function startSurfaceCheck(opts: SurfaceCheckOptions): Promise<SurfaceCheckHandle> {
  const out = opts.out ?? ((line: string) => void process.stdout.write(`${line}\n`))
  const renderer = new KeyRenderer()
  // The one driver list (src/surfaces/drivers.ts): every driver the daemon has, so this tool sees them all.
  const drivers = opts.manager?.drivers ?? (opts.hardware ? hardwareDrivers({ renderer }).map((e) => e.driver) : [])
  const manager = new SurfaceManager({
    ...opts.manager,
    drivers,
    ...(opts.manager?.hotplug === undefined && drivers.length > 0 ? { hotplug: hardwareHotplug(drivers) } : {}),
  })
  echoInput(manager, out)

  const images = new KeyImages(renderer)
  const web = new WebSurface({ ...CHECK_WEB_SURFACE, images })
  const server = new WebSurfaceServer({ registry: manager, images })
  const token = isLoopbackAddress(opts.host) ? undefined : runToken()
  let daemonServer: DaemonServer
  try {
    await manager.start()
    manager.addSurface(web)
    server.addSurface(web)
    daemonServer = await startDaemonServer({
      api: SURFACES_ONLY_API,
      host: opts.host,
      port: opts.port,
      web: server,
      ...(token !== undefined ? { token } : {}),
    })
  } catch (err) {
    await Promise.allSettled([server.close(), manager.stop()])
    throw err
  }
  const url = token === undefined ? daemonServer.url : `${daemonServer.url}?token=${token}`
  if (drivers.length === 0) out('no hardware drivers: only the web surface')
  else if (manager.list().every((d) => d.driver === WEB_DRIVER))
    out('no devices found yet; plug one in: it is picked up when it appears')
  log.info('surface check running', { url })

  let closing: Promise<void> | undefined
  return {
    url,
    manager,
    close() {
      closing ??= (async () => {
        await server.close()
        await daemonServer.close()
        await manager.stop()
      })()
      return closing
    },
  }
}

export interface SurfacesCommandLine {
  kind: 'surfaces'
  port: number
  host: string
  hardware: boolean
}

/** Reads `surfaces`' arguments (after `surfaces`). Never throws. */
export function parseSurfacesArgs(argv: readonly string[]): SurfacesCommandLine | { kind: 'error'; message: string } {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'no-hardware': { type: 'boolean' },
        // sim's options, known here only to say whose they are.
        'ws-port': { type: 'string' },
        'data-dir': { type: 'string' },
        'animation-ms': { type: 'string' },
        'log-commands': { type: 'string' },
      },
    })
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`)
    const host = values.host ?? DEFAULT_LISTEN_HOST
    if (host.trim() === '') throw new UsageError('--host must not be empty')
    for (const option of ['ws-port', 'data-dir', 'animation-ms', 'log-commands'] as const)
      if (values[option] !== undefined) throw new UsageError(`--${option} is an option of 'sim', not of 'surfaces'`)
    const port = portArg(values.port, DEFAULT_PANELBRIDGE_PORT, '--port')
    return { kind: 'surfaces', port, host, hardware: values['no-hardware'] !== true }
  } catch (err) {
    // parseArgs's own errors (unknown option, missing value) and ours (UsageError) alike.
    return { kind: 'error', message: err instanceof Error ? err.message : String(err) }
  }
}

async function runSurfaces(argv: readonly string[]): Promise<number> {
  const cmd = parseSurfacesArgs(argv)
  if (cmd.kind === 'error') return usageFailure('surfaces', cmd.message)
  let check: SurfaceCheckHandle
  try {
    check = await startSurfaceCheck({ host: cmd.host, port: cmd.port, hardware: cmd.hardware })
  } catch (err) {
    process.stderr.write(
      `panelbridge: cannot start the surface check: ${err instanceof Error ? err.message : String(err)}\n`,
    )
    return EXIT.failure
  }
  process.stdout.write(`web surface on ${check.url}\n`)
  return untilStopped(() => check.close(), { log })
}

export const surfacesCommand: Subcommand = {
  usage: 'surfaces [--port N] [--host ADDR] [--no-hardware]',
  summary: 'the control surfaces on their own: each device opened, its input printed and echoed, all on the web page',
  help: `panelbridge surfaces — the control surfaces on their own, before any mapping exists

Usage:
  panelbridge surfaces [--port N] [--host ADDR] [--no-hardware]

Every device opened, its state and input printed, input echoed on the keys, and all of them on the
web page.

Options:
  --port N            web page port (default ${DEFAULT_PANELBRIDGE_PORT}; 0 picks a free port)
  --host ADDR         listen address of the web page (default ${DEFAULT_LISTEN_HOST})
  --no-hardware       only the web surface; do not open USB devices

Examples:
  panelbridge surfaces
  panelbridge surfaces --no-hardware --port 0

Exit codes: 0 stopped cleanly, 1 could not start (e.g. the port is taken), 2 bad command line.
`,
  run: runSurfaces,
}
