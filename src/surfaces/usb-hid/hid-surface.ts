/**
 * What the HID panel surfaces (Contour Shuttle, X-keys) share: the event hub, listeners that are removed
 * on close, the close and fail paths, and the shuttle ring's own return-to-centre events.
 *
 * Close: stop listening for input, announce every centred control's return to centre, blank the device
 * (unless it failed), close it, keep a quiet `error` listener (a late error from the HID layer must not go
 * unhandled), then `closed`. Fail: once, announce the return to centre first (the manager stops listening
 * before it closes a failed surface), then `error`.
 *
 * The ring's return to centre is an event of its own: when one report swings the ring from one side to
 * the other, `value 0` comes before the new side; when the device fails or is unplugged with the ring off
 * centre, `value 0` comes before `error` or `closed`. So whatever runs from the ring (a replay speed) stops.
 */
import { EventHub, type Listenable } from '../../events.js'
import type { Logger } from '../../log.js'
import { SHUTTLE_ZONES, type ControlId } from '../../face/control-id.js'
import type { Feedback } from '../../face/feedback.js'
import type { Surface, SurfaceEvent, SurfaceEvents } from '../types.js'
import type { SurfaceDescription } from '../../face/surface.js'

/** A `SurfaceEvent` without the fields `emit` fills in. */
export type EventBody = SurfaceEvent extends infer E
  ? E extends SurfaceEvent
    ? Omit<E, 'surface' | 'at'>
    : never
  : never

/** Anything a surface listens to (the library's device object, a report guard). */
export interface Subscribable {
  on(event: string, listener: (...args: unknown[]) => void): unknown
  off(event: string, listener: (...args: unknown[]) => void): unknown
}

/** The device library's object for one open panel (`Shuttle`, `XKeys`). */
export interface HidPanel extends Subscribable {
  close(): Promise<void>
}

export abstract class HidSurface implements Surface {
  abstract readonly description: SurfaceDescription
  private readonly hub = new EventHub<SurfaceEvents>()
  readonly events: Listenable<SurfaceEvents> = this.hub.listenable
  /** The listeners to remove on close (the device's `error` listener stays until the device is closed). */
  private readonly listening: [Subscribable, string, (...args: unknown[]) => void][] = []
  private closing: Promise<void> | undefined
  private failed = false
  /** The ring zone last announced, -7..7. */
  private ring = 0
  private readonly onError = (err: unknown): void => this.fail(err)
  private readonly onDisconnected = (): void => {
    this.log.info('device disconnected')
    void this.close()
  }

  protected constructor(
    private readonly device: HidPanel,
    protected readonly log: Logger,
  ) {
    device.on('error', this.onError)
    this.listen(device, 'disconnected', this.onDisconnected)
  }

  abstract setFeedback(control: ControlId, feedback: Feedback): void
  abstract setBrightness(percent: number): void

  close(): Promise<void> {
    this.closing ??= this.doClose()
    return this.closing
  }

  /** Whether the surface still takes feedback (neither closing nor failed). */
  protected get active(): boolean {
    return !this.closing && !this.failed
  }

  /**
   * Hands on the raw input reports of the panel's report guard (its `reports`) as `report` events
   * (`learn --record`), copied, and only while someone listens.
   */
  protected tapReports(reports: Subscribable): void {
    this.listen(reports, 'report', (report: Uint8Array) => {
      if (this.hub.listenerCount('report') > 0) this.hub.emit('report', Uint8Array.from(report))
    })
  }

  /** Listens until close. */
  protected listen<A extends unknown[]>(emitter: Subscribable, event: string, listener: (...args: A) => void): void {
    // Why the cast: the emitter calls a listener with what its event carries, which the caller typed.
    const l = listener as (...args: unknown[]) => void
    emitter.on(event, l)
    this.listening.push([emitter, event, l])
  }

  /** Shows nothing on the device before it is closed; the default has nothing to blank. */
  protected blank(): Promise<void> {
    return Promise.resolve()
  }

  /** Announces the return to centre of every centred control that is off centre. */
  protected centre(): void {
    if (this.ring !== 0) this.ringAt(0)
  }

  /** Gives up on the device once: centred controls return first, then `error`. */
  protected fail(err: unknown): void {
    if (this.failed || this.closing) return
    this.failed = true
    this.centre()
    this.hub.emit('error', err instanceof Error ? err : new Error(String(err)))
  }

  /** The shuttle ring stands at this zone (clamped to -7..7). */
  protected shuttleTo(reported: number): void {
    // The libraries read an int8; anything beyond the ring's zones is clamped to its end stops.
    const raw = Math.max(-SHUTTLE_ZONES, Math.min(SHUTTLE_ZONES, Math.trunc(reported))) + 0 // + 0: no -0
    if (raw === this.ring) return
    if (raw !== 0 && this.ring !== 0 && Math.sign(raw) !== Math.sign(this.ring)) this.ringAt(0)
    this.ringAt(raw)
  }

  protected emit(event: EventBody): void {
    this.hub.emit('input', { ...event, surface: this.description.id, at: performance.now() })
  }

  private ringAt(raw: number): void {
    this.ring = raw
    this.emit({ type: 'value', control: 'shuttle', value: raw / SHUTTLE_ZONES, raw })
  }

  private async doClose(): Promise<void> {
    for (const [emitter, event, listener] of this.listening.splice(0)) emitter.off(event, listener)
    this.centre()
    if (!this.failed) {
      try {
        await this.blank()
      } catch (err) {
        this.log.debug('could not blank the device while closing', { error: err })
      }
    }
    try {
      await this.device.close()
    } catch (err) {
      this.log.debug('could not close the device cleanly', { error: err })
    }
    // Why keep an error listener: a late error from the HID layer after close must not go unhandled.
    this.device.off('error', this.onError)
    this.device.on('error', () => undefined)
    this.hub.emit('closed')
  }
}
