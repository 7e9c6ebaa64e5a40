/**
 * An open X-keys panel as a `Surface`: the library's `XKeys` decodes the input reports and encodes the
 * backlight writes; this maps its key indexes to row-major `key:N` (see `src/families/xkeys.ts`), its jog, shuttle,
 * T-bar and joystick to `jog`, `shuttle`, `tbar` and `joystick:x|y|z`, and `Feedback` to backlights in the colours the model has
 * (the library maps a colour to the blue and red LEDs of the older panels).
 *
 * Backlight: `led: 'off'` or no colour is off; `led: 'blink'` flashes; otherwise the colour shows
 * (`led: 'on'` without a colour shows white, i.e. every LED the key has). A write is skipped when the
 * key already shows that state. As with the Contour Shuttle, the ring's return to centre is announced
 * on its own when a report swings it across centre, and before `error`/`closed` when it is held (see
 * `HidSurface`); so is a joystick held off centre.
 *
 * Joystick: `joystick:x` and `joystick:y` are values -1..1 (raw -127..127, up positive, as the library
 * reports them), sent when an axis moves. The twist `joystick:z` is an endless 8-bit counter: its steps
 * are taken the shorter way round modulo 256 and the first report only seeds, as for the Shuttle's jog
 * (the library's own `deltaZ` starts from 0, so the first twist would jump by the counter's value).
 */
import type { JoystickValue, XKeys } from '@xkeys-lib/core'
import { createLogger, type Logger } from '../../log.js'
import { HidSurface, type Subscribable } from '../usb-hid/hid-surface.js'
import { JogCounter } from '../usb-hid/jog-counter.js'
import type { ControlId } from '../../face/control-id.js'
import type { Feedback } from '../../face/feedback.js'
import { backlightOf } from '../../families/xkeys-lights.js'
import type { XkeysModel } from '../../families/xkeys.js'
import type { SurfaceDescription } from '../../face/surface.js'

/** The T-bar's raw range (one byte). */
const TBAR_MAX = 255
/** A joystick axis's raw full scale either side of centre (the library reports -127..127). */
const JOYSTICK_FULL_SCALE = 127

export interface XkeysSurfaceOptions {
  logger?: Logger
  /** The panel's report guard: its raw input reports become `report` events (`learn --record`). */
  reports?: Subscribable
}

/** Write counters, for tests. */
export interface XkeysWriteStats {
  writes: number
  skipped: number
}

export class XkeysSurface extends HidSurface {
  readonly description: SurfaceDescription
  readonly stats: XkeysWriteStats = { writes: 0, skipped: 0 }
  /** Library key index of each key control. */
  private readonly keyIndex = new Map<ControlId, number>()
  private readonly shown = new Map<ControlId, string>()
  /** The joystick's x and y last announced (raw); the twist's counter. */
  private readonly stick = { x: 0, y: 0 }
  private readonly twist = new JogCounter()

  constructor(
    private readonly panel: XKeys,
    readonly model: XkeysModel,
    id: string,
    opts: XkeysSurfaceOptions = {},
  ) {
    super(panel, opts.logger ?? createLogger('xkeys').child(id))
    for (const k of model.keys) this.keyIndex.set(k.id, k.index)
    this.description = {
      id,
      driver: 'xkeys',
      model: model.name,
      grid: { rows: model.product.rowCount, columns: model.product.colCount },
      controls: [...model.controls],
    }
    this.listen(panel, 'down', (i: number) => this.button('down', i))
    this.listen(panel, 'up', (i: number) => this.button('up', i))
    this.listen(panel, 'jog', (index: number, delta: number) => {
      if (index === 0 && delta !== 0) this.emit({ type: 'rotate', control: 'jog', delta })
    })
    this.listen(panel, 'shuttle', (index: number, value: number) => {
      if (index === 0) this.shuttleTo(value)
    })
    this.listen(panel, 'tbar', (index: number, value: number) => {
      if (index !== 0) return
      const raw = Math.max(0, Math.min(TBAR_MAX, Math.trunc(value)))
      this.emit({ type: 'value', control: 'tbar', value: raw / TBAR_MAX, raw })
    })
    this.listen(panel, 'joystick', (index: number, value: JoystickValue) => {
      if (index === 0) this.joystick(value)
    })
    if (opts.reports) this.tapReports(opts.reports)
  }

  /** The panel's unit id (0..255, set by the user to tell identical panels apart). */
  get unitId(): number {
    return this.panel.unitId
  }

  setFeedback(control: ControlId, feedback: Feedback): void {
    if (!this.active) return
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
    if (!this.active) return
    const level = Math.round((Math.min(100, Math.max(0, percent)) / 100) * 255)
    this.write(() => this.panel.setBacklightIntensity(level))
  }

  /** Blanks the backlights, so a closed surface never shows stale state. */
  protected override async blank(): Promise<void> {
    this.panel.setAllBacklights('000000')
    await this.panel.flush()
  }

  protected override centre(): void {
    super.centre()
    this.axis('x', 0)
    this.axis('y', 0)
  }

  private write(op: () => void): boolean {
    try {
      op()
      this.stats.writes++
      return this.active
    } catch (err) {
      this.fail(err)
      return false
    }
  }

  private button(type: 'down' | 'up', index: number): void {
    const control = this.model.byIndex.get(index)
    if (control === undefined) {
      this.log.once(`unlisted:${index}`, 'warn', 'input from a key the model table does not list', { index })
      return
    }
    this.emit({ type, control })
  }

  private joystick(v: JoystickValue): void {
    this.axis('x', v.x)
    this.axis('y', v.y)
    const delta = this.twist.next(v.z)
    if (delta !== undefined) this.emit({ type: 'rotate', control: 'joystick:z', delta })
  }

  private axis(axis: 'x' | 'y', reported: number): void {
    const raw = Math.max(-JOYSTICK_FULL_SCALE, Math.min(JOYSTICK_FULL_SCALE, Math.trunc(reported))) + 0 // no -0
    if (raw === this.stick[axis]) return
    this.stick[axis] = raw
    this.emit({ type: 'value', control: `joystick:${axis}`, value: raw / JOYSTICK_FULL_SCALE, raw })
  }
}
