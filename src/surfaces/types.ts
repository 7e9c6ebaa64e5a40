/**
 * The surface model: what every driver (Stream Deck, web, MIDI, X-keys, Contour Shuttle, generic HID)
 * shares with the binding engine. The engine sees only these types; it cannot tell hardware from the
 * web surface.
 *
 * Control ids: one scheme for every driver. A binding addresses `<surface>/<control>` where
 * `<control>` is one of
 *
 * | id             | what                                                        | events              |
 * | -------------- | ----------------------------------------------------------- | ------------------- |
 * | `key:N`        | a key of a key grid, N from 0, row-major from the top left  | down, up            |
 * | `encoder:N`    | a rotary encoder, N from 0 left to right (press = down/up)  | rotate, down, up    |
 * | `lcd:N`        | a touch segment of an LCD strip (Stream Deck+), N = segment | down, up            |
 * | `jog`          | an endless jog wheel                                        | rotate              |
 * | `shuttle`      | a spring-loaded shuttle ring, value -1..1 (0 = centre)      | value               |
 * | `button:N`     | a plain button (X-keys, Shuttle, pedal), N from 0           | down, up            |
 * | `fader:N`      | an absolute fader or knob, value 0..1                       | value               |
 * | `note:CH:N`    | MIDI note N (0–127) on channel CH (1–16)                    | down, up (velocity) |
 * | `cc:CH:N`      | MIDI control change N on channel CH, value 0..1             | value or rotate     |
 * | `pitchbend:CH` | MIDI pitch bend on channel CH, value -1..1 (0 = centre)     | value               |
 * | `program:CH:N` | MIDI program change to program N (0–127) on channel CH      | down, then up       |
 * | `tbar`         | a T-bar, value 0..1                                         | value               |
 * | `joystick:A`   | a joystick axis: `x` (right +) and `y` (up +), value -1..1  | value               |
 * |                | (0 = centre); `z`, the endless twist of the stick           | rotate              |
 *
 * Rotate deltas are signed steps: positive is clockwise. Absolute values are normalised (0..1, or
 * -1..1 for the shuttle and joystick axes); the raw device value rides along for drivers that have one.
 */
import type { Listenable } from '../events.js'

/** Canonical control id, e.g. `key:3`, `encoder:0`, `jog`, `note:1:60`. */
export type ControlId = string

export type ControlKind =
  | 'key'
  | 'encoder'
  | 'lcd'
  | 'jog'
  | 'shuttle'
  | 'button'
  | 'fader'
  | 'note'
  | 'cc'
  | 'pitchbend'
  | 'program'
  | 'tbar'
  | 'joystick'

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

/**
 * Marks what a control's last action or the state behind it is: `pending` (a command in flight), `failed`
 * (the last command failed), `stale` (the application is gone: what the control shows may no longer be
 * true), `unknown` (the state it shows has not been seen yet, e.g. the replay state before any replay
 * command, or a fader's value before it moved).
 */
/** `diverged`: a main and its mirror disagree on what this control shows or sends (issue 27). */
export type FeedbackBadge = 'pending' | 'failed' | 'stale' | 'unknown' | 'diverged'

/** `#rrggbb` colour strings throughout. */
export type Color = string

/** What one control should show. Every field is optional; an empty object shows a blank control. */
export interface Feedback {
  /** Background (image controls) or backlight colour (RGB controls). */
  color?: Color
  /** Label text; `\n` breaks lines; the renderer fits it to the key. */
  text?: string
  textColor?: Color
  /** A pre-rendered image (RGBA, the control's size) that replaces colour and text. */
  image?: { width: number; height: number; rgba: Uint8Array }
  /**
   * A picture drawn under the label (a binding's `image:` file, a title's thumbnail), fitted inside a
   * border of `color`; `hash` names its pixels (the renderer's face identity). Its JSON is size and hash.
   */
  picture?: { width: number; height: number; rgba: Uint8Array; hash: string }
  /** LED state for LED controls. */
  led?: 'off' | 'on' | 'blink'
  /**
   * A level, 0..1: an LED ring, a fader's position, a level bar along a key's bottom edge. Values
   * outside are clamped; a non-finite value shows nothing.
   */
  value?: number
  /** A short second text line: a hold-to-confirm countdown, why a command failed. */
  detail?: string
  /** One badge at a time; where several sources meet, `pickBadge` (./badge.ts) chooses it. */
  badge?: FeedbackBadge
}

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
