/**
 * `panelbridge surfaces`: the surface layer on its own, for setting up a box before any mapping exists.
 *
 * It runs the real SurfaceManager with every hardware driver and one web surface, prints each
 * device's state (open, failed, or permission denied with the udev rule file to install) and every
 * input event, and echoes input as feedback: a key lights while held, an encoder or jog shows its
 * running count, a shuttle its zone and a fader its value. So an operator sees at once that a device is found, readable and writable, and the
 * web page (which mirrors every device) shows the same from a browser.
 *
 * Nothing here talks to the application: that is the daemon's job, with the binding engine.
 */
import { formatStatus } from './commands/hardware.js'
import { createLogger } from './log.js'
import { SurfaceManager, type SurfaceManagerOptions } from './surfaces/manager.js'
import { KeyRenderer } from './surfaces/render/key-renderer.js'
import { hardwareDrivers, hardwareHotplug } from './surfaces/drivers.js'
import type { ControlDescriptor, Feedback, SurfaceDescription, SurfaceEvent } from './surfaces/types.js'
import { KeyImages, WEB_DRIVER, WebSurface, WebSurfaceServer } from './surfaces/web/index.js'

/**
 * The web surface this command shows: a Stream Deck XL-sized grid, two encoders, a jog wheel, a
 * shuttle ring and two faders, so every kind of control can be tried from a browser.
 */
export const CHECK_WEB_SURFACE = {
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

export { formatStatus }

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
  /** The web page's URL. */
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

export async function startSurfaceCheck(opts: SurfaceCheckOptions): Promise<SurfaceCheckHandle> {
  const out = opts.out ?? ((line: string) => void process.stdout.write(`${line}\n`))
  const log = createLogger('surfaces/check')
  const renderer = new KeyRenderer()
  // The one driver list (src/surfaces/drivers.ts): every driver the daemon has, so this tool sees them all.
  const drivers = opts.manager?.drivers ?? (opts.hardware ? hardwareDrivers({ renderer }).map((e) => e.driver) : [])
  const manager = new SurfaceManager({
    ...opts.manager,
    drivers,
    ...(opts.manager?.hotplug === undefined && drivers.length > 0 ? { hotplug: hardwareHotplug(drivers) } : {}),
  })
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

  const images = new KeyImages(renderer)
  const web = new WebSurface({ ...CHECK_WEB_SURFACE, images })
  const server = new WebSurfaceServer({ registry: manager, images })
  let url: string
  try {
    await manager.start()
    manager.addSurface(web)
    server.addSurface(web)
    url = await server.listen({ host: opts.host, port: opts.port })
  } catch (err) {
    await Promise.allSettled([server.close(), manager.stop()])
    throw err
  }
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
        await manager.stop()
      })()
      return closing
    },
  }
}
