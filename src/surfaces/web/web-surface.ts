/**
 * A configured `web` surface: a key grid (plus optional encoders, a jog wheel, a shuttle ring and
 * faders) drawn in a browser
 * by the WebSurfaceServer. To the engine it is a surface like any other: it emits the same
 * `SurfaceEvent`s and takes the same `Feedback`; the page paints its keys with the hardware's key
 * layout (`../../face/key-paint.ts`).
 *
 * Feedback is coalesced twice: here, every feedback given within one turn of the event loop becomes
 * one message (the newest per control wins); and per browser in the server, a newer face for a key
 * replaces one still waiting for a slow socket.
 */
import { EventHub, type Listenable } from '../../events.js'
import { createLogger } from '../../log.js'
import { shuttleZone, type ControlId } from '../../face/control-id.js'
import type { Surface, SurfaceEvent, SurfaceEvents } from '../types.js'
import type { Feedback } from '../../face/feedback.js'
import { KeyImages } from './key-images.js'
import { acceptsEvent, clampValue, type ServerMessage, type WebSurfaceView } from '../../face/protocol.js'
import { surfaceView } from './views.js'
import { webSurfaceDescription, type WebSurfaceOptions as WebSurfaceShape } from '../../families/web.js'
import { RenderedControls } from './rendered-controls.js'
import { PageViewers, type ViewerSend } from './page-viewers.js'
import type { PagePort } from '../page-port.js'
import type { SurfaceDescription } from '../../face/surface.js'

export { WEB_DRIVER, webSurfaceDescription } from '../../families/web.js'

/** A web surface's options: what it is made of (`src/families/web.ts`) and its image cache. */
export interface WebSurfaceOptions extends WebSurfaceShape {
  /** Shared renderer and image cache for keys with a pre-rendered image; one is made when absent. */
  images?: KeyImages
}

/** What the server listens to: what each browser should draw. */
export interface WebSurfaceViewEvents {
  message: [message: ServerMessage]
}

const log = createLogger('surfaces/web')
/** Numbers the source names of holders that came without a view name (tests, in-process callers). */
let anonymousCount = 0

export class WebSurface implements Surface {
  readonly description: SurfaceDescription
  private readonly hub = new EventHub<SurfaceEvents>()
  readonly events: Listenable<SurfaceEvents> = this.hub.listenable
  private readonly viewHub = new EventHub<WebSurfaceViewEvents>()
  /** Draw instructions for browsers; the WebSurfaceServer subscribes. */
  readonly view: Listenable<WebSurfaceViewEvents> = this.viewHub.listenable

  private readonly viewOfSurface: WebSurfaceView
  private readonly rendered: RenderedControls
  /** The browsers viewing it through the engine's page port, some with a page of their own. */
  private readonly viewers: PageViewers
  private flushScheduled: NodeJS.Immediate | undefined
  /** Whether a browser shows this surface; see setWatched. */
  private watched = true
  private brightness = 100
  /**
   * Who holds each pressed control, with the source name each browser's press carries: each browser's
   * press is its own (the engine tracks them apart). Keyed by `holdKey`: a browser with a page of its
   * own holds its own (its page's binding of the control).
   */
  private readonly holders = new Map<string, { control: ControlId; view?: string; by: Map<object, string> }>()
  /** A source name for a holder that came without a view name. */
  private readonly anonymous = new WeakMap<object, string>()
  /** The last value sent on for each absolute control (shuttle, faders), by `holdKey`; sent only on change. */
  private readonly values = new Map<string, number>()
  /**
   * Which browser last moved each spring-loaded control (the shuttle) off centre, by `holdKey`. The
   * shuttle has one position, so the newest browser to move it holds it; when that browser goes, it
   * springs back.
   */
  private readonly offCentre = new Map<string, { control: ControlId; view?: string; by: object }>()
  private closed = false

  constructor(options: WebSurfaceOptions) {
    if (typeof options.id !== 'string' || options.id.length === 0) throw new TypeError('web surface: id is required')
    this.description = webSurfaceDescription(options)
    this.viewOfSurface = surfaceView(this.description, 'interactive')
    const surface = options.id
    const images = options.images ?? new KeyImages()
    const onRenderError = (control: ControlId, err: unknown): void => {
      log.once(`${surface}:render:${control}`, 'error', 'could not draw the image of a web key', {
        surface,
        control,
        err,
      })
    }
    this.rendered = new RenderedControls(this.description, images, onRenderError)
    this.viewers = new PageViewers(this.description, images, this.rendered, onRenderError)
  }

