/**
 * Small helpers for data that arrives from outside (JSON replies, WebSocket frames), shared by every
 * layer. Nothing here knows the application's protocol or a surface's.
 *
 * The one rule for reading a number or a boolean that may arrive as text is here too (`numberOf`,
 * `booleanOf`): the application sends numbers and flags as strings as often as not (protocol notes
 * 3.1), and a YAML template hands over `"2"`. The reply decoder, the request encoder, what a command
 * implies of the app state and the jog's seed read them so.
 */
import type { RawData } from 'ws'

/** A JSON object: not `null`, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The bytes of a `ws` message, without copying when `ws` already gives one Buffer (its default). */
export function frameBytes(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data
  if (Array.isArray(data)) return Buffer.concat(data)
  return Buffer.from(data)
}

/**
 * True when `value` nests arrays or objects more than `maxDepth` levels deep (`[]` is depth 1, a
 * scalar 0). Iterative, so a value nested a million levels deep is measured without overflowing the
 * stack; stops at the first path past the limit.
 */
export function jsonDepthExceeds(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return false
  const stack: unknown[] = [value]
  const depths: number[] = [1]
  while (stack.length > 0) {
    const v = stack.pop() as object
    const depth = depths.pop()!
    if (depth > maxDepth) return true
    const children: unknown[] = Array.isArray(v) ? v : Object.values(v)
    for (const child of children) {
      if (typeof child !== 'object' || child === null) continue
      stack.push(child)
      depths.push(depth + 1)
    }
  }
  return false
}

/** How deep a value may nest before `jsonSnippet` describes it instead of printing it. */
const SNIPPET_MAX_DEPTH = 32

/**
 * A short text for a value from outside, for error messages and logs: JSON cut to `maxChars`, never a
 * throw (a value nested past SNIPPET_MAX_DEPTH, a BigInt or a cycle is described, not printed).
 */
export function jsonSnippet(value: unknown, maxChars = 80): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, maxChars)).slice(0, maxChars)
  if (jsonDepthExceeds(value, SNIPPET_MAX_DEPTH)) return `[value nested deeper than ${SNIPPET_MAX_DEPTH}]`
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (err) {
    // A BigInt or a cycle: values from JSON never carry them, but a snippet must never throw.
    return `[${typeof value} not printable: ${(err as Error).name}]`
  }
  return (text ?? String(value)).slice(0, maxChars)
}

/** A number, or numeric text (`"23"`, `" 2.5 "`); NaN for anything else, empty or blank text included. */
export function numberOf(value: unknown): number {
  if (typeof value === 'number') return value
  if (typeof value === 'string' && value.trim() !== '') return Number(value)
  return Number.NaN
}

/** `numberOf` when it is finite, else undefined. */
export function finiteNumberOf(value: unknown): number | undefined {
  const n = numberOf(value)
  return Number.isFinite(n) ? n : undefined
}

/** `true`/`false`, `1`/`0`, or their text in any case with blanks around; undefined for anything else. */
export function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value
  if (value === 1 || value === 0) return value === 1
  if (typeof value === 'string') {
    switch (value.trim().toLowerCase()) {
      case 'true':
      case '1':
        return true
      case 'false':
      case '0':
        return false
    }
  }
  return undefined
}
