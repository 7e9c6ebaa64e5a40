/**
 * The web surface, as data: what a `web` entry of the mapping file makes (a key grid, encoders, a jog
 * wheel, a shuttle ring, faders) and the controls it has, checked. The surface itself
 * (`src/surfaces/web/web-surface.ts`) and the YAML loader (which must know a web surface's controls
 * without opening anything) both use it. The daemon makes web surfaces itself: no driver, no claim.
 */
import { controlId } from '../face/control-id.js'
import type { ControlDescriptor, SurfaceDescription } from '../face/surface.js'

export const WEB_DRIVER = 'web'
const WEB_MODEL = 'Web surface'
/** Key image size when the config names none (the Stream Deck XL's). */
const DEFAULT_WEB_KEY_SIZE: WebKeySize = { width: 96, height: 96 }
/** Limits that keep a typo in the config from building a page of a million keys. */
const MAX_WEB_GRID = 16
const MAX_WEB_ENCODERS = 8
const MAX_WEB_FADERS = 8
const MAX_WEB_KEY_PIXELS = 256

/** A web surface's key image size in pixels. */
export interface WebKeySize {
  width: number
  height: number
}

/** What a web surface is made of (the mapping file's `web` entry; the surface adds its image cache). */
export interface WebSurfaceOptions {
  /** The surface's configured name; also its id. */
  id: string
  rows: number
  columns: number
  /** Number of encoders (`encoder:N`: rotate and press). Default 0. */
  encoders?: number
  /** Whether the surface has a jog wheel (`jog`: rotate). Default false. */
  jog?: boolean
  /** Whether the surface has a spring-loaded shuttle ring (`shuttle`: value -1..1). Default false. */
  shuttle?: boolean
  /** Number of faders (`fader:N`: value 0..1). Default 0. */
  faders?: number
  /** Rendered key size in pixels. Default 96×96. */
  keySize?: WebKeySize
}

function checkCount(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`web surface: ${name} must be an integer from ${min} to ${max}, got ${String(value)}`)
  }
  return value
}

/**
 * The controls a web surface of these options has, checked: the surface itself and the YAML loader
 * (which must know a web surface's controls without opening anything) both use it.
 */
export function webSurfaceDescription(
  options: Pick<WebSurfaceOptions, 'id' | 'rows' | 'columns' | 'encoders' | 'jog' | 'shuttle' | 'faders' | 'keySize'>,
): SurfaceDescription {
  const rows = checkCount('rows', options.rows, 1, MAX_WEB_GRID)
  const columns = checkCount('columns', options.columns, 1, MAX_WEB_GRID)
  const encoders = checkCount('encoders', options.encoders ?? 0, 0, MAX_WEB_ENCODERS)
  const faders = checkCount('faders', options.faders ?? 0, 0, MAX_WEB_FADERS)
  const keySize = options.keySize ?? DEFAULT_WEB_KEY_SIZE
  checkCount('keySize.width', keySize.width, 16, MAX_WEB_KEY_PIXELS)
  checkCount('keySize.height', keySize.height, 16, MAX_WEB_KEY_PIXELS)

  const controls: ControlDescriptor[] = []
  for (let i = 0; i < rows * columns; i++) {
    controls.push({
      id: controlId('key', i),
      kind: 'key',
      row: Math.floor(i / columns),
      column: i % columns,
      capabilities: { image: { width: keySize.width, height: keySize.height } },
    })
  }
  for (let i = 0; i < encoders; i++)
    controls.push({ id: controlId('encoder', i), kind: 'encoder', capabilities: { rgb: true } })
  if (options.jog === true) controls.push({ id: 'jog', kind: 'jog', capabilities: {} })
  if (options.shuttle === true) controls.push({ id: 'shuttle', kind: 'shuttle', capabilities: {} })
  for (let i = 0; i < faders; i++) controls.push({ id: controlId('fader', i), kind: 'fader', capabilities: {} })
  return { id: options.id, driver: WEB_DRIVER, model: WEB_MODEL, grid: { rows, columns }, controls }
}
