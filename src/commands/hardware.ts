/**
 * What the hardware commands (`devices`, `learn`, `surfaces`) share; no command itself. The drivers and
 * access check they reach outside the process (tests replace each), reading the claims of a config, the
 * drivers configured from it as the daemon configures them, the `surfaces:` entry for a detected device,
 * and a surface's status as one line.
 */
import { existsSync } from 'node:fs'
import { stringify } from 'yaml'
import { SYSTEM_CONFIG } from '../defaults.js'
import { formatProblem, loadConfigFile } from '../mappings/load.js'
import type { Config } from '../mappings/schema.js'
import { claimsOfConfig, driverConfigsOf, suggestedEntry } from '../mappings/surfaces.js'
import type { SurfaceClaim } from '../families/claims.js'
import {
  configureDrivers,
  hardwareDrivers,
  type HardwareDriver,
  type HardwareDriverFactory,
} from '../surfaces/drivers.js'
import { checkDeviceAccess, type AccessCheck, type HotplugSource } from '../surfaces/hotplug.js'
import type { SurfaceStatus } from '../surfaces/manager.js'
import type { DetectedDevice } from '../face/surface.js'

/** What the hardware commands reach outside the process; tests replace each. */
export interface HardwareCommandDeps {
  drivers: HardwareDriverFactory
  access: AccessCheck
  /** Hot-plug for `learn` (default: libusb's). */
  hotplug?: HotplugSource
  /** The config read without `--config` when the file exists; undefined: none. */
  defaultConfig: string | undefined
  out(line: string): void
  err(line: string): void
}

export const DEFAULT_HARDWARE_DEPS: HardwareCommandDeps = {
  drivers: hardwareDrivers,
  access: checkDeviceAccess,
  defaultConfig: SYSTEM_CONFIG,
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
}

/** A config's claims, or undefined (problems printed) when the file is refused. */
export interface ConfigClaims {
  file: string | undefined
  config: Config | undefined
  claims: SurfaceClaim[]
}

/** Reads `--config FILE` (or the default config when it exists); undefined after printing why it was refused. */
export async function readClaims(
  file: string | undefined,
  deps: Pick<HardwareCommandDeps, 'defaultConfig' | 'err'>,
): Promise<ConfigClaims | undefined> {
  const path =
    file ?? (deps.defaultConfig !== undefined && existsSync(deps.defaultConfig) ? deps.defaultConfig : undefined)
  if (path === undefined) return { file: undefined, config: undefined, claims: [] }
  const { config, problems } = await loadConfigFile(path)
  if (!config) {
    for (const p of problems) deps.err(formatProblem(p))
    deps.err(`panelbridge: ${path} is refused; fix it (panelbridge check ${path}) or name another with --config`)
    return undefined
  }
  return { file: path, config, claims: claimsOfConfig(config.surfaces) }
}

/**
 * The drivers of `deps`, those that read the config configured from its entries (MIDI port names and
 * profiles, report maps), as the daemon configures them. `devices` and `learn` build theirs here.
 */
export function configuredDrivers(
  deps: Pick<HardwareCommandDeps, 'drivers'>,
  config: Config | undefined,
): HardwareDriver[] {
  const drivers = deps.drivers()
  configureDrivers(
    drivers.map((e) => e.driver),
    driverConfigsOf(config?.surfaces ?? {}),
  )
  return drivers
}

/**
 * The `surfaces:` entry that would claim this device, as one line to paste: what its driver family
 * suggests (its model and serial, an X-keys panel's unit id, a MIDI port by its name).
 */
export function surfaceEntryFor(name: string, device: DetectedDevice): string {
  return yamlLine({ [name]: suggestedEntry(device) })
}

/** A value as one line of YAML (flow style), ready to paste. */
export function yamlLine(value: unknown): string {
  return stringify(value, { collectionStyle: 'flow', lineWidth: 0 }).trim()
}

/**
 * One line per status change, e.g. `streamdeck CL12K1A00042 (Stream Deck MK.2): open`, or
 * `streamdeck desk [CL12K1A00042] (Stream Deck MK.2): open` for a surface claimed under a name.
 */
export function formatStatus(s: SurfaceStatus): string {
  const model = s.model !== undefined ? ` (${s.model})` : ''
  const retry = s.retryInMs !== undefined ? `; retrying in ${Math.round(s.retryInMs / 100) / 10} s` : ''
  const device = s.device !== undefined && s.device !== s.name ? ` [${s.device}]` : ''
  return `${s.driver} ${s.name}${device}${model}: ${s.state}${s.message !== undefined ? ` — ${s.message}` : ''}${retry}`
}