  get isClosed(): boolean {
    return this.closed
  }

  setFeedback(control: ControlId, feedback: Feedback): void {
    if (this.closed) return
    if (!this.rendered.queue(control, feedback)) {
      log.once(`${this.description.id}:unknown:${control}`, 'warn', 'feedback for a control the web surface lacks', {
        surface: this.description.id,
        control,
      })
      return
    }
    if (this.watched) this.flushScheduled ??= setImmediate(() => this.flush())
  }

  /**
   * Whether any browser shows this surface (the server says so as browsers come and go; a surface on
   * its own is watched). While none does, nothing is made: feedback waits, the newest per control (so
   * at most one entry per control), and becoming watched flushes it at once, before the browser's
   * snapshot. A headless box whose page nobody has open never spends a message on a jog label that
   * changes 50 times a second.
   */
  setWatched(watched: boolean): void {
    if (watched === this.watched) return
    this.watched = watched
    if (watched && this.rendered.hasPending) this.flush()
  }

  setBrightness(percent: number): void {
    if (this.closed || !Number.isFinite(percent)) return
    this.brightness = Math.min(100, Math.max(0, Math.round(percent)))
    this.viewHub.emit('message', { type: 'brightness', surface: this.description.id, percent: this.brightness })
  }

  /** The page's view of this surface. */
  toView(): WebSurfaceView {
    return this.viewOfSurface
  }

  /** Everything a browser that connects now must be sent to show the current state. */
  snapshot(): ServerMessage[] {
    return [{ type: 'surface', surface: this.toView() }, ...this.rendered.shown.values(), ...this.brightnessNow()]
  }

  /**
   * Shows this surface to a browser that connects (or to every browser, when the surface is added):
   * its layout, then, with the engine's page port, its page (and the browser's own page's faces, with
   * `listen.pages: per-browser`), else the surface's faces. `view` names the browser (unique per
   * surface); `mayOwn` is false for one that only follows the shared page (a read-only viewer).
   */
  showTo(send: ViewerSend, pages?: { port: PagePort; view: string; mayOwn: boolean }): void {
    send({ type: 'surface', surface: this.toView() })
    if (pages) this.viewers.open(pages.port, pages.view, pages.mayOwn, send)
    if (!this.viewers.owns(pages?.view)) for (const message of this.rendered.shown.values()) send(message)
    for (const message of this.brightnessNow()) send(message)
  }

  /** A browser has gone: its view closes, and whatever it held is let go. */
  forget(view: string, holder: object): void {
    this.releaseAll(holder)
    this.viewers.close(view)
  }

  /** Whether a browser keeps a page of its own: the surface's own key faces and states are not for it. */
  ownsPage(view: string): boolean {
    return this.viewers.owns(view)
  }

  private anonymousSource(holder: object): string {
    let name = this.anonymous.get(holder)
    if (name === undefined) this.anonymous.set(holder, (name = `holder-${++anonymousCount}`))
    return name
  }

  private brightnessNow(): ServerMessage[] {
    return this.brightness === 100
      ? []
      : [{ type: 'brightness', surface: this.description.id, percent: this.brightness }]
  }

  /** Who holds what: a browser with a page of its own holds its own copy of a control. */
  private holdKey(control: ControlId, view: string | undefined): { key: string; view?: string } {
    return this.viewers.owns(view) ? { key: `${control}\u0000${view}`, view } : { key: control }
  }

  /** An input event; one from a browser with a page of its own names it, so the engine routes it by that page. */
  private input<T extends SurfaceEvent['type']>(
    type: T,
    control: ControlId,
    view: string | undefined,
    extra: Omit<Extract<SurfaceEvent, { type: T }>, 'type' | 'surface' | 'control' | 'at' | 'view'>,
  ): void {
    this.emitInput({
      type,
      surface: this.description.id,
      control,
      ...(view !== undefined ? { view } : {}),
      ...extra,
      at: performance.now(),
    } as SurfaceEvent)
  }

