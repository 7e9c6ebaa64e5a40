/**
 * A daemon in this process over a config file and the drivers a test gives (each over its in-memory transport
 * or page socket), with a FakeHotplug, every device allowed and no file watch, stopped when the test finishes:
 * the one rig of the tests that reach a daemon through its surfaces (browser decks, network decks, USB decks).
 */
import { onTestFinished } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import type { HotplugSource } from '../../src/surfaces/hotplug.js'
import type { SurfaceDriver } from '../../src/surfaces/types.js'
import { FakeHotplug } from '../surfaces/helpers/fake-hotplug.js'
import { SAFETY_MS } from './until.js'

/** The daemon over `file` with `drivers`; `hotplug` is live unless the test passes another. */
export async function testDaemon(
  file: string,
  drivers: SurfaceDriver[],
  hotplug: HotplugSource = new FakeHotplug(),
): Promise<Daemon> {
  const daemon = await Daemon.start({
    reloadTimeoutMs: SAFETY_MS,
    config: file,
    drivers,
    hotplug,
    access: () => Promise.resolve('ok'),
    watch: false,
  })
  onTestFinished(() => daemon.stop())
  return daemon
}

/** The state of the daemon's surface `name` (undefined when it has none of that name). */
export const surfaceState = (daemon: Daemon, name: string): string | undefined =>
  daemon.status().surfaces.find((s) => s.name === name)?.state

/**
 * A config over the built-in simulator with the API on `listen` (a free loopback port unless given), then the
 * `surfaces:` lines given (each line indented under it, with its newline) and the rest (`bindings:` and on).
 */
export const simulatedDaemonConfig = (surfaces: string, rest = '', listen = '{ host: 127.0.0.1, port: 0 }'): string =>
  `version: 1
app: { url: http://127.0.0.1:0, simulate: true }
listen: ${listen}
surfaces:
${surfaces}${rest}`

/** A `bindings:` section of one binding: a press on `control` cuts in the simulator's "Lower Third". */
export const cutinBindings = (control: string): string =>
  `bindings:\n  - on: ${control}\n    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }\n`
