/**
 * What the web surface's server sends of a surface and its feedback (`../../face/protocol.ts`): a
 * surface's description as the page draws it, and the parts of a feedback a control without an image shows.
 * The daemon's side only; the page reads the views these build.
 */
import type { Feedback } from '../../face/feedback.js'
import type { DeviceFace } from '../../face/device-face.js'
import type { WebControlState, WebSurfaceView, WebWidget } from '../../face/protocol.js'
import type { ControlDescriptor, SurfaceDescription } from '../../face/surface.js'

/** A key image's text for assistive tech and the tooltip: the label, then the detail. */
export function imageLabelOf(feedback: Feedback): string {
  const text = feedback.text ?? ''
  const detail = feedback.detail?.trim() ?? ''
  if (detail === '') return text
  return text.trim() === '' ? detail : `${text} (${detail})`
}

/** The feedback parts a control without an image can show. */
export function controlStateOf(feedback: Feedback): WebControlState {
  const state: WebControlState = {}
  if (feedback.color !== undefined) state.color = feedback.color
  if (feedback.text !== undefined) state.text = feedback.text
  if (feedback.led !== undefined) state.led = feedback.led
  if (feedback.badge !== undefined) state.badge = feedback.badge
  // Clamped once here, so the page never draws outside its ring; NaN and infinities show nothing.
  if (feedback.value !== undefined && Number.isFinite(feedback.value)) {
    state.value = Math.min(1, Math.max(0, feedback.value))
  }
  if (feedback.detail !== undefined && feedback.detail.trim() !== '') state.detail = feedback.detail
  return state
}

/** How the page draws a control of this kind (see `WebWidget`). */
export function widgetOf(control: ControlDescriptor): WebWidget {
  if (control.capabilities.image) return 'key'
  switch (control.kind) {
    case 'key':
    case 'button':
    case 'lcd':
    case 'note':
    case 'program':
      return 'pad'
    case 'encoder':
      return 'encoder'
    case 'jog':
      return 'jog'
    case 'shuttle':
      return 'shuttle'
    case 'fader':
    case 'tbar':
    case 'pitchbend':
      return 'fader'
    case 'cc':
      // A MIDI CC is a knob or a fader; only a profile's LED ring tells them apart.
      return control.capabilities.ring ? 'knob' : 'fader'
    case 'joystick':
      // The stick's axes spring back to centre like the shuttle ring; its endless twist turns like a jog.
      return control.id === 'joystick:z' ? 'jog' : 'shuttle'
  }
}

/** The grid a surface's keys and pads fill: the description's, else the smallest that holds every placed one. */
function gridOf(description: SurfaceDescription): { rows: number; columns: number } | undefined {
  if (description.grid) return { rows: description.grid.rows, columns: description.grid.columns }
  let rows = 0
  let columns = 0
  for (const c of description.controls) {
    if (c.row === undefined || c.column === undefined) continue
    rows = Math.max(rows, c.row + 1)
    columns = Math.max(columns, c.column + 1)
  }
  return rows > 0 ? { rows, columns } : undefined
}

/** A surface's description as the page draws it: on its `face` where its family gives one, else as a grid. */
export function surfaceView(
  description: SurfaceDescription,
  mode: WebSurfaceView['mode'],
  face?: DeviceFace,
): WebSurfaceView {
  const grid = gridOf(description)
  return {
    id: description.id,
    driver: description.driver,
    model: description.model,
    mode,
    ...(grid ? { grid } : {}),
    ...(face ? { face: { width: face.width, height: face.height } } : {}),
    controls: description.controls.map((c) => {
      const widget = widgetOf(c)
      const placed = (widget === 'key' || widget === 'pad') && c.row !== undefined && c.column !== undefined
      const at = face?.spots.get(c.id)
      return {
        ...(at ? { at } : {}),
        id: c.id,
        kind: c.kind,
        widget,
        ...(placed ? { row: c.row, column: c.column } : {}),
        ...(c.capabilities.image
          ? { image: { width: c.capabilities.image.width, height: c.capabilities.image.height } }
          : {}),
        ...(c.kind === 'pitchbend' ? { centred: true as const } : {}),
      }
    }),
  }
}
