/**
 * The capture `panelbridge probe --out FILE` writes: every request and reply with times, every frame
 * received, the init reply and the facts observed, as one JSON file a user can attach to a bug report
 * (and that `profileFromCapture` turns into an application profile).
 *
 * - Secrets never reach it: values under secret names (the one list, through `redact` of src/redact.ts), `streamKey=`
 *   and `Bearer` texts (`redactText`), a title variable *named* like a secret (`{variable: "Stream Key",
 *   value}`), the key part of an `rtmp://host/app/<key>` URL, and the same inside JSON text nested in a
 *   frame (a socket reply is JSON text inside the frame's JSON).
 * - It is bounded: frames, exchanges and signals kept (counts), characters per kept text, and the
 *   total; what does not fit is counted in `dropped`, never kept in part as JSON it is not.
 * - Reading one back (`parseCapture`) is bounded too (size, depth) and throws only `CaptureError`.
 */
import { z } from 'zod'
import { redact, redactText } from '../redact.js'
import { isRecord, jsonDepthExceeds } from '../wire.js'
import { PROFILE_FACT_NAMES } from './app-profile-facts.js'

const CAPTURE_FORMAT = 'panelbridge-probe-capture'
const CAPTURE_VERSION = 1
/** What a probe capture keeps at most. */
export const CAPTURE_LIMITS = {
  /** Frames kept (both connections together); later ones are counted in `dropped.frames`. */
  maxFrames: 2000,
  /** Exchanges (request + reply) kept. */
  maxExchanges: 1000,
  /**
   * Characters kept of one frame or one reply. Why 256 Ki: a title list with 72×72 icons for a hundred
   * titles fits; a larger text is kept as its head, marked cut (it is no longer JSON).
   */
  maxTextChars: 256 * 1024,
  /** Characters of frames and replies kept in all: the file stays attachable to a bug report. */
  maxTotalChars: 8 * 1024 * 1024,
  /** Largest capture file read back, bytes (the writer's total plus its envelope). */
  maxFileBytes: 16 * 1024 * 1024,
} as const

/** Deepest nesting redacted or read back; deeper values are kept as redacted text. */
const CAPTURE_MAX_DEPTH = 64

/** A capture that cannot be read. */
export class CaptureError extends Error {
  override readonly name = 'CaptureError'
}

// ---- redaction ------------------------------------------------------------------------------------

