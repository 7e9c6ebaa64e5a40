/**
 * Jog scrubbing that never lags behind the hand.
 *
 * A local cursor in sub-frames (whole frames are sent), seeded from `replay_get_play_info` (and
 * `replay_get_settings` for the buffer length), and seeded again after the wheel has rested (playback
 * moves the position meanwhile). Each signed delta moves it by the step and is clamped to the buffer at
 * once, as the hand feels the end stop. The feel (issue 43): the step is `step_frames`, `step_seconds` or
 * a share of `frames_per_turn`; a held `fine` key divides it; the `acceleration` curve (data: detents in
 * one report → multiplier) multiplies a fast report. Each detent moves a whole number of sub-frames, the
 * same either way, so n detents back undo n forward exactly. Positions are sent latest-wins: at most one
 * `replay_set_scrub_position` in flight per binding, and at least `jogMinIntervalMs` between two; deltas
 * that arrive meanwhile only move the cursor; the newest absolute position goes out as soon as the
 * previous reply has arrived and the interval has passed. Nothing is lost and nothing queues: a fast
 * spin ends with at most one request after the last delta. After a refusal the jog waits
 * `jogRetryAfterRefusalMs` before it asks again, at the next turn.
 */
import { ControlBadge } from '../../surfaces/badge.js'
import { ENGINE_TUNABLES } from '../constants.js'
import type { Binding } from '../schema.js'
import type { SendFailure } from '../sender.js'
import type { Behaviour, BehaviourHost, BehaviourLook } from './types.js'
import { isRefusal } from '../../api/protocol.js'
import { finiteNumberOf } from '../../wire.js'

type Scrub = NonNullable<Binding['jog']>['scrub']

const NOT_IN_REPLAY_MODE = 'not in replay mode'

export class JogScrub implements Behaviour {
  private readonly badge: ControlBadge
  /** The cursor in sub-frames (ENGINE_TUNABLES.jogSubframes a frame); undefined until seeded. */
  private cursor: number | undefined
  private frameRate: number = ENGINE_TUNABLES.assumedFrameRate
  /** Buffer end in frames. */
  private maxFrames = Number.POSITIVE_INFINITY
  /** Deltas (detents, fine or not) that arrived before the seed: moved once the frame rate is known. */
  private early: { delta: number; fine: boolean }[] = []
  private seeding = false
  private inFlight = false
  /** The last position (whole frames) the application acknowledged, or sent and in flight. */
  private sent: number | undefined
  private lastDeltaAt = Number.NEGATIVE_INFINITY
  /** When the last scrub position went out, and the timer that sends the next once the interval has passed. */
  private lastSentAt = Number.NEGATIVE_INFINITY
  private paced: ReturnType<typeof setTimeout> | undefined
  /** When the application last refused a scrub or entering replay mode. */
  private refusedAt = Number.NEGATIVE_INFINITY
  private detail: string | undefined
  private failure: string | undefined
  private entering = false
  /** Replay mode was just entered and no position has landed since. */
  private justEntered = false
  private disposed = false

  constructor(
    private readonly scrub: Scrub,
    private readonly host: BehaviourHost,
  ) {
    this.badge = new ControlBadge(() => host.changed())
  }

  rotate(delta: number): void {
    if (this.disposed || !Number.isFinite(delta) || delta === 0) return
    const now = performance.now()
    const rested = now - this.lastDeltaAt >= ENGINE_TUNABLES.jogReseedAfterMs && !this.inFlight
    this.lastDeltaAt = now
    const fine = this.scrub.fine !== undefined && this.host.isHeld?.(this.scrub.fine.key) === true
    if (this.cursor === undefined || (rested && !this.seeding)) {
      // A seed the application just refused is not asked again at every turn.
      if (!this.seeding && now - this.refusedAt < ENGINE_TUNABLES.jogRetryAfterRefusalMs) return
      this.early.push({ delta, fine })
      if (!this.seeding) this.seed()
      return
    }
    if (this.seeding) {
      this.early.push({ delta, fine })
      return
    }
    this.move(delta, fine)
    this.pump()
  }

