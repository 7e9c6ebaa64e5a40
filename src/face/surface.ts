/**
 * What a surface and its controls are, as data: the description the engine, the web mirror and the
 * family tables share, and a device as detection lists it. No code: the surfaces, the families and the
 * page's protocol read these types.
 */
import type { ControlId, ControlKind } from './control-id.js'

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
