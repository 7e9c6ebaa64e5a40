/**
 * Instant replay commands (contract: 18) over the ReplayModel state machine. Parameter names are the
 * assumed ones of decisions.md: `inputs`, `enable`, `position`, `speed`, `settings`.
 */
import { APP_ERRORS } from '../../../api/protocol.js'
import type { Params } from '../params.js'
import type { Handler } from '../model.js'
import { HandlerError } from '../types.js'

function position(p: Params): number {
  const n = p.num('position')
  if (n === undefined) throw new HandlerError(APP_ERRORS.invalidParams)
  return n
}

/** `settings` as JSON text (GET) or as an object (POST). */
function settingsParam(p: Params): unknown {
  const raw = p.get('settings')
  if (raw !== null && typeof raw === 'object') return raw
  try {
    return JSON.parse(p.required('settings')) as unknown
  } catch {
    throw new HandlerError(APP_ERRORS.invalidParams)
  }
}

export const replayHandlers: Record<string, Handler> = {
  replay_arm_inputs(state, p) {
    state.replay.arm(p.list('inputs'))
  },
  replay_commands() {
    return { commands: [...REPLAY_COMMANDS] }
  },
  replay_disarm_inputs(state, p) {
    state.replay.disarm(p.list('inputs'))
  },
  replay_enable(state, p) {
    state.replay.enable(p.num('speed'))
  },
  replay_enable_scrubbing(state, p) {
    state.replay.enableScrubbing(p.bool('enable'))
  },
  replay_enter_playback(state) {
    state.replay.enterPlayback()
  },
  replay_exit_playback(state) {
    state.replay.exitPlayback()
  },
  /** Each usable input: name, whether it is armed, and its device type (shape assumed, decisions.md). */
  replay_get_inputs(state) {
    return {
      inputs: state.replay.available.map((name) => ({
        name,
        armed: state.replay.armed.includes(name),
        type: state.videoIns.find((v) => v.name === name)?.type ?? '',
      })),
    }
  },
  replay_get_play_info(state) {
    return state.replay.playInfo()
  },
  replay_get_replay_speed(state) {
    return { speed: state.replay.speed }
  },
  replay_get_settings(state) {
    return { settings: state.replay.settings() }
  },
  /** The simulator is "licensed": never in trial mode. */
  replay_is_trial_mode() {
    return { isTrial: false }
  },
  replay_play_pause(state) {
    state.replay.playPause()
  },
  replay_set_in_point(state, p) {
    state.replay.setInPoint(position(p))
  },
  replay_set_out_point(state, p) {
    state.replay.setOutPoint(position(p))
  },
  replay_set_replay_speed(state, p) {
    const speed = p.num('speed')
    if (speed === undefined) throw new HandlerError(APP_ERRORS.invalidParams)
    state.replay.setSpeed(speed)
  },
  replay_set_scrub_position(state, p) {
    state.replay.setScrubPosition(position(p))
  },
  replay_set_settings(state, p) {
    state.replay.applySettings(settingsParam(p))
  },
}

/** The names replay_commands lists: every replay command. */
const REPLAY_COMMANDS: readonly string[] = Object.keys(replayHandlers).sort()
