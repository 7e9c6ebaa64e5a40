/**
 * The configured surfaces' brightness (a `surfaces:` entry's `brightness`, where its family reads one:
 * `streamdeck`, `streamdeck-net`), handed to the surface manager, which remembers it per surface and
 * sends it when the surface opens, at every reopen (a deck replugged, a network deck reconnected) and,
 * for a surface open now, at once. At start every entry's; at a reload only those that changed, so an
 * unchanged brightness is not sent again. An entry that gives none (or is gone) is forgotten: nothing is
 * sent, the device keeps its own. A change of brightness alone never reopens a surface
 * (`sameButBrightness`): it reaches the open device as it is.
 */
import type { SurfaceConfig } from '../mappings/schema.js'
import { brightnessOf } from '../mappings/surfaces.js'

/** What this room needs of the surface manager. */
export interface BrightnessTarget {
  setBrightness(surfaceId: string, percent: number): void
  forgetBrightness(surfaceId: string): void
}

type Surfaces = Readonly<Record<string, SurfaceConfig>>

/** Hands `after`'s brightness to the manager: all of it at start, what changed since `before` at a reload. */
export function applyBrightness(manager: BrightnessTarget, after: Surfaces, before: Surfaces = {}): void {
  for (const name of Object.keys(before)) if (!Object.hasOwn(after, name)) manager.forgetBrightness(name)
  for (const [name, entry] of Object.entries(after)) {
    const next = brightnessOf(entry)
    if (next === undefined) {
      manager.forgetBrightness(name)
      continue
    }
    const prev = Object.hasOwn(before, name) ? brightnessOf(before[name]!) : undefined
    if (next !== prev) manager.setBrightness(name, next)
  }
}

/** Whether two entries differ in nothing but `brightness` (which `applyBrightness` applies without a reopen). */
export function sameButBrightness(a: SurfaceConfig, b: SurfaceConfig): boolean {
  const rest = (e: SurfaceConfig): [string, unknown][] => Object.entries(e).filter(([k]) => k !== 'brightness')
  return JSON.stringify(rest(a)) === JSON.stringify(rest(b))
}
