/**
 * Size limits of the simulated application's model. Everything a client can make the simulator keep
 * (titles, their variables and inputs, names, notification senders) is bounded here; a command past a
 * limit changes nothing and answers an `error` that names the limit.
 */
import { HandlerError } from './types.js'

/** Most titles, over all channels. */
export const MAX_TITLES = 1000
/** Most variables one title may have (from a title, layer-list or project file). */
export const MAX_VARIABLES_PER_TITLE = 256
/** Most inputs one title may be assigned. */
export const MAX_INPUTS_PER_TITLE = 64
/** Longest title, variable, input or sender name, characters. */
export const MAX_NAME_CHARS = 256
/** Most notification senders. */
export const MAX_SENDERS = 64
/** Most ids, inputs or events one sender may list. */
export const MAX_SENDER_ITEMS = 1024

/** The error of a command that would pass a count limit. */
export function tooMany(what: string, limit: number): HandlerError {
  return new HandlerError(`too many ${what} (limit ${limit})`)
}

/** Throws when `count` passes `limit`. */
export function checkCount(count: number, limit: number, what: string): void {
  if (count > limit) throw tooMany(what, limit)
}

/** Returns `name` when it is at most MAX_NAME_CHARS long; else the command fails naming the limit. */
export function checkName(name: string, what = 'name'): string {
  if (name.length > MAX_NAME_CHARS) throw new HandlerError(`${what} too long (limit ${MAX_NAME_CHARS} characters)`)
  return name
}
