/**
 * `panelbridge learn --raw`: for generic HID devices, which bytes and bits change between successive
 * input reports, so that a report map can be written (`report 1: byte 3 0x00→0x04 (bit 2 set)`). One
 * line per report that differs from the last of its id; identical reports print nothing. It reads the
 * devices through the report-map driver (the config's `driver: hid` entries, or `--device VID:PID`):
 * the one command-layer tool of a driver family.
 *
 * Byte numbers count as the report map's `byte:` does: from the report's first byte, or, for a device
 * that numbers its reports (the map's `report_id:`), from the byte after the id.
 */
import { createLogger } from '../log.js'
import type { Config } from '../mappings/schema.js'
import { ReportMapDriver, type HidDeviceLike, type HidListing } from '../surfaces/report-map/driver.js'
import { MAX_REPORT_BYTES } from '../surfaces/report-map/report-map.js'
import type { ConfigClaims, HardwareCommandDeps } from './hardware.js'
import { messageOf, printable } from './learn-stream.js'
import { untilStopped, whileListening } from './until-stopped.js'

const log = createLogger('learn')

/** Most HID interfaces `learn --raw` lists when it does not know which to read. */
const RAW_MAX_LISTED = 20
/** `VID:PID[:USAGE_PAGE]` in hex, each with an optional `0x` (`--device`). */
export const DEVICE_ARG = /^(?:0x)?([0-9a-f]{1,4}):(?:0x)?([0-9a-f]{1,4})(?::(?:0x)?([0-9a-f]{1,4}))?$/i

/** Most changed bytes named on one line; the rest are counted. */
export const RAW_MAX_CHANGES_SHOWN = 8
/** Most bytes of a first report shown in hex. */
const RAW_FIRST_REPORT_BYTES_SHOWN = 32

const hex2 = (n: number): string => `0x${n.toString(16).padStart(2, '0')}`

function bitList(mask: number): string {
  const bits: number[] = []
  for (let b = 0; b < 8; b++) if (mask & (1 << b)) bits.push(b)
  return `${bits.length === 1 ? 'bit' : 'bits'} ${bits.join(', ')}`
}

/** `(bit 2 set)`, `(bits 0, 1 set; bit 7 cleared)`. */
function bitNote(before: number, after: number): string {
  const parts: string[] = []
  const set = after & ~before & 0xff
  const cleared = before & ~after & 0xff
  if (set !== 0) parts.push(`${bitList(set)} set`)
  if (cleared !== 0) parts.push(`${bitList(cleared)} cleared`)
  return ` (${parts.join('; ')})`
}

/** Successive input reports of one device, compared per report id. */
export class RawReportDiff {
  private readonly last = new Map<number, Uint8Array>()

  /** @param numbered the device's first byte is a report id (the map's `report_id:`). */
  constructor(private readonly numbered: boolean) {}

  /**
   * The line for this report: its bytes when it is the first of its id, else what changed; undefined
   * when nothing changed (or the report is empty or longer than the driver reads).
   */
  next(report: Uint8Array): string | undefined {
    if (report.length > MAX_REPORT_BYTES || (this.numbered && report.length === 0)) return undefined
    const id = this.numbered ? report[0]! : -1
    // A copy: node-hid may hand out a buffer it reuses.
    const body = Uint8Array.from(this.numbered ? report.subarray(1) : report)
    const prefix = this.numbered ? `report ${id}: ` : ''
    const prev = this.last.get(id)
    this.last.set(id, body)
    if (!prev) {
      const shown = [...body.subarray(0, RAW_FIRST_REPORT_BYTES_SHOWN)].map((b) => b.toString(16).padStart(2, '0'))
      const more = body.length > RAW_FIRST_REPORT_BYTES_SHOWN ? ' …' : ''
      return `${prefix}first report, ${body.length} byte${body.length === 1 ? '' : 's'}: ${shown.join(' ')}${more}`
    }
    const changed: string[] = []
    let count = 0
    for (let i = 0; i < Math.max(prev.length, body.length); i++) {
      const before = prev[i]
      const after = body[i]
      if (before === after) continue
      count++
      if (changed.length === RAW_MAX_CHANGES_SHOWN) continue
      const note = before !== undefined && after !== undefined ? bitNote(before, after) : ''
      changed.push(
        `byte ${i} ${before === undefined ? '--' : hex2(before)}→${after === undefined ? '--' : hex2(after)}${note}`,
      )
    }
    if (count === 0) return undefined
    const more = count > changed.length ? `, and ${count - changed.length} more bytes` : ''
    const length = prev.length !== body.length ? ` (length ${prev.length}→${body.length})` : ''
    return `${prefix}${changed.join(', ')}${more}${length}`
  }
}

/** What `learn --raw` was asked for: a device by its ids (`--device`), and whether it numbers its reports. */
export interface RawOptions {
  device?: string | undefined
  reportIds: boolean
}

/** A HID interface `learn --raw` reads, and how its reports are compared. */
interface RawTarget {
  label: string
  listing: HidListing
  numbered: boolean
}

const hex4 = (n: number): string => n.toString(16).padStart(4, '0')

const describe = (l: HidListing): string =>
  `${hex4(l.vendorId)}:${hex4(l.productId)}${l.usagePage !== undefined ? ` usage page 0x${hex4(l.usagePage)}` : ''}` +
  `${l.product !== undefined ? ` ${printable(l.product)}` : ''} (${printable(l.path)})`

