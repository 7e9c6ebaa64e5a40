/**
 * The reading side of the daemon's `GET /api/events` for `panelbridge learn`: a bounded Server-Sent
 * Events parser, and a check of each event's fields (what arrives is from the network: a stranger may
 * answer at the daemon's address).
 */
import type { InputEvent, SurfaceStateEvent, UnclaimedDeviceEvent, UnclaimedInputEvent } from '../daemon/api.js'
import { isControlId, isSurfaceName, parseControlId } from '../face/control-id.js'
import { isRecord } from '../wire.js'

/** Longest event (all its lines) or line read from the stream, bytes; a longer one ends the stream. */
export const LEARN_MAX_EVENT_BYTES = 64 * 1024

/** Longest text of the daemon's shown on the terminal (model, device, message), characters. */
const LEARN_MAX_TEXT = 200

/** One Server-Sent Event: its `event:` name (`message` when none) and its `data:` lines joined. */
export interface ServerSentEvent {
  event: string
  data: string
}

/** The stream broke the bounds (an event or line over LEARN_MAX_EVENT_BYTES). */
export class EventStreamError extends Error {
  override readonly name = 'EventStreamError'
}

/**
 * Parses a Server-Sent Events body as it arrives (the WHATWG rules: `event:`, `data:`, comments, a
 * blank line ends an event; `id:` and `retry:` are ignored). Throws EventStreamError past the bounds.
 */
export async function* readServerSentEvents(
  body: AsyncIterable<Uint8Array>,
  maxEventBytes = LEARN_MAX_EVENT_BYTES,
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder()
  let buffer = ''
  let event = ''
  let data: string[] = []
  let size = 0
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true })
    let nl: number
    while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
      // A CR that ends the chunk may be the first half of a CRLF: wait for the next byte.
      if (nl === buffer.length - 1 && buffer[nl] === '\r') break
      const line = buffer.slice(0, nl)
      buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1))
      if (line === '') {
        if (data.length > 0) yield { event: event === '' ? 'message' : event, data: data.join('\n') }
        event = ''
        data = []
        size = 0
        continue
      }
      size += line.length
      if (size > maxEventBytes) throw new EventStreamError(`an event longer than ${maxEventBytes} bytes`)
      if (line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const field = colon < 0 ? line : line.slice(0, colon)
      const value = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1))
      if (field === 'event') event = value
      else if (field === 'data') data.push(value)
    }
    if (buffer.length > maxEventBytes) throw new EventStreamError(`a line longer than ${maxEventBytes} bytes`)
  }
}

/** Text from the daemon as one safe terminal line: control characters shown as `?`, length bounded. */
export function printable(text: string, max = LEARN_MAX_TEXT): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')
  return clean.length > max ? `${clean.slice(0, max)}…` : clean
}

/** An error's message as one safe terminal line. */
export function messageOf(err: unknown): string {
  return printable(err instanceof Error ? err.message : String(err))
}

const STATES: ReadonlySet<string> = new Set(['open', 'closed', 'failed', 'permission-denied', 'waiting'])
const TYPES: ReadonlySet<string> = new Set(['down', 'up', 'rotate', 'value'])

const optionalText = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string'
const optionalNumber = (v: unknown): v is number | undefined =>
  v === undefined || (typeof v === 'number' && Number.isFinite(v))

/** A `surface` event's data, checked; undefined when it is not one. */
export function parseSurfaceEvent(data: string): SurfaceStateEvent | undefined {
  const v = parseJson(data)
  if (!isRecord(v) || typeof v.name !== 'string' || !isSurfaceName(v.name)) return undefined
  if (typeof v.driver !== 'string' || typeof v.state !== 'string' || !STATES.has(v.state)) return undefined
  if (!optionalText(v.device) || !optionalText(v.model) || !optionalText(v.message)) return undefined
  if (!optionalNumber(v.retryInMs)) return undefined
  return {
    name: v.name,
    driver: printable(v.driver),
    state: v.state as SurfaceStateEvent['state'],
    ...(v.device !== undefined ? { device: printable(v.device) } : {}),
    ...(v.model !== undefined ? { model: printable(v.model) } : {}),
    ...(v.message !== undefined ? { message: printable(v.message) } : {}),
    ...(v.retryInMs !== undefined ? { retryInMs: v.retryInMs } : {}),
  }
}

