/**
 * Keys and buttons: `press` (a command or a sequence), `hold`, `toggle`, `steps`, and hold-to-confirm.
 *
 * - Without `hold` and confirmation, the press fires on the down.
 * - With `hold`, the short press fires on release, and only when the hold did not fire.
 * - Hold-to-confirm (destructive commands by default, or `confirm_ms: N`): the command fires when the
 *   countdown (shown in `detail`) ends while still held; releasing early sends nothing, and the key says
 *   `hold N s` for `TAP_HINT_MS`, so a short tap is not mistaken for a press that did nothing.
 * - A press while this binding's sequence is still running is ignored (the key shows `pending`), on
 *   each application apart: with a mirror, a press the main has not answered yet does not hold back
 *   the next one on the backup (`mirrorRun`). The binding's own state (a toggle's side, a step) follows
 *   the main's runs only, so the two never count a press twice.
 * - Presses from different sources (each browser, the remote API, the device) are tracked apart; a
 *   press cancelled (its browser gone, its device unplugged, its API lease ended) fires nothing, not
 *   even the short press: only a hold whose time was reached before has fired.
 * - Commands that start something go at most once: nothing here retries or queues.
 */
import { ControlBadge } from '../../surfaces/badge.js'
import { CONFIRM_COMMANDS, ENGINE_TUNABLES } from '../constants.js'
import type { Actions, Binding } from '../schema.js'
import { actionList, runActions } from './actions.js'
import { isBusy } from '../sender.js'
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
  // A resync overwrites what the backup has on air: confirmed like a destructive command.
  const guarded = primaries.some((a) =>
    actionList(a).some((x) => ('command' in x && CONFIRM_COMMANDS.has(x.command)) || 'resync' in x),
  )
  return guarded ? ENGINE_TUNABLES.defaultConfirmMs : 0
}

/**
 * The state a toggle follows: on/off from the application's state when its feedback says (replay
 * state, streaming, a title on air, tally), undefined when that is unknown.
 */
export type ToggleState = () => boolean | undefined

/** One press in progress, from one source (a browser, the remote API, the device). */
interface Press {
  holdTimer?: NodeJS.Timeout
  /** The hold fired: the release sends nothing. */
  holdFired: boolean
  /** The hold-to-confirm countdown, and when it ends (`performance.now()`). */
  confirmTimer?: NodeJS.Timeout
  confirmEndsAt: number
}

export class PressBehaviour implements Behaviour {
  private readonly badge: ControlBadge
  private readonly confirmMs: number
  /**
   * The presses in progress, by source: two sources holding one control are two presses, and each
   * release (or cancel) ends its own.
   */
  private readonly presses = new Map<string, Press>()
  /** Redraws the countdown while any press counts down. */
  private tickTimer: NodeJS.Timeout | undefined
  /** Runs while the key says how long to hold, after a tap too short to confirm. */
  private hintTimer: NodeJS.Timeout | undefined
  private running = false
  /** A press sent to the mirrors alone runs (the main still had the one before). */
  private mirrorRunning = false
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

  /** A press from `source` begins (a second down from a source already holding is ignored). */
  down(source = ''): void {
    if (this.presses.has(source) || this.disposed) return
    const press: Press = { holdFired: false, confirmEndsAt: 0 }
    this.presses.set(source, press)
    // Ignored while the sequence runs (the key shows pending), unless a mirror can still take it.
    if (this.running && !this.mirrorFree()) return
    if (this.confirmMs > 0 && this.primary() !== undefined) {
      this.endHint()
      press.confirmEndsAt = performance.now() + this.confirmMs
      press.confirmTimer = setTimeout(() => {
        this.stopCountdown(press)
        if (this.presses.get(source) === press) this.fire(this.primary())
      }, this.confirmMs)
      this.tickTimer ??= setInterval(() => this.host.changed(), ENGINE_TUNABLES.confirmTickMs)
      this.host.changed()
      return
    }
    const hold = this.binding.hold
    if (hold) {
      press.holdTimer = setTimeout(() => {
        press.holdTimer = undefined
        if (this.presses.get(source) !== press) return
        press.holdFired = true
        this.fire(hold)
      }, hold.after_ms ?? ENGINE_TUNABLES.defaultHoldMs)
      return
    }
    this.fire(this.primary())
  }

