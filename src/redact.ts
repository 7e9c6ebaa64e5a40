/**
 * Secrets out and sizes bounded, for anything that is written down: log records (src/log.ts), error
 * messages (src/api/errors.ts) and the simulator's command log (src/app-kit/simulator/hooks.ts). It imports
 * nothing, so a module that only needs to hide a secret does not load the logger.
 *
 * - Values under secret-looking keys (streamKey, token, password, Authorization, ...) become `***`,
 *   at any depth.
 * - In texts: `streamKey=` query parameters, `Bearer` credentials and secret JSON members
 *   (`"token": "..."`) become `***`.
 * - A copy is bounded: texts cut to REDACT_LIMITS.maxTextChars, at most REDACT_LIMITS.maxEntries entries per array or
 *   object, nothing below REDACT_LIMITS.maxDepth, so a hostile value can neither flood nor crash a writer.
 */

const SECRET_KEY = /(stream_?key|token|password|secret|authorization|api_?key|cookie)/i
/**
 * The same secrets as exact field names, for writers that match names rather than patterns (pino's
 * `redact` paths, the logger's second net). Keep it beside SECRET_KEY: a name added there belongs here.
 */
export const SECRET_FIELD_NAMES: readonly string[] = [
  'streamKey',
  'stream_key',
  'token',
  'password',
  'secret',
  'authorization',
  'Authorization',
  'apiKey',
  'api_key',
  'cookie',
]
/** `streamKey=abc` in a query string or a command line. */
const SECRET_IN_TEXT = /((?:stream_?key|token|password|secret|api_?key|authorization)=)[^&\s"']+/gi
/** `Bearer abc` (an Authorization header quoted in a message). */
const BEARER_IN_TEXT = /(\bbearer\s+)[^\s"',;]+/gi
/** `"streamKey": "abc"` (a JSON body quoted in a message, e.g. an application's reply). */
const SECRET_JSON_IN_TEXT = /("(?:stream_?key|token|password|secret|api_?key|authorization)"\s*:\s*")(?:[^"\\]|\\.)*/gi

/** How much of a log record is kept. */
export const REDACT_LIMITS = {
  /** Texts (a log message, string fields) are cut to this many characters. */
  maxTextChars: 2000,
  /** Fields nested deeper than this are replaced by a marker. */
  maxDepth: 6,
  /** Arrays and objects in fields keep this many entries; the rest are counted. */
  maxEntries: 50,
} as const

/** A text cut to REDACT_LIMITS.maxTextChars, with its full length said where it was cut. */
export function cutText(text: string): string {
  return text.length > REDACT_LIMITS.maxTextChars
    ? `${text.slice(0, REDACT_LIMITS.maxTextChars)}… (${text.length} chars)`
    : text
}

/** Replaces secrets in a text (query strings, URLs, Bearer credentials, JSON bodies). */
export function redactText(text: string): string {
  return text.replace(SECRET_IN_TEXT, '$1***').replace(BEARER_IN_TEXT, '$1***').replace(SECRET_JSON_IN_TEXT, '$1***')
}

/**
 * Copies a value with secrets replaced, bounded: texts cut to REDACT_LIMITS.maxTextChars, at most
 * REDACT_LIMITS.maxEntries entries per array or object, nothing below REDACT_LIMITS.maxDepth (a marker
 * instead), BigInts as text. The copy always serialises with `JSON.stringify`.
 */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(cutText(value))
  if (value instanceof Error) return redactText(cutText(value.message))
  if (typeof value === 'bigint') return String(value)
  if (value === null || typeof value !== 'object') return value
  if (depth >= REDACT_LIMITS.maxDepth) return Array.isArray(value) ? '[array]' : '[object]'
  if (Array.isArray(value)) {
    const out = value.slice(0, REDACT_LIMITS.maxEntries).map((v) => redact(v, depth + 1))
    if (value.length > REDACT_LIMITS.maxEntries) out.push(`… ${value.length - REDACT_LIMITS.maxEntries} more`)
    return out
  }
  const out: Record<string, unknown> = {}
  let n = 0
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue
    if (n++ === REDACT_LIMITS.maxEntries) {
      out['…'] = 'more entries'
      break
    }
    const v = (value as Record<string, unknown>)[k]
    // defineProperty: a key named __proto__ stays a plain entry of the copy.
    Object.defineProperty(out, cutText(k), {
      // A yes/no or absent value under a secret's name (`tokenRequired: true`) says nothing secret.
      value: SECRET_KEY.test(k) && typeof v !== 'boolean' && v !== undefined ? '***' : redact(v, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}
