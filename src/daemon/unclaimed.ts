/**
 * The devices the daemon sees that no `surfaces:` entry claims, for `panelbridge learn` through the
 * daemon (issue 26 item 2): a Stream Deck a page registered (`driver: browser-deck`) exists only inside
 * the daemon, so learn cannot find it itself. Each goes to the event stream as `event: unclaimed` with
 * the entry to paste; its presses, which reach no binding, as `event: unclaimed-input` while a reader
 * follows. The deck is not opened for it: its page goes on showing it unclaimed, and a claim added by a
 * reload opens it as ever. A device of another driver that the surface manager's scan found and no
 * entry takes (a second USB deck) is listed too, with `presses: false`: the daemon leaves it to other
 * software and does not open it (only drivers some entry uses are scanned).
 *
 * What is claimed is worked out as the surface manager does (`assignClaims` over the config's claims),
 * again whenever a page registers or removes a deck and whenever a surface's state changes (a reload
 * that claims a deck opens it).
 */
import type { Listenable } from '../events.js'
import { suggestedEntry } from '../mappings/surfaces.js'
import { assignClaims, type SurfaceClaim } from '../families/claims.js'
import type { UnclaimedInput } from '../surfaces/driver-family.js'
import { unclaimedDeviceSources } from '../surfaces/drivers.js'
import type { SurfaceManagerEvents } from '../surfaces/manager.js'
import type { SurfaceDriver } from '../surfaces/types.js'
import type { DaemonEvent, UnclaimedDeviceEvent } from './api.js'
import type { DetectedDevice } from '../face/surface.js'

export interface UnclaimedDevicesOptions {
  drivers: readonly SurfaceDriver[]
  /** The claims of the config in force. */
  claims(): readonly SurfaceClaim[]
  /** To whoever follows the event stream. */
  publish(event: DaemonEvent): void
  /** The surfaces' state changes: a reload that claims a deck opens it (`SurfaceManager.events`). */
  statuses?: Listenable<SurfaceManagerEvents>
}

export class UnclaimedDevices {
  /** The unclaimed devices now, by device identity. */
  private readonly shown = new Map<string, UnclaimedDeviceEvent>()
  private readonly stops: (() => void)[] = []
  /** The unclaimed devices of the other drivers, as the surface manager's last scan of each found them. */
  private readonly detected = new Map<string, readonly DetectedDevice[]>()
  /** The families' sources of devices held inside the daemon (a page's decks), by driver. */
  private readonly sources

  constructor(private readonly o: UnclaimedDevicesOptions) {
    this.sources = unclaimedDeviceSources(o.drivers)
    for (const { driver, source } of this.sources) {
      this.stops.push(
        source.watch(() => this.refresh()),
        source.watchInput((device, input) => this.input(driver, device, input)),
      )
    }
    const statuses = o.statuses
    if (statuses) {
      const onStatus = (): void => this.refresh()
      const onUnclaimed = (driver: string, devices: readonly DetectedDevice[]): void => {
        this.detected.set(driver, devices)
        this.refresh()
      }
      statuses.on('status', onStatus).on('unclaimed', onUnclaimed)
      this.stops.push(() => void statuses.off('status', onStatus).off('unclaimed', onUnclaimed))
    }
  }

  /** Every unclaimed device now (`present`), for a new reader of the stream. */
  snapshot(): UnclaimedDeviceEvent[] {
    return [...this.shown.values()]
  }

  /** Works out again which devices are unclaimed; tells the stream what came and what went. */
  refresh(): void {
    const claims = this.o.claims()
    const now = new Map<string, UnclaimedDeviceEvent>()
    for (const { source } of this.sources) {
      const held = source.list()
      const claimed = assignClaims(claims, held)
      for (const d of held) if (!claimed.has(d.id)) now.set(d.id, eventOf(d, true))
    }
    // Another driver's devices as its last scan found them, while some entry still has that driver scanned.
    const scanned = new Set(claims.map((c) => c.driver))
    const own = new Set(this.sources.map((x) => x.driver))
    for (const [driver, devices] of this.detected) {
      if (own.has(driver) || !scanned.has(driver)) continue
      for (const d of devices) if (!now.has(d.id)) now.set(d.id, eventOf(d, false))
    }
    for (const [id, was] of this.shown) {
      if (now.has(id)) continue
      this.shown.delete(id)
      this.o.publish({ type: 'unclaimed', unclaimed: { ...was, state: 'gone' } })
    }
    for (const [id, e] of now) {
      if (this.shown.has(id)) continue
      this.shown.set(id, e)
      this.o.publish({ type: 'unclaimed', unclaimed: e })
    }
  }

  /** Stops following the registrations. */
  close(): void {
    for (const stop of this.stops.splice(0)) stop()
  }

  /** A control event of a held device no surface has open: to the stream while it is listed. */
  private input(driver: string, device: string, input: UnclaimedInput): void {
    if (!this.shown.has(device)) return
    this.o.publish({ type: 'unclaimed-input', input: { driver, device, ...input } })
  }
}

/** A device as `event: unclaimed` sends it; `presses`: whether its control events are seen. */
function eventOf(d: DetectedDevice, presses: boolean): UnclaimedDeviceEvent {
  const entry = suggestedEntry(d) as UnclaimedDeviceEvent['entry']
  return {
    driver: d.driver,
    device: d.id,
    ...(d.model !== undefined ? { model: d.model } : {}),
    state: 'present',
    ...(entry ? { entry } : {}),
    presses,
  }
}
