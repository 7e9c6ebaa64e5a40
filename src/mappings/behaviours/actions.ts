/** Runs an action sequence: commands in order (a failure stops the rest), waits, page switches. */
import type { Action, Actions } from '../schema.js'
import type { SendResult } from '../sender.js'
import { fillParam, usesTemplate, type TemplateContext } from '../template.js'
import { runClip } from './clip.js'
import type { BehaviourHost } from './types.js'

export function actionList(actions: Actions): readonly Action[] {
  return Array.isArray(actions) ? actions : [actions]
}

/** Fills a command's parameters from the templates' context. */
export function fillParams(params: Record<string, unknown> | undefined, ctx: TemplateContext): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(params ?? {})) out[k] = fillParam(v, ctx)
  return out
}

/**
 * The first parameter whose template filled in nothing (`position: '{{replay.position}}'` before the
 * playhead is known): such a command is never sent (an empty value is no value); the press fails with
 * this reason instead.
 */
export function emptyTemplate(
  params: Record<string, unknown> | undefined,
  filled: Record<string, unknown>,
): string | undefined {
  for (const [k, v] of Object.entries(params ?? {})) {
    if (typeof v === 'string' && usesTemplate(v) && filled[k] === '')
      return `${k}: ${v} is empty now, so nothing was sent`
  }
  return undefined
}

/**
 * Runs the sequence. Resolves with the first failure, or `{ok: true}` once every action ran. A stopped
 * sequence (`isCancelled`) ends after the action under way: nothing later is sent.
 */
export async function runActions(
  host: BehaviourHost,
  actions: Actions,
  ctx: TemplateContext,
  isCancelled: () => boolean,
): Promise<SendResult> {
  let last: SendResult = { ok: true, reply: {} }
  for (const action of actionList(actions)) {
    if (isCancelled()) break
    if ('command' in action) {
      const options = action.app !== undefined ? { app: action.app } : undefined
      const params = fillParams(action.params, ctx)
      const empty = emptyTemplate(action.params, params)
      if (empty !== undefined) {
        host.notSent?.(action.command, empty)
        return { ok: false, code: 'NOT_SENT', message: empty }
      }
      last = await host.send(action.command, params, options)
      if (!last.ok) return last
    } else if ('clip' in action) {
      last = await runClip(host, action)
      if (!last.ok) {
        if (last.code === 'NOT_SENT') host.notSent?.(`clip: ${action.clip}`, last.message)
        return last
      }
    } else if ('resync' in action) {
      last = (await host.resync?.(action.resync)) ?? { ok: false, code: 'NOT_CONNECTED', message: 'no mirror' }
      if (!last.ok) return last
    } else if ('wait_ms' in action) {
      await new Promise<void>((resolve) => setTimeout(resolve, action.wait_ms))
    } else {
      host.setPage(action.page)
    }
  }
  return last
}
