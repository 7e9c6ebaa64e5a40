/**
 * What the page shows of one surface's controls, for a configured web surface and for a mirrored
 * physical one alike: the newest feedback per control waits here until the next flush, which turns it
 * into one message (keys as their face for the page to paint, drawn here only when the feedback carries
 * a pre-rendered image or a picture under its label; other controls as their state) and keeps it for
 * browsers that connect later.
 */
import type { ControlId } from '../../face/control-id.js'
import type { Feedback } from '../../face/feedback.js'
import { keyFaceOf } from '../../face/key-paint.js'
import type { KeyImages } from './key-images.js'
import type { LightRule } from '../../families/lights.js'
import { lightRules } from './lights.js'
import { controlStateOf, imageLabelOf } from './views.js'
import { type ServerMessage, type WebControlState } from '../../face/protocol.js'
import type { ControlDescriptor, SurfaceDescription } from '../../face/surface.js'

export class RenderedControls {
  readonly controls: ReadonlyMap<ControlId, ControlDescriptor>
  /** What each control shows now, as the messages a browser that connects now needs. */
  readonly shown = new Map<ControlId, ServerMessage>()
  /** Newest feedback not yet rendered. */
  private readonly pending = new Map<ControlId, Feedback>()
  /** How each pad with a backlight or LED lights up on the device. */
  private readonly lights: ReadonlyMap<ControlId, LightRule>
  private readonly surfaceId: string

  constructor(
    description: SurfaceDescription,
    private readonly images: KeyImages,
    /** Called when a key's pre-rendered image cannot be drawn; the control keeps showing what it showed. */
    private readonly onRenderError: (control: ControlId, err: unknown) => void,
  ) {
    this.surfaceId = description.id
    this.controls = new Map(description.controls.map((c) => [c.id, c]))
    this.lights = lightRules(description)
  }

  /** Keeps `feedback` as the control's newest. False for a control the surface lacks. */
  queue(control: ControlId, feedback: Feedback): boolean {
    if (!this.controls.has(control)) return false
    this.pending.set(control, feedback)
    return true
  }

  get hasPending(): boolean {
    return this.pending.size > 0
  }

  dropPending(): void {
    this.pending.clear()
  }

  /** Turns each pending control into one message and returns them to send, in the order they were queued. */
  flush(): ServerMessage[] {
    const surface = this.surfaceId
    const batch = [...this.pending]
    this.pending.clear()
    const out: ServerMessage[] = []
    for (const [control, feedback] of batch) {
      const image = this.controls.get(control)?.capabilities.image
      let message: ServerMessage
      if (image) {
        try {
          message = {
            type: 'key',
            surface,
            control,
            face: keyFaceOf(feedback),
            label: imageLabelOf(feedback),
            ...(feedback.image || feedback.picture ? { image: this.images.dataUrl(feedback, image) } : {}),
          }
        } catch (err) {
          this.onRenderError(control, err)
          continue
        }
      } else {
        message = { type: 'state', surface, control, state: this.stateOf(control, feedback) }
      }
      this.shown.set(control, message)
      out.push(message)
    }
    return out
  }

  /** A control's state; a pad's light as the device shows it, its `led` saying whether it is lit. */
  private stateOf(control: ControlId, feedback: Feedback): WebControlState {
    const state = controlStateOf(feedback)
    const rule = this.lights.get(control)
    if (!rule) return state
    const light = rule(feedback)
    if (light) state.light = light.color
    state.led = light ? (light.blink ? 'blink' : 'on') : 'off'
    return state
  }
}
