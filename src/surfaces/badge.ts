/**
 * One badge per control. Several sources can mark a control at once (its last command failed, a
 * command is in flight, the application is gone, the state it shows was never seen), but a key shows
 * one badge, so the sources meet here: `failed` beats `pending` beats `stale` beats `unknown` (an
 * application that is gone says more than a state not yet seen). `failed` is an event, not a state: it
 * shows for `FAILED_BADGE_MS` and then gives way to whatever else holds.
 *
 * The binding engine keeps one `ControlBadge` per bound control and puts `badge` into the control's
 * `Feedback` whenever `onChange` fires.
 */
import type { FeedbackBadge } from '../face/feedback.js'

/** How long a `failed` badge shows after a failure, in ms: long enough to notice from across a desk. */
export const FAILED_BADGE_MS = 3000

/** Which badge sources hold now. */
export interface BadgeSources {
  failed?: boolean
  pending?: boolean
  stale?: boolean
  unknown?: boolean
}

/** The one badge to show: `failed` > `pending` > `stale` > `unknown`, or none. */
export function pickBadge(sources: BadgeSources): FeedbackBadge | undefined {
  if (sources.failed) return 'failed'
  if (sources.pending) return 'pending'
  if (sources.stale) return 'stale'
  if (sources.unknown) return 'unknown'
  return undefined
}

export interface ControlBadgeOptions {
  /** How long `failed` shows. Default FAILED_BADGE_MS. */
  failedMs?: number
}

/** The badge sources of one control, and the timer that ends `failed`. */
export class ControlBadge {
  private readonly sources: Required<BadgeSources> = { failed: false, pending: false, stale: false, unknown: false }
  private readonly failedMs: number
  private failedTimer: NodeJS.Timeout | undefined
  private shown: FeedbackBadge | undefined

  /** `onChange` is called with the badge to show whenever it changes (not when a hidden source changes). */
  constructor(
    private readonly onChange: (badge: FeedbackBadge | undefined) => void,
    options: ControlBadgeOptions = {},
  ) {
    this.failedMs = options.failedMs ?? FAILED_BADGE_MS
  }

  /** The badge to show now. */
  get badge(): FeedbackBadge | undefined {
    return this.shown
  }

  /** A command failed: shows `failed` for the failed time, counted from now (a repeat restarts it). */
  fail(): void {
    clearTimeout(this.failedTimer)
    this.failedTimer = setTimeout(() => {
      this.failedTimer = undefined
      this.set('failed', false)
    }, this.failedMs).unref()
    this.set('failed', true)
  }

  /** A command for this control is in flight (or no longer). */
  setPending(on: boolean): void {
    this.set('pending', on)
  }

  /** The state this control shows may no longer be true (or is known again). */
  setStale(on: boolean): void {
    this.set('stale', on)
  }

  /** Stops the failed timer; nothing is reported after. */
  dispose(): void {
    clearTimeout(this.failedTimer)
    this.failedTimer = undefined
  }

  private set(source: keyof BadgeSources, on: boolean): void {
    this.sources[source] = on
    const next = pickBadge(this.sources)
    if (next === this.shown) return
    this.shown = next
    this.onChange(next)
  }
}