/** `learn --raw`: the changing bytes of generic HID devices, read through the report-map driver. */
export async function learnRaw(
  options: RawOptions,
  read: ConfigClaims,
  deps: HardwareCommandDeps & { stop?: AbortSignal },
): Promise<number> {
  const hid = deps
    .drivers()
    .map((e) => e.driver)
    .find((d): d is ReportMapDriver => d instanceof ReportMapDriver)
  if (!hid) {
    deps.err('panelbridge learn --raw: no generic HID driver is available')
    return 1
  }
  let listings: HidListing[]
  try {
    listings = await hid.listAll()
  } catch (err) {
    deps.err(`panelbridge learn --raw: cannot list the HID devices: ${messageOf(err)}`)
    return 1
  }
  const targets =
    options.device !== undefined
      ? deviceTargets(options.device, options.reportIds, listings, deps)
      : configTargets(read.config, listings, deps)
  if (!targets) return 1
  return readRaw(hid, targets, deps)
}

/** The interfaces `--device` names; undefined (after saying so) when none is present. */
function deviceTargets(
  device: string,
  numbered: boolean,
  listings: readonly HidListing[],
  deps: Pick<HardwareCommandDeps, 'err'>,
): RawTarget[] | undefined {
  const [, vid, pid, page] = DEVICE_ARG.exec(device)!
  const want = { vendorId: parseInt(vid!, 16), productId: parseInt(pid!, 16) }
  const usagePage = page !== undefined ? parseInt(page, 16) : undefined
  const found = listings.filter(
    (l) =>
      l.vendorId === want.vendorId &&
      l.productId === want.productId &&
      (usagePage === undefined || l.usagePage === usagePage),
  )
  const targets = found.map((l) => ({
    label: `${hex4(l.vendorId)}:${hex4(l.productId)}${found.length > 1 ? `@${printable(l.path)}` : ''}`,
    listing: l,
    numbered,
  }))
  if (targets.length === 0) {
    deps.err(`panelbridge learn --raw: no HID device ${device} is present`)
    return undefined
  }
  return targets
}

/** The interfaces the config's `driver: hid` entries name; undefined (after listing what is there) for none. */
function configTargets(
  config: Config | undefined,
  listings: readonly HidListing[],
  deps: Pick<HardwareCommandDeps, 'out' | 'err'>,
): RawTarget[] | undefined {
  const targets: RawTarget[] = []
  for (const [name, s] of Object.entries(config?.surfaces ?? {})) {
    if (s.driver !== 'hid') continue
    const found = listings.filter(
      (l) =>
        l.vendorId === s.vendor_id &&
        l.productId === s.product_id &&
        (s.usage_page === undefined || l.usagePage === s.usage_page) &&
        (s.serial === undefined || l.serialNumber === s.serial),
    )
    if (found.length === 0) deps.out(`hid ${name}: no matching device present`)
    for (const l of found) {
      const label = found.length > 1 ? `${name}@${printable(l.path)}` : name
      targets.push({ label, listing: l, numbered: s.map.report_id !== undefined })
    }
  }
  if (targets.length > 0) return targets
  deps.err('panelbridge learn --raw: name the device with --device VID:PID (or configure a driver: hid surface).')
  deps.err(listings.length === 0 ? 'No HID device is present.' : 'HID devices present:')
  for (const l of listings.slice(0, RAW_MAX_LISTED)) deps.err(`  ${describe(l)}`)
  if (listings.length > RAW_MAX_LISTED) deps.err(`  … and ${listings.length - RAW_MAX_LISTED} more`)
  return undefined
}

/** Opens each target for its raw reports and prints what changes until stopped. */
async function readRaw(
  hid: ReportMapDriver,
  targets: readonly RawTarget[],
  deps: Pick<HardwareCommandDeps, 'out' | 'err'> & { stop?: AbortSignal },
): Promise<number> {
  return whileListening(deps.stop, async (stop) => {
    const open: { device: HidDeviceLike; detach: () => void }[] = []
    const closeAll = async (): Promise<void> => {
      for (const o of open.splice(0)) {
        o.detach()
        await o.device.close().catch(() => undefined)
      }
    }
    try {
      for (const t of targets) {
        let device: HidDeviceLike
        try {
          device = await hid.openRaw(t.listing.path)
        } catch (err) {
          deps.err(`${t.label}: cannot open ${printable(t.listing.path)}: ${messageOf(err)}`)
          continue
        }
        const diff = new RawReportDiff(t.numbered)
        const onData = (data: Buffer): void => {
          const line = diff.next(data)
          if (line !== undefined) deps.out(`${t.label} ${line}`)
        }
        const onError = (err: Error): void => deps.err(`${t.label}: ${messageOf(err)}`)
        device.on('data', onData)
        device.on('error', onError)
        open.push({
          device,
          detach: () => {
            device.off('data', onData)
            device.off('error', onError)
          },
        })
        deps.out(`reading raw reports of ${t.label}: ${describe(t.listing)}`)
      }
      if (open.length === 0) return 1
      deps.out('press, turn or move one control at a time; identical reports are not shown; Ctrl+C stops')
      return await untilStopped(closeAll, { log, stop })
    } finally {
      // Also when no device opened or opening threw part-way; a no-op once closed.
      await closeAll()
    }
  })
}
