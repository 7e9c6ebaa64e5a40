/**
 * A device's face, for the families whose devices the page draws as they look rather than as a grid
 * (`FamilyFacts.face`): the face's size in its own units and each control's box on it. The page gets
 * the size with the surface and each box as its control's `at`. Nothing here knows a family, and
 * nothing here is code: the types are shared with the page's protocol.
 */
import type { ControlId } from './control-id.js'

/** A control's box on a face: top left corner and size, in the face's units. */
export interface FaceSpot {
  x: number
  y: number
  w: number
  h: number
}

/** A device's face: its size, and the box of each control on it. */
export interface DeviceFace {
  width: number
  height: number
  spots: ReadonlyMap<ControlId, FaceSpot>
}

/** A box by its centre and size, as a face table writes it. */
export type Centred = readonly [cx: number, cy: number, w: number, h: number]
