/**
 * `devices` and `learn` seams with in-memory Contour Shuttle, X-keys and Blackmagic panels behind the real
 * drivers.
 */
import { hardwareDrivers } from '../../src/surfaces/drivers.js'
import { rawImageEncoder } from '../surfaces/helpers/fake-hid.js'
import { MemoryBmdTransport } from '../surfaces/helpers/fake-bmd.js'
import { MemoryShuttleTransport } from '../surfaces/helpers/fake-shuttle.js'
import { MemoryXkeysTransport } from '../surfaces/helpers/fake-xkeys.js'
import { harness, type Harness } from './hardware-helpers.js'

/** The shared harness with in-memory Shuttle, X-keys and Blackmagic transports behind the real drivers. */
export function hidHarness(): Harness & {
  shuttles: MemoryShuttleTransport
  xkeys: MemoryXkeysTransport
  panels: MemoryBmdTransport
} {
  const h = harness()
  const shuttles = new MemoryShuttleTransport()
  const xkeys = new MemoryXkeysTransport()
  const panels = new MemoryBmdTransport()
  h.deps.drivers = () => [
    ...hardwareDrivers({
      streamdeck: { transport: h.transport, encodeJPEG: rawImageEncoder },
      shuttle: { transport: shuttles },
      xkeys: { transport: xkeys },
      'replay-editor': { transport: panels },
    }),
    ...h.extra,
  ]
  return Object.assign(h, { shuttles, xkeys, panels })
}
