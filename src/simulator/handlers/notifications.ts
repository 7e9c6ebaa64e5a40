/**
 * Notification commands: subscribe, unSubscribe, getSubscriptions (contract: Notification commands,
 * rules 1–5).
 */
import { APP_ERRORS } from '../../api/protocol.js'
import { flagText } from '../params.js'
import type { Handler, Sender, SimulatorState } from '../state.js'
import { BARE_REPLY, CommandError } from '../types.js'

function append(list: string[], items: readonly string[]): void {
  for (const item of items) if (!list.includes(item)) list.push(item)
}

function findSender(state: SimulatorState, name: string): Sender | undefined {
  return state.senders.find((s) => s.name === name)
}

function describe(s: Sender): Record<string, string> {
  return {
    name: s.name,
    id: s.ids.join(','),
    input: s.inputs.join(','),
    events: s.events.join(','),
    is_default: flagText(s.isDefault),
  }
}

export const notificationHandlers: Record<string, Handler> = {
  /** Rule 1: creates the sender if unknown, otherwise appends events, inputs and ids. */
  subscribe(state, p) {
    const name = p.str('sender').trim()
    const events = p.list('events')
    const existing = findSender(state, name)
    if (existing) {
      append(existing.events, events)
      append(existing.ids, p.list('id'))
      append(existing.inputs, p.list('input'))
      return BARE_REPLY
    }
    // A sender with no events would never send anything (and rule 3 removes such senders).
    if (events.length === 0) throw new CommandError(APP_ERRORS.invalidParams)
    state.senders.push({ name, ids: p.list('id'), inputs: p.list('input'), events, isDefault: false })
    return BARE_REPLY
  },

  /**
   * Rule 3: removes the given ids, inputs and events; a sender left without events is removed.
   * With none of the three given, the whole sender goes. Rule 4: the default sender is refused.
   */
  unSubscribe(state, p) {
    const name = p.str('sender').trim()
    const sender = findSender(state, name)
    if (sender?.isDefault || (name === '' && !sender)) throw new CommandError(APP_ERRORS.unsubscribeDefault)
    if (!sender) throw new CommandError(APP_ERRORS.invalidParams)
    const ids = p.list('id')
    const inputs = p.list('input')
    const events = p.list('events')
    if (ids.length + inputs.length + events.length === 0) {
      sender.events = []
    } else {
      sender.ids = sender.ids.filter((id) => !ids.includes(id))
      sender.inputs = sender.inputs.filter((i) => !inputs.includes(i))
      sender.events = sender.events.filter((e) => !events.includes(e))
    }
    if (sender.events.length === 0) state.senders = state.senders.filter((s) => s !== sender)
    return { id: p.str('id') }
  },

  /** Rule 5: every sender, or the named one (blank = all). */
  getSubscriptions(state, p) {
    const name = p.str('sender')
    const senders = name.trim() === '' ? state.senders : state.senders.filter((s) => s.name === name.trim())
    return { sender: name, senders: senders.map(describe) }
  },
}
