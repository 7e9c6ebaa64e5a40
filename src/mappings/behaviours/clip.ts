/**
 * The replay operator's clip verbs (issue 43), each sugar over catalogue commands, sent in order, once
 * each, a failure stopping the rest (as any action sequence):
 *
 * - `mark_in` / `mark_out`: `replay_set_in_point` / `replay_set_out_point` with the playhead's position;
 * - `go_to_in` / `go_to_out`: `replay_set_scrub_position` at the in or out point;
 * - `play_clip`: `replay_set_scrub_position` at the in point, `replay_set_replay_speed` (`speed`,
 *   default 1), `replay_play_pause`. ASSUMED: the replay is paused when it is pressed (the contract has
 *   no play-only command and `replay_play_pause` toggles; a scrub is taken to leave it paused);
 * - `clear_marks`: `replay_get_settings` (the buffer's length), then the in point at 0 and the out point
 *   at the buffer's end.
 *
 * The playhead is the position panelbridge last sent or read (`../playhead.ts`); in playback, or when
 * it is not known yet, it is read at the press (`replay_get_play_info`, the engine's own command).
 */
import { finiteNumberOf } from '../../wire.js'
import type { ClipAction } from '../schema.js'
import type { SendFailure, SendResult } from '../sender.js'
import type { BehaviourHost } from './types.js'

/** What each verb sends, in order (the command reference prints it: `npm run commands-doc`). */
export const CLIP_SENDS: Readonly<Record<ClipAction['clip'], string>> = {
  mark_in: '`replay_set_in_point` with `position` = the playhead',
  mark_out: '`replay_set_out_point` with `position` = the playhead',
  go_to_in: '`replay_set_scrub_position` with `position` = the in point',
  go_to_out: '`replay_set_scrub_position` with `position` = the out point',
  play_clip:
    '`replay_set_scrub_position` at the in point, `replay_set_replay_speed` with `speed` (default 1), `replay_play_pause`',
  clear_marks:
    '`replay_get_settings` (the buffer length), `replay_set_in_point` at 0, `replay_set_out_point` at the buffer end',
}

/** The speed `play_clip` plays at when the binding gives none. */
const DEFAULT_CLIP_SPEED = 1

function refused(message: string): SendFailure {
  return { ok: false, code: 'NOT_SENT', message }
}

/** Sends the commands in order; the first failure ends the run. */
async function inOrder(host: BehaviourHost, commands: [string, Record<string, unknown>][]): Promise<SendResult> {
  let last: SendResult = { ok: true, reply: {} }
  for (const [command, params] of commands) {
    last = await host.send(command, params)
    if (!last.ok) return last
  }
  return last
}

/** The playhead now: read from the application in playback (it moves) or when not known yet. */
async function playhead(host: BehaviourHost): Promise<number | SendFailure> {
  const replay = host.state.replay
  if (replay.position !== undefined && replay.state !== 'playback') return replay.position
  const info = await host.send('replay_get_play_info', {}, { own: true })
  if (!info.ok) return info
  // The sender recorded the reply in the state (`notePlayhead`), in seconds.
  return host.state.replay.position ?? refused('the application did not say where the playhead is')
}

/** Runs one clip verb. */
export async function runClip(host: BehaviourHost, action: ClipAction): Promise<SendResult> {
  const replay = host.state.replay
  switch (action.clip) {
    case 'mark_in':
    case 'mark_out': {
      const position = await playhead(host)
      if (typeof position !== 'number') return position
      const command = action.clip === 'mark_in' ? 'replay_set_in_point' : 'replay_set_out_point'
      return host.send(command, { position })
    }
    case 'go_to_in':
    case 'go_to_out': {
      const position = action.clip === 'go_to_in' ? replay.inPoint : replay.outPoint
      if (position === undefined) return refused(`no ${action.clip === 'go_to_in' ? 'in' : 'out'} point known yet`)
      return host.send('replay_set_scrub_position', { position })
    }
    case 'play_clip': {
      const position = replay.inPoint
      if (position === undefined) return refused('no in point known yet')
      return inOrder(host, [
        ['replay_set_scrub_position', { position }],
        ['replay_set_replay_speed', { speed: action.speed ?? DEFAULT_CLIP_SPEED }],
        ['replay_play_pause', {}],
      ])
    }
    case 'clear_marks': {
      const settings = await host.send('replay_get_settings', {}, { own: true })
      if (!settings.ok) return settings
      const raw = settings.reply.settings
      const buffer = finiteNumberOf(
        raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>).bufferLength : undefined,
      )
      if (buffer === undefined || buffer <= 0) return refused('the application did not say how long the buffer is')
      return inOrder(host, [
        ['replay_set_in_point', { position: 0 }],
        ['replay_set_out_point', { position: buffer }],
      ])
    }
  }
}
