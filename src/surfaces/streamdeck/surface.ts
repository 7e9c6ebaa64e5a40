/**
 * An open Stream Deck as a `Surface`: maps the library's controls to canonical control ids, turns its
 * events into `SurfaceEvent`s and applies `Feedback` through one coalescing write queue.
 *
 * Control ids (see `types.ts`):
 * - keys with a display or a backlight: `key:N`, N = the library's key index (row-major from top left);
 *   on the Neo the two touch keys beside the info bar are `key:8` and `key:9` (RGB backlight only);
 * - keys without any feedback (the Pedal): `button:N`;
 * - Stream Deck+ / + XL / Studio encoders: `encoder:N` (press = down/up, rotate = signed delta,
 *   positive clockwise as the device reports it);
 * - LCD strips: `lcd:N`, one per key column under the strip where the strip takes region writes (the
 *   Stream Deck+ strip is four 200×100 segments); a strip that only takes whole-strip writes (the Neo
 *   info bar) is the single segment `lcd:0`. A tap or long press on a segment is `down` then `up`; a swipe
 *   is a press of the segment where it started.
 */
import type {
  StreamDeck,
  StreamDeckButtonControlDefinition,
  StreamDeckButtonControlDefinitionLcdFeedback,
  StreamDeckEncoderControlDefinition,
  StreamDeckLcdSegmentControlDefinition,
  LcdPosition,
  PreparedBuffer,
} from '@elgato-stream-deck/core'
import { EventHub, type Listenable } from '../../events.js'
import { createLogger, type Logger } from '../../log.js'
import { controlId, type ControlId } from '../../face/control-id.js'
import { KeyRenderer, parseColor, type RenderedKey } from '../render/key-renderer.js'
import type { Surface, SurfaceEvent, SurfaceEvents } from '../types.js'
import type { Feedback } from '../../face/feedback.js'
import { DeviceBytesCache, preparedBytes, type DeviceBytes } from './device-bytes.js'
import { WriteQueue, type WriteJob } from './write-queue.js'
import type { ControlDescriptor, SurfaceDescription } from '../../face/surface.js'

type Writer = (feedback: Feedback) => { hash: string; write: () => Promise<void> } | undefined

/** An image control (an LCD key or strip segment): its size, its place in the device bytes cache, its encoder. */
interface ImageWriter {
  size: { width: number; height: number }
  /** The control as the cache keys it (`key:N`, `lcd:ID@X`). */
  slot: string
  /** The library's reports for these pixels (encoded as the model takes them). */
  prepare: (img: RenderedKey) => Promise<PreparedBuffer>
}

interface LcdSegment {
  lcd: StreamDeckLcdSegmentControlDefinition
  id: ControlId
  x: number
  width: number
  height: number
}

export interface StreamDeckSurfaceOptions {
  renderer: KeyRenderer
  /** Minimum time between flushes of the write queue; default 60 fps. */
  frameMs?: number
  /** Device bytes of faces already encoded; without it every image is drawn and encoded when written. */
  deviceBytes?: DeviceBytesCache
  /** How many images of one frame are prepared at once; default the cores available. */
  parallel?: number
  logger?: Logger
}

/** Write counters, for tests and the bench. */
export interface WriteStats {
  /** Writes sent to the device (images, colours, brightness). */
  writes: number
  /** Writes skipped because the control already shows that image. */
  skipped: number
}

/** The colour an RGB key or encoder LED shows (off when `led` is off or the colour is absent). */
function backlightOf(fb: Feedback): { rgb: readonly [number, number, number]; hash: string } {
  const rgb = fb.led === 'off' ? ([0, 0, 0] as const) : (parseColor(fb.color) ?? ([0, 0, 0] as const))
  return { rgb, hash: `rgb:${rgb[0]},${rgb[1]},${rgb[2]}` }
}

