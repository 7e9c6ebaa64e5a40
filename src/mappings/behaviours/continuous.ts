/**
 * Setters: the shuttle ring, absolute faders and knobs (`value:`), and generic encoders (`rotate:`).
 * Each is latest-wins per binding: at most one request in flight; what arrives meanwhile replaces (or,
 * for relative turns, adds to) what waits, and goes out when the reply arrives. Absolute values are sent
 * only on change.
 */
import { ControlBadge } from '../../surfaces/badge.js'
import { SHUTTLE_ZONES, shuttleZone } from '../../face/control-id.js'
import { ENGINE_TUNABLES } from '../constants.js'
import type { Binding } from '../schema.js'
import type { SendResult } from '../sender.js'
import { fillParams } from './actions.js'
import type { Behaviour, BehaviourHost, BehaviourLook } from './types.js'

/** One request in flight; the newest wanted value waits and replaces an older one. */
class LatestWins<T> {
  private inFlight = false
  private wanted: { value: T } | undefined
  private acknowledged: { value: T } | undefined

  constructor(
    private readonly send: (value: T) => Promise<SendResult>,
    private readonly settled: (result: SendResult) => void,
    private readonly same: (a: T, b: T) => boolean = Object.is,
  ) {}

  get busy(): boolean {
    return this.inFlight
  }

  set(value: T): void {
    this.wanted = { value }
    this.pump()
  }

  private pump(): void {
    if (this.inFlight || !this.wanted) return
    const { value } = this.wanted
    this.wanted = undefined
    if (this.acknowledged && this.same(this.acknowledged.value, value)) return
    this.inFlight = true
    void this.send(value).then((r) => {
      this.inFlight = false
      // A failed value is not taken as sent: the same value asked for again is sent again.
      this.acknowledged = r.ok ? { value } : undefined
      this.settled(r)
      this.pump()
    })
  }
}

/** Shared badge and failure bookkeeping of the setters. */
abstract class Setter implements Behaviour {
  protected readonly badge: ControlBadge
  private failure: string | undefined
  protected disposed = false

  constructor(protected readonly host: BehaviourHost) {
    this.badge = new ControlBadge(() => host.changed())
  }

  protected settled(r: SendResult): void {
    if (this.disposed) return
    if (r.ok) this.failure = undefined
    else {
      this.failure = r.message
      this.badge.fail()
    }
    this.host.changed()
  }

  protected abstract get inFlight(): boolean
  protected abstract context(): BehaviourLook['context']

  busy(): boolean {
    return this.inFlight
  }

  look(): BehaviourLook {
    const look: BehaviourLook = {
      pending: this.inFlight,
      failed: this.badge.badge === 'failed',
      context: this.context(),
    }
    if (look.failed && this.failure !== undefined) look.detail = this.failure
    return look
  }

  dispose(): void {
    this.disposed = true
    this.badge.dispose()
  }
}

/**
 * The speed of a shuttle position: zone = round(|value| × 7), direction from the sign. An 8-entry
 * table is centre plus zones 1..7, mirrored for reverse; a 15-entry table is -7..7 as written. The
 * centre sends ENGINE_TUNABLES.shuttleCentreSpeed (assumed to mean stop); `max_speed` caps either way.
 */
export function shuttleSpeed(value: number, speeds: readonly number[], maxSpeed?: number): number {
  const signed = shuttleZone(Number.isFinite(value) ? value : 0)
  if (signed === 0) return ENGINE_TUNABLES.shuttleCentreSpeed
  const zone = Math.abs(signed)
  const sign = signed < 0 ? -1 : 1
  let speed = speeds.length === 2 * SHUTTLE_ZONES + 1 ? speeds[SHUTTLE_ZONES + sign * zone]! : sign * speeds[zone]!
  if (maxSpeed !== undefined) speed = Math.max(-maxSpeed, Math.min(maxSpeed, speed))
  return speed
}

export class ShuttleSpeed extends Setter {
  private readonly setter: LatestWins<number>
  private speed: number | undefined
  private position = 0

  constructor(
    private readonly shuttle: NonNullable<Binding['shuttle']>,
    host: BehaviourHost,
  ) {
    super(host)
    this.setter = new LatestWins(
      (speed) => {
        const sent = host.send('replay_set_replay_speed', { speed })
        this.badge.setPending(true) // after the send: drawing never delays the request
        return sent.finally(() => this.badge.setPending(false))
      },
      (r) => this.settled(r),
    )
  }

