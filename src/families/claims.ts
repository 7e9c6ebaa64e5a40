import type { DetectedDevice } from '../face/surface.js'
/**
 * Claims: which detected device a configured surface takes. One module for the surface manager (which
 * opens what the claims hand it), the loader (which refuses claims that contradict each other) and
 * `panelbridge devices` / `learn` (which show the same hand-out without opening anything).
 *
 * Every criterion a claim gives must match; `any` alone takes the first device of the driver that no
 * other surface takes. Devices are handed out by specificity: serial claims first, then model,
 * vendor/product id, port and unit id claims, then `any` claims, each rank in config order.
 */

/** Which device a configured surface takes. Every criterion given must match. */
export interface ClaimMatch {
  serial?: string
  /** The driver's model id (`plus`) or display name (`Stream Deck +`), case-insensitive. */
  model?: string
  vendorId?: number
  productId?: number
  /** A part of the MIDI port's name, case-insensitive (ALSA decorates names with client numbers). */
  port?: string
  /** The X-keys unit id (`DetectedDevice.unitId`). */
  unitId?: number
  any?: boolean
}

/** A configured surface that takes a detected device. */
export interface SurfaceClaim {
  /** The configured surface name, e.g. `desk`. */
  name: string
  driver: string
  match: ClaimMatch
}

export interface ClaimProblem {
  name: string
  message: string
}

/** The claims contradict each other (the same name twice, one device claimed by two surfaces). */
export class SurfaceClaimError extends Error {
  override readonly name = 'SurfaceClaimError'
  constructor(readonly problems: readonly ClaimProblem[]) {
    super(problems.map((p) => `surface ${p.name}: ${p.message}`).join('; '))
  }
}

/** How specific a claim is: 0 serial, 1 model, vendor/product id, port or unit id, 2 `any` only. */
export function claimRank(m: ClaimMatch): number {
  if (m.serial !== undefined) return 0
  if (
    m.model !== undefined ||
    m.vendorId !== undefined ||
    m.productId !== undefined ||
    m.port !== undefined ||
    m.unitId !== undefined
  )
    return 1
  return 2
}

/** Whether a claim takes this device (the driver is compared by the caller). */
export function claimMatches(m: ClaimMatch, d: DetectedDevice): boolean {
  if (m.serial !== undefined && (d.serial ?? '').trim() !== m.serial.trim()) return false
  if (m.model !== undefined) {
    const want = m.model.toLowerCase()
    if (d.modelId?.toLowerCase() !== want && d.model.toLowerCase() !== want) return false
  }
  if (m.vendorId !== undefined && d.vendorId !== m.vendorId) return false
  if (m.productId !== undefined && d.productId !== m.productId) return false
  if (m.port !== undefined && !(d.port ?? '').toLowerCase().includes(m.port.trim().toLowerCase())) return false
  if (m.unitId !== undefined && d.unitId !== m.unitId) return false
  return m.any === true || claimRank(m) < 2
}

/** Every contradiction in a set of claims; empty when they can be used. */
export function validateClaims(claims: readonly SurfaceClaim[]): ClaimProblem[] {
  const problems: ClaimProblem[] = []
  const names = new Set<string>()
  const serials = new Map<string, string>()
  for (const c of claims) {
    if (names.has(c.name)) problems.push({ name: c.name, message: 'is configured twice' })
    names.add(c.name)
    if (claimRank(c.match) === 2 && c.match.any !== true) {
      problems.push({ name: c.name, message: 'claims no device: give serial, model, vendor/product id, or any: true' })
    }
    if (c.match.serial !== undefined) {
      const key = `${c.driver}\u0000${c.match.serial.trim()}`
      const other = serials.get(key)
      if (other !== undefined) {
        problems.push({
          name: c.name,
          message: `claims ${c.driver} serial ${c.match.serial}, already claimed by ${other}`,
        })
      } else serials.set(key, c.name)
    }
  }
  return problems
}

/** A detected device and the configured surface that takes it. */
export interface ClaimedDevice {
  device: DetectedDevice
  /** The configured surface name. */
  name: string
}

/**
 * Which configured surface takes each detected device, by device id. Claims are served by specificity
 * (serial, then model/ids, then `any`), in config order within a rank; each keeps the device it holds
 * (`holding`: the surface's open device, for the manager) when that still matches, else takes the first
 * free matching device of its driver by id. The order of `devices` does not matter.
 */
export function assignClaims(
  claims: readonly SurfaceClaim[],
  devices: readonly DetectedDevice[],
  holding: (name: string) => string | undefined = () => undefined,
): Map<string, ClaimedDevice> {
  const out = new Map<string, ClaimedDevice>()
  const sorted = [...devices].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const ranked = claims
    .map((c, order) => ({ c, order, rank: claimRank(c.match) }))
    .sort((a, b) => a.rank - b.rank || a.order - b.order)
  for (const { c } of ranked) {
    const held = holding(c.name)
    const candidates = sorted.filter((d) => d.driver === c.driver && !out.has(d.id) && claimMatches(c.match, d))
    const pick = candidates.find((d) => d.id === held) ?? candidates[0]
    if (pick) out.set(pick.id, { device: pick, name: c.name })
  }
  return out
}