export class StreamDeckSurface implements Surface {
  readonly description: SurfaceDescription
  private readonly hub = new EventHub<SurfaceEvents>()
  readonly events: Listenable<SurfaceEvents> = this.hub.listenable
  readonly stats: WriteStats = { writes: 0, skipped: 0 }
  private readonly queue: WriteQueue
  private readonly writers = new Map<ControlId, Writer>()
  private readonly imageWriters = new Map<ControlId, ImageWriter>()
  /** What each control shows now (hash of the last written image or colour). */
  private readonly shown = new Map<ControlId, string>()
  /** The control id of each button and encoder, as the library hands the same objects back with input. */
  private readonly ids = new Map<StreamDeckButtonControlDefinition | StreamDeckEncoderControlDefinition, ControlId>()
  /** The segments of each LCD strip, left to right. */
  private readonly segments = new Map<StreamDeckLcdSegmentControlDefinition, LcdSegment[]>()
  private segmentCount = 0
  private readonly log: Logger
  private closing: Promise<void> | undefined
  private failed = false

  constructor(
    private readonly deck: StreamDeck,
    id: string,
    private readonly opts: StreamDeckSurfaceOptions,
  ) {
    this.log = opts.logger ?? createLogger('streamdeck').child(id)
    this.queue = new WriteQueue({
      ...(opts.frameMs !== undefined ? { frameMs: opts.frameMs } : {}),
      ...(opts.parallel !== undefined ? { parallel: opts.parallel } : {}),
      onError: (err) => this.fail(err),
    })
    const controls: ControlDescriptor[] = []
    let rows = 0
    let columns = 0
    for (const c of deck.CONTROLS) {
      if (c.type === 'button') {
        const kind = c.feedbackType === 'none' ? 'button' : 'key'
        const cid = controlId(kind, c.index)
        this.ids.set(c, cid)
        controls.push({
          id: cid,
          kind,
          row: c.row,
          column: c.column,
          capabilities:
            c.feedbackType === 'lcd' ? { image: { ...c.pixelSize } } : c.feedbackType === 'rgb' ? { rgb: true } : {},
        })
        if (kind === 'key') {
          rows = Math.max(rows, c.row + 1)
          columns = Math.max(columns, c.column + 1)
        }
        if (c.feedbackType === 'lcd') this.imageWriters.set(cid, this.keyImageWriter(c))
        const writer = this.buttonWriter(c)
        if (writer) this.writers.set(cid, writer)
      } else if (c.type === 'encoder') {
        const cid = controlId('encoder', c.index)
        this.ids.set(c, cid)
        controls.push({
          id: cid,
          kind: 'encoder',
          row: c.row,
          column: c.column,
          capabilities: c.hasLed || c.ledRingSteps > 0 ? { rgb: true } : {},
        })
        const writer = this.encoderWriter(c)
        if (writer) this.writers.set(cid, writer)
      } else {
        // Why: the library exposes one LCD control per strip; the Stream Deck+ strip sits under four keys
        // and takes region writes, so a segment per column is what a person sees as "the strip above a knob".
        const count = c.drawRegions ? Math.max(1, c.columnSpan) : 1
        const width = Math.floor(c.pixelSize.width / count)
        const strip: LcdSegment[] = []
        this.segments.set(c, strip)
        for (let i = 0; i < count; i++) {
          const seg: LcdSegment = {
            lcd: c,
            id: controlId('lcd', this.segmentCount++),
            x: i * width,
            width,
            height: c.pixelSize.height,
          }
          strip.push(seg)
          controls.push({
            id: seg.id,
            kind: 'lcd',
            row: c.row,
            column: c.column + (count > 1 ? i : 0),
            capabilities: { image: { width, height: seg.height } },
          })
          if (c.drawRegions) this.imageWriters.set(seg.id, this.regionImageWriter(seg))
          else this.writers.set(seg.id, this.segmentWriter(seg))
        }
      }
    }
    this.description = {
      id,
      driver: 'streamdeck',
      model: deck.PRODUCT_NAME,
      ...(rows > 0 ? { grid: { rows, columns } } : {}),
      controls,
    }
    this.listen()
  }

