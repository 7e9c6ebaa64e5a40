/**
 * The instant-replay state machine (decisions: Replay states):
 *
 *   disabled ─arm─▶ armed ─enable─▶ recording ─scrubbing on─▶ replay ─scrubbing off─▶ recording
 *   recording | replay ─enter playback─▶ playback ─exit playback─▶ (back where it came from)
 *   any state ─disarm the last input─▶ disabled
 *
 * A command that cannot act in the current state is refused with the reason (REFUSALS, ASSUMED); a
 * bad value is 'invalid params'.
 * Every time is in seconds inside the buffer [0, bufferLength] (default 20 s).
 */
import { APP_ERRORS, SIM_ASSUMED_DEFAULTS, type ReplayState } from '../../api/protocol.js'
import { refused, REFUSALS } from './refusals.js'
import { HandlerError } from './types.js'

export interface ReplaySettings {
  armedPortList: { name: string }[]
  bufferLength: number
  muteGraphicsOnReplay: boolean
  playSpeed: number
  transIn: string
  transOut: string
  usesExternalSwitcher: boolean
}

const ENABLED: readonly ReplayState[] = ['recording', 'replay', 'playback']

function invalidParams(): HandlerError {
  return new HandlerError(APP_ERRORS.invalidParams)
}

export class ReplayModel {
  state: ReplayState = 'disabled'
  /** Input names in arming order. */
  armed: string[] = []
  playing = false
  speed = 1
  bufferLength: number = SIM_ASSUMED_DEFAULTS.replayBufferSeconds
  inPoint = 0
  outPoint: number = SIM_ASSUMED_DEFAULTS.replayBufferSeconds
  scrubPosition = 0
  muteGraphicsOnReplay = false
  transIn = 'Cut'
  transOut = 'Cut'
  usesExternalSwitcher = false
  /** Where replay_exit_playback returns to. */
  private beforePlayback: ReplayState = 'recording'

  constructor(
    /** Inputs usable for replay (replay_get_inputs). */
    readonly available: readonly string[],
    private readonly frameRate: () => number,
  ) {}

  get enabled(): boolean {
    return ENABLED.includes(this.state)
  }

  arm(inputs: string[]): void {
    if (inputs.length === 0 || inputs.some((i) => !this.available.includes(i))) throw invalidParams()
    for (const i of inputs) if (!this.armed.includes(i)) this.armed.push(i)
    if (this.state === 'disabled') this.state = 'armed' // the buffer starts at once
  }

  disarm(inputs: string[]): void {
    if (inputs.length === 0) throw invalidParams()
    if (this.state === 'disabled') throw refused(REFUSALS.replayNotArmed)
    if (!inputs.some((i) => this.armed.includes(i))) throw invalidParams()
    this.armed = this.armed.filter((i) => !inputs.includes(i))
    if (this.armed.length === 0) {
      this.state = 'disabled'
      this.playing = false
    }
  }

  /** armed → recording. Already enabled: nothing to do. Nothing armed: refused. */
  enable(speed?: number): void {
    if (this.state === 'disabled') throw refused(REFUSALS.replayNotArmed)
    if (speed !== undefined) this.setSpeed(speed)
    if (this.state === 'armed') this.state = 'recording'
  }

  enableScrubbing(on: boolean): void {
    if (on) {
      if (this.state === 'recording') this.state = 'replay'
      else if (this.state !== 'replay') throw this.notRecording()
    } else {
      if (this.state === 'replay') {
        this.state = 'recording'
        this.playing = false
      } else if (this.state !== 'recording') throw this.notRecording()
    }
  }

  enterPlayback(): void {
    if (this.state !== 'recording' && this.state !== 'replay') throw this.notRecording()
    this.beforePlayback = this.state
    this.state = 'playback'
  }

  exitPlayback(): void {
    if (this.state !== 'playback') throw refused(REFUSALS.notInPlayback)
    this.state = this.beforePlayback
  }

  playPause(): void {
    if (this.state !== 'replay') throw refused(REFUSALS.notInReplayMode)
    this.playing = !this.playing
  }

  setInPoint(position: number): void {
    if (!this.enabled) throw refused(REFUSALS.replayNotEnabled)
    this.inPoint = this.clamp(position)
    if (this.outPoint < this.inPoint) this.outPoint = this.inPoint
  }

