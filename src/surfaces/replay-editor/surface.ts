/**
 * An open Blackmagic panel (Replay Editor, ATEM Micro Panel) as a `Surface`: the library's controller
 * decodes the reports; this hands on its events under the family's control ids
 * (`src/families/replay-editor.ts`) and shows feedback on its LEDs.
 *
 * - Buttons: `down` / `up` as `button:N`.
 * - The jog: the library reports the wheel's movement per report; the running sum is integrated here
 *   into whole steps (`JOG_UNITS_PER_STEP`), the remainder carried, so n steps forward and n back come
 *   back exactly; the engine's latest-wins scrub turns the steps into positions.
 * - The lever: its value 0..1, at most one per `TBAR_FRAME_MS` and the last one always (after at most
 *   that long), so a sweep sends at most one speed per frame and ends on the lever's exact position.
 * - Lights: a button's LED as `buttonLight` says (the family's rule, which the page mirror draws too),
 *   the lever's 16 LEDs by `Feedback.value`. Changes wait while a write is in flight and go out together:
 *   at most one LED write in flight, the newest state always last.
 */
import type { BlackmagicController, BlackmagicControllerSetButtonSomeValue } from '@blackmagic-controller/core'
import { createLogger, type Logger } from '../../log.js'
import {
  JOG_UNITS_PER_STEP,
  TBAR_FRAME_MS,
  TBAR_RAW_MAX,
  tbarLeds,
  type BmdModel,
} from '../../families/replay-editor.js'
import { buttonLight, type ButtonLight } from '../../families/replay-editor-lights.js'
import { HidSurface } from '../usb-hid/hid-surface.js'
import type { BmdReportGuard } from './report-guard.js'
import type { SurfaceDescription } from '../../face/surface.js'
import type { ControlId } from '../../face/control-id.js'
import type { Feedback } from '../../face/feedback.js'

export interface BmdSurfaceOptions {
  logger?: Logger
}

const sameLight = (a: ButtonLight | undefined, b: ButtonLight): boolean =>
  a !== undefined && JSON.stringify(a) === JSON.stringify(b)

export class BmdSurface extends HidSurface {
  readonly description: SurfaceDescription
  private readonly heldButtons: ['down' | 'up', string][] = []
  /** Jog units not yet a whole step. */
  private jogUnits = 0
  private lastTbarAt = Number.NEGATIVE_INFINITY
  private tbarTimer: NodeJS.Timeout | undefined
  private tbarWaiting: number | undefined
  private lastTbar: number | undefined
  /** What each light shows (or is being written). */
  private readonly shown = new Map<string, ButtonLight>()
  private shownTbar: string | undefined
  private readonly pending = new Map<string, ButtonLight>()
  private pendingTbar: boolean[] | undefined
  private writing = false
  private flushQueued = false

  constructor(
    private readonly panel: BlackmagicController,
    reports: BmdReportGuard,
    readonly model: BmdModel,
    id: string,
    opts: BmdSurfaceOptions = {},
  ) {
    super(panel, opts.logger ?? createLogger('replay-editor').child(id))
    this.description = { id, driver: 'replay-editor', model: model.name, controls: [...model.controls] }
    // Button events wait for the end of their report (see `BmdReportGuard.quietly`), then go out in order.
    this.listen(panel, 'down', (c: { id: string }) => this.heldButtons.push(['down', c.id]))
    this.listen(panel, 'up', (c: { id: string }) => this.heldButtons.push(['up', c.id]))
    this.listen(panel, 'jog', (_c: unknown, units: number) => this.jog(units))
    this.listen(panel, 'tbar', (_c: unknown, value: number) => this.tbar(value))
    this.listen(reports.reports, 'report', () => {
      for (const [type, name] of this.heldButtons.splice(0)) this.button(type, name)
    })
    this.tapReports(reports.reports)
  }

