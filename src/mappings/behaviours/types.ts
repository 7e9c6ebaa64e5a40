/**
 * What a behaviour (press, hold, toggle, steps, jog, shuttle, value, rotate) gets from the engine and
 * gives back. A behaviour holds the runtime state of one binding; the engine routes events to it and
 * draws its control from `look()` whenever it calls `changed()`.
 */
import type { AppState } from '../../api/app-state.js'
import type { SendOptions, SendResult } from '../sender.js'
import type { TemplateContext } from '../template.js'

export interface BehaviourHost {
  /** `surface/control`, for log lines. */
  readonly origin: string
  readonly state: AppState
  /** Sends one command (parameters already filled in); `options` say which failures are no news. Never throws. */
  send(command: string, params: Record<string, unknown>, options?: SendOptions): Promise<SendResult>
  /**
   * Whether the binding's commands also go to a mirror: a press made while the main has not answered
   * the previous one is then sent to the mirror alone (`SendOptions.mirrorsOnly`).
   */
  mirrored?(): boolean
  /** The control's look changed (detail, badge, value, step): the engine redraws it. */
  changed(): void
  /** Whether a control (`surface/control`) is held down now, from any source (a jog's `fine` key). */
  isHeld?(on: string): boolean
  /** Switches this control's surface to a page (`previous` and `next` included). */
  setPage(page: string): void
  /** `resync: NAME`: sends the main's play states to its mirror NAME (issue 27, `../app-router.ts`). */
  resync?(mirror: string): Promise<SendResult>
  /**
   * A command of the binding that was not sent (a template empty at the press, a clip verb without its
   * point): logged as a refused press is. The key shows the reason through the behaviour's failure.
   */
  notSent?(command: string, reason: string): void
  /** The followed title's name, play state and variables, and the playhead, for parameter templates. */
  titleContext(): TemplateContext
}

export interface BehaviourLook {
  /** A command of this binding is in flight. */
  pending: boolean
  /** The last command failed (shown for FAILED_BADGE_MS). */
  failed: boolean
  /** A short second text: a countdown, why a command failed. */
  detail?: string
  /** 0..1 for a level on the control (a fader's position). */
  value?: number
  /** The behaviour's own idea of on/off (a toggle without state feedback). */
  on?: boolean
  /** Its part of the label templates: `{{step}}`, `{{value}}`, `{{delta}}`, `{{speed}}`, `{{position}}`. */
  context: Partial<TemplateContext>
}

export interface Behaviour {
  /** `source` names the press (who pressed, see `SurfaceEvent.source`): presses from two sources are two presses. */
  down?(source?: string): void
  /** Ends the press of `source`; a release may fire (a short press). */
  up?(source?: string): void
  /** Ends the press of `source` without the operator finishing it: nothing fires. */
  cancel?(source?: string): void
  rotate?(delta: number): void
  value?(value: number): void
  /** In the middle of a hold or a jog burst: a reload lets it finish on its old definition. */
  busy(): boolean
  look(): BehaviourLook
  /** Stops its timers; nothing is reported after. */
  dispose(): void
}
