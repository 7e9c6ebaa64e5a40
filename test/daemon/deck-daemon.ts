/**
 * A daemon in this process over a config file, with the real Stream Deck driver on an in-memory transport (keys
 * drawn at once) and a FakeHotplug, every device allowed and no file watch: the rig of the tests about surfaces
 * that wait for their device (the API's and the page's).
 */
import { Daemon, type DaemonOptions } from '../../src/daemon/daemon.js'
import { MemoryStreamDeckTransport } from '../surfaces/helpers/fake-hid.js'
import { FakeHotplug } from '../surfaces/helpers/fake-hotplug.js'
import { deckDriver } from '../surfaces/helpers/manager.js'

export async function deckDaemon(
  file: string,
  transport = new MemoryStreamDeckTransport(),
  extra: Partial<DaemonOptions> = {},
): Promise<{ daemon: Daemon; transport: MemoryStreamDeckTransport; hotplug: FakeHotplug }> {
  const hotplug = new FakeHotplug()
  const daemon = await Daemon.start({
    config: file,
    drivers: [deckDriver(transport)],
    hotplug,
    access: () => Promise.resolve('ok'),
    watch: false,
    ...extra,
  })
  return { daemon, transport, hotplug }
}
