/**
 * The surface model: what every driver (Stream Deck, web, MIDI, X-keys, Contour Shuttle, generic HID)
 * shares with the binding engine. The engine sees only these types; it cannot tell hardware from the
 * web surface.
 *
 * Control ids, their kinds and the events each kind sends are `../face/control-id.ts`; what a control
 * shows is `../face/feedback.ts`.
 */
import type { Listenable } from '../events.js'
import type { ControlId, ControlKind } from '../face/control-id.js'
import type { Feedback } from '../face/feedback.js'

/** What a control can show. A surface ignores feedback parts its control cannot show. */
export interface ControlCapabilities {
  /** Full-colour image (Stream Deck key, web key); size in pixels. */
  image?: { width: number; height: number }
  /** A single RGB backlight (X-keys, some MIDI pads). */
  rgb?: boolean
  /** An on/off (or blinking) LED. */
  led?: boolean
  /** An LED ring (or meter) that shows `Feedback.value`: a knob rather than a fader, to the web mirror. */
  ring?: boolean
}

export interface ControlDescriptor {
  id: ControlId
  kind: ControlKind
  /** Grid position for key-like controls, from the top left. */
  row?: number
  column?: number
  /**
   * The device's own name for the control where it differs from the id, e.g. `key 7` for `key:1` of an
   * X-keys XK-24 (the panel numbers its keys down the columns from 1): what `learn` shows beside the id.
   */
  label?: string
  capabilities: ControlCapabilities
}

/** A surface as the engine and the web mirror see it. */
export interface SurfaceDescription {
  /**
   * Which surface this is. A driver gives the device's stable identity (the serial number, or
   * `vendorId:productId@path` for devices without one); the manager hands it on under the configured
   * surface name (`desk`), with the identity in `device`.
   */
  id: string
  /** The device identity behind a configured surface name (set by the manager). */
  device?: string
  /** Driver name as used in the YAML file: `streamdeck`, `web`, `midi`, `xkeys`, `shuttle`, `hid`. */
  driver: string
  /** Model name, e.g. `Stream Deck MK.2`. */
  model: string
  /** Key grid, if the surface has one. */
  grid?: { rows: number; columns: number }
  controls: ControlDescriptor[]
}

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

/**
 * A device found by detection. Detection opens no device, with one exception: the X-keys driver opens
 * each newly listed panel once, briefly, to read its unit id (only the panel knows it; see
 * `xkeys/driver.ts`).
 */
export interface DetectedDevice {
  driver: string
  /** Stable identity (see SurfaceDescription.id). */
  id: string
  /** Display name of the model, e.g. `Stream Deck +`. */
  model: string
  /** The model's id as the config names it (the driver library's own id, e.g. `plus`). */
  modelId?: string
  vendorId?: number
  productId?: number
  serial?: string
  /** OS device path (hidraw node, USB port path), used for identity without a serial and for permission checks. */
  path?: string
  /** The MIDI input port's name, for devices behind a MIDI port (claimed by a part of it). */
  port?: string
  /** The unit id of an X-keys panel (0..255, set by the user to tell identical panels apart). */
  unitId?: number
}

/** One driver: detect, open, run. */
export interface SurfaceDriver {
  readonly name: string
  /** Lists the devices present now, without opening any. */
  detect(): Promise<DetectedDevice[]>
  /** Opens one detected device. */
  open(device: DetectedDevice): Promise<Surface>
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
