/**
 * An open Contour Shuttle as a `Surface`: the library's `Shuttle` decodes buttons and the ring; the jog
 * delta is computed here from the raw counter (`JogCounter`, see `jog.ts` for why not the library's).
 *
 * Control ids (see `types.ts` and `models.ts`): `button:N`, `jog` (rotate, signed delta, positive
 * clockwise), `shuttle` (value -1..1, raw -7..7). The device has no lights: feedback is accepted and
 * shows nothing.
 *
 * The ring's return to centre is an event of its own: when one report swings the ring from one side to
 * the other, `value 0` comes before the new side; when the device fails or is unplugged with the ring
 * off centre, `value 0` comes before `error` or `closed`, while the manager still listens. So whatever
 * runs from the ring (a replay speed) stops.
 */
import type { Shuttle } from '@shuttle-lib/core'
import { EventHub, type Listenable } from '../../events.js'
import { createLogger, type Logger } from '../../log.js'
import { SHUTTLE_ZONES, controlId } from '../control-id.js'
import type { ControlId, Feedback, Surface, SurfaceDescription, SurfaceEvent, SurfaceEvents } from '../types.js'
import { JogCounter } from './jog.js'
import { shuttleControls, type ShuttleModel } from './models.js'
import type { ShuttleReportGuard } from './report-guard.js'

/** Byte of the input report that holds the jog counter (see `SHUTTLE_REPORT_BYTES`). */
const JOG_BYTE = 1

export interface ShuttleSurfaceOptions {
  logger?: Logger
}

export class ShuttleSurface implements Surface {
  readonly description: SurfaceDescription
  private readonly hub = new EventHub<SurfaceEvents>()
  readonly events: Listenable<SurfaceEvents> = this.hub.listenable
  private readonly jog = new JogCounter()
  /** The ring zone last announced, -7..7. */
  private ring = 0
  private readonly log: Logger
  private closing: Promise<void> | undefined
  private failed = false

  private readonly onDown = (i: number): void => this.button('down', i)
  private readonly onUp = (i: number): void => this.button('up', i)
  private readonly onShuttle = (raw: number): void => this.shuttleTo(raw)
  private readonly onReport = (data: Uint8Array): void => {
    const delta = this.jog.next(data[JOG_BYTE]!)
    if (delta !== undefined) this.emit({ type: 'rotate', control: 'jog', delta })
  }
  private readonly onError = (err: unknown): void => this.fail(err)
  private readonly onDisconnected = (): void => {
    this.log.info('device disconnected')
    void this.close()
  }

  constructor(
    private readonly shuttle: Shuttle,
    private readonly reports: ShuttleReportGuard,
    readonly model: ShuttleModel,
    id: string,
    opts: ShuttleSurfaceOptions = {},
  ) {
    this.log = opts.logger ?? createLogger('shuttle').child(id)
    this.description = { id, driver: 'shuttle', model: model.name, controls: shuttleControls(model) }
    shuttle.on('down', this.onDown)
    shuttle.on('up', this.onUp)
    shuttle.on('shuttle', this.onShuttle)
    shuttle.on('error', this.onError)
    shuttle.on('disconnected', this.onDisconnected)
    // Registered after the library's own listener: within one report, ring and buttons come first, then the jog.
    reports.on('data', this.onReport)
  }

  setFeedback(control: ControlId, _feedback: Feedback): void {
    if (!this.description.controls.some((c) => c.id === control)) {
      this.log.once(`unknown:${control}`, 'warn', 'feedback for a control this device does not have', { control })
    }
  }

  /** The device has no lights. */
  setBrightness(_percent: number): void {}

  close(): Promise<void> {
    this.closing ??= this.doClose()
    return this.closing
  }

  private async doClose(): Promise<void> {
    this.shuttle.off('down', this.onDown)
    this.shuttle.off('up', this.onUp)
    this.shuttle.off('shuttle', this.onShuttle)
    this.shuttle.off('disconnected', this.onDisconnected)
    this.reports.off('data', this.onReport)
    this.centre()
    try {
      await this.shuttle.close()
    } catch (err) {
      this.log.debug('could not close the device cleanly', { error: err })
    }
    // Why keep an error listener: a late error from the HID layer after close must not go unhandled.
    this.shuttle.off('error', this.onError)
    this.shuttle.on('error', () => undefined)
    this.hub.emit('closed')
  }

  private fail(err: unknown): void {
    if (this.failed || this.closing) return
    this.failed = true
    // Why centre first: the manager stops listening before it closes a failed surface.
    this.centre()
    this.hub.emit('error', err instanceof Error ? err : new Error(String(err)))
  }

  private button(type: 'down' | 'up', index: number): void {
    if (!Number.isInteger(index) || index < 0 || index >= this.model.buttons) return
    this.emit({ type, control: controlId('button', index) })
  }

  private shuttleTo(reported: number): void {
    // The library reads an int8; anything beyond the ring's zones is clamped to its end stops.
    const raw = Math.max(-SHUTTLE_ZONES, Math.min(SHUTTLE_ZONES, Math.trunc(reported))) + 0 // + 0: no -0
    if (raw === this.ring) return
    if (raw !== 0 && this.ring !== 0 && Math.sign(raw) !== Math.sign(this.ring)) this.ringAt(0)
    this.ringAt(raw)
  }

  /** Announces the ring's return to centre if it is off centre. */
  private centre(): void {
    if (this.ring !== 0) this.ringAt(0)
  }

  private ringAt(raw: number): void {
    this.ring = raw
    this.emit({ type: 'value', control: 'shuttle', value: raw / SHUTTLE_ZONES, raw })
  }

  private emit(event: EventBody): void {
    this.hub.emit('input', { ...event, surface: this.description.id, at: performance.now() })
  }
}

/** A `SurfaceEvent` without the fields `emit` fills in. */
type EventBody = SurfaceEvent extends infer E ? (E extends SurfaceEvent ? Omit<E, 'surface' | 'at'> : never) : never
