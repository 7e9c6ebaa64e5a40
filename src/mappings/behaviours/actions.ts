/** Runs an action sequence: commands in order (a failure stops the rest), waits, page switches. */
import type { Action, Actions } from '../schema.js'
import type { SendResult } from '../sender.js'
import { fillParam, type TemplateContext } from '../template.js'
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
      last = await host.send(action.command, fillParams(action.params, ctx), options)
      if (!last.ok) return last
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
