/**
 * Size limits of the simulated application's model, and the bounds of its doors (HTTP, WebSocket, XML,
 * zip). Everything a client can make the simulator keep (titles, their variables and inputs, names,
 * notification senders) is bounded here; a command past a limit changes nothing and answers an `error`
 * that names the limit.
 */
import { HandlerError } from './types.js'

/** The simulator's bounds. */
export const SIM_LIMITS = {
  /** Most titles, over all channels. */
  maxTitles: 1000,
  /** Most variables one title may have (from a title, layer-list or project file). */
  maxVariablesPerTitle: 256,
  /** Most inputs one title may be assigned. */
  maxInputsPerTitle: 64,
  /** Longest title, variable, input or sender name, characters. */
  maxNameChars: 256,
  /** Most notification senders. */
  maxSenders: 64,
  /** Most ids, inputs or events one sender may list. */
  maxSenderItems: 1024,

  /** Largest HTTP request body accepted, bytes; a bigger one is answered 413 and its socket closed. */
  maxBodyBytes: 1024 * 1024,
  /** A request (or a WebSocket handshake) whose headers take longer than this is answered 408 and cut. */
  headersTimeoutMs: 10_000,
  /** A request not received whole (headers and body) within this is answered 408 and cut. */
  requestTimeoutMs: 30_000,
  /** How often the server checks its sockets against those time-outs (Node's default is 30 s). */
  connectionsCheckMs: 1_000,
  /** A socket holding more unsent bytes than this gets no new frames until it drains. */
  sendHighWaterBytes: 1 << 20,
  /** A socket still behind this long after the first frame dropped for it is closed. */
  slowClientGraceMs: 10_000,

  /** Longest XML command text read, characters. */
  maxXmlChars: 64 * 1024,
  /** Most elements in one XML command (the variables of a schedule are one each). */
  maxXmlElements: 1024,
  /** Largest unpacked zip entry readZipEntry gives (a zip bomb stops here with a RangeError). */
  maxZipEntryBytes: 16 * 1024 * 1024,
  /** How deep a profile's `values: strings` looks into a reply; a handler's replies are far shallower. */
  maxShapeDepth: 32,
  /** How many distinct icons (size and colour) stay cached; the least recently used goes first. */
  iconCacheEntries: 64,
} as const

/** The error of a command that would pass a count limit. */
export function tooMany(what: string, limit: number): HandlerError {
  return new HandlerError(`too many ${what} (limit ${limit})`)
}

/** Throws when `count` passes `limit`. */
export function checkCount(count: number, limit: number, what: string): void {
  if (count > limit) throw tooMany(what, limit)
}

/** Returns `name` when it is at most SIM_LIMITS.maxNameChars long; else the command fails naming the limit. */
export function checkName(name: string, what = 'name'): string {
  if (name.length > SIM_LIMITS.maxNameChars)
    throw new HandlerError(`${what} too long (limit ${SIM_LIMITS.maxNameChars} characters)`)
  return name
}
