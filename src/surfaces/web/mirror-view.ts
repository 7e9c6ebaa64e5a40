/**
 * A hardware surface's view on the page: drawn on its face where its family gives one (a Contour
 * Shuttle's ring, jog and buttons where they are on the device), else as a grid. Kept apart from
 * `views.ts` and `../../face/protocol.ts` (which the page shares), so neither loads the driver families.
 */
import { familyFace } from '../../families/index.js'
import { surfaceView } from './views.js'
import { type WebSurfaceView } from '../../face/protocol.js'
import type { SurfaceDescription } from '../../face/surface.js'

export function mirrorView(description: SurfaceDescription): WebSurfaceView {
  return surfaceView(description, 'mirror', familyFace(description))
}
