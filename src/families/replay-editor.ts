/**
 * The Blackmagic panels family (`driver: replay-editor`), as data: the DaVinci Resolve Replay Editor and
 * the ATEM Micro Panel, both driven by `@blackmagic-controller/core` (0.2.2), whose own control table
 * (each model's `CONTROLS`) is the model table here, so `check` refuses `button:60` on the Micro Panel
 * and `jog` on it (it has none).
 *
 * Control ids (the scheme of `src/surfaces/types.ts`):
 * - `button:N`: the library's Nth button of the model, in the order of its control table; its name in
 *   the library (`cue`, `run`, `cam1`, `in`, `out`, `slow-jog`, ...) is the control's `label`, which
 *   `learn`, `devices --model` and docs/controls.md show. Every button with a light in the library's table
 *   has one here: a one-colour LED on the Replay Editor (`led`), RGB on the Micro Panel (`rgb`);
 * - `tbar`: the speed lever (Replay Editor) or the T-bar (Micro Panel), value 0..1 (the library's
 *   0..4096), with 16 LEDs along it that show `Feedback.value` (the replay speed, for a lever bound to it);
 * - `jog`: the Replay Editor's wheel, rotate in whole steps (see JOG_UNITS_PER_STEP).
 *
 * The face: the library places every control on a grid (`row`, `column`, spans); the page draws the
 * panel from it.
 */
import {
  DEVICE_MODELS2,
  DeviceModelId,
  VENDOR_ID,
  type BlackmagicControllerControlDefinition,
} from '@blackmagic-controller/core'
import type { FamilyFacts, ModelTable } from './family.js'
import type { ControlDescriptor, SurfaceDescription } from '../face/surface.js'
import type { ControlId } from '../face/control-id.js'
import type { DeviceFace, FaceSpot } from '../face/device-face.js'
import { controlId } from '../face/control-id.js'

/**
 * ASSUMED (not checked on hardware here; the library scales nothing, "TODO - some scaling"): each jog
 * report's signed value is how far the wheel moved since the previous report (its velocity over one
 * report period), so the running sum is the wheel's position, and this many units make one step (one
 * detent's worth: one frame with `step_frames: 1`). The one place the wheel's scale lives.
 */
export const JOG_UNITS_PER_STEP = 64

/**
 * ASSUMED: the shortest time between two lever values the driver hands on: one frame at 25 fps, the
 * slowest broadcast rate, so a sweep sends at most one replay speed per frame at any rate; the last
 * value always goes out (at most this late).
 */
export const TBAR_FRAME_MS = 40

/** LEDs along the lever (both models, the library's `ledSegments`). */
const TBAR_LEDS = 16

/** The library's value of the lever at its far end (its report's uint16 is divided by this). */
export const TBAR_RAW_MAX = 4096

/** One button of a model: its control id, the library's id (its label) and where its light sits. */
export interface BmdButton {
  id: ControlId
  /** The library's button id (`cue`). */
  name: string
  feedback: 'none' | 'on-off' | 'rgb'
}

/** One model as the config and the driver see it. */
export interface BmdModel {
  /** The library's model id, as a config names it: `davinci-resolve-replay-editor`, `atem-micro-panel`. */
  id: DeviceModelId
  name: string
  vendorId: number
  productIds: readonly number[]
  buttons: readonly BmdButton[]
  /** Library button id → control id. */
  byName: ReadonlyMap<string, ControlId>
  controls: readonly ControlDescriptor[]
  definitions: readonly BlackmagicControllerControlDefinition[]
}

const NAMES: Readonly<Record<DeviceModelId, string>> = {
  [DeviceModelId.DaVinciResolveReplayEditor]: 'DaVinci Resolve Replay Editor',
  [DeviceModelId.AtemMicroPanel]: 'ATEM Micro Panel',
}

