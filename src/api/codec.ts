/**
 * What goes over the wire and what comes back, without the transport (`client.ts` sends).
 *
 * Requests: `encodeParams` (the client's) turns parameters checked by the catalogue's rules
 * (`params.ts`, which the YAML loader uses alone) into a GET query or a POST body. One set of rules for
 * both, so a file that passes `panelbridge check` never meets a `BAD_PARAMS` at run time.
 *
 * Replies: `parseReply` / `decodeReply` check the HTTP status and the envelope (read by the one reply
 * reader, `reply.ts`) and convert the catalogue's reply fields. Pure: the fuzz suite runs them alone.
 */
import {
  getCommandSpec,
  type CommandSpec,
  type FieldSpec,
  type ParamSpec,
  type ScalarType,
  type Shape,
} from './commands.js'
import { AppError, CommandError, HttpStatusError, RequestIdMismatchError } from './errors.js'
import { looksLikeReply, readReply, ReplyShapeError, type ReadReply } from './reply.js'
import { checkParamEntries, type ParamProblem } from './params.js'
import { booleanOf, isRecord, jsonDepthExceeds, jsonSnippet, numberOf } from '../wire.js'

export { checkParams, type ParamProblem, type ParamProblemKind } from './params.js'

export type Transport = 'get' | 'post'

export interface Encoded {
  /** `?a=1&b=2` (GET), or '' */
  query: string
  /** JSON text (POST) */
  body: string
}

/**
 * Checks parameters against the catalogue and encodes them, or returns the first problem. GET values
 * are query text: spaces as `%20` (never `+`: the application does not form-decode, see protocol notes
 * 5.2), commas kept literal so comma-separated lists stay readable, objects as JSON text. POST keeps
 * arrays, objects, numbers and `word` booleans native; flags stay the application's `'1'`/`'0'` strings.
 */
export function encodeParams(
  name: string,
  spec: CommandSpec,
  params: Record<string, unknown>,
  transport: Transport,
  requestId: string,
): Encoded | ParamProblem {
  const { entries, problems } = checkParamEntries(spec, params)
  if (problems.length > 0) return problems[0]!
  if (transport === 'get') {
    let query = ''
    for (const [key, value] of entries) {
      query += `${query ? '&' : '?'}${encodeURIComponent(key)}=${queryText(getText(spec.params[key]!, value))}`
    }
    query += `${query ? '&' : '?'}requestId=${queryText(requestId)}`
    return { query, body: '' }
  }
  const parameters: Record<string, unknown> = {}
  let variables: unknown
  for (const [key, value] of entries) {
    const p = spec.params[key]!
    if (p.body === 'variables') variables = value
    else parameters[key] = postValue(p, value)
  }
  parameters.requestId = requestId
  const body: Record<string, unknown> = { command: name, parameters }
  if (variables !== undefined) body.variables = variables
  return { query: '', body: JSON.stringify(body) }
}

function queryText(text: string): string {
  return encodeURIComponent(text).replace(/%2C/g, ',')
}

function getText(p: ParamSpec, value: unknown): string {
  switch (p.encoding) {
    case 'flag':
      return value ? '1' : '0'
    case 'word':
      return value ? 'true' : 'false'
    case 'csv':
      return (value as string[]).join(',')
    case 'json':
      return JSON.stringify(value)
    case 'text':
      return String(value)
  }
}

function postValue(p: ParamSpec, value: unknown): unknown {
  return p.encoding === 'flag' ? (value ? '1' : '0') : value
}

/** What a command the catalogue lacks may be called: letters, digits, `_`, `.` and `-`. */
const UNLISTED_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/

/**
 * A spec for a command the catalogue lacks (the application has more commands than we know), built
 * from the values given: strings as text, numbers as numbers, booleans as `true`/`false`, string
 * lists comma-joined, objects as JSON. Its reply is taken as it comes, unconverted. Undefined for a
 * name that cannot be a command.
 */
export function unlistedSpec(name: string, params: Record<string, unknown>): CommandSpec | undefined {
  if (!UNLISTED_NAME.test(name)) return undefined
  const specs: Record<string, ParamSpec> = {}
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue
    const type: ParamSpec['type'] =
      typeof value === 'number'
        ? 'number'
        : typeof value === 'boolean'
          ? 'boolean'
          : Array.isArray(value)
            ? 'string[]'
            : isRecord(value)
              ? 'object'
              : 'string'
    const encoding = type === 'boolean' ? 'word' : type === 'string[]' ? 'csv' : type === 'object' ? 'json' : 'text'
    specs[key] = { type, required: false, encoding }
  }
  return { group: 'unlisted', source: 'unlisted', summary: 'A command the catalogue lacks.', params: specs, reply: {} }
}

