/**
 * What the daemon's HTTP server (remote API, status, metrics, web page) needs from the running daemon,
 * as interfaces: the server is built and tested against them, the daemon implements them.
 */
import type { ControlId } from '../surfaces/types.js'

/** `GET /api/status`. */
export interface DaemonStatus {
  version: string
  /** The config file in use (or `bundled default`). */
  config: string
  /** The built-in simulator stands in for the application (`app.simulate`). */
  simulated: boolean
  app: { state: 'connected' | 'stale'; since: string; error?: string }
  surfaces: {
    name: string
    driver: string
    state: 'open' | 'waiting' | 'failed' | 'permission-denied'
    model?: string
    device?: string
    page?: string
  }[]
  commands: { sent: number; failed: number }
}

/** `GET /api/surfaces/{surface}/controls/{control}`: flat, absent fields left out, never the image. */
export interface ControlState {
  surface: string
  control: ControlId
  page: string | null
  label?: string
  color?: string
  textColor?: string
  badge?: string
  detail?: string
  value?: number
  led?: string
}

export type InjectKind = 'press' | 'down' | 'up' | 'rotate' | 'value'

/** Why an event could not be injected (the server maps it to 404 or 409). */
export type InjectRefusal =
  | { status: 404; code: 'UNKNOWN_SURFACE' | 'UNKNOWN_CONTROL'; message: string }
  | { status: 409; code: 'SURFACE_NOT_OPEN' | 'EVENT_NOT_TAKEN'; message: string }

/** A line for the page's status strip. */
export interface RecentError {
  time: string
  message: string
}

export interface DaemonApi {
  status(): DaemonStatus
  /** The control's state, or why there is none (404 unknown surface or control). */
  controlState(surface: string, control: ControlId): ControlState | InjectRefusal
  /**
   * Injects an event as if the device sent it (`press` is down then up; `rotate` takes an integer
   * delta; `value` a normalised value). Resolves once the event is accepted; the commands it causes
   * run as the engine runs them.
   */
  inject(surface: string, control: ControlId, kind: InjectKind, arg?: number): InjectRefusal | undefined
  /** The latest errors, newest first, for the status strip. */
  recentErrors(): RecentError[]
}

/** What the daemon reports to the metrics (`GET /metrics`). */
export interface DaemonMetrics {
  /** A surface event reached the engine and a command request was handed to the client, ms later. */
  eventToRequest(ms: number): void
  /** A command's reply (or failure) came back, ms after sending; `outcome` is `ok` or the error code. */
  commandDone(command: string, outcome: string, ms: number): void
  /** A notification reached the store and its feedback was applied to the surfaces, ms later. */
  notificationToFeedback(ms: number): void
  reconnect(): void
  surfaceOpened(): void
  surfaceFailed(): void
  setOpenSurfaces(count: number): void
  setLinkUp(up: boolean): void
}
