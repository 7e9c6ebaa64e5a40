/**
 * A browser deck as a `Surface`: the controls of its model (never the page's word), its input from the
 * page checked against them, and what the engine shows sent back to the page, which writes it to the
 * deck with the library. A key's face travels as data (`KeyFace`) and the page paints it at the key's
 * size with the daemon's key layout and font, as it paints web keys, so the daemon draws nothing for
 * it; a feedback with an image or a picture is drawn here (`KeyImages`, loaded only then) and sent as
 * a PNG. RGB keys and encoder LEDs get their colour. LCD strips show nothing yet (their input works).
 */
import { EventHub, type Listenable } from '../../events.js'
import { controlSends, type ControlId } from '../../face/control-id.js'
import { keyFaceOf, parseColor } from '../../face/key-paint.js'
import type { Surface, SurfaceEvents } from '../types.js'
import type { Feedback } from '../../face/feedback.js'
import type { KeyImages } from '../web/key-images.js'
import type { DeckServerMessage } from '../../face/protocol.js'
import { BROWSER_DECK_DRIVER, type BrowserDeckInput, type Registration } from './hub.js'
import type { ControlDescriptor, SurfaceDescription } from '../../face/surface.js'

export type { BrowserDeckInput } from './hub.js'

export interface BrowserDeckSurfaceOptions {
  /** Draws keys whose feedback carries an image or a picture; made on first need when absent. */
  images: () => KeyImages
  /** Sends to the page while the deck is registered. */
  send: (message: DeckServerMessage) => void
}

export class BrowserDeckSurface implements Surface {
  readonly description: SurfaceDescription
  private readonly hub = new EventHub<SurfaceEvents>()
  readonly events: Listenable<SurfaceEvents> = this.hub.listenable
  private readonly controls: ReadonlyMap<ControlId, ControlDescriptor>
  private closed = false

  constructor(
    private readonly reg: Registration,
    private readonly opts: BrowserDeckSurfaceOptions,
  ) {
    const { model } = reg
    this.description = {
      id: reg.id,
      driver: BROWSER_DECK_DRIVER,
      model: model.name,
      ...(model.grid ? { grid: { ...model.grid } } : {}),
      controls: [...model.controls],
    }
    this.controls = new Map(model.controls.map((c) => [c.id, c]))
    reg.input = (m) => this.input(m)
  }

  setFeedback(control: ControlId, feedback: Feedback): void {
    const c = this.controls.get(control)
    if (this.closed || !c) return
    const deck = this.reg.deck
    if (c.kind === 'key' && c.capabilities.image) {
      const image = feedback.image || feedback.picture ? this.opts.images().dataUrl(feedback, c.capabilities.image) : ''
      this.opts.send({ type: 'deck-key', deck, control, face: keyFaceOf(feedback), ...(image ? { image } : {}) })
    } else if (c.capabilities.rgb) {
      const rgb = feedback.led === 'off' ? undefined : parseColor(feedback.color)
      this.opts.send({ type: 'deck-color', deck, control, rgb: rgb ?? [0, 0, 0] })
    }
  }

  setBrightness(percent: number): void {
    if (this.closed) return
    const value = Math.round(Math.min(100, Math.max(0, percent)))
    this.opts.send({ type: 'deck-brightness', deck: this.reg.deck, percent: value })
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.closed = true
    if (this.reg.input) this.reg.input = undefined
    // Still registered (a reload took its claim away): the page blanks it and shows it unclaimed.
    this.opts.send({ type: 'deck-state', deck: this.reg.deck, state: 'unclaimed', detail: 'no surface claims it now' })
    this.hub.emit('closed')
    return Promise.resolve()
  }

  /** The page's input: only a control the model has, and only an event its kind sends. */
  private input(m: BrowserDeckInput): void {
    const c = this.controls.get(m.control)
    if (this.closed || !c || !controlSends(c.kind, m.input)) return
    const surface = this.description.id
    const at = performance.now()
    if (m.input === 'rotate') this.hub.emit('input', { type: 'rotate', surface, control: c.id, delta: m.delta, at })
    else this.hub.emit('input', { type: m.input, surface, control: c.id, at })
  }
}
