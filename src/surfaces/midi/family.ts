/**
 * The MIDI family, surface side (see `../driver-family.ts`): its driver, which takes the mapping file's
 * `midi` entries (port names, profile, relative modes) and rescans the port lists as its own hot-plug
 * source. How its pads light is `src/families/midi.ts`; the mapping side is `src/mappings/drivers/midi.ts`.
 */
import type { DriverFamily } from '../driver-family.js'
import { MidiDriver, type MidiDriverOptions, type MidiSurfaceConfig } from './driver.js'
import { loadMidiProfile, shippedProfileIds } from './profile.js'

export const midiFamily: DriverFamily<MidiDriverOptions, MidiSurfaceConfig> = {
  create(options, shared) {
    const driver = new MidiDriver({ ...options, passive: options?.passive ?? shared.passive })
    return { driver, controlsOf: (d) => driver.controlsOf(d) }
  },
  configure(driver, entries) {
    if (driver instanceof MidiDriver) driver.configure(entries)
  },
  // The driver's class, not its name: a wrapper (learn's recording driver) has no port rescans of its own.
  hotplug: (driver) => (driver instanceof MidiDriver ? driver.hotplug : undefined),
  // The shipped profiles that list controls (the generic one lists none: its ids are the notes and CCs sent).
  profiles: {
    label: 'MIDI',
    key: 'profile',
    async list() {
      const out = []
      for (const id of await shippedProfileIds()) {
        const profile = await loadMidiProfile(id)
        const controls = profile.descriptors()
        if (controls.length > 0) out.push({ id, name: profile.data.name, controls })
      }
      return out
    },
  },
}
