/**
 * A hardware surface's view on the page: drawn on its face where its family gives one (a Contour
 * Shuttle's ring, jog and buttons where they are on the device), else as a grid. Apart from
 * `protocol.ts`, which the page's own script shares and so must not load the driver families.
 */
import { familyFace } from '../../families/index.js'
import type { SurfaceDescription } from '../types.js'
import { surfaceView, type WebSurfaceView } from './protocol.js'

export function mirrorView(description: SurfaceDescription): WebSurfaceView {
  return surfaceView(description, 'mirror', familyFace(description))
}