  /** The press from `source` is released: a short press fires where the binding fires on release. */
  up(source = ''): void {
    const press = this.presses.get(source)
    if (!press) return
    this.presses.delete(source)
    if (press.confirmTimer) {
      // Released before the countdown ended: nothing is sent; the key says how long to hold.
      this.stopCountdown(press)
      this.endHint()
      this.hintTimer = setTimeout(() => {
        this.hintTimer = undefined
        this.host.changed()
      }, TAP_HINT_MS)
      this.host.changed()
      return
    }
    if (this.binding.hold) {
      clearTimeout(press.holdTimer)
      if (!press.holdFired) this.fire(this.primary())
    }
  }

  /**
   * The press from `source` ends without the operator finishing it (a browser gone, a device
   * unplugged, a lease ended): nothing fires. A hold that fired before stays fired.
   */
  cancel(source = ''): void {
    const press = this.presses.get(source)
    if (!press) return
    this.presses.delete(source)
    clearTimeout(press.holdTimer)
    if (press.confirmTimer) {
      this.stopCountdown(press)
      this.host.changed()
    }
  }

  busy(): boolean {
    return this.presses.size > 0
  }

  look(): BehaviourLook {
    const look: BehaviourLook = {
      pending: this.running || this.mirrorRunning,
      failed: this.badge.badge === 'failed',
      context: this.binding.steps ? { step: this.step + 1 } : {},
    }
    const endsAt = this.countdownEndsAt()
    if (endsAt !== undefined) {
      const left = Math.max(0, endsAt - performance.now())
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
    for (const press of this.presses.values()) {
      clearTimeout(press.holdTimer)
      clearTimeout(press.confirmTimer)
    }
    this.presses.clear()
    clearInterval(this.tickTimer)
    this.tickTimer = undefined
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

  /** Ends one press's countdown; the redraw ticks stop when no press counts down any more. */
  private stopCountdown(press: Press): void {
    clearTimeout(press.confirmTimer)
    press.confirmTimer = undefined
    if (this.countdownEndsAt() === undefined) {
      clearInterval(this.tickTimer)
      this.tickTimer = undefined
    }
  }

  /** When the countdown nearest its end ends, or undefined when no press counts down. */
  private countdownEndsAt(): number | undefined {
    let soonest: number | undefined
    for (const p of this.presses.values()) {
      if (p.confirmTimer && (soonest === undefined || p.confirmEndsAt < soonest)) soonest = p.confirmEndsAt
    }
    return soonest
  }

  /** Whether a press made now can go to a mirror alone: the binding has one, and it has no press of ours. */
  private mirrorFree(): boolean {
    return !this.mirrorRunning && this.host.mirrored?.() === true
  }

  private fire(actions: Actions | undefined): void {
    if (actions === undefined || this.disposed) return
    if (this.running) {
      if (this.mirrorFree()) this.mirrorRun(actions)
      return
    }
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

  /**
   * A press while the main has not answered the binding's previous one: its commands go to the mirrors
   * alone (those that answered theirs). Page switches and resyncs are the main run's to make, once.
   */
  private mirrorRun(actions: Actions): void {
    this.mirrorRunning = true
    const host = this.host
    const mirrors: BehaviourHost = {
      origin: host.origin,
      get state() {
        return host.state
      },
      send: (command, params, options) => host.send(command, params, { ...options, mirrorsOnly: true }),
      changed: () => host.changed(),
      setPage: () => {},
      resync: () => Promise.resolve({ ok: true, reply: {} }),
      titleContext: () => host.titleContext(),
      ...(host.isHeld ? { isHeld: (on: string) => host.isHeld!(on) } : {}),
      ...(host.notSent ? { notSent: (command: string, reason: string) => host.notSent!(command, reason) } : {}),
    }
    const ctx = { ...host.titleContext(), ...(this.binding.steps ? { step: this.step + 1 } : {}) }
    const done = runActions(mirrors, actions, ctx, () => this.disposed)
    host.changed()
    void done.then((result) => {
      this.mirrorRunning = false
      if (this.disposed) return
      if (!result.ok && !isBusy(result)) {
        this.failure = result.message
        this.badge.fail()
      }
      host.changed()
    })
  }
}