/** An `input` event's data, checked (a canonical control id, the numbers its type needs); else undefined. */
export function parseInputEvent(data: string): InputEvent | undefined {
  const v = parseJson(data)
  if (!isRecord(v) || typeof v.surface !== 'string' || !isSurfaceName(v.surface)) return undefined
  if (typeof v.control !== 'string' || v.control.length > 64 || !isControlId(v.control)) return undefined
  if (typeof v.type !== 'string' || !TYPES.has(v.type) || typeof v.driver !== 'string') return undefined
  if (!optionalText(v.device) || !optionalText(v.label) || !optionalNumber(v.velocity) || !optionalNumber(v.raw))
    return undefined
  const type = v.type as InputEvent['type']
  if (type === 'rotate' && !(typeof v.delta === 'number' && Number.isSafeInteger(v.delta))) return undefined
  if (type === 'value' && !(typeof v.value === 'number' && Number.isFinite(v.value))) return undefined
  return {
    surface: v.surface,
    driver: printable(v.driver),
    ...(v.device !== undefined ? { device: printable(v.device) } : {}),
    control: v.control,
    // The kind follows from the id; the daemon's own word for it is not needed.
    kind: parseControlId(v.control).kind,
    ...(v.label !== undefined ? { label: printable(v.label) } : {}),
    type,
    ...(type === 'down' && v.velocity !== undefined ? { velocity: v.velocity } : {}),
    ...(type === 'rotate' ? { delta: v.delta as number } : {}),
    ...(type === 'value' ? { value: v.value as number, ...(v.raw !== undefined ? { raw: v.raw } : {}) } : {}),
    ...(v.injected === true ? { injected: true as const } : {}),
  }
}

/** Most fields of an unclaimed device's entry taken; a longer one is not an entry of ours. */
const MAX_ENTRY_FIELDS = 16
const ENTRY_KEY = /^[a-z][a-z0-9_]{0,31}$/

/** An `unclaimed` event's data (issue 26 item 2), checked; undefined when it is not one. */
export function parseUnclaimedEvent(data: string): UnclaimedDeviceEvent | undefined {
  const v = parseJson(data)
  if (!isRecord(v) || typeof v.driver !== 'string' || typeof v.device !== 'string') return undefined
  if ((v.state !== 'present' && v.state !== 'gone') || typeof v.presses !== 'boolean') return undefined
  if (!optionalText(v.model)) return undefined
  let entry: UnclaimedDeviceEvent['entry']
  if (v.entry !== undefined) {
    if (!isRecord(v.entry)) return undefined
    const fields = Object.entries(v.entry)
    if (fields.length > MAX_ENTRY_FIELDS) return undefined
    entry = {}
    for (const [key, value] of fields) {
      if (!ENTRY_KEY.test(key)) return undefined
      if (typeof value === 'string') entry[key] = printable(value)
      else if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) entry[key] = value
      else return undefined
    }
  }
  return {
    driver: printable(v.driver, 64),
    device: printable(v.device),
    ...(v.model !== undefined ? { model: printable(v.model) } : {}),
    state: v.state,
    ...(entry ? { entry } : {}),
    presses: v.presses,
  }
}

/** An `unclaimed-input` event's data, checked; undefined when it is not one. */
export function parseUnclaimedInputEvent(data: string): UnclaimedInputEvent | undefined {
  const v = parseJson(data)
  if (!isRecord(v) || typeof v.driver !== 'string' || typeof v.device !== 'string') return undefined
  if (typeof v.control !== 'string' || v.control.length > 64 || !isControlId(v.control)) return undefined
  if (v.type !== 'down' && v.type !== 'up' && v.type !== 'rotate') return undefined
  if (v.type === 'rotate' && !(typeof v.delta === 'number' && Number.isSafeInteger(v.delta))) return undefined
  return {
    driver: printable(v.driver, 64),
    device: printable(v.device),
    control: v.control,
    kind: parseControlId(v.control).kind,
    type: v.type,
    ...(v.type === 'rotate' ? { delta: v.delta as number } : {}),
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined // not JSON: the caller treats it as no event
  }
}