function toModel(id: DeviceModelId): BmdModel {
  const spec = DEVICE_MODELS2[id]
  // The library's own table; its factory needs no device to list the controls (it reads them statically).
  const definitions = controlTable(id)
  const buttons: BmdButton[] = []
  const controls: ControlDescriptor[] = []
  for (const d of definitions) {
    if (d.type !== 'button') continue
    const button: BmdButton = { id: controlId('button', buttons.length), name: d.id, feedback: d.feedbackType }
    buttons.push(button)
    controls.push({
      id: button.id,
      kind: 'button',
      label: d.id,
      row: d.row,
      column: d.column,
      capabilities: d.feedbackType === 'rgb' ? { rgb: true } : d.feedbackType === 'on-off' ? { led: true } : {},
    })
  }
  if (definitions.some((d) => d.type === 'tbar')) controls.push({ id: 'tbar', kind: 'tbar', capabilities: {} })
  if (definitions.some((d) => d.type === 'jog')) controls.push({ id: 'jog', kind: 'jog', capabilities: {} })
  return {
    id,
    name: NAMES[id],
    vendorId: VENDOR_ID,
    productIds: spec.productIds,
    buttons,
    byName: new Map(buttons.map((b) => [b.name, b.id])),
    controls,
    definitions,
  }
}

/**
 * A model's control table as the library holds it. The library exposes it only on a built device
 * (`CONTROLS`); building one over a device that is never used reads the same frozen table.
 */
function controlTable(id: DeviceModelId): readonly BlackmagicControllerControlDefinition[] {
  const inert = {
    on: () => inert,
    close: () => Promise.resolve(),
    sendFeatureReport: () => Promise.resolve(),
    getFeatureReport: () => Promise.resolve(new Uint8Array(10)),
    sendReports: () => Promise.resolve(),
    getDeviceInfo: () => Promise.resolve({ path: undefined, productId: 0, vendorId: 0 }),
  }
  // Why the cast: the factory wants an EventEmitter; it only subscribes (`on`), which `inert` answers.
  const device = DEVICE_MODELS2[id].factory(inert as never, { nextAuthMaxDelay: null, authenticate: null })
  return device.CONTROLS
}

/** Every model the library knows, in its own order. */
export const BMD_MODELS: readonly BmdModel[] = (Object.keys(DEVICE_MODELS2) as DeviceModelId[]).map(toModel)

const BMD_MODEL_IDS: readonly string[] = BMD_MODELS.map((m) => m.id)

export function bmdModelById(id: string): BmdModel | undefined {
  return BMD_MODELS.find((m) => (m.id as string) === id)
}

/** The model of a vendor/product pair, or undefined. */
export function findBmdModel(vendorId: number, productId: number): BmdModel | undefined {
  return BMD_MODELS.find((m) => m.vendorId === vendorId && m.productIds.includes(productId))
}

export const bmdModels: ModelTable = {
  label: 'Blackmagic panel',
  ids: BMD_MODEL_IDS,
  controlsOf: (id) => Promise.resolve(bmdModelById(id)?.controls),
  nameOf: (id) => Promise.resolve(bmdModelById(id)?.name),
}

/** Grid units of one cell of the library's layout on the face. */
const CELL = 10

/** The face of a model by its display name: the library's grid, each control its cell (and spans). */
export function bmdFace(description: Pick<SurfaceDescription, 'model' | 'controls'>): DeviceFace | undefined {
  const model = BMD_MODELS.find((m) => m.name === description.model)
  if (!model) return undefined
  const spots = new Map<ControlId, FaceSpot>()
  let width = 0
  let height = 0
  let button = 0
  for (const d of model.definitions) {
    const span = d.type === 'button' ? { w: 1, h: 1 } : { w: d.columnSpan, h: d.rowSpan }
    const spot = { x: d.column * CELL, y: d.row * CELL, w: span.w * CELL - 1, h: span.h * CELL - 1 }
    width = Math.max(width, spot.x + CELL * span.w)
    height = Math.max(height, spot.y + CELL * span.h)
    const id = d.type === 'button' ? controlId('button', button++) : d.type
    spots.set(id, spot)
  }
  if (description.controls.length === 0 || description.controls.some((c) => !spots.has(c.id))) return undefined
  return { width, height, spots }
}

/**
 * The 16 lever LEDs for a level 0..1: lit from the bottom, as many as the level covers (rounded); none
 * for no level or a non-finite one.
 */
export function tbarLeds(value: number | undefined): boolean[] {
  const lit =
    value === undefined || !Number.isFinite(value) ? 0 : Math.round(Math.max(0, Math.min(1, value)) * TBAR_LEDS)
  return Array.from({ length: TBAR_LEDS }, (_, i) => i < lit)
}

export const replayEditorFacts: FamilyFacts = {
  models: bmdModels,
  face: bmdFace,
  udev: () =>
    BMD_MODELS.map((m) => ({ name: `Blackmagic ${m.name}`, vendorId: m.vendorId, productIds: [...m.productIds] })),
}
