/**
 * Small helpers for data that arrives from outside (JSON replies, WebSocket frames), shared by every
 * layer. Nothing here knows the application's protocol or a surface's.
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