  setFeedback(control: ControlId, feedback: Feedback): void {
    if (this.closing || this.failed) return
    const image = this.imageWriters.get(control)
    if (image) {
      // Drawing and encoding happen at flush time, alongside the frame's other keys (see WriteQueue).
      this.queue.put(control, { prepare: () => this.prepareImage(control, image, feedback) })
      return
    }
    const writer = this.writers.get(control)
    if (!writer) {
      if (!this.description.controls.some((c) => c.id === control)) {
        this.log.once(`unknown:${control}`, 'warn', 'feedback for a control this device does not have', { control })
      }
      return
    }
    this.queue.put(control, async () => {
      // Rendering happens here, at flush time, so feedback replaced within a frame is never rendered.
      const op = writer(feedback)
      if (!op) return
      if (this.shown.get(control) === op.hash) {
        this.stats.skipped++
        return
      }
      await op.write()
      this.stats.writes++
      this.shown.set(control, op.hash)
    })
  }

  setBrightness(percent: number): void {
    if (this.closing || this.failed) return
    const value = Math.round(Math.min(100, Math.max(0, percent)))
    this.queue.put('brightness', async () => {
      await this.deck.setBrightness(value)
      this.stats.writes++
    })
  }

  /** Resolves when every queued write has been sent. */
  async drain(): Promise<void> {
    await this.queue.idle()
  }

  close(): Promise<void> {
    this.closing ??= this.doClose()
    return this.closing
  }

  private async doClose(): Promise<void> {
    await this.queue.stop()
    if (!this.failed) {
      try {
        // Blank what the deck shows, so a closed surface never shows stale state.
        // clearPanel blanks keys, LCD strips and encoder LEDs alike.
        await this.deck.clearPanel()
      } catch (err) {
        this.log.debug('could not blank the device while closing', { error: err })
      }
    }
    this.deck.removeAllListeners()
    try {
      await this.deck.close()
    } catch (err) {
      this.log.debug('could not close the device cleanly', { error: err })
    }
    // A late error from the HID layer after close must not become an unhandled 'error' event.
    this.deck.on('error', () => undefined)
    this.hub.emit('closed')
  }

  private fail(err: unknown): void {
    if (this.failed || this.closing) return
    this.failed = true
    this.hub.emit('error', err instanceof Error ? err : new Error(String(err)))
  }

  private emit(event: SurfaceEvent): void {
    this.hub.emit('input', event)
  }

  private segmentAt(lcd: StreamDeckLcdSegmentControlDefinition, pos: LcdPosition): LcdSegment | undefined {
    const strip = this.segments.get(lcd) ?? []
    return strip.find((s) => pos.x >= s.x && pos.x < s.x + s.width) ?? strip[strip.length - 1]
  }

  private press(seg: LcdSegment | undefined): void {
    if (!seg) return
    const at = performance.now()
    this.emit({ type: 'down', surface: this.description.id, control: seg.id, at })
    this.emit({ type: 'up', surface: this.description.id, control: seg.id, at })
  }

  private listen(): void {
    const surface = this.description.id
    const on = (
      c: StreamDeckButtonControlDefinition | StreamDeckEncoderControlDefinition,
      make: (control: ControlId, at: number) => SurfaceEvent,
    ): void => {
      const control = this.ids.get(c)
      if (control !== undefined) this.emit(make(control, performance.now()))
      else
        this.log.once(`unlisted:${c.type}:${c.index}`, 'warn', 'input from a control the deck did not list', {
          type: c.type,
          index: c.index,
        })
    }
    this.deck.on('down', (c) => on(c, (control, at) => ({ type: 'down', surface, control, at })))
    this.deck.on('up', (c) => on(c, (control, at) => ({ type: 'up', surface, control, at })))
    this.deck.on('rotate', (c, delta) => on(c, (control, at) => ({ type: 'rotate', surface, control, delta, at })))
    this.deck.on('lcdShortPress', (lcd, pos) => this.press(this.segmentAt(lcd, pos)))
    this.deck.on('lcdLongPress', (lcd, pos) => this.press(this.segmentAt(lcd, pos)))
    this.deck.on('lcdSwipe', (lcd, from) => this.press(this.segmentAt(lcd, from)))
    this.deck.on('error', (err) => this.fail(err))
  }

