/**
 * Reading command parameters. A GET carries strings only; `POST /api` and the WebSocket's
 * scheduleCommand may carry numbers, booleans, arrays and objects. Every reader accepts both.
 */
import { APP_ERRORS } from '../api/protocol.js'
import { CommandError } from './types.js'

export type RawParams = Record<string, unknown>

export class Params {
  constructor(
    readonly raw: RawParams,
    /** Title variables sent beside the parameters (POST body `variables`, WS third argument). */
    readonly variables?: unknown,
  ) {}

  has(name: string): boolean {
    const v = this.raw[name]
    return v !== undefined && v !== null && this.str(name) !== ''
  }

  /** The parameter as text: arrays comma-joined, objects as JSON text, absent as ''. */
  str(name: string): string {
    const v = this.raw[name]
    if (v === undefined || v === null) return ''
    if (typeof v === 'string') return v
    if (typeof v === 'number' || typeof v === 'boolean') return String(v)
    if (Array.isArray(v)) return v.map(String).join(',')
    return JSON.stringify(v)
  }

  /** A required text parameter; missing → 'invalid params'. */
  required(name: string): string {
    const v = this.str(name).trim()
    if (v === '') throw new CommandError(APP_ERRORS.invalidParams)
    return v
  }

  /** A number, or `fallback` when absent; present but not a finite number → 'invalid params'. */
  num(name: string, fallback?: number): number | undefined {
    if (!this.has(name)) return fallback
    const v = this.raw[name]
    const n = typeof v === 'number' ? v : Number(this.str(name).trim())
    if (!Number.isFinite(n)) throw new CommandError(APP_ERRORS.invalidParams)
    return n
  }

  /** An integer (e.g. a channel or a position); see num. */
  int(name: string, fallback?: number): number | undefined {
    const n = this.num(name, fallback)
    if (n !== undefined && !Number.isInteger(n)) throw new CommandError(APP_ERRORS.invalidParams)
    return n
  }

  /** A channel index: a non-negative integer, `fallback` when absent. */
  channel(fallback = 0): number {
    const channel = this.int('channel', fallback)!
    if (channel < 0) throw new CommandError(APP_ERRORS.invalidParams)
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
    throw new CommandError(APP_ERRORS.invalidParams)
  }

  /** A comma-separated list (or an array), trimmed, empty items dropped. */
  list(name: string): string[] {
    const v = this.raw[name]
    const items = Array.isArray(v)
      ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)))
      : this.str(name).split(',')
    return items.map((s) => s.trim()).filter((s) => s !== '')
  }
}

/** A boolean as the application's '0'/'1' flag text. */
export function flagText(b: boolean): '0' | '1' {
  return b ? '1' : '0'
}

/**
 * Title variables from any of the forms clients send: an object `{name: value}`, an array of
 * `{name, value}`, or JSON text of either. Anything else gives an empty map.
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
        if (typeof name === 'string') out.set(name, value === undefined || value === null ? '' : toText(value))
      }
    }
  } else if (v && typeof v === 'object') {
    for (const [name, value] of Object.entries(v))
      out.set(name, value === undefined || value === null ? '' : toText(value))
  }
  return out
}

/** A value as text: strings as they are, numbers and flags with `String`, anything else as JSON. */
export function toText(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value) ?? ''
}
