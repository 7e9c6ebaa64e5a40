/**
 * The surface model: what every driver (Stream Deck, web, MIDI, X-keys, Contour Shuttle, generic HID)
 * shares with the binding engine. The engine sees only these types; it cannot tell hardware from the
 * web surface.
 *
 * Control ids, their kinds and the events each kind sends are `../face/control-id.ts`; what a control
 * shows is `../face/feedback.ts`.
 */
import type { Listenable } from '../events.js'
import type { ControlId } from '../face/control-id.js'
import type { Feedback } from '../face/feedback.js'
import type { DetectedDevice, SurfaceDescription } from '../face/surface.js'
import type { SurfaceClaim } from '../families/claims.js'

interface SurfaceEventBase {
  /** The surface (see SurfaceDescription.id): the configured name once it leaves the manager. */
  surface: string
  control: ControlId
  /** `performance.now()` when the driver decoded the input; lets the engine drop stale input. */
  at: number
  /**
   * The view the input came from, when it keeps a page of its own (a browser of a web surface with
   * `listen.pages: per-browser`; see `./page-port.ts`): the engine routes it by that page.
   */
  view?: string
  /**
   * Who pressed, when a control can be held from more than one place at once (each browser of a web
   * surface, the remote API); absent for the device itself. The engine tracks presses from different
   * sources apart: each up ends the press of its own source.
   */
  source?: string
}
export interface DownEvent extends SurfaceEventBase {
  type: 'down'
  /** 0..1 for velocity-sensitive controls (MIDI notes); 1 otherwise. */
  velocity?: number
}
export interface UpEvent extends SurfaceEventBase {
  type: 'up'
  /**
   * The press ends without the operator finishing it (the browser disconnected, the device was
   * unplugged, the remote API's lease ended): nothing fires for it, where a release would fire a short press.
   */
  cancel?: true
}
export interface RotateEvent extends SurfaceEventBase {
  type: 'rotate'
  /** Signed steps since the last event; positive is clockwise. */
  delta: number
}
export interface ValueEvent extends SurfaceEventBase {
  type: 'value'
  /** Normalised: 0..1, or -1..1 for centred controls such as the shuttle ring. */
  value: number
  /** The device's own value (e.g. MIDI 0..127, shuttle -7..7), where it has one. */
  raw?: number
}
export type SurfaceEvent = DownEvent | UpEvent | RotateEvent | ValueEvent

export interface SurfaceEvents {
  /** Input from the device. */
  input: [event: SurfaceEvent]
  /** A fault the surface could not recover from; the manager closes the surface and retries later. */
  error: [error: Error]
  /** The surface has closed (unplugged, or closed by the manager). */
  closed: []
  /**
   * A HID panel's raw input report (Contour Shuttle, X-keys), as the device sent it, after the `input`
   * events it caused (`learn --record`). Other surfaces never send it.
   */
  report: [report: Uint8Array]
}

/** An open surface. Owned by the manager; the engine reaches it only through the manager. */
export interface Surface {
  readonly description: SurfaceDescription
  readonly events: Listenable<SurfaceEvents>
  /** Applies feedback to one control. Coalesced: a newer feedback for the same control replaces a pending one. */
  setFeedback(control: ControlId, feedback: Feedback): void
  /** 0..100. */
  setBrightness(percent: number): void
  /** Blanks every control and releases the device. Idempotent. */
  close(): Promise<void>
}

/** One driver: detect, open, run. */
export interface SurfaceDriver {
  readonly name: string
  /** Lists the devices present now, without opening any. */
  detect(): Promise<DetectedDevice[]>
  /** Opens one detected device. */
  open(device: DetectedDevice): Promise<Surface>
  /**
   * The configured surfaces' claims, at start and after every reload: a driver whose devices come from
   * peers (a page's browser deck) keeps room for the ones the config names.
   */
  claimsChanged?(claims: readonly SurfaceClaim[] | 'all'): void
}

export interface SurfaceRegistryEvents {
  added: [description: SurfaceDescription]
  removed: [surfaceId: string]
  /** Feedback applied to a control (after coalescing is decided by the surface itself). */
  feedback: [surfaceId: string, control: ControlId, feedback: Feedback]
}

/**
 * What the web mirror (and later the status API) reads: the open surfaces and what each control
 * shows now. The surface manager implements it.
 */
export interface SurfaceRegistry {
  readonly events: Listenable<SurfaceRegistryEvents>
  list(): SurfaceDescription[]
  feedbackOf(surfaceId: string): ReadonlyMap<ControlId, Feedback>
}