  busy(): boolean {
    return this.seeding || this.inFlight || performance.now() - this.lastDeltaAt < ENGINE_TUNABLES.jogReseedAfterMs
  }

  look(): BehaviourLook {
    const look: BehaviourLook = {
      pending: this.inFlight || this.seeding || this.paced !== undefined,
      failed: this.badge.badge === 'failed',
      context: this.cursor !== undefined ? { position: this.frames() / this.frameRate } : {},
    }
    const detail = look.failed && this.failure !== undefined ? this.failure : this.detail
    if (detail !== undefined) look.detail = detail
    return look
  }

  dispose(): void {
    this.disposed = true
    clearTimeout(this.paced)
    this.badge.dispose()
  }

  /**
   * Frames per detent: `step_frames`, or `step_seconds` at the application's frame rate (at least 1), or
   * a share of `frames_per_turn` (a fraction kept: the cursor counts sub-frames).
   */
  private framesPerDetent(): number {
    const { step_seconds, frames_per_turn, detents_per_turn } = this.scrub
    if (frames_per_turn !== undefined)
      return frames_per_turn / (detents_per_turn ?? ENGINE_TUNABLES.defaultDetentsPerTurn)
    if (step_seconds !== undefined) return Math.max(1, Math.round(step_seconds * this.frameRate))
    return Math.max(1, Math.round(this.scrub.step_frames ?? ENGINE_TUNABLES.defaultStepFrames))
  }

  /**
   * Sub-frames one detent moves in a report of `detents`: the step, times the curve's multiplier for a
   * report that many detents strong, divided while the fine key is held; a whole number, the same either
   * way, so a turn back undoes a turn forward exactly.
   */
  private subframesPerDetent(detents: number, fine: boolean): number {
    let multiplier = 1
    for (const [atLeast, m] of this.scrub.acceleration ?? []) if (detents >= atLeast) multiplier = m
    const divide = fine ? (this.scrub.fine?.divide ?? ENGINE_TUNABLES.defaultFineDivide) : 1
    return Math.max(1, Math.round((this.framesPerDetent() * multiplier * ENGINE_TUNABLES.jogSubframes) / divide))
  }

  /** The cursor in whole frames (what is sent). */
  private frames(): number {
    return Math.round((this.cursor ?? 0) / ENGINE_TUNABLES.jogSubframes)
  }

  private move(delta: number, fine: boolean): void {
    const detents = Math.abs(Math.round(delta))
    const next = (this.cursor ?? 0) + Math.sign(delta) * detents * this.subframesPerDetent(detents, fine)
    this.cursor = Math.min(this.maxFrames * ENGINE_TUNABLES.jogSubframes, Math.max(0, next))
  }

  /** Reads the position and the buffer length; deltas meanwhile wait in `early` and apply in order. */
  private seed(): void {
    this.seeding = true
    this.host.changed()
    void Promise.all([
      this.host.send('replay_get_play_info', {}, { own: true }),
      this.host.send('replay_get_settings', {}, { own: true }),
    ]).then(([info, settings]) => {
      this.seeding = false
      if (this.disposed) return
      if (!info.ok) {
        this.early = []
        this.failed(info)
        return
      }
      const rate = finiteNumberOf(info.reply.frameRate)
      if (rate !== undefined && rate > 0) this.frameRate = rate
      const buffer = settings.ok
        ? finiteNumberOf((settings.reply.settings as Record<string, unknown> | undefined)?.bufferLength)
        : undefined
      // Whole frames inside the buffer: the last frame that starts before its end.
      if (buffer !== undefined && buffer > 0) this.maxFrames = Math.floor(buffer * this.frameRate)
      this.cursor =
        Math.round((finiteNumberOf(info.reply.replayTime) ?? 0) * this.frameRate) * ENGINE_TUNABLES.jogSubframes
      this.sent = this.frames()
      for (const { delta, fine } of this.early) this.move(delta, fine)
      this.early = []
      this.pump()
    })
  }