  value(value: number): void {
    if (this.disposed) return
    this.position = value
    this.speed = shuttleSpeed(value, this.shuttle.speeds, this.shuttle.max_speed)
    this.setter.set(this.speed)
    this.host.changed()
  }

  protected get inFlight(): boolean {
    return this.setter.busy
  }
  protected context(): BehaviourLook['context'] {
    return this.speed !== undefined ? { speed: this.speed, value: this.position } : {}
  }
}

/** Decimal places a mapped fader value keeps: finer steps than a fader can set are noise. */
const VALUE_DECIMALS = 4

export class ValueSetter extends Setter {
  private readonly setter: LatestWins<number>
  private position: number | undefined
  private mapped: number | undefined

  constructor(
    private readonly spec: NonNullable<Binding['value']>,
    host: BehaviourHost,
  ) {
    super(host)
    this.setter = new LatestWins(
      (mapped) => {
        const params = { ...fillParams(spec.params, this.ctx()), [spec.param]: mapped }
        const sent = host.send(spec.command, params)
        this.badge.setPending(true)
        return sent.finally(() => this.badge.setPending(false))
      },
      (r) => this.settled(r),
    )
  }

  value(value: number): void {
    if (this.disposed || !Number.isFinite(value)) return
    const v = Math.max(0, Math.min(1, value))
    const [lo, hi] = this.spec.range
    const mapped = Number((lo + v * (hi - lo)).toFixed(VALUE_DECIMALS))
    this.position = v
    this.mapped = mapped
    this.setter.set(mapped)
    this.host.changed()
  }

  override look(): BehaviourLook {
    const look = super.look()
    if (this.position !== undefined) look.value = this.position
    return look
  }

  protected get inFlight(): boolean {
    return this.setter.busy
  }
  protected context(): BehaviourLook['context'] {
    return this.mapped !== undefined ? { value: this.mapped } : {}
  }
  private ctx(): ReturnType<BehaviourHost['titleContext']> {
    return { ...this.host.titleContext(), ...this.context() }
  }
}

/**
 * A rotary control that is not a jog: `{{delta}}` in a parameter is the turn in steps, accelerated
 * (turns closer together than ENGINE_TUNABLES.rotateFastMs move further per detent, up to
 * ENGINE_TUNABLES.rotateMaxMultiplier).
 * Steps that arrive while a request is in flight add up and go out together: none is lost.
 */
export class RotateSender extends Setter {
  private pendingSteps = 0
  private lastTurnAt = Number.NEGATIVE_INFINITY
  private sending = false
  private lastDelta: number | undefined

  constructor(
    private readonly spec: NonNullable<Binding['rotate']>,
    host: BehaviourHost,
  ) {
    super(host)
  }

  rotate(delta: number): void {
    if (this.disposed || !Number.isFinite(delta) || delta === 0) return
    const now = performance.now()
    const gap = now - this.lastTurnAt
    this.lastTurnAt = now
    const accelerate = this.spec.acceleration !== false
    const multiplier =
      accelerate && gap < ENGINE_TUNABLES.rotateFastMs
        ? Math.min(
            ENGINE_TUNABLES.rotateMaxMultiplier,
            Math.max(1, Math.round(ENGINE_TUNABLES.rotateFastMs / Math.max(gap, 1))),
          )
        : 1
    this.pendingSteps += delta * multiplier
    this.pump()
  }

  protected get inFlight(): boolean {
    return this.sending
  }
  protected context(): BehaviourLook['context'] {
    return this.lastDelta !== undefined ? { delta: this.lastDelta } : {}
  }

  private pump(): void {
    if (this.sending || this.pendingSteps === 0) return
    const delta = this.pendingSteps
    this.pendingSteps = 0
    this.lastDelta = delta
    this.sending = true
    const params = fillParams(this.spec.params, { ...this.host.titleContext(), delta })
    const sent = this.host.send(this.spec.command, params)
    this.badge.setPending(true)
    void sent.then((r) => {
      this.sending = false
      this.badge.setPending(false)
      this.settled(r)
      this.pump()
    })
  }
}
