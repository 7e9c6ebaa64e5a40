/**
 * The continuous controls of a web surface: the spring-loaded shuttle ring, drawn as a horizontal
 * track whose thumb follows the pointer while held and springs back to centre on release, and faders,
 * drawn as vertical sliders whose thumb follows the application's `value` feedback unless the user is
 * dragging it. Both send `value` messages (shuttle -1..1, fader 0..1), at most once per
 * `VALUE_BATCH_MS` and only on change; a release is sent at once. Pointer events serve mouse, pen and
 * touch alike; arrow keys move a focused control. Without a `send` (a mirrored device) they only show
 * state: a mirrored fader's thumb follows the feedback's value, a mirrored ring stays at rest.
 */
import { SHUTTLE_ZONES, shuttleZone } from '../face/control-id.js'
import type { WebControlState } from '../face/protocol.js'
import { el, labelText } from './dom.js'
import type { Send } from './input.js'

/** Values are sent at most this often per control while a pointer moves (about one animation frame). */
const VALUE_BATCH_MS = 16
/** Values are rounded to this step: the pointer's sub-pixel noise is not worth a message. */
const VALUE_RESOLUTION = 1000
/** Pointer travel from centre to full deflection of the shuttle (15 px per zone). */
const SHUTTLE_TRAVEL_PX = 105
/** How far the device's ring turns to full deflection either way (15° a zone), as the page draws it. */
const SHUTTLE_RING_DEGREES = 105
/** The fader thumb's height; the track's inner height less this is the fader's travel. */
const FADER_THUMB_PX = 16
/** How far one arrow key moves a fader (Page Up/Down move `FADER_PAGE_STEP`). */
const FADER_KEY_STEP = 0.05
const FADER_PAGE_STEP = 0.2

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(value * VALUE_RESOLUTION) / VALUE_RESOLUTION)) + 0
}

/** Sends one control's value, batched and only on change. */
class ValueSender {
  private pending: number | undefined
  private last: number | undefined
  private timer = 0

  constructor(
    private readonly send: Send,
    private readonly surface: string,
    private readonly control: string,
    private readonly node: HTMLElement,
    initial?: number,
  ) {
    this.last = initial
  }

  /** Queues `value`; `now` sends it (and drops any queued one) at once, as a release must be. */
  set(value: number, now = false): void {
    this.pending = value
    if (now) this.flush()
    else if (!this.timer) this.timer = window.setTimeout(() => this.flush(), VALUE_BATCH_MS)
  }

  /**
   * Forgets what was sent last, so the next value goes even if it is the same: another browser may
   * have moved the control since (the server still sends only changes on).
   */
  forget(): void {
    this.last = undefined
  }

  private flush(): void {
    if (this.timer) window.clearTimeout(this.timer)
    this.timer = 0
    const value = this.pending
    this.pending = undefined
    // A control the page has since removed (its surface was replaced) sends nothing.
    if (value === undefined || value === this.last || !this.node.isConnected) return
    this.last = value
    this.send({ type: 'value', surface: this.surface, control: this.control, value })
  }
}

/** A continuous control on the page. */
export interface Slider {
  readonly element: HTMLElement
  /** Shows feedback: the label and detail under it, the colour on its track, a fader's value. */
  showState(state: WebControlState): void
}

function sliderParts(
  kind: string,
  surface: string,
  control: string,
  readonly: boolean,
): { node: HTMLElement; track: HTMLElement } {
  const node = el('div', 'slider ' + kind)
  node.dataset.surface = surface
  node.dataset.control = control
  const track = el('div', 'track')
  track.setAttribute('role', 'slider')
  if (readonly) {
    track.setAttribute('aria-readonly', 'true')
    track.setAttribute('aria-label', `${control} (read-only)`)
    node.title = `${control} (read-only mirror)`
  } else track.tabIndex = 0
  track.appendChild(el('span', 'thumb'))
  node.appendChild(track)
  return { node, track }
}

function showLabel(node: HTMLElement, track: HTMLElement, control: string, state: WebControlState): void {
  const label = node.querySelector<HTMLElement>('.label')
  if (label) label.textContent = labelText(control, state)
  track.style.borderColor = state.color ?? ''
}