  /**
   * Sends the cursor if it differs from what was sent, nothing is in flight and the interval since the
   * last position has passed (else a timer sends it then); nothing for a while after a refusal.
   */
  private pump(): void {
    const now = performance.now()
    const idle =
      this.inFlight ||
      this.paced !== undefined ||
      this.disposed ||
      this.cursor === undefined ||
      this.frames() === this.sent ||
      now - this.refusedAt < ENGINE_TUNABLES.jogRetryAfterRefusalMs
    const wait = this.lastSentAt + ENGINE_TUNABLES.jogMinIntervalMs - now
    if (!idle && wait > 0) {
      // A position waiting out the interval is pending, as one in flight is.
      this.paced = setTimeout(() => {
        this.paced = undefined
        this.pump()
      }, wait)
      this.badge.setPending(true)
    }
    if (idle || wait > 0) {
      // A position in flight, or waiting out the interval, is drawn when its reply comes or it goes (both
      // pump again): the look is not drawn at every turn of a spinning wheel.
      if (!this.inFlight && this.paced === undefined) this.settled()
      return
    }
    const target = this.frames()
    this.lastSentAt = now
    this.inFlight = true
    // With `enter: true`, "not in replay mode" is the cue to enter it (once per refusal), not a fault.
    const willEnter = this.scrub.enter === true && !this.entering && !this.justEntered
    const sent = this.host.send(
      'replay_set_scrub_position',
      { position: target / this.frameRate },
      willEnter ? { expected: notInReplayMode } : {},
    )
    this.badge.setPending(true) // after the send: drawing never delays the wheel
    void sent.then((r) => {
      this.inFlight = false
      if (this.disposed) return
      if (r.ok) {
        this.sent = target
        this.detail = undefined
        this.failure = undefined
        this.justEntered = false
        this.pump()
        // Still pending (the next position went, or waits out the interval): drawn once for this reply,
        // the badge left as it is (not off and on again for a moment). Else `pump` drew it settled.
        if (this.inFlight || this.paced !== undefined) this.host.changed()
        return
      }
      this.badge.setPending(false)
      this.sent = undefined
      if (notInReplayMode(r)) {
        this.detail = NOT_IN_REPLAY_MODE
        if (willEnter) {
          this.enterReplayMode()
          return
        }
      }
      this.justEntered = false
      this.failed(r)
    })
  }

  /** Nothing in flight or waiting: the pending badge goes and the look is drawn, once. */
  private settled(): void {
    const before = this.badge.badge
    this.badge.setPending(false) // draws when the badge changes
    if (this.badge.badge === before) this.host.changed()
  }

  /** `scrub: { enter: true }`: turns scrubbing on, then sends the newest position. */
  private enterReplayMode(): void {
    this.entering = true
    this.inFlight = true
    void this.host.send('replay_enable_scrubbing', { enable: true }, { own: true }).then((r) => {
      this.inFlight = false
      this.entering = false
      if (this.disposed) return
      if (!r.ok) {
        this.failed(r)
        return
      }
      this.detail = undefined
      // A refusal right after entering is a fault, not a cue to enter again (no loop of requests).
      this.justEntered = true
      this.pump()
    })
  }

  private failed(r: SendFailure): void {
    this.refusedAt = performance.now()
    this.failure = notInReplayMode(r) ? NOT_IN_REPLAY_MODE : r.message
    this.badge.fail()
    this.host.changed()
  }
}

/** The application's refusal of a scrub outside replay mode (decisions: Errors, `bad request`). */
function notInReplayMode(r: SendFailure): boolean {
  return isRefusal(r.message)
}