/** `rtmp://host/app/<key>`: the stream key is the path after the application name. */
const RTMP_KEY = /(rtmps?:\/\/[^\s/"'\\]+\/[^\s/"'\\]+\/)[^\s"'\\?#]+/gi

/** `scheme://user:password@host`: credentials in a URL. */
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@"'\\]+@/gi

/** A text with the secrets `redactText` knows, URL credentials and the key of an RTMP URL replaced by `***`. */
export function redactCaptureText(text: string): string {
  return redactText(text).replace(RTMP_KEY, '$1***').replace(URL_CREDENTIALS, '$1***@')
}

/** Names judged so far (peer-chosen: the cache is bounded, cleared when full). */
const secretNames = new Map<string, boolean>()
const SECRET_NAMES_CACHED = 1000

/**
 * Whether a field of this name holds a secret, asked of `redact` (src/redact.ts) so that the one
 * list of secret names stays where it is. Names past 200 characters are not secret names.
 */
function isSecretKey(key: string): boolean {
  if (key.length > 200) return false
  let secret = secretNames.get(key)
  if (secret === undefined) {
    const probe: Record<string, unknown> = {}
    Object.defineProperty(probe, key, { value: 'x', enumerable: true })
    secret = (redact(probe) as Record<string, unknown>)[key] === '***'
    if (secretNames.size >= SECRET_NAMES_CACHED) secretNames.clear()
    secretNames.set(key, secret)
  }
  return secret
}

/** A name (`Stream Key`, `stream-key`) as a field name, so that redact's list judges it. */
function secretName(name: unknown): boolean {
  return typeof name === 'string' && isSecretKey(name.replace(/[\s.-]+/g, ''))
}

/**
 * A JSON value with secrets replaced, nested JSON text included. Values deeper than CAPTURE_MAX_DEPTH
 * are replaced by a marker (the frames this walks were bounded in characters first).
 */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactJsonText(value, depth)
  if (value === null || typeof value !== 'object') return value
  if (depth >= CAPTURE_MAX_DEPTH) return Array.isArray(value) ? '[array]' : '[object]'
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1))
  const record = value as Record<string, unknown>
  // `{variable|name: "Stream Key", value: "..."}`: a title variable named like a secret.
  const namedSecret = secretName(record.variable) || secretName(record.name)
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(record)) {
    const hidden = (isSecretKey(k) && typeof v !== 'boolean' && v !== null) || (namedSecret && k === 'value')
    // defineProperty: a key named __proto__ stays a plain entry of the copy.
    Object.defineProperty(out, k, {
      value: hidden ? '***' : redactValue(v, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}

/** Text that is JSON (an object or array) is redacted as JSON and written back compact; other text as text. */
function redactJsonText(text: string, depth: number): string {
  const t = text.trim()
  if ((t.startsWith('{') || t.startsWith('[')) && text.length <= CAPTURE_LIMITS.maxTextChars) {
    let parsed: unknown
    try {
      parsed = JSON.parse(t)
    } catch {
      return redactCaptureText(text)
    }
    if (!jsonDepthExceeds(parsed, CAPTURE_MAX_DEPTH - depth)) return JSON.stringify(redactValue(parsed, depth + 1))
  }
  return redactCaptureText(text)
}

// ---- the capture ------------------------------------------------------------------------------------

export type CaptureTransport = 'http' | 'socket'

/** One request and its reply. `t` and `replyT` are ms since the probe started. */
export interface CaptureExchange {
  t: number
  transport: CaptureTransport
  /** Which socket connection (1: the probe's, 2: the one that compares indexes); absent for HTTP. */
  connection?: number
  /** The HTTP command, or the scheduler method called over the socket. */
  command: string
  /** HTTP parameters, or the socket call's arguments (redacted). */
  params: unknown
  requestId?: string
  replyT?: number
  /** HTTP status. */
  status?: number
  /** The reply as received (HTTP: the body; socket: the data, JSON text stays text), redacted. */
  reply?: unknown
  /** Set when the reply was longer than CAPTURE_LIMITS.maxTextChars: its length; `reply` is then its head. */
  cut?: number
  /** Why the call failed (a code and a message), when it did. */
  failure?: string
}

export interface CaptureFrame {
  t: number
  connection: number
  /** The frame's text, redacted (JSON text stays text, as it arrived). */
  text: string
  /** Set when the frame was longer than CAPTURE_LIMITS.maxTextChars: its length; `text` is then its head. */
  cut?: number
}

export interface CaptureSignal {
  t: number
  connection: number
  object: string
  signal: string
  args: unknown[]
}

/** One fact as probe saw it: `value` when observed, `seen` in words, the verdict against the default profile. */
export interface CaptureFact {
  fact: string
  verdict: 'ok' | 'differs' | 'unchecked'
  value?: string | boolean
  /** The default profile's value it was compared with. */
  expected?: string | boolean
  seen: string
}

export interface CaptureAssumption {
  name: string
  verdict: 'held' | 'differs' | 'unchecked'
  seen: string
}

export interface ProbeCapture {
  format: typeof CAPTURE_FORMAT
  version: typeof CAPTURE_VERSION
  /** ISO times. */
  started: string
  finished?: string
  tool: { name: 'panelbridge probe'; version: string }
  targets: { http: string; socket: string; listenS: number }
  /** What `notifyClientConnected` answered, redacted. */
  application?: unknown
  /** The init reply's `data` of each socket connection, redacted. */
  init: { connection: number; data: unknown }[]
  exchanges: CaptureExchange[]
  frames: CaptureFrame[]
  signals: CaptureSignal[]
  facts: CaptureFact[]
  assumptions: CaptureAssumption[]
  /** What the bounds left out. */
  dropped: { frames: number; exchanges: number; signals: number; chars: number }
}

/** A text cut to CAPTURE_LIMITS.maxTextChars, redacted. */
function keptText(text: string): { text: string; cut?: number } {
  if (text.length <= CAPTURE_LIMITS.maxTextChars) return { text: redactJsonText(text, 0) }
  return { text: redactCaptureText(text.slice(0, CAPTURE_LIMITS.maxTextChars)), cut: text.length }
}

/**
 * Builds a capture as the probe runs, within the bounds. Times are ms since `start` (a clock the
 * caller gives, so tests can fix it).
 */
export class CaptureRecorder {
  readonly capture: ProbeCapture
  private readonly start: number
  private chars = 0

  constructor(
    targets: ProbeCapture['targets'],
    toolVersion: string,
    private readonly now: () => number = Date.now,
  ) {
    this.start = now()
    this.capture = {
      format: CAPTURE_FORMAT,
      version: CAPTURE_VERSION,
      started: new Date(this.start).toISOString(),
      tool: { name: 'panelbridge probe', version: toolVersion },
      targets: {
        http: redactCaptureText(targets.http),
        socket: redactCaptureText(targets.socket),
        listenS: targets.listenS,
      },
      init: [],
      exchanges: [],
      frames: [],
      signals: [],
      facts: [],
      assumptions: [],
      dropped: { frames: 0, exchanges: 0, signals: 0, chars: 0 },
    }
  }

  /** ms since the probe started. */
  elapsed(): number {
    return this.now() - this.start
  }

  /** Takes `n` characters from the total; false (and counted) when they do not fit. */
  private take(n: number): boolean {
    if (this.chars + n > CAPTURE_LIMITS.maxTotalChars) {
      this.capture.dropped.chars += n
      return false
    }
    this.chars += n
    return true
  }

  frame(connection: number, text: string): void {
    if (this.capture.frames.length >= CAPTURE_LIMITS.maxFrames) {
      this.capture.dropped.frames++
      return
    }
    const kept = keptText(text)
    if (!this.take(kept.text.length)) {
      this.capture.dropped.frames++
      return
    }
    this.capture.frames.push({ t: this.elapsed(), connection, ...kept })
  }

  /** Records a request; returns the entry to complete with `reply()` or `failed()` (undefined past the cap). */
  request(
    transport: CaptureTransport,
    command: string,
    params: unknown,
    extra: { connection?: number; requestId?: string } = {},
  ): CaptureExchange | undefined {
    if (this.capture.exchanges.length >= CAPTURE_LIMITS.maxExchanges) {
      this.capture.dropped.exchanges++
      return undefined
    }
    const entry: CaptureExchange = {
      t: this.elapsed(),
      transport,
      ...(extra.connection !== undefined ? { connection: extra.connection } : {}),
      command,
      params: this.bounded(params),
      ...(extra.requestId !== undefined ? { requestId: extra.requestId } : {}),
    }
    this.capture.exchanges.push(entry)
    return entry
  }

  /** Completes an exchange with its reply (HTTP: the body text and status; socket: the data). */
  reply(entry: CaptureExchange | undefined, reply: unknown, status?: number): void {
    if (!entry) return
    entry.replyT = this.elapsed()
    if (status !== undefined) entry.status = status
    if (typeof reply === 'string' && reply.length > CAPTURE_LIMITS.maxTextChars) {
      const kept = keptText(reply)
      if (this.take(kept.text.length)) {
        entry.reply = kept.text
        entry.cut = reply.length
      }
      return
    }
    entry.reply = this.bounded(reply)
  }

  failed(entry: CaptureExchange | undefined, why: string): void {
    if (!entry) return
    entry.replyT = this.elapsed()
    entry.failure = redactCaptureText(why.slice(0, 500))
  }

  signal(connection: number, object: string, signal: string, args: unknown[]): void {
    if (this.capture.signals.length >= CAPTURE_LIMITS.maxFrames) {
      this.capture.dropped.signals++
      return
    }
    const kept = this.bounded(args)
    this.capture.signals.push({
      t: this.elapsed(),
      connection,
      object,
      signal,
      args: Array.isArray(kept) ? (kept as unknown[]) : [kept],
    })
  }

  init(connection: number, data: unknown): void {
    this.capture.init.push({ connection, data: this.bounded(data) })
  }

  application(info: unknown): void {
    this.capture.application = this.bounded(info)
  }

  finish(facts: CaptureFact[], assumptions: CaptureAssumption[]): ProbeCapture {
    this.capture.finished = new Date(this.now()).toISOString()
    this.capture.facts = facts
    this.capture.assumptions = assumptions
    return this.capture
  }

  /**
   * A value redacted and within the bounds: one that is too large (or too deep to write) is kept as
   * the head of its text, marked, and counted against the total.
   */
  private bounded(value: unknown): unknown {
    if (value === undefined) return null
    let text: string
    try {
      text = jsonDepthExceeds(value, CAPTURE_MAX_DEPTH) ? '' : (JSON.stringify(value) ?? 'null')
    } catch {
      text = ''
    }
    if (text === '') return { '(not kept)': 'nested too deep to write' }
    if (text.length > CAPTURE_LIMITS.maxTextChars) {
      const head = redactCaptureText(text.slice(0, 2000))
      this.take(head.length)
      return { '(cut)': text.length, head }
    }
    if (!this.take(text.length)) return { '(not kept)': `${text.length} characters past the capture's total` }
    return redactValue(value)
  }
}

// ---- reading one back -------------------------------------------------------------------------------

const factNames = PROFILE_FACT_NAMES as [string, ...string[]]
const captureSchema = z.looseObject({
  format: z.literal(CAPTURE_FORMAT),
  version: z.literal(CAPTURE_VERSION),
  started: z.string().max(64),
  targets: z.looseObject({ http: z.string().max(2000), socket: z.string().max(2000) }),
  application: z.unknown().optional(),
  facts: z
    .array(
      z.looseObject({
        fact: z.enum(factNames),
        verdict: z.enum(['ok', 'differs', 'unchecked']),
        value: z.union([z.string().max(200), z.boolean()]).optional(),
        seen: z.string().max(4000),
      }),
    )
    .max(100),
})

/** What `parseCapture` guarantees of a capture file; the rest is kept as it was. */
export type ParsedCapture = z.infer<typeof captureSchema>

/** Reads a capture's text (bounded in size and depth). Throws only CaptureError. */
export function parseCapture(text: string): ParsedCapture {
  if (text.length > CAPTURE_LIMITS.maxFileBytes) {
    throw new CaptureError(`a capture is at most ${CAPTURE_LIMITS.maxFileBytes} bytes; this one has ${text.length}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new CaptureError('not a capture: the file is not JSON')
  }
  if (!isRecord(json) || jsonDepthExceeds(json, CAPTURE_MAX_DEPTH + 8)) {
    throw new CaptureError('not a capture: not a JSON object of the capture format')
  }
  const parsed = captureSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new CaptureError(`not a capture: ${issue ? `${issue.path.join('.') || '(top)'}: ${issue.message}` : ''}`)
  }
  return parsed.data
}
