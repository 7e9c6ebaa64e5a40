/**
 * Reading command parameters. A GET carries strings only; `POST /api` and the WebSocket's
 * scheduleCommand may carry numbers, booleans, arrays and objects. Every reader accepts both.
 */
import { APP_ERRORS } from '../../api/protocol.js'
import { HandlerError } from './types.js'

export type RawParams = Record<string, unknown>

/**
 * Readers over the parameters a client sent. Every reader returns a value or throws HandlerError (the
 * HTTP layer and the WebSocket turn it into an `error` reply), whatever the client sent: only own
 * properties are read (`constructor` or `toString` is a name like any other), and a value too deep to
 * write as text is 'invalid params', not a RangeError.
 */
export class Params {
  constructor(
    readonly raw: RawParams,
    /** Title variables sent beside the parameters (POST body `variables`, WS third argument). */
    readonly variables?: unknown,
  ) {}

  /** The value sent under `name`, own properties only. */
  get(name: string): unknown {
    return isObject(this.raw) && Object.hasOwn(this.raw, name) ? this.raw[name] : undefined
  }

  has(name: string): boolean {
    const v = this.get(name)
    return v !== undefined && v !== null && this.str(name) !== ''
  }

  /** The parameter as text: arrays comma-joined, objects as JSON text, absent as ''. */
  str(name: string): string {
    const v = this.get(name)
    if (v === undefined || v === null) return ''
    if (Array.isArray(v)) return v.map(paramText).join(',')
    return paramText(v)
  }

  /** A required text parameter; missing → 'invalid params'. */
  required(name: string): string {
    const v = this.str(name).trim()
    if (v === '') throw new HandlerError(APP_ERRORS.invalidParams)
    return v
  }

  /** A number, or `fallback` when absent; present but not a finite number → 'invalid params'. */
  num(name: string, fallback?: number): number | undefined {
    if (!this.has(name)) return fallback
    const v = this.get(name)
    const n = typeof v === 'number' ? v : Number(this.str(name).trim())
    if (!Number.isFinite(n)) throw new HandlerError(APP_ERRORS.invalidParams)
    return n
  }

  /** An integer (e.g. a channel or a position); see num. */
  int(name: string, fallback?: number): number | undefined {
    const n = this.num(name, fallback)
    if (n !== undefined && !Number.isInteger(n)) throw new HandlerError(APP_ERRORS.invalidParams)
    return n
  }

  /** A channel index: a non-negative integer, `fallback` when absent. */
  channel(fallback = 0): number {
    const channel = this.int('channel', fallback)!
    if (channel < 0) throw new HandlerError(APP_ERRORS.invalidParams)
    return channel
  }

  /** A flag: '1', 'true', 'yes', true or 1 are set. Absent → fallback. */
  flag(name: string, fallback = false): boolean {
    if (!this.has(name)) return fallback
    return ['1', 'true', 'yes', 'on'].includes(this.str(name).trim().toLowerCase())
  }

  /** A strict boolean: true/false/1/0 only, anything else → 'invalid params'. */
  bool(name: string): boolean {
    const v = this.str(name).trim().toLowerCase()
    if (v === 'true' || v === '1') return true
    if (v === 'false' || v === '0') return false
    throw new HandlerError(APP_ERRORS.invalidParams)
  }

  /** A comma-separated list (or an array), trimmed, empty items dropped. */
  list(name: string): string[] {
    const v = this.get(name)
    const items = Array.isArray(v) ? v.map(paramText) : this.str(name).split(',')
    return items.map((s) => s.trim()).filter((s) => s !== '')
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null
}

/** toText for a parameter: a value too deep to write is the client's error, 'invalid params'. */
function paramText(v: unknown): string {
  try {
    return toText(v)
  } catch (err) {
    if (err instanceof RangeError) throw new HandlerError(APP_ERRORS.invalidParams)
    throw err
  }
}

/** A boolean as the application's '0'/'1' flag text. */
export function flagText(b: boolean): '0' | '1' {
  return b ? '1' : '0'
}

/**
 * Title variables from any of the forms clients send: an object `{name: value}`, an array of
 * `{name, value}`, or JSON text of either. Anything else gives an empty map; a value too deep to write
 * as text throws HandlerError('invalid params').
 */
export function readVariables(raw: unknown): Map<string, string> {
  const out = new Map<string, string>()
  let v = raw
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v) as unknown
    } catch {
      return out // not JSON: no variables, never a crash
    }
  }
  if (Array.isArray(v)) {
    for (const item of v as unknown[]) {
      if (item && typeof item === 'object' && 'name' in item) {
        const { name, value } = item as { name: unknown; value?: unknown }
        if (typeof name === 'string') out.set(name, value === undefined || value === null ? '' : paramText(value))
      }
    }
  } else if (v && typeof v === 'object') {
    for (const [name, value] of Object.entries(v))
      out.set(name, value === undefined || value === null ? '' : paramText(value))
  }
  return out
}

/** A value as text: strings as they are, numbers and flags with `String`, anything else as JSON. */
export function toText(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value) ?? ''
}