  setFeedback(control: ControlId, feedback: Feedback): void {
    if (!this.active) return
    if (control === 'tbar' && this.model.controls.some((c) => c.id === 'tbar')) {
      const leds = tbarLeds(feedback.value)
      const key = leds.map((l) => (l ? 1 : 0)).join('')
      if (key === this.shownTbar) return
      this.shownTbar = key
      this.pendingTbar = leds
      this.queueFlush()
      return
    }
    const button = this.model.buttons.find((b) => b.id === control)
    if (!button) {
      if (!this.description.controls.some((c) => c.id === control)) {
        this.log.once(`unknown:${control}`, 'warn', 'feedback for a control this device does not have', { control })
      }
      return
    }
    if (button.feedback === 'none') return
    const light = buttonLight(button.feedback, feedback)
    if (sameLight(this.shown.get(button.name), light)) return
    this.shown.set(button.name, light)
    this.pending.set(button.name, light)
    this.queueFlush()
  }

  /** The panel has no brightness setting the library drives. */
  setBrightness(_percent: number): void {}

  protected override blank(): Promise<void> {
    return this.panel.clearPanel()
  }

  override close(): Promise<void> {
    // Nothing late: a lever value still waiting for its frame is dropped with the device.
    if (this.tbarTimer) clearTimeout(this.tbarTimer)
    this.tbarTimer = undefined
    return super.close()
  }

  private button(type: 'down' | 'up', name: string): void {
    const id = this.model.byName.get(name)
    if (id !== undefined) this.emit({ type, control: id })
  }

  private jog(units: number): void {
    if (!Number.isFinite(units)) return
    this.jogUnits += Math.trunc(units)
    // Floor, not truncation: the remainder stays in [0, step), so the position is floor(sum / step) exactly.
    const steps = Math.floor(this.jogUnits / JOG_UNITS_PER_STEP)
    if (steps === 0) return
    this.jogUnits -= steps * JOG_UNITS_PER_STEP
    this.emit({ type: 'rotate', control: 'jog', delta: steps })
  }

  private tbar(value: number): void {
    if (!Number.isFinite(value)) return
    const raw = Math.max(0, Math.min(TBAR_RAW_MAX, Math.round(value * TBAR_RAW_MAX)))
    const now = performance.now()
    if (this.tbarTimer === undefined && now - this.lastTbarAt >= TBAR_FRAME_MS) {
      this.sendTbar(raw, now)
      return
    }
    this.tbarWaiting = raw
    this.tbarTimer ??= setTimeout(
      () => {
        this.tbarTimer = undefined
        const waiting = this.tbarWaiting
        this.tbarWaiting = undefined
        if (waiting !== undefined && this.active) this.sendTbar(waiting, performance.now())
      },
      Math.max(0, this.lastTbarAt + TBAR_FRAME_MS - now),
    )
  }

  private sendTbar(raw: number, at: number): void {
    this.lastTbarAt = at
    if (raw === this.lastTbar) return
    this.lastTbar = raw
    this.emit({ type: 'value', control: 'tbar', value: raw / TBAR_RAW_MAX, raw })
  }

  private queueFlush(): void {
    if (this.flushQueued || this.writing) return
    this.flushQueued = true
    queueMicrotask(() => {
      this.flushQueued = false
      void this.flush()
    })
  }

  /** Writes what waits: at most one write in flight; what arrives meanwhile goes out after it. */
  private async flush(): Promise<void> {
    if (this.writing || !this.active) return
    const buttons: BlackmagicControllerSetButtonSomeValue[] = [...this.pending].map(([keyId, l]) => ({ keyId, ...l }))
    const tbar = this.pendingTbar
    this.pending.clear()
    this.pendingTbar = undefined
    if (buttons.length === 0 && tbar === undefined) return
    this.writing = true
    try {
      if (buttons.length > 0) await this.panel.setButtonStates(buttons)
      if (tbar !== undefined) await this.panel.setTbarLeds(tbar)
    } catch (err) {
      this.fail(err)
    } finally {
      this.writing = false
    }
    if (this.pending.size > 0 || this.pendingTbar !== undefined) this.queueFlush()
  }
}
