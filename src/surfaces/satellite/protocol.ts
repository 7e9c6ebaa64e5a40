/**
 * Companion Satellite's line protocol, as Companion's server speaks it (bitfocus/companion,
 * `companion/lib/Service/Satellite/SatelliteApi.ts`; MIT): one command a line, `NAME [OK|ERROR] KEY=VALUE
 * ...`, a value quoted with `"` where it has spaces, `\` taking the next character as it is. What the
 * server says to each client first (`BEGIN` with the API version, then `CAPS`), how the client's
 * parameters read (truthy and falsy words, a rotation's signed DIRECTION) and the bounds of the server
 * (`SATELLITE_LIMITS`). Nothing here does I/O.
 */

/**
 * The API version the server announces in `BEGIN`. 1.14.0 is the one whose `KEY-ROTATE` carries a
 * signed step count (`ROTARY_AMOUNT` in `CAPS`); clients from 1.7.0 on attach (Satellite itself refuses
 * a server older than that).
 */
export const SATELLITE_API_VERSION = '1.14.0'

/**
 * The server's bounds, one record: whatever a client sends or fails to read is bounded by these.
 * ASSUMED: figures for a control room's Satellite boxes, each with a few surfaces, far from any real one.
 */
export const SATELLITE_LIMITS = {
  /** Clients attached at once (TCP and WebSocket together); one more is refused at connect. */
  connections: 16,
  /** Devices one client may add; more are answered `ADD-DEVICE ERROR`. */
  devicesPerConnection: 16,
  /** Controls one device's layout may have. */
  controlsPerDevice: 256,
  /** The widest or tallest bitmap a control may ask for, pixels. */
  bitmapSide: 512,
  /** A line longer than this (bytes, before its newline) drops the client: a layout is a few kilobytes. */
  lineBytes: 256 * 1024,
  /** Output a client has not read yet, bytes, past which it is dropped (its surfaces go stale until it is back). */
  unreadBytes: 4 * 1024 * 1024,
  /** Key images drawn for one device in one turn of the loop; the rest wait for the next turn. */
  drawsPerTurn: 16,
  /** A client that sends nothing for this long is dropped (Satellite pings ten times a second). */
  idleMs: 15_000,
  /** Commands handled from one client in one turn of the loop; its socket waits for the next. */
  linesPerTurn: 256,
} as const

export type SatelliteLimits = { readonly [K in keyof typeof SATELLITE_LIMITS]: number }

/** The bitmap encodings the server offers in `CAPS` (`BITMAP_FORMATS`); `rgb` is every client's fallback. */
export const SATELLITE_BITMAP_FORMATS = ['rgb', 'png', 'webp'] as const
export type SatelliteBitmapFormat = (typeof SATELLITE_BITMAP_FORMATS)[number]

/** A line's parameters: `KEY=VALUE` as the value's text, a bare `KEY` as `true`. */
export type SatelliteParams = Record<string, string | true>

/** A command line: its name (upper case) and parameters. */
export interface SatelliteLine {
  command: string
  /** The text after the name, as it came (a `PING`'s payload goes back in its `PONG`). */
  body: string
  params: SatelliteParams
}

/** Keys that would reach an object's prototype if copied onto a plain object: dropped, as Companion does. */
const BANNED = new Set([
  '__proto__',
  'constructor',
  'prototype',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
])

/** Parses one line (without its newline; a trailing `\r` is dropped). Never throws. */
export function parseSatelliteLine(line: string): SatelliteLine {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line
  const i = text.indexOf(' ')
  const command = (i === -1 ? text : text.slice(0, i)).toUpperCase()
  const body = i === -1 ? '' : text.slice(i + 1)
  return { command, body, params: parseSatelliteParams(body) }
}

/** The parameters of a line's body, as Companion's `parseLineParameters` reads them. */
export function parseSatelliteParams(body: string): SatelliteParams {
  const fragments: string[] = ['']
  let quoted = false
  let i = 0
  while (i < body.length) {
    const c = body[i]!
    if (c === '\\') {
      // The next character as it is (a quote or a space inside a value).
      fragments[fragments.length - 1] += body[i + 1] ?? ''
      i += 2
      continue
    }
    if (c === '"') quoted = !quoted
    else if (c === ' ' && !quoted) fragments.push('')
    else fragments[fragments.length - 1] += c
    i++
  }
  const out: SatelliteParams = Object.create(null) as SatelliteParams
  for (const fragment of fragments) {
    // Split at the first `=` only: a base64 value ends in `=`.
    const eq = fragment.indexOf('=')
    const key = eq === -1 ? fragment : fragment.slice(0, eq)
    if (key === '' || BANNED.has(key)) continue
    out[key] = eq === -1 ? true : fragment.slice(eq + 1)
  }
  return out
}

/** A value to send: text is quoted, a boolean is `1` or `0`. */
export type SatelliteValue = string | number | boolean

/**
 * One message line, with its newline: `NAME [STATUS] [DEVICEID="id"] KEY=VALUE ...`. Text values are
 * quoted; a `"`, `\` or newline in them is dropped (the protocol has no escape the client reads back).
 */
export function formatSatelliteMessage(
  name: string,
  status: 'OK' | 'ERROR' | null,
  deviceId: string | null,
  args: Readonly<Record<string, SatelliteValue>> = {},
): string {
  const parts = [name]
  if (status) parts.push(status)
  if (deviceId !== null) parts.push(`DEVICEID="${safeText(deviceId)}"`)
  for (const [key, value] of Object.entries(args)) {
    const text =
      typeof value === 'boolean'
        ? value
          ? '1'
          : '0'
        : typeof value === 'number'
          ? String(value)
          : `"${safeText(value)}"`
    parts.push(`${key}=${text}`)
  }
  return `${parts.join(' ')}\n`
}

function safeText(text: string): string {
  return text.replace(/["\\\r\n]/g, '')
}

/** A falsy word: `0`, `false` (any case), empty, absent. */
export function isFalsey(value: string | true | undefined): boolean {
  if (value === undefined) return true
  if (value === true) return false
  return value === '' || value === '0' || value.toLowerCase() === 'false'
}

/** A truthy word: `true`, `yes`, or a number of 1 or more (Companion's `isTruthy`). */
export function isTruthy(value: string | true | undefined): boolean {
  if (value === true) return true
  if (isFalsey(value) || value === undefined) return false
  const lower = value.toLowerCase()
  return lower === 'true' || lower === 'yes' || Number(value) >= 1
}

/**
 * A `KEY-ROTATE`'s steps from its DIRECTION: a signed step count from API 1.14 (the sign the direction);
 * before, `1` clockwise and `0` one step back, which the same reading gives (`0` is -1). Anything else
 * not a number: a truthy word one step on, else one back. Undefined for a DIRECTION that is missing or
 * not a finite whole number of steps within reach.
 */
export function rotationSteps(direction: string | true | undefined): number | undefined {
  if (direction === undefined || direction === true || direction === '') return undefined
  const n = Number(direction)
  if (Number.isFinite(n)) {
    if (n === 0) return -1
    // ASSUMED: no encoder turns more than this many steps between two messages; beyond it is a bad message.
    if (!Number.isInteger(n) || Math.abs(n) > 10_000) return undefined
    return n
  }
  return isTruthy(direction) ? 1 : -1
}