// ---- replies ------------------------------------------------------------------------------------------

/** How much of a non-200 body is kept in the error, in characters. */
const BODY_SNIPPET_CHARS = 200
/**
 * Deepest nesting accepted in a reply, checked after `requestId` and `command` (so that those keep
 * their own codes); deeper is `BAD_ENVELOPE`. Callers get `raw` and `AppError.result` and may walk or
 * print them, which must not overflow the stack.
 */
export const MAX_REPLY_DEPTH = 64

/** Per-command reply fields derived once from the catalogue, so the hot path does not rebuild them. */
const REPLY_FIELDS = new WeakMap<CommandSpec, [string, FieldSpec][]>()
function replyFields(spec: CommandSpec): [string, FieldSpec][] {
  let r = REPLY_FIELDS.get(spec)
  if (r === undefined) {
    r = Object.entries(spec.reply)
    REPLY_FIELDS.set(spec, r)
  }
  return r
}

/**
 * Parses one reply of command `name`: the HTTP status, then the body as JSON, then the envelope
 * (decisions.md: Replies), converting the catalogue's reply fields. Pure: the client runs every
 * reply through it, and the fuzz suite runs it alone. Throws only `CommandError`s (`BAD_PARAMS` for an
 * unknown command, `HTTP_STATUS`, `BAD_JSON`, `BAD_ENVELOPE`, `REQUEST_ID_MISMATCH`, `APP_ERROR`).
 */
export function parseReply(
  name: string,
  status: number,
  body: string,
  requestId: string,
): { reply: Record<string, unknown>; raw: Record<string, unknown> } {
  const spec = getCommandSpec(name)
  if (spec === undefined) throw new CommandError('BAD_PARAMS', name, 'unknown command', { requestId })
  return decodeReply(name, spec, status, body, requestId)
}

/** `parseReply` for a spec already looked up (the client's, which also decodes unlisted commands). */
export function decodeReply(
  name: string,
  spec: CommandSpec,
  status: number,
  text: string,
  requestId: string,
): { reply: Record<string, unknown>; raw: Record<string, unknown> } {
  if (status !== 200) throw new HttpStatusError(name, status, text.slice(0, BODY_SNIPPET_CHARS), requestId)
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw new CommandError('BAD_JSON', name, `body is not JSON: ${text.slice(0, 80)}`, { cause: err, requestId })
  }
  return parseEnvelope(name, spec, json, requestId)
}

/**
 * Parses the envelope `{result: {command, reply, success, ...fields, error?}}` (decisions.md: Replies)
 * and converts the catalogue's reply fields.
 */
function parseEnvelope(
  name: string,
  spec: CommandSpec,
  json: unknown,
  requestId: string,
): { reply: Record<string, unknown>; raw: Record<string, unknown> } {
  const bad = (why: string): CommandError => new CommandError('BAD_ENVELOPE', name, why, { requestId })
  if (!isRecord(json)) {
    throw bad(jsonDepthExceeds(json, MAX_REPLY_DEPTH) ? 'reply nested too deep' : 'reply is not a JSON object')
  }
  // One reader for both transports (src/api/reply.ts): wrapped in `result` or flat, `error` at either level.
  let read: ReadReply
  try {
    read = readReply(json)
  } catch (err) {
    if (err instanceof ReplyShapeError) throw bad(err.message)
    throw err
  }
  const result = read.fields
  if (read.shape.envelope === 'empty') {
    // Why: the contract shows loadProject, saveProject and subscribe answering a bare `{}`.
    if (spec.emptyReplyAllowed) return { reply: {}, raw: {} }
    throw bad('reply has no result object')
  }
  // A flat reply must say it is one: an envelope key or a field of this command (`{"x": 1}` is not).
  if (
    read.shape.envelope === 'flat' &&
    !looksLikeReply(
      result,
      replyFields(spec).map(([f]) => f),
    )
  ) {
    throw bad('reply has no result object')
  }

  // A missing echo is fine (bare replies cannot carry one); a different one means the reply is not ours.
  const echoed = result.requestId
  if (echoed !== undefined && echoed !== null) {
    // A snippet, never a full JSON.stringify: an id nested 100,000 deep must still be a mismatch.
    const text = typeof echoed === 'string' || typeof echoed === 'number' ? String(echoed) : jsonSnippet(echoed)
    if (text !== requestId) throw new RequestIdMismatchError(name, requestId, text.slice(0, BODY_SNIPPET_CHARS))
  }
  for (const key of ['command', 'reply'] as const) {
    const v = result[key]
    // Why: removeTitleInput answers as setTitleInput (contract); the catalogue records the alias.
    if (v !== undefined && v !== name && v !== spec.replyAlias) throw bad(`result.${key} is ${jsonSnippet(v)}`)
  }
  if (jsonDepthExceeds(result, MAX_REPLY_DEPTH - 1)) throw bad(`reply nested deeper than ${MAX_REPLY_DEPTH} levels`)
  // Why: the application keeps `success: true` beside an `error` (contract: Errors), so `error` decides.
  if (read.error !== undefined) {
    throw new AppError(name, read.error, result, requestId)
  }

  const reply: Record<string, unknown> = {}
  for (const [field, fs] of replyFields(spec)) {
    const converted = convertField(result[field], fs, field, bad)
    if (converted !== undefined) reply[field] = converted
  }
  return { reply, raw: result }
}