/** The spring-loaded shuttle ring: -1..1, back to 0 whenever it is let go. */
export class Shuttle implements Slider {
  readonly element: HTMLElement
  private readonly track: HTMLElement
  private readonly zone: HTMLElement
  private readonly sender: ValueSender | undefined
  /** Where the pointer took hold (its x, or on the device's ring its angle); undefined while nothing holds the ring. */
  private grabX: number | undefined
  /** The zone the arrow keys have turned it to. */
  private keyZone = 0

  constructor(
    surface: string,
    private readonly control: string,
    send: Send | undefined,
    /** Drawn as the device's ring around its jog: turned by angle rather than dragged sideways. */
    private readonly ring = false,
  ) {
    const { node, track } = sliderParts('shuttle', surface, control, !send)
    node.classList.toggle('ring-form', ring)
    this.element = node
    this.track = track
    track.setAttribute('aria-valuemin', '-1')
    track.setAttribute('aria-valuemax', '1')
    this.zone = el('span', 'zone')
    node.appendChild(this.zone)
    node.appendChild(el('span', 'label', control))
    this.show(0)
    if (!send) return
    track.setAttribute('aria-label', `${control}: drag or hold an arrow key; springs back to centre`)
    this.sender = new ValueSender(send, surface, control, node, 0)

    track.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return
      e.preventDefault()
      track.setPointerCapture(e.pointerId)
      track.focus()
      this.grabX = this.ring ? this.angleAt(e) : e.clientX
      node.classList.add('held')
    })
    track.addEventListener('pointermove', (e) => {
      if (this.grabX === undefined) return
      const turned = this.ring
        ? (((this.angleAt(e) - this.grabX + 540) % 360) - 180) / SHUTTLE_RING_DEGREES
        : (e.clientX - this.grabX) / SHUTTLE_TRAVEL_PX
      this.move(clamp(turned, -1, 1), false)
    })
    const letGo = (): void => {
      if (this.grabX === undefined) return
      this.grabX = undefined
      this.springBack()
    }
    track.addEventListener('pointerup', letGo)
    track.addEventListener('pointercancel', letGo)
    track.addEventListener('lostpointercapture', letGo)
    // The keyboard's ring: each arrow press (or key repeat) turns it a zone further; letting go of
    // the arrow lets go of the ring.
    track.addEventListener('keydown', (e) => {
      const step =
        e.key === 'ArrowRight' || e.key === 'ArrowUp' ? 1 : e.key === 'ArrowLeft' || e.key === 'ArrowDown' ? -1 : 0
      if (step === 0 || this.grabX !== undefined) return
      e.preventDefault()
      this.keyZone = Math.max(-SHUTTLE_ZONES, Math.min(SHUTTLE_ZONES, this.keyZone + step))
      node.classList.add('held')
      this.move(clamp(this.keyZone / SHUTTLE_ZONES, -1, 1), true)
    })
    track.addEventListener('keyup', (e) => {
      if (e.key.startsWith('Arrow') && this.keyZone !== 0) this.springBack()
    })
    track.addEventListener('blur', () => {
      if (this.keyZone !== 0) this.springBack()
    })
  }

  /** The pointer's angle around the ring's centre, degrees clockwise from twelve o'clock. */
  private angleAt(e: PointerEvent): number {
    const box = this.track.getBoundingClientRect()
    const x = e.clientX - (box.left + box.width / 2)
    const y = e.clientY - (box.top + box.height / 2)
    return (Math.atan2(x, -y) * 180) / Math.PI
  }

  showState(state: WebControlState): void {
    // The ring's position is the hand's, never the application's: only the label and colour show.
    showLabel(this.element, this.track, this.control, state)
  }

  private move(value: number, now: boolean): void {
    this.show(value)
    this.sender?.set(value, now)
  }

  private springBack(): void {
    this.keyZone = 0
    this.element.classList.remove('held')
    this.move(0, true)
  }

  private show(value: number): void {
    const zone = shuttleZone(value)
    this.element.style.setProperty('--pos', String(value))
    this.element.dataset.zone = String(zone)
    this.zone.textContent = zone === 0 ? '0' : zone > 0 ? `▶ ${zone}` : `◀ ${-zone}`
    this.track.setAttribute('aria-valuenow', String(value))
    this.track.setAttribute(
      'aria-valuetext',
      zone === 0 ? 'centre' : `zone ${Math.abs(zone)} ${zone > 0 ? 'forward' : 'reverse'}`,
    )
  }
}

/** The tooltip of a fader whose value is not known (the blue `?`). */
const UNKNOWN_TIP = 'Value not known yet: it shows once the fader moves or the application reports it.'

