/**
 * What the facts of an application profile (`profile.ts`, `config/app-profiles/`) mean for the
 * simulator's replies and notifications, in one place: the notification forms on `onNotify`, where
 * play state may be read (`title_status`), the type of reply values (`values`) and the HTTP envelope
 * (`http_reply`). The scheduler's methods and signals are `scheduler.ts`'s; method naming and order
 * are `qwebchannel-server.ts`'s.
 */
import type { PlayState } from '../../api/protocol.js'
import { isRecord } from '../../wire.js'
import type { ProfileFacts } from './profile.js'
import type { Reply } from './types.js'
import { SIM_LIMITS } from './limits.js'

// ---- notifications on onNotify (protocol notes 2.3) ------------------------------------------------

/**
 * A title's play change: `{id, play}` (Titler Live 2021, S2 fccf77c), `{event: 'play', id, play}` (the
 * `event` form of Captivate's data notification applied to play), or nothing.
 */
export function playNotification(facts: ProfileFacts, id: string, play: PlayState): object | undefined {
  switch (facts.play_notification) {
    case 'id-play':
      return { id, play }
    case 'event-play':
      return { event: 'play', id, play }
    case 'none':
      return undefined
  }
}

/**
 * A title's variables changed: `{event: 'data', id, variables: [{name, value}]}` (Captivate, S1), the
 * older `{data: 'Update'}` (Titler Live 2021, S2 483f2a3: the client reloads the titles), or nothing.
 */
export function dataNotification(
  facts: ProfileFacts,
  id: string,
  variables: readonly { name: string; value: string }[],
): object | undefined {
  switch (facts.data_notification) {
    case 'event-data':
      return { event: 'data', id, variables }
    case 'data-update':
      return { data: 'Update' }
    case 'none':
      return undefined
  }
}

/**
 * A title added or removed: `{control: 'addTitle'}` (S2 7243c7f) and the simulator's own
 * `{control: 'removeTitle', id}` beside it; a profile without `control-add-title` announces neither.
 */
export function titleNotification(facts: ProfileFacts, change: 'added' | 'removed', id: string): object | undefined {
  if (facts.title_added !== 'control-add-title') return undefined
  return change === 'added' ? { control: 'addTitle' } : { control: 'removeTitle', id }
}

// ---- replies ----------------------------------------------------------------------------------------

/**
 * Where each command's reply carries a play state (`*` = every item of a list). With `title_status:
 * layer-state-only` these are left out, so play state can be read only through the layer state
 * (`getValueForKey('newblue.automation.layerstate')`, protocol notes 2.4).
 */
const PLAY_STATE_FIELDS: ReadonlyMap<string, readonly (readonly string[])[]> = new Map([
  ['getTitleControlInfo', [['titles', '*', 'status']]],
  ['readTitle', [['titles', '*', 'running', 'playState']]],
  ['getPlayStatus', [['play']]],
  ['getTitlesPlayStatus', [['titles', '*', 'play']]],
  ['getInputsPlayStatus', [['inputs', '*', 'play']]],
])

/** Removes the field at `path` (`*` walks every item of a list); what is not there is left alone. */
function omitPath(value: unknown, path: readonly string[]): void {
  const [step, ...rest] = path
  if (step === undefined) return
  if (step === '*') {
    if (Array.isArray(value)) for (const item of value) omitPath(item, rest)
    return
  }
  if (!isRecord(value) || !Object.hasOwn(value, step)) return
  if (rest.length === 0) delete value[step]
  else omitPath(value[step], rest)
}

/** Numbers and booleans as text (`1.5` → `"1.5"`, `true` → `"true"`), in a copy, at most `depth` deep. */
export function valuesAsText(value: unknown, depth: number = SIM_LIMITS.maxShapeDepth): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  // Deeper than the bound, a value is passed on as it is rather than walked.
  if (depth <= 0 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((v: unknown) => valuesAsText(v, depth - 1))
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const [k, v] of Object.entries(value)) out[k] = valuesAsText(v, depth - 1)
  return out
}

/**
 * A command's reply as the profile answers it on both transports: play-state fields left out with
 * `title_status: layer-state-only`, every number and boolean as text with `values: strings`. `reply`
 * is a handler's fresh reply and may be changed in place; the result is returned.
 */
export function shapeReply(command: string, reply: Reply, facts: ProfileFacts): Reply {
  if (!('result' in reply)) return reply
  if (facts.title_status === 'layer-state-only') {
    for (const path of PLAY_STATE_FIELDS.get(command) ?? []) omitPath(reply.result, path)
  }
  if (facts.values === 'strings') return valuesAsText(reply, SIM_LIMITS.maxShapeDepth + 1) as Reply
  return reply
}

/** The body of an HTTP command reply: `{result: {...}}` (`wrapped`, notes 1.1) or the fields alone (`flat`). */
export function httpReplyBody(reply: Reply, facts: ProfileFacts): unknown {
  return facts.http_reply === 'flat' && 'result' in reply ? reply.result : reply
}
