/**
 * What the mapping file's `surfaces:` entries mean to the rest: the controls each configured surface
 * has (known before any device is opened, so `check` can refuse `desk/key:40` on a 15-key deck), and
 * the claim each one makes on the surface manager.
 */
import { ControlIdError, parseControlId } from '../surfaces/control-id.js'
import type { DriverSurfaceConfigs } from '../surfaces/drivers.js'
import { reportMapControls, type ReportMapDeviceConfig } from '../surfaces/report-map/driver.js'
import type { ClaimMatch, SurfaceClaim } from '../surfaces/claims.js'
import { SHUTTLE_MODEL_IDS, shuttleModelControls } from '../surfaces/shuttle/models.js'
import type { MidiSurfaceConfig } from '../surfaces/midi/driver.js'
import { DEFAULT_PROFILE, MidiProfileError, loadMidiProfile } from '../surfaces/midi/profile.js'
import { STREAMDECK_MODEL_IDS, streamDeckModelControls } from '../surfaces/streamdeck/models.js'
import type { ControlDescriptor } from '../surfaces/types.js'
import { XKEYS_MODEL_IDS, xkeysModelControls } from '../surfaces/xkeys/models.js'
import { webSurfaceDescription, type WebSurfaceOptions } from '../surfaces/web/web-surface.js'
import type { SurfaceConfig } from './schema.js'

/** The controls of a configured surface, or a problem with its options. */
export type SurfaceControls =
  | { controls: readonly ControlDescriptor[] }
  /** Known only once a device is open (a hardware surface whose config names no model). */
  | { controls: undefined }
  | { problem: string; path: readonly string[] }

/** Knows each driver's controls from the config alone. The daemon and `check` use the default one. */
export interface SurfaceCatalogue {
  controlsOf(name: string, surface: SurfaceConfig): Promise<SurfaceControls>
}

export const defaultSurfaceCatalogue: SurfaceCatalogue = {
  async controlsOf(name, surface) {
    switch (surface.driver) {
      case 'web':
        return { controls: webSurfaceDescription(webSurfaceOptions(name, surface)).controls }
      case 'streamdeck': {
        if (surface.model === undefined) return { controls: undefined }
        const controls = streamDeckModelControls(surface.model)
        if (!controls) {
          return {
            problem: `unknown Stream Deck model "${surface.model}": one of ${STREAMDECK_MODEL_IDS.join(', ')}`,
            path: ['model'],
          }
        }
        return { controls: await controls }
      }
      case 'shuttle': {
        if (surface.model === undefined) return { controls: undefined }
        const controls = shuttleModelControls(surface.model)
        if (!controls) {
          return {
            problem: `unknown Contour Shuttle model "${surface.model}": one of ${SHUTTLE_MODEL_IDS.join(', ')}`,
            path: ['model'],
          }
        }
        return { controls }
      }
      case 'xkeys': {
        if (surface.model === undefined) return { controls: undefined }
        const controls = xkeysModelControls(surface.model)
        if (!controls) {
          return {
            problem: `unknown X-keys model "${surface.model}": one of ${XKEYS_MODEL_IDS.join(', ')}`,
            path: ['model'],
          }
        }
        return { controls }
      }
      case 'midi':
        return midiControls(surface)
      case 'hid':
        return { controls: reportMapControls(surface.map) }
    }
  },
}

/** A `midi` surface's controls: its profile's (none known for a profile that lists none, like `generic`). */
async function midiControls(s: Extract<SurfaceConfig, { driver: 'midi' }>): Promise<SurfaceControls> {
  for (const id of Object.keys(s.relative ?? {})) {
    let kind: string
    try {
      kind = parseControlId(id).kind
    } catch (err) {
      if (!(err instanceof ControlIdError)) throw err
      return { problem: err.message, path: ['relative', id] }
    }
    if (kind !== 'cc')
      return { problem: `only a CC (cc:CH:N) is a relative encoder, not ${id}`, path: ['relative', id] }
  }
  try {
    const profile = await loadMidiProfile(s.profile ?? DEFAULT_PROFILE)
    return { controls: profile.controls.size > 0 ? profile.descriptors() : undefined }
  } catch (err) {
    if (!(err instanceof MidiProfileError)) throw err
    return { problem: err.message, path: ['profile'] }
  }
}

