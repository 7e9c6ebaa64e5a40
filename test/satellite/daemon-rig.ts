/**
 * The daemon of the Satellite tests: in this process over a config file, its Satellite server started
 * from the file's `satellite:` (port 0 in the tests), a FakeHotplug, every device allowed, no file watch;
 * stopped when the test finishes.
 */
import type { Daemon } from '../../src/daemon/daemon.js'
import { testDaemon } from '../helpers/in-process-daemon.js'

export function satelliteDaemon(file: string): Promise<Daemon> {
  return testDaemon(file, [])
}
