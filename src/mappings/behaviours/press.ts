/**
 * Keys and buttons: `press` (a command or a sequence), `hold`, `toggle`, `steps`, and hold-to-confirm.
 *
 * - Without `hold` and confirmation, the press fires on the down.
 * - With `hold`, the short press fires on release, and only when the hold did not fire.
 * - Hold-to-confirm (destructive commands by default, or `confirm_ms: N`): the command fires when the
 *   countdown (shown in `detail`) ends while still held; releasing early sends nothing, and the key says
 *   `hold N s` for `TAP_HINT_MS`, so a short tap is not mistaken for a press that did nothing.
 * - A press while this binding's sequence is still running is ignored (the key shows `pending`).
 * - Commands that start something go at most once: nothing here retries or queues.
 */
import { ControlBadge } from '../../surfaces/badge.js'
import { CONFIRM_COMMANDS, CONFIRM_TICK_MS, DEFAULT_CONFIRM_MS, DEFAULT_HOLD_MS } from '../constants.js'
import type { Actions, Binding } from '../schema.js'
import { actionList, runActions } from './actions.js'
import type { Behaviour, BehaviourHost, BehaviourLook } from './types.js'

/** How long a short tap on a hold-to-confirm key shows how long to hold: long enough to read at a glance. */
export const TAP_HINT_MS = 1500

/** The hold-to-confirm time of a binding: `confirm_ms`, else the default for destructive commands, else 0. */
export function confirmMsOf(b: Binding): number {
  if (b.confirm_ms !== undefined) return b.confirm_ms
  const primaries: Actions[] = [
    ...(b.press ? [b.press] : []),
    ...(b.toggle ? [b.toggle.on, b.toggle.off] : []),
    ...(b.steps ?? []),
  ]
  const guarded = primaries.some((a) => actionList(a).some((x) => 'command' in x && CONFIRM_COMMANDS.has(x.command)))
  return guarded ? DEFAULT_CONFIRM_MS : 0
}

/**
 * The state a toggle follows: on/off from the application's state when its feedback says (replay
 * state, streaming, a title on air, tally), undefined when that is unknown.
 */
export type ToggleState = () => boolean | undefined

export class PressBehaviour implements Behaviour {
  private readonly badge: ControlBadge
  private readonly confirmMs: number
  private held = false
  private holdFired = false
  private holdTimer: NodeJS.Timeout | undefined
  private confirmTimer: NodeJS.Timeout | undefined
  private tickTimer: NodeJS.Timeout | undefined
  /** Runs while the key says how long to hold, after a tap too short to confirm. */
  private hintTimer: NodeJS.Timeout | undefined
  private confirmEndsAt = 0
  private running = false
  private disposed = false
  private failure: string | undefined
  /** Index of the step the next press sends. */
  private step = 0
  /** The toggle's own knowledge (from its last successful side) when its state feedback says nothing. */
  private toggledOn: boolean | undefined

  constructor(
    private readonly binding: Binding,
    private readonly host: BehaviourHost,
    private readonly toggleState: ToggleState = () => undefined,
  ) {
    this.confirmMs = confirmMsOf(binding)
    this.badge = new ControlBadge(() => host.changed())
  }

  down(): void {
    if (this.held || this.disposed) return
    this.held = true
    this.holdFired = false
    if (this.running) return // ignored while the sequence runs; the key shows pending
    if (this.confirmMs > 0 && this.primary() !== undefined) {
      this.endHint()
      this.confirmEndsAt = performance.now() + this.confirmMs
      this.confirmTimer = setTimeout(() => {
        this.endCountdown()
        if (this.held) this.fire(this.primary())
      }, this.confirmMs)
      this.tickTimer = setInterval(() => this.host.changed(), CONFIRM_TICK_MS)
      this.host.changed()
      return
    }
    const hold = this.binding.hold
    if (hold) {
      this.holdTimer = setTimeout(() => {
        this.holdTimer = undefined
        if (!this.held) return
        this.holdFired = true
        this.fire(hold)
      }, hold.after_ms ?? DEFAULT_HOLD_MS)
      return
    }
    this.fire(this.primary())
  }

  up(): void {
    if (!this.held) return
    this.held = false
    if (this.confirmTimer) {
      // Released before the countdown ended: nothing is sent; the key says how long to hold.
      this.endCountdown()
      this.hintTimer = setTimeout(() => {
        this.hintTimer = undefined
        this.host.changed()
      }, TAP_HINT_MS)
      this.host.changed()
      return
    }
    if (this.binding.hold) {
      clearTimeout(this.holdTimer)
      this.holdTimer = undefined
      if (!this.holdFired) this.fire(this.primary())
    }
  }

  busy(): boolean {
    return this.held
  }

  look(): BehaviourLook {
    const look: BehaviourLook = {
      pending: this.running,
      failed: this.badge.badge === 'failed',
      context: this.binding.steps ? { step: this.step + 1 } : {},
    }
    if (this.confirmTimer) {
      const left = Math.max(0, this.confirmEndsAt - performance.now())
      look.detail = `hold ${(Math.ceil(left / 100) / 10).toFixed(1)} s`
    } else if (this.hintTimer) {
      look.detail = `hold ${(this.confirmMs / 1000).toFixed(1)} s`
    } else if (look.failed && this.failure !== undefined) look.detail = this.failure
    if (this.binding.toggle) {
      const on = this.toggleState() ?? this.toggledOn
      if (on !== undefined) look.on = on
    }
    return look
  }

  dispose(): void {
    this.disposed = true
    clearTimeout(this.holdTimer)
    this.endCountdown()
    this.endHint()
    this.badge.dispose()
  }

  /** What a press sends now: the press, the toggle side to go to, or the current step. */
  private primary(): Actions | undefined {
    const b = this.binding
    if (b.press) return b.press
    if (b.toggle) return (this.toggleState() ?? this.toggledOn) === true ? b.toggle.off : b.toggle.on
    if (b.steps) return b.steps[this.step % b.steps.length]
    return undefined
  }

  private endHint(): void {
    clearTimeout(this.hintTimer)
    this.hintTimer = undefined
  }

  private endCountdown(): void {
    clearTimeout(this.confirmTimer)
    clearInterval(this.tickTimer)
    this.confirmTimer = undefined
    this.tickTimer = undefined
  }

  private fire(actions: Actions | undefined): void {
    if (actions === undefined || this.running || this.disposed) return
    this.running = true
    const b = this.binding
    const goingOn = b.toggle !== undefined && actions === b.toggle.on
    const ctx = { ...this.host.titleContext(), ...(b.steps ? { step: this.step + 1 } : {}) }
    // The first command is on the wire when runActions returns (the client dispatches synchronously);
    // drawing `pending` comes after, so a redraw never delays a press.
    const done = runActions(this.host, actions, ctx, () => this.disposed)
    this.badge.setPending(true)
    void done.then((result) => {
      this.running = false
      if (this.disposed) return
      if (result.ok) {
        this.failure = undefined
        if (b.toggle && (actions === b.toggle.on || actions === b.toggle.off)) this.toggledOn = goingOn
        if (b.steps) this.step = (this.step + 1) % b.steps.length
      } else {
        this.failure = result.message
        this.badge.fail()
      }
      this.badge.setPending(false)
      this.host.changed()
    })
  }
}