  setOutPoint(position: number): void {
    if (!this.enabled) throw refused(REFUSALS.replayNotEnabled)
    this.outPoint = this.clamp(position)
    if (this.inPoint > this.outPoint) this.inPoint = this.outPoint
  }

  setScrubPosition(position: number): void {
    if (this.state !== 'replay') throw refused(REFUSALS.notInReplayMode)
    this.scrubPosition = this.clamp(position)
  }

  /** The refusal of a move that needs replay recording or in replay mode, in the state it is in. */
  private notRecording(): HandlerError {
    return refused(this.state === 'playback' ? REFUSALS.inPlayback : REFUSALS.replayNotEnabled)
  }

  setSpeed(speed: number): void {
    if (!Number.isFinite(speed)) throw invalidParams()
    this.speed = speed
  }

  playInfo(): Record<string, number> {
    return {
      frameRate: this.frameRate(),
      replayDuration: this.outPoint - this.inPoint,
      replayEnd: this.outPoint,
      replayScrubStart: this.scrubPosition,
      replayStart: this.inPoint,
      replayTime: this.scrubPosition,
    }
  }

  settings(): ReplaySettings {
    return {
      armedPortList: this.armed.map((name) => ({ name })),
      bufferLength: this.bufferLength,
      muteGraphicsOnReplay: this.muteGraphicsOnReplay,
      playSpeed: this.speed,
      transIn: this.transIn,
      transOut: this.transOut,
      usesExternalSwitcher: this.usesExternalSwitcher,
    }
  }

  /**
   * Applies a (partial) settings object. Every field is checked before any is applied, so a bad
   * object changes nothing. armedPortList re-arms exactly the listed inputs.
   */
  applySettings(raw: unknown): void {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalidParams()
    const s = raw as Record<string, unknown>
    const num = (k: string, ok: (n: number) => boolean): number | undefined => {
      if (s[k] === undefined) return undefined
      if (typeof s[k] !== 'number' || !Number.isFinite(s[k]) || !ok(s[k])) throw invalidParams()
      return s[k]
    }
    const bool = (k: string): boolean | undefined => {
      if (s[k] === undefined) return undefined
      if (typeof s[k] !== 'boolean') throw invalidParams()
      return s[k]
    }
    const str = (k: string): string | undefined => {
      if (s[k] === undefined) return undefined
      if (typeof s[k] !== 'string') throw invalidParams()
      return s[k]
    }
    let armed: string[] | undefined
    if (s.armedPortList !== undefined) {
      if (!Array.isArray(s.armedPortList)) throw invalidParams()
      armed = (s.armedPortList as unknown[]).map((p) => {
        const name = typeof p === 'string' ? p : p && typeof p === 'object' ? (p as { name?: unknown }).name : undefined
        if (typeof name !== 'string' || !this.available.includes(name)) throw invalidParams()
        return name
      })
    }
    const bufferLength = num('bufferLength', (n) => n > 0 && n <= 3600)
    const playSpeed = num('playSpeed', () => true)
    const mute = bool('muteGraphicsOnReplay')
    const external = bool('usesExternalSwitcher')
    const transIn = str('transIn')
    const transOut = str('transOut')

    if (bufferLength !== undefined) {
      this.bufferLength = bufferLength
      this.inPoint = this.clamp(this.inPoint)
      this.outPoint = this.clamp(this.outPoint)
      this.scrubPosition = this.clamp(this.scrubPosition)
    }
    if (playSpeed !== undefined) this.speed = playSpeed
    if (mute !== undefined) this.muteGraphicsOnReplay = mute
    if (external !== undefined) this.usesExternalSwitcher = external
    if (transIn !== undefined) this.transIn = transIn
    if (transOut !== undefined) this.transOut = transOut
    if (armed !== undefined) {
      if (armed.length === 0) {
        if (this.state !== 'disabled') this.disarm([...this.armed])
      } else {
        this.armed = [...new Set(armed)]
        if (this.state === 'disabled') this.state = 'armed'
      }
    }
  }

  private clamp(position: number): number {
    return Math.min(Math.max(position, 0), this.bufferLength)
  }
}
