/**
 * `panelbridge learn --raw`: for generic HID devices, which bytes and bits change between successive
 * input reports, so that a report map can be written (`report 1: byte 3 0x00→0x04 (bit 2 set)`). One
 * line per report that differs from the last of its id; identical reports print nothing.
 *
 * Byte numbers count as the report map's `byte:` does: from the report's first byte, or, for a device
 * that numbers its reports (the map's `report_id:`), from the byte after the id.
 */
import { MAX_REPORT_BYTES } from '../surfaces/report-map/report-map.js'

/** Most changed bytes named on one line; the rest are counted. */
export const RAW_MAX_CHANGES_SHOWN = 8
/** Most bytes of a first report shown in hex. */
export const RAW_FIRST_REPORT_BYTES_SHOWN = 32

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
