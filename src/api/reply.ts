/**
 * The one reply reader: how panelbridge reads a command's reply, whatever carried it (the HTTP command
 * interface or `scheduleCommand` over the QWebChannel socket).
 *
 * ASSUMED (protocol notes 1.1, 1.3, 3.1 and 5.1; sources S1 and the vendor's docs), in this one place:
 * - HTTP answers `{"result": {command, reply, success, ...fields, error?}}` [docs].
 * - `scheduleCommand` over the socket answers the same fields **flat**, as JSON **text**: NewBlue's own
 *   module parses the reply text and reads `titles` at the top level [code S1 `getCurrentTitles`].
 * - Which of the two a given application, version or transport sends is not known for every case, so
 *   both shapes are accepted on both transports, as text or as an object.
 * - `error` decides failure, read from whichever level carries it: the application keeps
 *   `success: true` beside an `error` [docs, contract: Errors]. `success: false` fails too.
 *
 * Pure and bounded: text is parsed once, nothing is walked here (callers check depth and fields).
 */
import { isRecord, jsonSnippet } from '../wire.js'

/** How a reply arrived: JSON text or an already parsed value; `result`-wrapped, flat, or the bare `{}`. */
export interface ReplyShape {
  encoding: 'string' | 'object'
  envelope: 'wrapped' | 'flat' | 'empty'
}

export interface ReadReply {
  /** The reply's fields: `result`'s when wrapped, the top level's when flat (never the `result` key itself). */
  fields: Record<string, unknown>
  /** Why the application says the command failed: `error` (either level, inner first), or `success is false`. */
  error?: string
  shape: ReplyShape
}

export type ReplyProblem = 'not-json' | 'not-object' | 'result-not-object'

/** A reply that cannot be read as a command reply at all. */
export class ReplyShapeError extends Error {
  override readonly name = 'ReplyShapeError'
  constructor(
    readonly problem: ReplyProblem,
    message: string,
  ) {
    super(message)
  }
}

/** How much of an `error` that is not text is quoted. */
const ERROR_SNIPPET_CHARS = 200

function errorText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined
  return typeof value === 'string' ? value : jsonSnippet(value, ERROR_SNIPPET_CHARS)
}

/**
 * Reads one reply. `raw` is JSON text (as the socket and HTTP bodies carry it) or a parsed value (as a
 * QWebChannel client that already parsed it hands over). Throws only `ReplyShapeError`.
 */
export function readReply(raw: unknown): ReadReply {
  let value = raw
  let encoding: ReplyShape['encoding'] = 'object'
  if (typeof raw === 'string') {
    encoding = 'string'
    try {
      value = JSON.parse(raw)
    } catch {
      throw new ReplyShapeError('not-json', `reply is not JSON: ${raw.slice(0, 80)}`)
    }
  }
  if (!isRecord(value)) throw new ReplyShapeError('not-object', 'reply is not a JSON object')
  if (Object.hasOwn(value, 'result') && value.result !== undefined && value.result !== null) {
    const result = value.result
    if (!isRecord(result)) throw new ReplyShapeError('result-not-object', 'result is not an object')
    // Inner first: an `error` beside `result` is the outer envelope's, read when the inner has none.
    const error = errorText(result.error) ?? errorText(value.error) ?? failed(result) ?? failed(value)
    return { fields: result, ...(error !== undefined ? { error } : {}), shape: { encoding, envelope: 'wrapped' } }
  }
  const fields: Record<string, unknown> = { ...value }
  delete fields.result
  const envelope = Object.keys(fields).length === 0 ? 'empty' : 'flat'
  const error = errorText(value.error) ?? failed(value)
  return { fields, ...(error !== undefined ? { error } : {}), shape: { encoding, envelope } }
}

function failed(level: Record<string, unknown>): string | undefined {
  return level.success === false || level.success === 'false' ? 'success is false' : undefined
}

/** Keys that mark an object as a command reply even when it carries no field of the command's own. */
const ENVELOPE_KEYS = ['command', 'reply', 'success', 'error', 'requestId'] as const

/** Whether a flat reply names itself a reply (an envelope key) or carries one of `expected` fields. */
export function looksLikeReply(fields: Record<string, unknown>, expected: readonly string[]): boolean {
  return ENVELOPE_KEYS.some((k) => Object.hasOwn(fields, k)) || expected.some((k) => Object.hasOwn(fields, k))
}
