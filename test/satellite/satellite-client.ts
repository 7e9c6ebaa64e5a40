/**
 * Companion Satellite's own protocol client (`CompanionSatelliteClient`, vendored unmodified in
 * `src/app-kit/vendor/companion-satellite/`, see its NOTICE.md) for the tests and the bench, and the
 * little of Satellite's surface manager a test needs around it: one fake device, every drawing the
 * client reports, the moments they arrive.
 *
 * `loadSatelliteClient()` compiles the vendored files as they are with esbuild (one CommonJS bundle in
 * memory, nothing written) and evaluates it with a `require` of the vendored folder, so `ws` and Node's
 * modules resolve to panelbridge's own; `semver`, the one package of its host it needs that panelbridge
 * does not depend on, is `semver-stand-in.ts`. The types below are the parts of the client a test uses,
 * written from `client/client.ts`: importing that file's types would make the typecheck compile the
 * vendored code under panelbridge's rules, which it is not written to.
 */
import { EventEmitter } from 'node:events'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

/** The vendored client's folder (upstream `satellite/src/`). */
export const CLIENT_DIR = fileURLToPath(new URL('../../src/app-kit/vendor/companion-satellite/', import.meta.url))
const STAND_IN = fileURLToPath(new URL('./semver-stand-in.ts', import.meta.url))

/** `SatelliteControlDefinition` (generated/SurfaceManifestSchema.ts). */
export interface ControlDefinition {
  row: number
  column: number
  stylePreset?: string
}

/** `SatelliteSurfaceLayout`: style presets (`default` required) and the controls by id. */
export interface SurfaceLayout {
  stylePresets: Record<string, { bitmap?: { w: number; h: number }; text?: boolean; colors?: 'hex' | 'rgb' }>
  controls: Record<string, ControlDefinition>
}

/** `DeviceRegisterProps`. */
export interface DeviceRegisterProps {
  serialNumber: string
  serialIsUnique: boolean
  brightness: boolean
  surfaceManifest: SurfaceLayout
  transferVariables: undefined
  configFields: undefined
  canChangePage: undefined
  gridSize: { columns: number; rows: number }
  fallbackBitmapSize: number
}

/** `CompanionSatelliteClientDrawProps`: one `KEY-STATE` as the client reads it. */
export interface DrawProps {
  deviceId: string
  keyIndex: number | undefined
  controlId: string | undefined
  /** Base64 raw RGB, or a `data:` URL for PNG or WebP. */
  image?: string
  color?: string
  text?: string
}

export type ConnectionDetails = { mode: 'tcp'; host: string; port: number } | { mode: 'ws'; url: string }

/** `CompanionSatelliteClient`: the parts a test uses. */
export interface SatelliteClient extends EventEmitter {
  readonly connected: boolean
  readonly companionApiVersion: string | null
  readonly companionUnsupported: boolean
  readonly supportsSurfaceManifest: boolean
  connect(details: ConnectionDetails): Promise<void>
  disconnect(): void
  addDevice(deviceId: string, productName: string, props: DeviceRegisterProps): void
  removeDevice(deviceId: string): void
  keyDown(deviceId: string, controlId: string, control: ControlDefinition): void
  keyUp(deviceId: string, controlId: string, control: ControlDefinition): void
  rotate(deviceId: string, controlId: string, control: ControlDefinition, delta: number): void
}

type ClientClass = new (options?: { debug?: boolean }) => SatelliteClient

let loaded: Promise<ClientClass> | undefined

/** The vendored `CompanionSatelliteClient` class, compiled once per process. */
export function loadSatelliteClient(): Promise<ClientClass> {
  loaded ??= (async () => {
    const entry = join(CLIENT_DIR, 'client', 'client.ts')
    const out = await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      // Its own build's options, not panelbridge's (whose verbatimModuleSyntax would keep the client's
      // imports of types as imports of values).
      tsconfigRaw: {},
      external: ['ws'],
      logLevel: 'silent',
      plugins: [
        {
          name: 'semver stand-in',
          setup(b) {
            b.onResolve({ filter: /^semver$/ }, () => ({ path: STAND_IN }))
          },
        },
      ],
    })
    const code = out.outputFiles[0]!.text
    const module = { exports: {} as Record<string, unknown> }
    const require = createRequire(join(CLIENT_DIR, 'client', 'client.cjs'))
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the bundle of the vendored files, built above
    new Function('require', 'module', 'exports', code)(require, module, module.exports)
    const Client = module.exports['CompanionSatelliteClient']
    if (typeof Client !== 'function') throw new Error('the vendored client exports no CompanionSatelliteClient')
    return Client as ClientClass
  })()
  return loaded
}

/** A key's bitmap side, px (what the fake device declares). */
export const KEY_PX = 72

/**
 * The judge's fake device: a 5×3 grid of bitmap keys (ids `row/column`, as Satellite's plugins name a
 * grid) and two encoders without a display in a fourth row (style preset `empty`, as a Stream Deck +'s
 * dials are described).
 */
export function judgeLayout(): SurfaceLayout {
  const controls: Record<string, ControlDefinition> = {}
  for (let row = 0; row < 3; row++)
    for (let column = 0; column < 5; column++) controls[`${row}/${column}`] = { row, column }
  controls['3/0'] = { row: 3, column: 0, stylePreset: 'empty' }
  controls['3/1'] = { row: 3, column: 1, stylePreset: 'empty' }
  return { stylePresets: { default: { bitmap: { w: KEY_PX, h: KEY_PX } }, empty: {} }, controls }
}

