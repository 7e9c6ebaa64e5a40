/**
 * The web surface, mapping side (see `common.ts`): drawn in the browser at the daemon's page, made by the
 * daemon itself (no device, so no claim); the surface side is `src/surfaces/web/`.
 */
import { z } from 'zod'
import { webSurfaceDescription, type WebSurfaceOptions } from '../../families/web.js'
import type { MappingFamily, SurfaceEntry } from './common.js'

const schema = z
  .strictObject({
    driver: z.literal('web'),
    rows: z.int().min(1).max(16),
    columns: z.int().min(1).max(16),
    encoders: z.int().min(0).max(8).optional(),
    jog: z.boolean().optional(),
    shuttle: z.boolean().optional().describe('A spring-loaded shuttle ring that returns to centre on release.'),
    faders: z.int().min(0).max(8).optional(),
    key_size: z.int().min(16).max(256).optional().describe('Key image size in pixels (default 96).'),
  })
  .describe('A surface drawn in the browser at the daemon’s page.')

/** A `web` surface entry as the web surface's own options (the daemon builds it; the loader describes it). */
export function webSurfaceOptions(name: string, s: SurfaceEntry<typeof schema>): WebSurfaceOptions {
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

export const web: MappingFamily<typeof schema> = {
  schema,
  controlsOf: (name, entry) =>
    Promise.resolve({ controls: webSurfaceDescription(webSurfaceOptions(name, entry)).controls }),
  claimOf: () => undefined,
}
