/**
 * An open Contour Shuttle as a `Surface`: the library's `Shuttle` decodes buttons and the ring; the jog
 * delta is computed here from the raw counter (`JogCounter`, see `../usb-hid/jog-counter.ts` for why not the library's).
 *
 * Control ids (see `types.ts` and `src/families/shuttle.ts`): `button:N`, `jog` (rotate, signed delta, positive
 * clockwise), `shuttle` (value -1..1, raw -7..7). The device has no lights: feedback is accepted and
 * shows nothing.
 *
 * The ring's return to centre is an event of its own (see `HidSurface`), also before `error` or `closed`.
 */
import type { Shuttle } from '@shuttle-lib/core'
import { createLogger, type Logger } from '../../log.js'
import { controlId, type ControlId } from '../../face/control-id.js'
import { HidSurface } from '../usb-hid/hid-surface.js'
import type { Feedback } from '../../face/feedback.js'
import { JogCounter } from '../usb-hid/jog-counter.js'
import { shuttleControls, type ShuttleModel } from '../../families/shuttle.js'
import type { ShuttleReportGuard } from './report-guard.js'
import type { SurfaceDescription } from '../../face/surface.js'

/** Byte of the input report that holds the jog counter (see `SHUTTLE_REPORT_BYTES`). */
const JOG_BYTE = 1

export interface ShuttleSurfaceOptions {
  logger?: Logger
}

export class ShuttleSurface extends HidSurface {
  readonly description: SurfaceDescription
  private readonly jog = new JogCounter()

  constructor(
    shuttle: Shuttle,
    reports: ShuttleReportGuard,
    readonly model: ShuttleModel,
    id: string,
    opts: ShuttleSurfaceOptions = {},
  ) {
    super(shuttle, opts.logger ?? createLogger('shuttle').child(id))
    this.description = { id, driver: 'shuttle', model: model.name, controls: shuttleControls(model) }
    this.listen(shuttle, 'down', (i: number) => this.button('down', i))
    this.listen(shuttle, 'up', (i: number) => this.button('up', i))
    this.listen(shuttle, 'shuttle', (raw: number) => this.shuttleTo(raw))
    // Registered after the library's own listener: within one report, ring and buttons come first, then the jog.
    this.listen(reports, 'data', (data: Uint8Array) => {
      const delta = this.jog.next(data[JOG_BYTE]!)
      if (delta !== undefined) this.emit({ type: 'rotate', control: 'jog', delta })
    })
    this.tapReports(reports.reports)
  }

  setFeedback(control: ControlId, _feedback: Feedback): void {
    if (!this.description.controls.some((c) => c.id === control)) {
      this.log.once(`unknown:${control}`, 'warn', 'feedback for a control this device does not have', { control })
    }
  }

  /** The device has no lights. */
  setBrightness(_percent: number): void {}

  private button(type: 'down' | 'up', index: number): void {
    if (!Number.isInteger(index) || index < 0 || index >= this.model.buttons) return
    this.emit({ type, control: controlId('button', index) })
  }
}