/** An absolute fader, 0 (bottom) to 1 (top), that shows the application's value when not held. */
export class Fader implements Slider {
  readonly element: HTMLElement
  private readonly track: HTMLElement
  private readonly sender: ValueSender | undefined
  private dragging = false
  private value = 0

  constructor(
    surface: string,
    private readonly control: string,
    send: Send | undefined,
    /** A fader that rests in the middle (pitch bend). */
    centred = false,
  ) {
    const { node, track } = sliderParts('fader', surface, control, !send)
    this.element = node
    this.track = track
    node.classList.toggle('centred', centred)
    track.setAttribute('aria-orientation', 'vertical')
    track.setAttribute('aria-valuemin', '0')
    track.setAttribute('aria-valuemax', '1')
    node.appendChild(el('span', 'label', control))
    // A fader's position is not known until the application or a hand says it: never drawn at its
    // bottom meanwhile. A centred one (pitch bend) springs back to the middle, so it rests there.
    if (centred) this.show(0.5)
    else this.showUnknown()
    if (!send) return
    track.setAttribute('aria-label', `${control}: drag or use the arrow keys`)
    this.sender = new ValueSender(send, surface, control, node)

    track.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return
      e.preventDefault()
      track.setPointerCapture(e.pointerId)
      track.focus()
      this.dragging = true
      this.sender?.forget()
      node.classList.add('held')
      this.move(this.valueAt(e.clientY), false)
    })
    track.addEventListener('pointermove', (e) => {
      if (this.dragging) this.move(this.valueAt(e.clientY), false)
    })
    const letGo = (): void => {
      if (!this.dragging) return
      this.dragging = false
      node.classList.remove('held')
      this.sender?.set(this.value, true)
    }
    track.addEventListener('pointerup', letGo)
    track.addEventListener('pointercancel', letGo)
    track.addEventListener('lostpointercapture', letGo)
    track.addEventListener('keydown', (e) => {
      const to = this.keyTarget(e.key)
      if (to === undefined) return
      e.preventDefault()
      this.sender?.forget()
      this.move(clamp(to, 0, 1), true)
    })
  }

  showState(state: WebControlState): void {
    showLabel(this.element, this.track, this.control, state)
    // The application's value moves the thumb, except under the user's hand; a value the daemon says
    // it does not know (the unknown badge, no value) is drawn as unknown.
    if (this.dragging) return
    if (state.value !== undefined) this.show(clamp(state.value, 0, 1))
    else if (state.badge === 'unknown') this.showUnknown()
  }

  /** Whether the fader shows no position (its value is not known). */
  get unknown(): boolean {
    return this.element.classList.contains('unknown')
  }

  private keyTarget(key: string): number | undefined {
    switch (key) {
      case 'ArrowUp':
      case 'ArrowRight':
        return this.value + FADER_KEY_STEP
      case 'ArrowDown':
      case 'ArrowLeft':
        return this.value - FADER_KEY_STEP
      case 'PageUp':
        return this.value + FADER_PAGE_STEP
      case 'PageDown':
        return this.value - FADER_PAGE_STEP
      case 'Home':
        return 0
      case 'End':
        return 1
      default:
        return undefined
    }
  }

  /** The value under a pointer at `clientY`: the thumb's centre follows the pointer. */
  private valueAt(clientY: number): number {
    const top = this.track.getBoundingClientRect().top + this.track.clientTop
    const travel = this.track.clientHeight - FADER_THUMB_PX
    if (travel <= 0) return this.value
    return clamp(1 - (clientY - top - FADER_THUMB_PX / 2) / travel, 0, 1)
  }

  private move(value: number, now: boolean): void {
    this.show(value)
    this.sender?.set(value, now)
  }

  private show(value: number): void {
    this.value = value
    if (this.element.classList.contains('unknown')) this.track.removeAttribute('title')
    this.element.classList.remove('unknown')
    this.element.style.setProperty('--pos', String(value))
    this.track.setAttribute('aria-valuenow', String(value))
    this.track.removeAttribute('aria-valuetext')
  }

  /** No thumb, a `?` on the track; the arrow keys then start from the bottom, as they always did. */
  private showUnknown(): void {
    this.value = 0
    this.element.classList.add('unknown')
    this.track.title = UNKNOWN_TIP
    this.element.style.setProperty('--pos', '0.5')
    this.track.removeAttribute('aria-valuenow')
    this.track.setAttribute('aria-valuetext', 'unknown')
  }
}
