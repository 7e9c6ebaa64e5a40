/**
 * From the application's state and a binding's runtime to what its control shows: colour by play state
 * (default palette, overridable per binding), label templates, replay / streaming / tally indicators,
 * one badge by precedence, and `stale` on every state-driven control while the link is down or the
 * state it shows is unknown. Pure: the engine calls it whenever something the control shows changed.
 */
import type { AppState, TitleState } from '../api/app-state.js'
import { pickBadge } from '../surfaces/badge.js'
import type { Feedback } from '../surfaces/types.js'
import type { BehaviourLook } from './behaviours/types.js'
import { DEFAULT_PLAY_COLORS, DEFAULT_TEXT_COLOR, INDICATOR_OFF, INDICATOR_ON } from './constants.js'
import type { Binding } from './schema.js'
import { renderTemplate, type Template, type TemplateContext } from './template.js'

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

/** Whether a binding shows application state (and so goes `stale` while the link is down). */
export function isStateDriven(binding: Binding): boolean {
  return binding.feedback !== undefined
}

export interface FeedbackInput {
  binding: Binding
  label: Template | undefined
  look: BehaviourLook
  state: AppState
}

export function computeFeedback({ binding, label, look, state }: FeedbackInput): Feedback {
  const fb = binding.feedback
  const title = followedTitle(binding, state)
  const out: Feedback = { textColor: binding.text_color ?? DEFAULT_TEXT_COLOR }
  const on = indicatorOn(binding, state)
  let stale = false
  if (fb?.title !== undefined) {
    const play = title?.play ?? 'Off'
    out.color = fb.colors?.[play] ?? DEFAULT_PLAY_COLORS[play]
    out.led = play === 'Off' ? 'off' : 'on'
    stale = title === undefined
  } else if (fb) {
    out.color = on === true ? (binding.color ?? INDICATOR_ON) : INDICATOR_OFF
    out.led = on === true ? 'on' : 'off'
    stale = on === undefined
  } else if (look.on !== undefined) {
    out.color = look.on ? (binding.color ?? INDICATOR_ON) : INDICATOR_OFF
    out.led = look.on ? 'on' : 'off'
  } else if (binding.color !== undefined) {
    out.color = binding.color
  }
  if (fb && state.link.status !== 'connected') stale = true
  if (label) out.text = renderTemplate(label, { ...titleContext(title), ...look.context })
  const badge = pickBadge({ failed: look.failed, pending: look.pending, stale })
  if (badge) out.badge = badge
  if (look.detail !== undefined) out.detail = look.detail
  else if (fb?.title !== undefined && !title && state.link.status === 'connected') out.detail = 'no such title'
  if (look.value !== undefined) out.value = look.value
  return out
}
