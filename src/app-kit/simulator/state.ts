/**
 * The simulated application answering commands: its model (`model.ts`) with one `dispatch`, which
 * serves the HTTP interface and the WebSocket's scheduleCommand alike, so both behave identically. The
 * handlers (`handlers/`) see the model only: they and this file import each other in no circle.
 */
import { APP_ERRORS } from '../../api/protocol.js'
import { createLogger } from '../../log.js'
import { isRecord } from '../../wire.js'
import { HANDLERS } from './handlers/index.js'
import { SimulatorModel } from './model.js'
import { Params, type RawParams } from './params.js'
import { shapeReply } from './profile-shapes.js'
import { BARE_REPLY, envelope, HandlerError, type Reply, type ReplyResult } from './types.js'

const log = createLogger('simulator')

/**
 * Commands whose every reply, errors included, names another command as `command` and `reply`
 * (contract: removeTitleInput answers as setTitleInput, without a condition).
 */
const REPLY_ALIASES: ReadonlyMap<string, string> = new Map([['removeTitleInput', 'setTitleInput']])

export class SimulatorState extends SimulatorModel {
  /**
   * Runs one command and builds its reply. Never throws: a failed command answers with `error`,
   * an unknown one with 'unknown command', and a handler bug with an error reply (and a log line).
   */
  dispatch(command: string, rawParams: RawParams = {}, variables?: unknown): Reply {
    // The socket hands over whatever a client sent: anything but an object counts as no parameters.
    const params: RawParams = isRecord(rawParams) ? rawParams : {}
    const base = envelope(
      REPLY_ALIASES.get(command) ?? command,
      Object.hasOwn(params, 'requestId') ? params.requestId : undefined,
    )
    // Every reply, errors included, is shaped here as the profile answers (profile-shapes.ts): the one
    // place both transports pass through.
    return shapeReply(command, this.run(command, params, variables, base), this.profile.facts)
  }

  private run(command: string, params: RawParams, variables: unknown, base: ReplyResult): Reply {
    const handler = Object.hasOwn(HANDLERS, command) ? HANDLERS[command] : undefined
    if (!handler) return { result: { ...base, error: APP_ERRORS.unknownCommand } }
    try {
      const out = handler(this, new Params(params, variables))
      if (out === BARE_REPLY) return {}
      return { result: { ...base, ...(out ?? {}) } }
    } catch (err) {
      if (err instanceof HandlerError) return { result: { ...base, error: err.message } }
      const message = err instanceof Error ? err.message : String(err)
      log.error('command handler failed', { command, message })
      return { result: { ...base, error: `internal error: ${message}` } }
    }
  }

  /**
   * The WebSocket's scheduleAction(action, inputName, titleId, variables): the action on one title
   * (titleId), on every title of an input (inputName), or on all titles when both are empty.
   */
  scheduleAction(action: string, inputName: string, titleId: string, variables: unknown): Reply {
    const params: RawParams = { action }
    if (titleId) params.id = titleId
    if (inputName) params.input = inputName
    return this.dispatch('schedule', params, variables)
  }
}
