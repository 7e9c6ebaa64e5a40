/**
 * The playhead as a value (issue 43): where the replay is, its in and out points and its speed, as
 * panelbridge last sent them (a scrub, a mark, a speed) or the application last reported them
 * (`replay_get_play_info`). Bindings read it through `{{replay.position}}`, `{{replay.in}}`,
 * `{{replay.out}}`, `{{replay.speed}}` and `{{replay.length}}` (the clip, out − in), resolved at the
 * moment of the press or the redraw.
 *
 * It lives in `AppState.replay` (position, inPoint, outPoint, speed), written here from every command's
 * outcome (the sender calls `notePlayhead` beside the implied state), so the command layer stays as it is.
 */
import type { AppState, ReplayInfo } from '../api/app-state.js'
import { finiteNumberOf } from '../wire.js'
import type { Binding } from './schema.js'
import type { TemplateContext } from './template.js'
import { parseTemplate } from './template.js'

/**
 * Seconds per unit of `replay_get_play_info`'s times (replayTime, replayStart, replayEnd). ASSUMED
 * (decisions.md: "every replay time field is in seconds"; the contract leaves the unit unknown): 1, the
 * scrub position's own unit (seconds in the buffer, the contract's example). One constant to correct.
 */
const PLAY_INFO_SECONDS_PER_UNIT = 1

/** How often the playhead is polled while the replay plays and a control shows it, ms (a label's pace). */
export const PLAYHEAD_POLL_MS = 500

/** The position a replay command sets, by command: what its success says of the playhead. */
const SETS: Partial<Record<string, keyof ReplayInfo>> = {
  replay_set_scrub_position: 'position',
  replay_set_in_point: 'inPoint',
  replay_set_out_point: 'outPoint',
}

/** Records what a command's outcome says of the playhead (`Sender.send` calls it with every command). */
export function notePlayhead(
  state: AppState,
  command: string,
  params: Readonly<Record<string, unknown>>,
  result: { ok: boolean; reply?: Readonly<Record<string, unknown>> },
): void {
  if (!result.ok) return
  const field = SETS[command]
  if (field !== undefined) {
    const position = finiteNumberOf(params.position)
    if (position !== undefined) state.setReplay({ [field]: position })
    return
  }
  if (command === 'replay_get_play_info' && result.reply) {
    const seconds = (key: string): number | undefined => {
      const v = finiteNumberOf(result.reply![key])
      return v === undefined ? undefined : v * PLAY_INFO_SECONDS_PER_UNIT
    }
    const info: ReplayInfo = {}
    const position = seconds('replayTime')
    const inPoint = seconds('replayStart')
    const outPoint = seconds('replayEnd')
    if (position !== undefined) info.position = position
    if (inPoint !== undefined) info.inPoint = inPoint
    if (outPoint !== undefined) info.outPoint = outPoint
    state.setReplay(info)
  }
}

/** The playhead's part of a template context (only what is known: an unknown value renders empty). */
export function replayContext(state: AppState): TemplateContext {
  const r = state.replay
  const ctx: TemplateContext = {}
  if (r.position !== undefined) ctx['replay.position'] = r.position
  if (r.inPoint !== undefined) ctx['replay.in'] = r.inPoint
  if (r.outPoint !== undefined) ctx['replay.out'] = r.outPoint
  if (r.speed !== undefined) ctx['replay.speed'] = r.speed
  if (r.inPoint !== undefined && r.outPoint !== undefined) ctx['replay.length'] = r.outPoint - r.inPoint
  return ctx
}

/** Whether a binding's label shows the playhead (it is redrawn when the replay changes, and polled for). */
export function showsPlayhead(binding: Binding): boolean {
  if (binding.label === undefined || !binding.label.includes('{{replay.')) return false
  return parseTemplate(binding.label).template.parts.some((p) => 'name' in p && p.name.startsWith('replay.'))
}

/** `/api/status`'s `replay`: only what is known (a field not known yet is absent), in seconds. */
export interface ReplayStatus {
  state?: string
  position?: number
  in?: number
  out?: number
  /** The clip: out − in. */
  length?: number
  speed?: number
}

/** The replay as `/api/status` shows it. */
export function replayStatus(state: AppState): ReplayStatus {
  const r = state.replay
  const out: ReplayStatus = {}
  if (r.state !== undefined) out.state = r.state
  if (r.position !== undefined) out.position = r.position
  if (r.inPoint !== undefined) out.in = r.inPoint
  if (r.outPoint !== undefined) out.out = r.outPoint
  if (r.inPoint !== undefined && r.outPoint !== undefined) out.length = r.outPoint - r.inPoint
  if (r.speed !== undefined) out.speed = r.speed
  return out
}