  /**
   * The write of one image: the device bytes from the cache when this face was written to this control
   * of this model before, else drawn and encoded (and cached). Nothing when the control shows it already.
   */
  private async prepareImage(control: ControlId, w: ImageWriter, fb: Feedback): Promise<WriteJob | undefined> {
    const cache = this.opts.deviceBytes
    const key = cache && DeviceBytesCache.key(this.deck.MODEL, w.slot, this.opts.renderer.identity(fb, w.size))
    let entry = key !== undefined ? cache?.get(key) : undefined
    if (!entry) {
      entry = await this.drawAndEncode(control, w, fb)
      if (!entry) return undefined
      if (key !== undefined) cache?.set(key, entry)
    } else if (this.shown.get(control) === entry.hash) {
      this.stats.skipped++
      return undefined
    }
    const { prepared, hash } = entry
    return async () => {
      await this.deck.sendPreparedBuffer(prepared)
      this.stats.writes++
      this.shown.set(control, hash)
    }
  }

  /**
   * A face's device bytes, drawn and encoded here (the encode runs on libuv's threads: the library's
   * JPEG encoder is asynchronous); undefined (counted as skipped) when the control shows those pixels.
   */
  private async drawAndEncode(control: ControlId, w: ImageWriter, fb: Feedback): Promise<DeviceBytes | undefined> {
    const img = this.opts.renderer.render(fb, w.size)
    if (this.shown.get(control) === img.hash) {
      this.stats.skipped++
      return undefined
    }
    const prepared = await w.prepare(img)
    return { prepared, hash: img.hash, bytes: preparedBytes(prepared) }
  }

  private keyImageWriter(c: StreamDeckButtonControlDefinitionLcdFeedback): ImageWriter {
    return {
      size: c.pixelSize,
      slot: `key:${c.index}`,
      prepare: (img) => this.deck.prepareFillKeyBuffer(c.index, img.rgba, { format: 'rgba' }),
    }
  }

  private regionImageWriter(seg: LcdSegment): ImageWriter {
    return {
      size: { width: seg.width, height: seg.height },
      slot: `lcd:${seg.lcd.id}@${seg.x}`,
      prepare: (img) =>
        this.deck.prepareFillLcdRegion(seg.lcd.id, seg.x, 0, img.rgba, {
          format: 'rgba',
          width: img.width,
          height: img.height,
        }),
    }
  }

  private buttonWriter(c: StreamDeckButtonControlDefinition): Writer | undefined {
    if (c.feedbackType === 'rgb') {
      return (fb) => {
        const {
          rgb: [r, g, b],
          hash,
        } = backlightOf(fb)
        return { hash, write: () => this.deck.fillKeyColor(c.index, r, g, b) }
      }
    }
    return undefined
  }

  private encoderWriter(c: StreamDeckEncoderControlDefinition): Writer | undefined {
    if (!c.hasLed && c.ledRingSteps === 0) return undefined
    return (fb) => {
      const {
        rgb: [r, g, b],
        hash,
      } = backlightOf(fb)
      return {
        hash,
        write: async () => {
          if (c.hasLed) await this.deck.setEncoderColor(c.index, r, g, b)
          if (c.ledRingSteps > 0) await this.deck.setEncoderRingSingleColor(c.index, r, g, b)
        },
      }
    }
  }

  /** A strip that only takes whole-strip writes (the Neo info bar): no prepared form, written directly. */
  private segmentWriter(seg: LcdSegment): Writer {
    return (fb) => {
      const img = this.opts.renderer.render(fb, { width: seg.width, height: seg.height })
      return { hash: img.hash, write: () => this.deck.fillLcd(seg.lcd.id, img.rgba, { format: 'rgba' }) }
    }
  }
}