/** The upstream id of panelbridge's `key:N` on the judge's device (row order, five a row). */
export const keyId = (n: number): string => `${Math.floor(n / 5)}/${n % 5}`
/** The upstream id of `encoder:N`. */
export const encoderId = (n: number): string => `3/${n}`
/** The ids of the fifteen keys, in panelbridge's order. */
export const KEY_IDS = Array.from({ length: 15 }, (_, n) => keyId(n))

export function judgeProps(serial: string, layout = judgeLayout()): DeviceRegisterProps {
  return {
    serialNumber: serial,
    serialIsUnique: true,
    brightness: true,
    surfaceManifest: layout,
    transferVariables: undefined,
    configFields: undefined,
    canChangePage: undefined,
    gridSize: { columns: 5, rows: 4 },
    fallbackBitmapSize: KEY_PX,
  }
}

export interface Drawn {
  /** The control's upstream id (`row/column`); from `KEY` by the grid when the server sends an index. */
  control: string
  image: string | undefined
  color: string | undefined
  text: string | undefined
  /** `performance.now()` when the client reported it. */
  at: number
}

/**
 * The host side of one client: every event it emits, recorded. Closed (listeners removed, the client
 * disconnected) by `close()`.
 */
export class JudgeHost {
  readonly draws: Drawn[] = []
  readonly logs: string[] = []
  readonly errors: Error[] = []
  readonly added: string[] = []
  readonly refused: { deviceId: string; message: string }[] = []
  readonly brightness: { deviceId: string; percent: number }[] = []
  readonly cleared: string[] = []
  readonly locked: { deviceId: string; locked: boolean; characterCount: number }[] = []
  connects = 0
  disconnects = 0
  private readonly off: (() => void)[] = []

  constructor(
    readonly client: SatelliteClient,
    readonly deviceId: string,
  ) {
    const on = <A extends unknown[]>(event: string, fn: (...args: A) => void): void => {
      const listener = fn as (...args: unknown[]) => void
      client.on(event, listener)
      this.off.push(() => client.off(event, listener))
    }
    on('draw', (d: DrawProps) => {
      if (d.deviceId !== this.deviceId) return
      const control =
        d.controlId ?? (d.keyIndex !== undefined ? `${Math.floor(d.keyIndex / 5)}/${d.keyIndex % 5}` : '?')
      this.draws.push({ control, image: d.image, color: d.color, text: d.text, at: performance.now() })
    })
    on('log', (line: string) => this.logs.push(line))
    on('error', (e: Error) => this.errors.push(e))
    on('connected', () => this.connects++)
    on('disconnected', () => this.disconnects++)
    on('newDevice', (e: { deviceId: string }) => this.added.push(e.deviceId))
    on('deviceErrored', (e: { deviceId: string; message: string }) => this.refused.push(e))
    on('brightness', (e: { deviceId: string; percent: number }) => this.brightness.push(e))
    on('clearDeck', (e: { deviceId: string }) => this.cleared.push(e.deviceId))
    on('lockedState', (e: { deviceId: string; locked: boolean; characterCount: number }) =>
      this.locked.push({ deviceId: e.deviceId, locked: e.locked, characterCount: e.characterCount }),
    )
  }

  /** The draws from index `from` on, of `control` when given. */
  drawsSince(from: number, control?: string): Drawn[] {
    return this.draws.slice(from).filter((d) => control === undefined || d.control === control)
  }

  /** The controls with at least one bitmap since `from`. */
  paintedSince(from: number): Set<string> {
    return new Set(
      this.draws
        .slice(from)
        .filter((d) => d.image !== undefined)
        .map((d) => d.control),
    )
  }

  /** The last bitmap of `control`. */
  lastImage(control: string): string | undefined {
    return this.draws.findLast((d) => d.control === control && d.image !== undefined)?.image
  }

  close(): void {
    for (const off of this.off.splice(0)) off()
    // The client's socket can still be reset after this (the daemon stops with bytes in flight); the
    // client re-emits that as 'error', which with no listener would be an uncaught exception. The
    // client is done with, so the sink stays.
    this.client.on('error', ignoreLateError)
    this.client.disconnect()
  }
}

function ignoreLateError(): void {}

/** A bitmap as the client hands it over, read: its encoding and size in pixels. */
export function readBitmap(image: string): { format: 'rgb' | 'png' | 'webp'; width: number; height: number } {
  const m = /^data:image\/(png|webp);base64,(.*)$/s.exec(image)
  if (!m) {
    // Raw RGB: three bytes a pixel, a square of the side the device declared.
    const bytes = Buffer.from(image, 'base64').length
    const side = Math.round(Math.sqrt(bytes / 3))
    if (side * side * 3 !== bytes) throw new Error(`raw RGB of ${bytes} bytes is not a square of pixels`)
    return { format: 'rgb', width: side, height: side }
  }
  const bytes = Buffer.from(m[2]!, 'base64')
  if (m[1] === 'png') {
    if (bytes.toString('latin1', 1, 4) !== 'PNG' || bytes.toString('latin1', 12, 16) !== 'IHDR') {
      throw new Error('a PNG data URL without a PNG header')
    }
    return { format: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
  }
  if (bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WEBP') {
    throw new Error('a WebP data URL without a WebP header')
  }
  const chunk = bytes.toString('latin1', 12, 16)
  if (chunk === 'VP8 ') {
    return { format: 'webp', width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff }
  }
  if (chunk === 'VP8L') {
    const bits = bytes.readUInt32LE(21)
    return { format: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 }
  }
  if (chunk === 'VP8X') {
    return { format: 'webp', width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 }
  }
  throw new Error(`a WebP data URL with an unknown first chunk ${JSON.stringify(chunk)}`)
}
