/**
 * Notification commands: subscribe, unSubscribe, getSubscriptions (contract: Notification commands,
 * rules 1–5).
 */
import { APP_ERRORS } from '../../../api/protocol.js'
import { flagText, type Params } from '../params.js'
import type { Handler, Sender, SimulatorModel } from '../model.js'
import { checkCount, checkName, SIM_LIMITS } from '../limits.js'
import { BARE_REPLY, HandlerError } from '../types.js'

/** `list` with the new `items` appended once each (a Set: 100,000 items must not take n² steps). */
function appended(list: readonly string[], items: readonly string[]): string[] {
  return [...new Set([...list, ...items])]
}

/** A sender's list as the client sent it, within SIM_LIMITS.maxSenderItems. */
function items(p: Params, name: string): string[] {
  const list = [...new Set(p.list(name))]
  checkCount(list.length, SIM_LIMITS.maxSenderItems, `${name === 'events' ? name : `${name}s`} in a sender`)
  return list
}

function findSender(state: SimulatorModel, name: string): Sender | undefined {
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
    const name = checkName(p.str('sender').trim(), 'sender name')
    const events = items(p, 'events')
    const ids = items(p, 'id')
    const inputs = items(p, 'input')
    const existing = findSender(state, name)
    if (existing) {
      // Every list is checked before any is changed, so a refused subscribe changes nothing.
      const next = {
        events: appended(existing.events, events),
        ids: appended(existing.ids, ids),
        inputs: appended(existing.inputs, inputs),
      }
      for (const [k, list] of Object.entries(next))
        checkCount(list.length, SIM_LIMITS.maxSenderItems, `${k} in a sender`)
      Object.assign(existing, next)
      return BARE_REPLY
    }
    // A sender with no events would never send anything (and rule 3 removes such senders).
    if (events.length === 0) throw new HandlerError(APP_ERRORS.invalidParams)
    checkCount(state.senders.length + 1, SIM_LIMITS.maxSenders, 'notification senders')
    state.senders.push({ name, ids, inputs, events, isDefault: false })
    return BARE_REPLY
  },

  /**
   * Rule 3: removes the given ids, inputs and events; a sender left without events is removed.
   * With none of the three given, the whole sender goes. Rule 4: the default sender is refused.
   */
  unSubscribe(state, p) {
    const name = p.str('sender').trim()
    const sender = findSender(state, name)
    if (sender?.isDefault || (name === '' && !sender)) throw new HandlerError(APP_ERRORS.unsubscribeDefault)
    if (!sender) throw new HandlerError(APP_ERRORS.invalidParams)
    const ids = p.list('id')
    const inputs = p.list('input')
    const events = p.list('events')
    if (ids.length + inputs.length + events.length === 0) {
      sender.events = []
    } else {
      const drop = (list: string[], gone: string[]): string[] => {
        const set = new Set(gone)
        return list.filter((x) => !set.has(x))
      }
      sender.ids = drop(sender.ids, ids)
      sender.inputs = drop(sender.inputs, inputs)
      sender.events = drop(sender.events, events)
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
