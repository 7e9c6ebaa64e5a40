/**
 * `panelbridge devices [--config FILE]`: every control surface the hardware drivers detect, without
 * opening any (X-keys panels excepted: detection reads each one's unit id): driver, model, serial or
 * path, X-keys unit id, its controls, which configured surface claims it, and
 * whether this user may open it (else which udev rule file to install). The drivers come from
 * `src/surfaces/drivers.ts`, so a new driver is listed here with no change.
 * Devices are handed to claims by `assignClaims` (`src/families/claims.ts`), as the surface manager does.
 * What it shares with `learn` and `surfaces` is in `hardware.ts`.
 */
import { parseArgs } from 'node:util'
import { SYSTEM_CONFIG } from '../defaults.js'
import { assignClaims } from '../families/claims.js'
import { countControls } from '../surfaces/drivers.js'
import type { AccessCheck } from '../surfaces/hotplug.js'
import { MANAGER_DEFAULTS } from '../surfaces/manager.js'
import { UDEV_FILES, UDEV_GROUP, UDEV_INSTALL_HINT } from '../families/udev.js'
import {
  configuredDrivers,
  DEFAULT_HARDWARE_DEPS,
  readClaims,
  surfaceEntryFor,
  yamlLine,
  type HardwareCommandDeps,
} from './hardware.js'
import type { Subcommand } from './subcommand.js'
import { usageMessage, wrapText } from './args.js'
import { allModelControls, findModels, modelControlsText } from './controls.js'
import { printable } from './learn-stream.js'
import type { DetectedDevice } from '../face/surface.js'

/** A driver's detection that takes longer is reported as failed (one hung device must not hang the listing). */
const DEVICES_DETECT_TIMEOUT_MS = MANAGER_DEFAULTS.callTimeoutMs

function bounded<T>(call: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms)
  })
  return Promise.race([call, late]).finally(() => clearTimeout(timer))
}

const HELP = `panelbridge devices — the control surfaces this machine has, without opening them

Usage:
  panelbridge devices [--config FILE | --model NAME]

Lists every control surface the drivers detect, without opening any (an X-keys panel is opened
briefly to read its unit id): driver, model, serial or device path, X-keys unit id, its controls,
which configured surface claims it, and whether this user may open it (else the udev rule file to
install). Nothing is taken from a running daemon.

--model NAME prints a model's control ids instead, with no device needed: where each key sits, the
panel's own name for it (an X-keys key number), what it shows. NAME is a model as a config names it
(xl, shuttlepro_v2, XK24), its display name (Stream Deck XL), or a MIDI profile (apc-mini-mk2). The
same tables, for every model, are docs/controls.md.

Options:
  --config FILE   the mapping file whose surfaces: claim the devices
                  (default: ${SYSTEM_CONFIG} when it exists)
  --model NAME    the control ids of one model (no device needed)

Examples:
  panelbridge devices
  panelbridge devices --model shuttlepro_v2
  sudo -u panelbridge panelbridge devices --config /etc/panelbridge/config.yaml

Exit codes: 0 listed (also when none is found), 1 the config is refused or a driver failed,
2 bad command line (a model --model does not know).
`

/** `devices` with its seams: the subcommand runs this with the defaults. */
export async function runDevices(
  argv: readonly string[],
  deps: HardwareCommandDeps = DEFAULT_HARDWARE_DEPS,
): Promise<number> {
  let file: string | undefined
  let model: string | undefined
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: { config: { type: 'string' }, model: { type: 'string' } },
      strict: true,
    })
    file = values.config
    model = values.model
    if (model !== undefined && file !== undefined) throw new Error('--model goes without --config')
  } catch (err) {
    deps.err(`panelbridge devices: ${usageMessage('devices', err)}`)
    deps.err(`Run 'panelbridge devices --help' for usage.`)
    return 2
  }
  if (model !== undefined) return printModel(model, deps)
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

/** `devices --model NAME`: the model's control ids, or why none (exit 2, with the nearest name). */
async function printModel(name: string, deps: Pick<HardwareCommandDeps, 'out' | 'err'>): Promise<number> {
  const models = await allModelControls()
  const match = findModels(models, name)
  if (match.found.length === 0) {
    const near = 'nearest' in match && match.nearest !== undefined ? ` (did you mean '${match.nearest}'?)` : ''
    deps.err(`panelbridge devices: no model or MIDI profile is named '${printable(name)}'${near}`)
    for (const line of wrapText(`Models: ${[...new Set(models.map((m) => m.id))].join(', ')}`, '')) deps.err(line)
    return 2
  }
  match.found.forEach((m, i) => {
    if (i > 0) deps.out('')
    for (const line of modelControlsText(m)) deps.out(line)
  })
  return 0
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
  usage: 'devices [--config FILE | --model NAME]',
  summary: 'list the control surfaces found: model, serial, controls, claims, permission problems',
  help: HELP,
  run: (argv) => runDevices(argv),
}
