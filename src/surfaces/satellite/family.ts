/**
 * The satellite family, surface side (see `../driver-family.ts`): surfaces a Companion Satellite program
 * forwards over Satellite's protocol, panelbridge the server (issue 44). Its driver lists the devices
 * clients added, its hot-plug source is their coming and going, its service is the server the daemon
 * runs from the mapping file's `satellite:`, and its unclaimed source shows `learn` the devices no entry
 * claims. The mapping side is `src/mappings/drivers/satellite.ts`.
 */
import type { DriverFamily, FamilyService, UnclaimedDeviceSource } from '../driver-family.js'
import { watchChanges } from '../hotplug.js'
import type { SatelliteServerConfig } from '../../families/satellite.js'
import { satelliteDescriptors } from '../../families/satellite.js'
import { SatelliteDriver, type SatelliteDriverOptions } from './driver.js'
import type { SatelliteHub } from './hub.js'

export const satelliteFamily: DriverFamily<SatelliteDriverOptions> = {
  create: (options, shared) => {
    const renderer = shared.renderer ?? options?.renderer
    const driver = new SatelliteDriver({ ...options, ...(renderer ? { renderer } : {}) })
    return {
      driver,
      controlsOf: (device) => {
        const found = driver.hub.get(device.id)
        return Promise.resolve(found ? satelliteDescriptors(found.controls) : undefined)
      },
    }
  },
  hotplug: (driver) => (driver instanceof SatelliteDriver ? driver.hub.hotplug() : undefined),
  service: (driver) => (driver instanceof SatelliteDriver ? satelliteService(driver) : undefined),
  unclaimedDevices: (driver) => (driver instanceof SatelliteDriver ? unclaimedSatellites(driver.hub) : undefined),
}

function satelliteService(driver: SatelliteDriver): FamilyService {
  return {
    section: 'satellite',
    // The section as the mapping file's schema checked it (`src/mappings/drivers/satellite.ts`).
    apply: (section) => driver.server.apply(section as SatelliteServerConfig | undefined),
    status: () => driver.server.status(),
    close: () => driver.server.close(),
  }
}

/** The devices clients added that no entry claims, and their input, for `learn` (it reaches no binding). */
function unclaimedSatellites(hub: SatelliteHub): UnclaimedDeviceSource {
  return {
    list: () => hub.list(),
    watch: (onChange) => watchChanges(hub.hotplug(), onChange),
    watchInput: (listener) =>
      hub.watchUnclaimedInput((device, input) =>
        listener(device.id, {
          control: input.control.id,
          kind: input.control.kind,
          type: input.type,
          ...(input.type === 'rotate' ? { delta: input.delta } : {}),
        }),
      ),
  }
}