  /**
   * Browser input, called by the server. `holder` is the browser connection, `view` its view (see
   * `showTo`): each browser's press is its own, named by `view` as its source (so two browsers on one
   * key give two downs and two ups, each up ending its own browser's press). Returns false when the
   * control does not take that event (the server logs it).
   */
  press(control: ControlId, holder: object, view?: string): boolean {
    if (!this.accepts(control, 'down')) return false
    const at = this.holdKey(control, view)
    let held = this.holders.get(at.key)
    if (!held) this.holders.set(at.key, (held = { control, ...(at.view ? { view: at.view } : {}), by: new Map() }))
    if (held.by.has(holder)) return true
    const source = view ?? this.anonymousSource(holder)
    held.by.set(holder, source)
    this.input('down', control, at.view, { source })
    return true
  }

  release(control: ControlId, holder: object, view?: string): boolean {
    if (!this.accepts(control, 'up')) return false
    const at = this.holdKey(control, view)
    const held = this.holders.get(at.key)
    const source = held?.by.get(holder)
    if (!held || source === undefined) return true
    held.by.delete(holder)
    if (held.by.size === 0) this.holders.delete(at.key)
    this.input('up', control, held.view, { source })
    return true
  }

  /**
   * Ends everything a browser holds (it disconnected with a key down, or the shuttle off centre): its
   * presses are cancelled, not released (the operator never finished them: nothing fires); a
   * spring-loaded ring let go returns to centre, and the engine must hear it stop.
   */
  releaseAll(holder: object): void {
    for (const [key, held] of [...this.holders]) {
      const source = held.by.get(holder)
      if (source === undefined) continue
      held.by.delete(holder)
      if (held.by.size === 0) this.holders.delete(key)
      this.input('up', held.control, held.view, { source, cancel: true })
    }
    for (const [key, off] of [...this.offCentre]) {
      if (off.by !== holder) continue
      this.offCentre.delete(key)
      this.setValue(off.control, 0, off.view, key)
    }
  }

  /**
   * An absolute position from a browser: -1..1 for the shuttle (0 = centre), 0..1 for a fader,
   * clamped to that range. Emits a `value` event only when the value changed; the shuttle's carries
   * its zone (-7..7) as `raw`. Returns false when the control takes no values.
   */
  value(control: ControlId, value: number, holder: object, view?: string): boolean {
    const descriptor = this.rendered.controls.get(control)
    if (this.closed || descriptor === undefined || !acceptsEvent(descriptor.kind, 'value')) return false
    const v = clampValue(descriptor.kind, value)
    if (v === undefined) return false
    const at = this.holdKey(control, view)
    if (descriptor.kind === 'shuttle') {
      if (v === 0) this.offCentre.delete(at.key)
      else this.offCentre.set(at.key, { control, ...(at.view ? { view: at.view } : {}), by: holder })
    }
    this.setValue(control, v, at.view, at.key)
    return true
  }

  /** Sends a value on when it changed. */
  private setValue(control: ControlId, v: number, view: string | undefined, key: string): void {
    // The shuttle starts at rest: a first 0 is no change.
    const shuttle = this.rendered.controls.get(control)?.kind === 'shuttle'
    if ((this.values.get(key) ?? (shuttle ? 0 : undefined)) === v) return
    this.values.set(key, v)
    this.input('value', control, view, { value: v, ...(shuttle ? { raw: shuttleZone(v) } : {}) })
  }

  rotate(control: ControlId, delta: number, view?: string): boolean {
    if (!this.accepts(control, 'rotate')) return false
    this.input('rotate', control, this.holdKey(control, view).view, { delta })
    return true
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.closed = true
    if (this.flushScheduled) clearImmediate(this.flushScheduled)
    this.flushScheduled = undefined
    this.rendered.dropPending()
    this.viewers.closeAll()
    this.holders.clear()
    this.offCentre.clear()
    // Listeners stay their owners' to remove (the server and the manager detach on `closed`).
    this.hub.emit('closed')
    return Promise.resolve()
  }

  private accepts(control: ControlId, type: 'down' | 'up' | 'rotate'): boolean {
    const descriptor = this.rendered.controls.get(control)
    return !this.closed && descriptor !== undefined && acceptsEvent(descriptor.kind, type)
  }

  private emitInput(event: SurfaceEvent): void {
    this.hub.emit('input', event)
  }

  private flush(): void {
    if (this.flushScheduled) clearImmediate(this.flushScheduled)
    this.flushScheduled = undefined
    for (const message of this.rendered.flush()) this.viewHub.emit('message', message)
  }
}
