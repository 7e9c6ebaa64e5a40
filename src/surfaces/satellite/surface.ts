/**
 * A Satellite device as a `Surface`: the controls of the layout its client declared, its input from the
 * client (a press, a signed rotation), and what the engine shows sent back as `KEY-STATE`: a key that
 * takes a bitmap is drawn by the shared key renderer at the size its client asked for (the same drawing
 * and cache as a local deck) and sent raw RGB, PNG or WebP as negotiated; a key that takes colours gets
 * its background and text colours, and its label as text where it asked. Draws are coalesced per key
 * and made a bounded number a turn of the loop. The surface manager hands every open surface the whole
 * feedback, so a device added again (a reconnect) is repainted whole.
 */
import { EventHub, type Listenable } from '../../events.js'
import type { ControlId } from '../../face/control-id.js'
import type { Feedback } from '../../face/feedback.js'
import { keyFaceOf, parseColor } from '../../face/key-paint.js'
import type { SatelliteControl } from '../../families/satellite.js'
import { satelliteDescriptors, satelliteGrid } from '../../families/satellite.js'
import type { SurfaceDescription } from '../../face/surface.js'
import type { Surface, SurfaceEvents } from '../types.js'
import type { SatelliteDevice, SatelliteInput } from './hub.js'
import { SATELLITE_DRIVER } from './hub.js'
import type { SatelliteValue } from './protocol.js'
import type { SatelliteImages } from './images.js'

export interface SatelliteSurfaceOptions {
  /** Draws and encodes key bitmaps (shared by every device of the driver). */
  images: SatelliteImages
  /** Key images drawn in one turn of the loop. */
  drawsPerTurn: number
}

export class SatelliteSurface implements Surface {
  readonly description: SurfaceDescription
  private readonly hub = new EventHub<SurfaceEvents>()
  readonly events: Listenable<SurfaceEvents> = this.hub.listenable
  private readonly controls: ReadonlyMap<ControlId, SatelliteControl>
  /** What each key waits to show, newest only. */
  private readonly pending = new Map<ControlId, Feedback>()
  private scheduled: ReturnType<typeof setImmediate> | undefined
  private closed = false

  constructor(
    private readonly device: SatelliteDevice,
    private readonly opts: SatelliteSurfaceOptions,
  ) {
    this.description = {
      id: device.id,
      driver: SATELLITE_DRIVER,
      model: device.productName,
      grid: satelliteGrid(device.controls),
      controls: satelliteDescriptors(device.controls),
    }
    this.controls = new Map(device.controls.map((c) => [c.id, c]))
    // panelbridge has no pin-code lock: a device that would draw one is told it is unlocked.
    if (device.lockedState)
      device.client.send('LOCKED-STATE', null, device.id, { LOCKED: false, CHARACTER_COUNT: 0, ROTATION: 0 })
    // Every key is drawn on open, blank until the engine says otherwise: a key no binding shows would
    // otherwise keep what the client showed before (Companion's grey keys after a reconnect).
    for (const c of device.controls) if (c.kind === 'key') this.pending.set(c.id, {})
    if (this.pending.size > 0) this.scheduled = setImmediate(() => this.flush())
    device.input = (input) => this.input(input)
    // Removed by its client, or its client gone: the manager closes the surface (it shows stale).
    device.gone = () => {
      this.stopDrawing()
      if (!this.closed) {
        this.closed = true
        this.hub.emit('closed')
      }
    }
  }

  setFeedback(control: ControlId, feedback: Feedback): void {
    const c = this.controls.get(control)
    if (this.closed || !c || c.kind !== 'key') return
    this.pending.set(control, feedback)
    this.scheduled ??= setImmediate(() => this.flush())
  }

  setBrightness(percent: number): void {
    if (this.closed || !this.device.brightness) return
    const value = Math.round(Math.min(100, Math.max(0, percent)))
    this.device.client.send('BRIGHTNESS', null, this.device.id, { VALUE: value })
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.closed = true
    this.stopDrawing()
    if (this.device.input) this.device.input = undefined
    this.device.gone = undefined
    // Still added (a reload took its claim away): its keys are blanked.
    this.device.client.send('KEYS-CLEAR', null, this.device.id)
    this.hub.emit('closed')
    return Promise.resolve()
  }

  private stopDrawing(): void {
    if (this.scheduled) clearImmediate(this.scheduled)
    this.scheduled = undefined
    this.pending.clear()
  }

  /** Draws up to `drawsPerTurn` keys, oldest first; the rest wait for the next turn. */
  private flush(): void {
    this.scheduled = undefined
    let drawn = 0
    for (const [control, feedback] of this.pending) {
      if (this.closed) return
      if (drawn >= this.opts.drawsPerTurn) {
        this.scheduled = setImmediate(() => this.flush())
        return
      }
      this.pending.delete(control)
      const c = this.controls.get(control)
      if (!c) continue
      drawn++
      try {
        if (!this.device.client.send('KEY-STATE', null, this.device.id, this.keyState(c, feedback))) return
      } catch (err) {
        this.hub.emit('error', err instanceof Error ? err : new Error(String(err)))
        return
      }
    }
  }

  /** The parameters of a key's `KEY-STATE`, as its style asks. */
  private keyState(c: SatelliteControl, feedback: Feedback): Record<string, SatelliteValue> {
    const args: Record<string, SatelliteValue> = this.device.fromManifest
      ? { CONTROLID: c.clientId }
      : { KEY: Number(c.clientId) }
    args.TYPE = 'BUTTON'
    const { bitmap, colors, text, textStyle } = c.style
    if (bitmap) args.BITMAP = this.opts.images.bitmap(feedback, bitmap, this.device.bitmapFormat)
    if (colors) {
      const face = keyFaceOf(feedback)
      // ASSUMED: an unset colour is black, a key with no text colour white (what the key renderer paints).
      const bg = feedback.led === 'off' ? [0, 0, 0] : (parseColor(face.color) ?? [0, 0, 0])
      const fg = parseColor(face.textColor) ?? [255, 255, 255]
      args.COLOR = colorText(bg, colors)
      args.TEXTCOLOR = colorText(fg, colors)
    }
    if (text) args.TEXT = Buffer.from(keyFaceOf(feedback).text ?? '').toString('base64')
    if (textStyle) args.FONT_SIZE = 'auto'
    return args
  }

  /** The client's input: only a control the layout has, and only what its kind sends (the hub checked). */
  private input(input: SatelliteInput): void {
    if (this.closed) return
    const surface = this.description.id
    const at = performance.now()
    const control = input.control.id
    if (input.type === 'rotate') this.hub.emit('input', { type: 'rotate', surface, control, delta: input.delta, at })
    else this.hub.emit('input', { type: input.type, surface, control, at })
  }
}

function colorText([r, g, b]: readonly number[], format: 'hex' | 'rgb'): string {
  if (format === 'rgb') return `rgb(${r},${g},${b})`
  return `#${[r, g, b].map((n) => (n ?? 0).toString(16).padStart(2, '0')).join('')}`
}
