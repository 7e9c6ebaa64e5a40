/**
 * Why the simulated application refuses a command it cannot carry out in its state, or on a file:
 * the `error` of its reply, `bad request: <reason>` (refusalText, src/api/protocol.ts).
 *
 * ASSUMED, every reason here: the command interface lists a 'bad request' response for the replay and
 * project commands, and neither it nor the protocol notes give its body or any reason; the texts the
 * contract does give (a title not found, 'invalid params', 'unknown command', ...) are APP_ERRORS and
 * are answered as they are. The reasons are the simulator's own words for what the contract's
 * transition table says a command needs (an opened input, a stream running, an armed input, replay
 * mode, playback mode, a confirmation), all in this one table.
 */
import { refusalText } from '../../api/protocol.js'
import { HandlerError } from './types.js'

/** ASSUMED (see the header): the reason for each refusal. */
export const REFUSALS = {
  /** closeVideoIn, switchVideoIn: the device is not open. */
  inputNotOpened: (name: string) => `video input '${name}' is not opened`,
  /** startStreaming while a stream runs. */
  alreadyStreaming: 'already streaming',
  /** stopStreaming with no stream running. */
  notStreaming: 'not streaming',
  /** replay_enable, replay_disarm_inputs with no input armed. */
  replayNotArmed: 'instant replay is not armed: no input is armed',
  /** In and out points, scrubbing, playback while replay is armed but not started (or not armed). */
  replayNotEnabled: 'instant replay is not enabled',
  /** replay_play_pause, replay_set_scrub_position outside replay mode. */
  notInReplayMode: 'instant replay is not in replay mode',
  /** replay_exit_playback outside playback mode. */
  notInPlayback: 'instant replay is not in playback mode',
  /** replay_enter_playback, replay_enable_scrubbing in playback mode. */
  inPlayback: 'instant replay is in playback mode',
  /** closeProject without its confirmation flag. */
  closeNotConfirmed: 'closing the project needs its confirmation (closeProject=1)',
  /** A file command whose folder does not exist (the application creates none). */
  noSuchFolder: 'the folder does not exist',
  /** A file that cannot be written. */
  cannotWrite: 'the file cannot be written',
  /** A file that is missing or cannot be read. */
  cannotRead: 'the file does not exist or cannot be read',
  /** A file read that is not one the application wrote (or of another kind, or damaged). */
  notOurFile: "the file is not one of the application's, or it is damaged",
} as const

/** The refusal a handler throws: the reply's `error` is `bad request: <reason>`. */
export function refused(reason: string): HandlerError {
  return new HandlerError(refusalText(reason))
}
