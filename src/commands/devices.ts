/**
 * `panelbridge devices [--config FILE]`: every control surface the hardware drivers detect, without
 * opening any (X-keys panels excepted: detection reads each one's unit id): driver, model, serial or
 * path, X-keys unit id, its controls, which configured surface claims it, and
 * whether this user may open it (else which udev rule file to install). The drivers come from
 * `src/surfaces/drivers.ts`, so a new driver is listed here with no change.
 *
 * Also the pieces `learn` shares: reading the claims of a config and the `surfaces:` entry for a device.
 * Devices are handed to claims by `assignClaims` (`src/surfaces/claims.ts`), as the surface manager does.
 */
import { existsSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { stringify } from 'yaml'
import { SYSTEM_CONFIG } from '../defaults.js'
import { formatProblem, loadConfigFile } from '../mappings/load.js'
import type { Config } from '../mappings/schema.js'
import { claimsOfConfig, driverConfigsOf, suggestedEntry } from '../mappings/surfaces.js'
import {
  configureDrivers,
  countControls,
  hardwareDrivers,
  type HardwareDriver,
  type HardwareDriverFactory,
} from '../surfaces/drivers.js'
import { checkDeviceAccess, type AccessCheck, type HotplugSource } from '../surfaces/hotplug.js'
import { assignClaims, type SurfaceClaim } from '../surfaces/claims.js'
import { MANAGER_DEFAULTS } from '../surfaces/manager.js'
import type { DetectedDevice } from '../surfaces/types.js'
import { UDEV_FILES, UDEV_GROUP, UDEV_INSTALL_HINT } from '../surfaces/udev.js'
import type { Subcommand } from './subcommand.js'

/** A driver's detection that takes longer is reported as failed (one hung device must not hang the listing). */
export const DEVICES_DETECT_TIMEOUT_MS = MANAGER_DEFAULTS.callTimeoutMs

function bounded<T>(call: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms)
  })
  return Promise.race([call, late]).finally(() => clearTimeout(timer))
}

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

const HELP = `Usage: panelbridge devices [--config FILE]

Lists every control surface the drivers detect, without opening any (an X-keys panel is opened
briefly to read its unit id): driver, model, serial or device path, X-keys unit id, its controls,
which configured surface claims it, and whether this user may open it (else the udev rule file to
install). Nothing is taken from a running daemon.

Options:
  --config FILE   the mapping file whose surfaces: claim the devices
                  (default: ${SYSTEM_CONFIG} when it exists)

Examples:
  panelbridge devices
  sudo -u panelbridge panelbridge devices --config /etc/panelbridge/config.yaml

Exit codes: 0 listed (also when none is found), 1 the config is refused or a driver failed, 2 bad command line.
`

/** `devices` with its seams: the subcommand runs this with the defaults. */
export async function runDevices(
  argv: readonly string[],
  deps: HardwareCommandDeps = DEFAULT_HARDWARE_DEPS,
): Promise<number> {
  let file: string | undefined
  try {
    const { values } = parseArgs({ args: [...argv], options: { config: { type: 'string' } }, strict: true })
    file = values.config
  } catch (err) {
    deps.err(`panelbridge devices: ${err instanceof Error ? err.message : String(err)}`)
    deps.err(`Run 'panelbridge devices --help' for usage.`)
    return 2
  }
  const read = await readClaims(file, deps)
  if (!read) return 1
  let failed = false
  const drivers = configuredDrivers(deps, read.config)
  const found: { device: DetectedDevice; entry: (typeof drivers)[number] }[] = []
  for (const entry of drivers) {
    try {
      const devices = await bounded(entry.driver.detect(), DEVICES_DETECT_TIMEOUT_MS, 'detection')
      for (const device of devices) found.push({ device, entry })
    } catch (err) {
      failed = true
      deps.err(`${entry.driver.name}: detection failed: ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  const names = drivers.map((d) => d.driver.name).join(', ')
  deps.out(
    `${found.length} device${found.length === 1 ? '' : 's'} found (drivers: ${names})` +
      (read.file !== undefined ? `; claims from ${read.file}` : '; no config: pass --config FILE to see the claims'),
  )
  const assigned = assignClaims(
    read.claims,
    found.map((f) => f.device),
  )
  let unclaimed = 0
  for (const { device, entry } of found) {
    const where = [
      device.serial !== undefined ? `serial ${device.serial}` : undefined,
      device.unitId !== undefined ? `unit id ${device.unitId}` : undefined,
      device.path,
    ]
      .filter(Boolean)
      .join('  ')
    deps.out('')
    deps.out(`${device.driver}  ${device.model}  ${where}`)
    const controls = await entry.controlsOf(device).catch(() => undefined)
    deps.out(`  controls: ${controls ? countControls(controls) : 'known once opened'}`)
    const claimedBy = assigned.get(device.id)?.name
    if (claimedBy !== undefined) deps.out(`  claimed by: ${claimedBy}`)
    else if (read.file !== undefined)
      deps.out(
        `  claimed by: nothing; to use it, add under surfaces: ${surfaceEntryFor(`${device.driver}${++unclaimed}`, device)}`,
      )
    else deps.out(`  to use it, add under surfaces: ${surfaceEntryFor(`${device.driver}${++unclaimed}`, device)}`)
    deps.out(`  access: ${await accessLine(device, deps.access)}`)
  }
  const claimedNames = new Set([...assigned.values()].map((a) => a.name))
  for (const claim of read.claims) {
    if (!claimedNames.has(claim.name)) {
      deps.out('')
      deps.out(`surface ${claim.name} (${claim.driver}): no device present matches ${yamlLine(claim.match)}`)
    }
  }
  return failed ? 1 : 0
}

async function accessLine(device: DetectedDevice, access: AccessCheck): Promise<string> {
  if (device.path === undefined) return 'not checked (no device node)'
  let result: Awaited<ReturnType<AccessCheck>>
  try {
    result = await access(device.path)
  } catch (err) {
    return `could not check ${device.path}: ${err instanceof Error ? err.message : String(err)}`
  }
  if (result === 'ok') return 'ok'
  if (result === 'missing') return `${device.path} is gone (unplugged?)`
  return (
    `permission denied on ${device.path}: install ${UDEV_FILES.headless} (headless box; add the service user ` +
    `to group ${UDEV_GROUP}) or ${UDEV_FILES.desktop} (desktop session): ${UDEV_INSTALL_HINT}`
  )
}

export const devicesCommand: Subcommand = {
  usage: 'devices [--config FILE]',
  summary: 'list the control surfaces found: model, serial, controls, claims, permission problems',
  help: HELP,
  run: (argv) => runDevices(argv),
}
