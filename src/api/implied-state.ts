/**
 * What a command's outcome implies for state the application does not notify (decisions.md: "What
 * panelbridge knows of state the application does not notify"): replay mode, replay speed, streaming,
 * and tally. Called with every command the engine sends and its outcome; one table, so a correction
 * after checking a live application is one line. It lives beside the app state it writes: the
 * mapping layer's sender calls down into it, nothing here calls up.
 */
import type { AppState } from './app-state.js'
import { isRefusal } from './protocol.js'
import { booleanOf, finiteNumberOf, numberOf } from '../wire.js'

/** How a command ended: its raw reply, or the application's error text when it gave one. */
export type CommandOutcome = { ok: true; reply: Readonly<Record<string, unknown>> } | { ok: false; appMessage?: string }

/** Records in `state` what a command and its outcome imply of the application's state. */
export function applyImpliedState(
  state: AppState,
  command: string,
  params: Readonly<Record<string, unknown>>,
  outcome: CommandOutcome,
): void {
  if (!outcome.ok) {
    // A scrub or play/pause acts only in replay mode: `bad request` says it is not (decisions: Errors).
    if (
      isRefusal(outcome.appMessage) &&
      (command === 'replay_set_scrub_position' || command === 'replay_play_pause') &&
      state.replay.state === 'replay'
    ) {
      state.forgetReplayState()
    }
    return
  }
  const replay = state.replay.state
  switch (command) {
    case 'replay_enable_scrubbing': {
      const on = booleanOf(params.enable)
      if (on !== undefined) state.setReplay({ state: on ? 'replay' : 'recording' })
      return
    }
    case 'replay_set_scrub_position':
    case 'replay_play_pause':
      state.setReplay({ state: 'replay' })
      return
    case 'replay_enter_playback':
      state.setReplay({ state: 'playback' })
      return
    case 'replay_exit_playback':
    case 'replay_disarm_inputs':
      // Back to the mode before playback, or disabled if that was the last input: not known here.
      state.forgetReplayState()
      return
    case 'replay_enable':
      if (replay === 'armed') state.setReplay({ state: 'recording' })
      return
    case 'replay_arm_inputs':
      if (replay === 'disabled') state.setReplay({ state: 'armed' })
      return
    case 'replay_set_replay_speed': {
      const speed = finiteNumberOf(params.speed)
      if (speed !== undefined) state.setReplay({ speed })
      return
    }
    case 'startStreaming':
      state.setStreaming({ streaming: true })
      return
    case 'stopStreaming':
      state.setStreaming({ streaming: false })
      return
    case 'getStreamHostServer': {
      const streaming = booleanOf(outcome.reply.streaming)
      if (streaming !== undefined) state.setStreaming({ streaming })
      return
    }
    case 'switchVideoIn': {
      const channel = numberOf(params.channel)
      if (Number.isInteger(channel) && typeof params.video === 'string') state.setTally(channel, params.video)
      return
    }
  }
}
