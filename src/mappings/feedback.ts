/**
 * From the application's state and a binding's runtime to what its control shows: colour by play state
 * (default palette, overridable per binding), label templates (`{{play}}` in the binding's own words when
 * it gives `labels`), replay / streaming / tally indicators, and one badge by precedence: `stale` on
 * every state-driven control while the link is down (the application is gone: what it shows may be a
 * lie), `unknown` while the state it shows has not been seen yet (replay state before any replay command,
 * tally before a switch, a title the application does not have, a fader before it moved or, for a replay
 * speed fader, before any speed was set). Pure: the
 * engine calls it whenever something the control shows changed.
 */
import type { AppState, TitleState } from '../api/app-state.js'
import { pickBadge } from '../surfaces/badge.js'
import type { Feedback } from '../face/feedback.js'
import type { BehaviourLook } from './behaviours/types.js'
import { FEEDBACK_COLORS } from './constants.js'
import type { Binding } from './schema.js'
import { replayContext } from './playhead.js'
import { renderTemplate, TEMPLATE_NAMES, UNKNOWN_VALUE_TEXT, type Template, type TemplateContext } from './template.js'

/** The title a binding follows (its feedback title), looked up by name, then by id. */
export function followedTitle(binding: Binding, state: AppState): TitleState | undefined {
  const name = binding.feedback?.title
  return name === undefined ? undefined : state.findTitle(name)
}

/** The template context of the followed title. */
export function titleContext(title: TitleState | undefined): TemplateContext {
  return title ? { name: title.name, play: title.play, variables: title.variables } : {}
}

/**
 * Whether the control's state indicator is lit: undefined when the state is unknown (replay mode before
 * any own reply, streaming before a reply or poll, tally before an own switch) or when the binding shows
 * no state.
 */
export function indicatorOn(binding: Binding, state: AppState): boolean | undefined {
  const fb = binding.feedback
  if (!fb) return undefined
  if (fb.title !== undefined) {
    const t = state.findTitle(fb.title)
    return t ? t.play !== 'Off' : undefined
  }
  if (fb.replay_state !== undefined) {
    const s = state.replay.state
    return s === undefined ? undefined : s === fb.replay_state
  }
  if (fb.streaming !== undefined) {
    const s = state.streaming.streaming
    return s === undefined ? undefined : s === fb.streaming
  }
  if (fb.input !== undefined) {
    const live = state.tally.get(fb.channel ?? 0)
    return live === undefined ? undefined : live === fb.input
  }
  return undefined
}

/** The command and parameter that set the replay speed: a fader bound to them shows the speed. */
const REPLAY_SPEED = { command: 'replay_set_replay_speed', param: 'speed' } as const

/**
 * The replay speed last set (`AppState.replay.speed`, from a reply to any replay speed command) as a
 * position of a fader bound to set it: clamped to its range. Undefined for other bindings, or before
 * any speed was set.
 */
export function replaySpeedOf(binding: Binding, state: AppState): { speed: number; position: number } | undefined {
  const v = binding.value
  const speed = state.replay.speed
  if (!v || v.command !== REPLAY_SPEED.command || v.param !== REPLAY_SPEED.param || speed === undefined)
    return undefined
  const [lo, hi] = v.range
  if (!Number.isFinite(speed) || hi === lo) return undefined
  return { speed, position: Math.min(1, Math.max(0, (speed - lo) / (hi - lo))) }
}

/** Whether a binding shows the replay speed (see `replaySpeedOf`), and so is redrawn when it changes. */
export function showsReplaySpeed(binding: Binding): boolean {
  return binding.value?.command === REPLAY_SPEED.command && binding.value.param === REPLAY_SPEED.param
}

const PLAYHEAD_UNKNOWN = Object.fromEntries(
  TEMPLATE_NAMES.filter((n) => n.startsWith('replay.')).map((n) => [n, UNKNOWN_VALUE_TEXT]),
)

export interface FeedbackInput {
  binding: Binding
  label: Template | undefined
  look: BehaviourLook
  state: AppState
}

export function computeFeedback({ binding, label, look: own, state }: FeedbackInput): Feedback {
  let look = own
  const fb = binding.feedback
  const title = followedTitle(binding, state)
  const out: Feedback = { textColor: binding.text_color ?? FEEDBACK_COLORS.text }
  const on = indicatorOn(binding, state)
  let unseen = false
  if (fb?.title !== undefined) {
    const play = title?.play ?? 'Off'
    out.color = fb.colors?.[play] ?? FEEDBACK_COLORS.play[play]
    out.led = play === 'Off' ? 'off' : 'on'
    unseen = title === undefined
  } else if (fb) {
    out.color = on === true ? (binding.color ?? FEEDBACK_COLORS.indicatorOn) : FEEDBACK_COLORS.indicatorOff
    out.led = on === true ? 'on' : 'off'
    unseen = on === undefined
  } else if (look.on !== undefined) {
    out.color = look.on ? (binding.color ?? FEEDBACK_COLORS.indicatorOn) : FEEDBACK_COLORS.indicatorOff
    out.led = look.on ? 'on' : 'off'
  } else {
    out.color = binding.color ?? FEEDBACK_COLORS.indicatorOff
  }
  const stale = fb !== undefined && state.link.status !== 'connected'
  // A replay-speed fader shows the speed the application runs at, whoever set it (the shuttle, another
  // fader, a key); its own value while its request is in flight.
  const speed = look.pending ? undefined : replaySpeedOf(binding, state)
  if (speed) look = { ...look, value: speed.position, context: { ...look.context, value: speed.speed } }
  // A fader or knob knows its value only once it moved: until then it is not at its bottom.
  const valueUnknown = binding.value !== undefined && look.value === undefined
  if (label) {
    // A title the application does not have (or not yet: the link is down) keeps its name on the key.
    const named = title ?? (fb?.title !== undefined ? { name: fb.title } : undefined)
    const ctx: TemplateContext = { ...replayContext(state), ...(title ? titleContext(title) : named), ...look.context }
    const words = title ? binding.labels?.[title.play] : undefined
    if (words !== undefined) ctx.play = words
    // The playhead not known yet shows as such on a label (a parameter never sends it: `actions.ts`).
    out.text = renderTemplate(label, ctx, {
      ...PLAYHEAD_UNKNOWN,
      ...(valueUnknown ? { value: UNKNOWN_VALUE_TEXT } : {}),
    })
  }
  const badge = pickBadge({ failed: look.failed, pending: look.pending, stale, unknown: unseen || valueUnknown })
  if (badge) out.badge = badge
  if (look.detail !== undefined) out.detail = look.detail
  else if (fb?.title !== undefined && !title && !stale) out.detail = 'no such title'
  if (look.value !== undefined) out.value = look.value
  return out
}
