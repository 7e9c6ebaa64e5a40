/**
 * A network deck as a `Surface`: the USB Stream Deck surface (`../streamdeck/surface.ts`: controls,
 * input, the coalescing write queue, drawing and encoding) over the deck the library built on the
 * network connection, under its own driver name.
 *
 * Every open paints from scratch: a deck that comes back (a dock's deck replugged, the dock back on the
 * network) may show grey keys or the vendor's logo, and what it showed before is unknown, so every key,
 * strip segment and encoder LED is written (blank, replaced within the same frame by the manager's
 * re-applied feedback where there is some) and the brightness is sent again. The manager re-applies only
 * what it has; without this a key that never had feedback would keep the logo.
 */
import type { Listenable } from '../../events.js'
import type { StreamDeckSurface } from '../streamdeck/surface.js'
import type { ControlId } from '../../face/control-id.js'
import type { Feedback } from '../../face/feedback.js'
import type { Surface, SurfaceEvents } from '../types.js'
import type { SurfaceDescription } from '../../face/surface.js'

export class NetDeckSurface implements Surface {
  readonly description: SurfaceDescription
  readonly events: Listenable<SurfaceEvents>

  constructor(
    private readonly inner: StreamDeckSurface,
    driver: string,
    brightness: number,
    gone: Promise<void>,
  ) {
    this.description = { ...inner.description, driver }
    this.events = inner.events
    inner.setBrightness(brightness)
    for (const c of inner.description.controls) {
      if (c.capabilities.image || c.capabilities.rgb) inner.setFeedback(c.id, {})
    }
    // The connection dropped: the deck is unplugged, as a USB deck pulled out; the manager shows `waiting`.
    void gone.then(() => this.close())
  }

  setFeedback(control: ControlId, feedback: Feedback): void {
    this.inner.setFeedback(control, feedback)
  }

  setBrightness(percent: number): void {
    this.inner.setBrightness(percent)
  }

  /** Resolves when every queued write has been sent (tests). */
  drain(): Promise<void> {
    return this.inner.drain()
  }

  close(): Promise<void> {
    return this.inner.close()
  }
}