type Bad = (why: string) => CommandError

/** Converts one field to its catalogue type; a missing required field or an inconvertible value is `BAD_ENVELOPE`. */
function convertField(value: unknown, fs: FieldSpec, path: string, bad: Bad): unknown {
  if (value === undefined || value === null) {
    if (fs.optional) return undefined
    throw bad(`missing field ${path}`)
  }
  switch (fs.type) {
    case 'array': {
      if (!Array.isArray(value)) throw bad(`field ${path} is not an array`)
      const items = fs.items
      if (items === undefined) return value
      return value.map((item, i) =>
        typeof items === 'string'
          ? convertScalar(item, items, `${path}[${i}]`, bad)
          : convertShape(item, items, `${path}[${i}]`, bad),
      )
    }
    case 'object':
      if (fs.fields === undefined) {
        if (!isRecord(value)) throw bad(`field ${path} is not an object`)
        return value
      }
      return convertShape(value, fs.fields, path, bad)
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
    case 'flag': {
      const v = convertScalar(value, fs.type, path, bad)
      return fs.formEncoded && typeof v === 'string' ? formDecode(v) : v
    }
  }
}

/** Converts the known fields of an object and keeps the others as they are. */
function convertShape(value: unknown, shape: Shape, path: string, bad: Bad): Record<string, unknown> {
  if (!isRecord(value)) throw bad(`field ${path} is not an object`)
  const out: Record<string, unknown> = { ...value }
  for (const [key, fs] of Object.entries(shape)) {
    const v = convertField(value[key], fs, `${path}.${key}`, bad)
    if (v === undefined) delete out[key]
    else out[key] = v
  }
  return out
}

/** Why: the real application often sends numbers and flags as strings (protocol notes 3.1); accept both. */
function convertScalar(value: unknown, type: ScalarType, path: string, bad: Bad): unknown {
  switch (type) {
    case 'string':
      if (typeof value === 'string') return value
      if (typeof value === 'number' || typeof value === 'boolean') return String(value)
      throw bad(`field ${path} is not a string`)
    case 'number':
    case 'integer': {
      const n = numberOf(value)
      if (!Number.isFinite(n)) throw bad(`field ${path} is not a number: ${jsonSnippet(value)}`)
      if (type === 'integer' && !Number.isInteger(n)) throw bad(`field ${path} is not an integer: ${n}`)
      return n
    }
    case 'boolean':
    case 'flag': {
      const b = booleanOf(value)
      if (b === undefined) throw bad(`field ${path} is not a ${type}: ${jsonSnippet(value)}`)
      return type === 'boolean' ? b : b ? '1' : '0'
    }
  }
}

/**
 * Why: duplicateTitle echoes the query's `New+Title` without form-decoding it (protocol notes 5.2).
 * A `+` becomes a space; `%xx` sequences are decoded when they form valid UTF-8. A title really named
 * with a `+` cannot be told apart from this, which is why the client never relies on echoed names.
 */
export function formDecode(text: string): string {
  const spaced = text.replace(/\+/g, ' ')
  if (!/%[0-9A-Fa-f]{2}/.test(spaced)) return spaced
  try {
    return decodeURIComponent(spaced)
  } catch {
    // Not valid percent-encoding (a literal '%' in a name): keep the text as it is.
    return spaced
  }
}
