/**
 * Shared types of the simulator: the title model, the reply envelope and the handler signature.
 */
import type { PlayState } from '../../api/protocol.js'

/** Variable kinds seen in getTitleControlInfo (protocol notes 4.2). */
export type VariableType = 'text' | 'image' | 'color' | 'visible'

export interface SimVariable {
  name: string
  value: string
  type: VariableType
}

export interface SimTitle {
  /** Braced UUID, `{xxxxxxxx-...}`. */
  id: string
  name: string
  channel: number
  /** 0-based place in its channel's list; kept dense (0..n-1) by SimulatorState.renumber. */
  position: number
  inputs: string[]
  variables: SimVariable[]
  playState: PlayState
  selected: boolean
  /** Length of the title's graphic timeline, seconds. */
  timelineDuration: number
  /** Colour of the simulated graphic (drawn into icons), `#rrggbb`. */
  color: string
}

/** The video format the application produces (`getVideoFormat`, `setVideoFormat`). */
export interface VideoFormat {
  width: number
  height: number
  frameRate: number
  interlaced: boolean
}

/** The `result` member of a reply. */
export interface ReplyResult {
  command: string
  reply: string
  success: true
  requestId?: string
  error?: string
  [field: string]: unknown
}

/** Either the envelope, or the bare `{}` that loadProject, saveProject and subscribe answer with. */
export type Reply = { result: ReplyResult } | Record<string, never>

/** The reply envelope's fixed part: `reply` repeats the command, and `requestId` is echoed when it is text. */
export function envelope(command: string, requestId: unknown): ReplyResult {
  return { command, reply: command, success: true, ...(typeof requestId === 'string' ? { requestId } : {}) }
}

/**
 * A failure a handler reports, as the simulated application would; the text becomes `result.error`.
 * (Not `src/api/errors.ts`'s `CommandError`, which is what panelbridge's client makes of such a reply.)
 */
export class HandlerError extends Error {
  override readonly name = 'HandlerError'
}

/** Returned by a handler whose success reply is the bare `{}` (contract: Response envelope rule 2). */
export const BARE_REPLY = Symbol('bare reply')

/** What a handler may return: extra reply fields, or the bare-reply marker. */
export type HandlerResult = Record<string, unknown> | typeof BARE_REPLY | void