/** A `midi` surface entry as the MIDI driver's options for it (the daemon passes all of them to the driver). */
export function midiSurfaceConfig(s: Extract<SurfaceConfig, { driver: 'midi' }>): MidiSurfaceConfig {
  return {
    input: s.input,
    ...(s.output !== undefined ? { output: s.output } : {}),
    ...(s.profile !== undefined ? { profile: s.profile } : {}),
    ...(s.relative !== undefined ? { relative: s.relative } : {}),
  }
}

/** A `web` surface entry as the web surface's own options (the daemon builds it; the loader describes it). */
export function webSurfaceOptions(name: string, s: Extract<SurfaceConfig, { driver: 'web' }>): WebSurfaceOptions {
  return {
    id: name,
    rows: s.rows,
    columns: s.columns,
    encoders: s.encoders ?? 0,
    jog: s.jog ?? false,
    shuttle: s.shuttle ?? false,
    faders: s.faders ?? 0,
    ...(s.key_size !== undefined ? { keySize: { width: s.key_size, height: s.key_size } } : {}),
  }
}

/** The claim a hardware surface makes on the manager; undefined for surfaces the daemon makes itself (web). */
export function claimOf(name: string, surface: SurfaceConfig): SurfaceClaim | undefined {
  if (surface.driver === 'web') return undefined
  if (surface.driver === 'midi') return { name, driver: 'midi', match: { port: surface.input } }
  if (surface.driver === 'hid') {
    const match: ClaimMatch = { vendorId: surface.vendor_id, productId: surface.product_id }
    if (surface.serial !== undefined) match.serial = surface.serial
    return { name, driver: 'hid', match }
  }
  const match: ClaimMatch = {}
  if (surface.serial !== undefined) match.serial = surface.serial
  if (surface.model !== undefined) match.model = surface.model
  if (surface.vendor_id !== undefined) match.vendorId = surface.vendor_id
  if (surface.product_id !== undefined) match.productId = surface.product_id
  if (surface.driver === 'xkeys' && surface.unit_id !== undefined) match.unitId = surface.unit_id
  // A surface that names nothing but its driver takes the first device of that driver.
  if (surface.any === true || Object.keys(match).length === 0) match.any = true
  return { name, driver: surface.driver, match }
}

/** The claims of a config's `surfaces:` (the daemon's, the loader's and `learn`'s), in the config's order. */
export function claimsOfConfig(surfaces: Readonly<Record<string, SurfaceConfig>>): SurfaceClaim[] {
  return Object.entries(surfaces).flatMap(([name, s]) => claimOf(name, s) ?? [])
}

/** A `hid` surface entry as the generic HID driver's device config (the daemon passes all of them). */
export function hidDeviceConfig(s: Extract<SurfaceConfig, { driver: 'hid' }>): ReportMapDeviceConfig {
  return {
    vendorId: s.vendor_id,
    productId: s.product_id,
    ...(s.usage_page !== undefined ? { usagePage: s.usage_page } : {}),
    ...(s.name !== undefined ? { name: s.name } : {}),
    map: s.map,
  }
}

/**
 * What the MIDI and generic HID drivers take from a config's `surfaces:` (see `configureDrivers`), in
 * the config's order (the first MIDI entry that names a port gives its options, as the first claim takes it).
 */
export function driverConfigsOf(surfaces: Readonly<Record<string, SurfaceConfig>>): DriverSurfaceConfigs {
  const all = Object.values(surfaces)
  return {
    midi: all.flatMap((s) => (s.driver === 'midi' ? [midiSurfaceConfig(s)] : [])),
    hid: all.flatMap((s) => (s.driver === 'hid' ? [hidDeviceConfig(s)] : [])),
  }
}
