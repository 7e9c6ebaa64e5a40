/**
 * A daemon in this process over a config file, with the real Stream Deck driver on an in-memory transport (keys
 * drawn at once) and a FakeHotplug, every device allowed and no file watch: the rig of the tests about surfaces
 * that wait for their device (the API's and the page's).
 */
import { Daemon, type DaemonOptions } from '../../src/daemon/daemon.js'
import { MemoryStreamDeckTransport } from '../surfaces/helpers/fake-hid.js'
import { FakeHotplug } from '../surfaces/helpers/fake-hotplug.js'
import { deckDriver } from '../surfaces/helpers/manager.js'
import { SAFETY_MS } from '../helpers/until.js'

export async function deckDaemon(
  file: string,
  transport = new MemoryStreamDeckTransport(),
  extra: Partial<DaemonOptions> = {},
): Promise<{ daemon: Daemon; transport: MemoryStreamDeckTransport; hotplug: FakeHotplug }> {
  const hotplug = new FakeHotplug()
  const daemon = await Daemon.start({
    reloadTimeoutMs: SAFETY_MS,
    config: file,
    drivers: [deckDriver(transport)],
    hotplug,
    access: () => Promise.resolve('ok'),
    watch: false,
    ...extra,
  })
  return { daemon, transport, hotplug }
}

/** The waiting tests' config up to its bindings: an XL `desk` and a mini `spare` that may rehearse, neither plugged in. */
export const WAITING_CONFIG_HEAD = `version: 1
app: { url: http://127.0.0.1:0, simulate: true }
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  desk: { driver: streamdeck, model: xl }
  spare: { driver: streamdeck, model: mini, serial: SPARE1, rehearse: true }
bindings:
`
