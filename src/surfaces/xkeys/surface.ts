/**
 * An open X-keys panel as a `Surface`: the library's `XKeys` decodes the input reports and encodes the
 * backlight writes; this maps its key indexes to row-major `key:N` (see `models.ts`), its jog, shuttle
 * and T-bar to `jog`, `shuttle` and `tbar`, and `Feedback` to backlights in the colours the model has
 * (the library maps a colour to the blue and red LEDs of the older panels).
 *
 * Backlight: `led: 'off'` or no colour is off; `led: 'blink'` flashes; otherwise the colour shows
 * (`led: 'on'` without a colour shows white, i.e. every LED the key has). A write is skipped when the
 * key already shows that state. As with the Contour Shuttle, the ring's return to centre is announced
 * on its own when a report swings it across centre, and before `error`/`closed` when it is held.
 */
import type { XKeys } from '@xkeys-lib/core'
import { EventHub, type Listenable } from '../../events.js'
import { createLogger, type Logger } from '../../log.js'
import { SHUTTLE_ZONES } from '../control-id.js'
import { parseColor } from '../render/key-renderer.js'
import type { ControlId, Feedback, Surface, SurfaceDescription, SurfaceEvent, SurfaceEvents } from '../types.js'
import type { XkeysModel } from './models.js'

/** The T-bar's raw range (one byte). */
const TBAR_MAX = 255

export interface XkeysSurfaceOptions {
  logger?: Logger
}

/** Write counters, for tests. */
export interface XkeysWriteStats {
  writes: number
  skipped: number
}

type EventBody = SurfaceEvent extends infer E ? (E extends SurfaceEvent ? Omit<E, 'surface' | 'at'> : never) : never

const hex2 = (n: number): string => n.toString(16).padStart(2, '0')

/** The backlight a feedback asks for: `rrggbb` and whether it flashes. */
export function backlightOf(fb: Feedback): { color: string; flashing: boolean } {
  if (fb.led === 'off') return { color: '000000', flashing: false }
  const rgb = parseColor(fb.color) ?? (fb.led === 'on' || fb.led === 'blink' ? ([255, 255, 255] as const) : undefined)
  if (!rgb) return { color: '000000', flashing: false }
  return { color: rgb.map(hex2).join(''), flashing: fb.led === 'blink' }
}

export class XkeysSurface implements Surface {
  readonly description: SurfaceDescription
  private readonly hub = new EventHub<SurfaceEvents>()
  readonly events: Listenable<SurfaceEvents> = this.hub.listenable
  readonly stats: XkeysWriteStats = { writes: 0, skipped: 0 }
  /** Library key index of each key control. */
  private readonly keyIndex = new Map<ControlId, number>()
  private readonly shown = new Map<ControlId, string>()
  private ring = 0
  private readonly log: Logger
  private closing: Promise<void> | undefined
  private failed = false

  private readonly onDown = (i: number): void => this.button('down', i)
  private readonly onUp = (i: number): void => this.button('up', i)
  private readonly onJog = (index: number, delta: number): void => {
    if (index === 0 && delta !== 0) this.emit({ type: 'rotate', control: 'jog', delta })
  }
  private readonly onShuttle = (index: number, value: number): void => {
    if (index === 0) this.shuttleTo(value)
  }
  private readonly onTbar = (index: number, value: number): void => {
    if (index !== 0) return
    const raw = Math.max(0, Math.min(TBAR_MAX, Math.trunc(value)))
    this.emit({ type: 'value', control: 'tbar', value: raw / TBAR_MAX, raw })
  }
  private readonly onError = (err: unknown): void => this.fail(err)
  private readonly onDisconnected = (): void => {
    this.log.info('device disconnected')
    void this.close()
  }

  constructor(
    private readonly panel: XKeys,
    readonly model: XkeysModel,
    id: string,
    opts: XkeysSurfaceOptions = {},
  ) {
    this.log = opts.logger ?? createLogger('xkeys').child(id)
    for (const k of model.keys) this.keyIndex.set(k.id, k.index)
    this.description = {
      id,
      driver: 'xkeys',
      model: model.name,
      grid: { rows: model.product.rowCount, columns: model.product.colCount },
      controls: [...model.controls],
    }
    panel.on('down', this.onDown)
    panel.on('up', this.onUp)
    panel.on('jog', this.onJog)
    panel.on('shuttle', this.onShuttle)
    panel.on('tbar', this.onTbar)
    panel.on('error', this.onError)
    panel.on('disconnected', this.onDisconnected)
  }

  /** The panel's unit id (0..255, set by the user to tell identical panels apart). */
  get unitId(): number {
    return this.panel.unitId
  }

  setFeedback(control: ControlId, feedback: Feedback): void {
    if (this.closing || this.failed) return
    const index = this.keyIndex.get(control)
    if (index === undefined) {
      // Buttons, the jog and the ring have no light; only an id the panel lacks is worth a warning.
      if (!this.description.controls.some((c) => c.id === control)) {
        this.log.once(`unknown:${control}`, 'warn', 'feedback for a control this device does not have', { control })
      }
      return
    }
    const { color, flashing } = backlightOf(feedback)
    const hash = `${color}${flashing ? ':flash' : ''}`
    if (this.shown.get(control) === hash) {
      this.stats.skipped++
      return
    }
    if (!this.write(() => this.panel.setBacklight(index, color, flashing))) return
    this.shown.set(control, hash)
  }

  setBrightness(percent: number): void {
    if (this.closing || this.failed) return
    const level = Math.round((Math.min(100, Math.max(0, percent)) / 100) * 255)
    this.write(() => this.panel.setBacklightIntensity(level))
  }

  close(): Promise<void> {
    this.closing ??= this.doClose()
    return this.closing
  }

  private write(op: () => void): boolean {
    try {
      op()
      this.stats.writes++
      return !this.failed
    } catch (err) {
      this.fail(err)
      return false
    }
  }

  private async doClose(): Promise<void> {
    this.panel.off('down', this.onDown)
    this.panel.off('up', this.onUp)
    this.panel.off('jog', this.onJog)
    this.panel.off('shuttle', this.onShuttle)
    this.panel.off('tbar', this.onTbar)
    this.panel.off('disconnected', this.onDisconnected)
    this.centre()
    if (!this.failed) {
      try {
        // Blank the backlights, so a closed surface never shows stale state.
        this.panel.setAllBacklights('000000')
        await this.panel.flush()
      } catch (err) {
        this.log.debug('could not blank the device while closing', { error: err })
      }
    }
    try {
      await this.panel.close()
    } catch (err) {
      this.log.debug('could not close the device cleanly', { error: err })
    }
    // Why keep an error listener: a late error from the HID layer after close must not go unhandled.
    this.panel.off('error', this.onError)
    this.panel.on('error', () => undefined)
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
    const control = this.model.byIndex.get(index)
    if (control === undefined) {
      this.log.once(`unlisted:${index}`, 'warn', 'input from a key the model table does not list', { index })
      return
    }
    this.emit({ type, control })
  }

  private shuttleTo(reported: number): void {
    const raw = Math.max(-SHUTTLE_ZONES, Math.min(SHUTTLE_ZONES, Math.trunc(reported))) + 0 // + 0: no -0
    if (raw === this.ring) return
    if (raw !== 0 && this.ring !== 0 && Math.sign(raw) !== Math.sign(this.ring)) this.ringAt(0)
    this.ringAt(raw)
  }

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
