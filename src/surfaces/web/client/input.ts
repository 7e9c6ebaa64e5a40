/**
 * Input on the page: pointer down/up (and Space/Enter) on a key or an encoder's centre → `down`/`up`;
 * dragging or the wheel on a ring → `rotate` with signed steps (clockwise positive), summed over
 * `ROTATE_BATCH_MS` before sending.
 */
import type { ClientMessage } from '../protocol.js'

/** Sends one message if the socket is open (input while disconnected is dropped, never replayed late). */
export type Send = (message: ClientMessage) => void

const ROTATE_BATCH_MS = 16
const DRAG_PIXELS_PER_STEP = 12
const WHEEL_PIXELS_PER_STEP = 100
const DEGREES_PER_STEP = 15
/** Wheel `deltaMode` 1 counts lines (3 per notch in Firefox), 2 pages; one mouse notch is one step. */
const WHEEL_LINE_PIXELS = 34
const WHEEL_PAGE_PIXELS = 800

/** Makes `target` send `down` on press and `up` on release, once per hold. */
export function holdable(target: HTMLElement, surface: string, control: string, send: Send): void {
  let held = false
  function down(e?: PointerEvent): void {
    if (e) {
      if (e.button !== 0) return
      e.preventDefault()
      target.setPointerCapture(e.pointerId)
    }
    if (held) return
    held = true
    target.classList.add('down')
    send({ type: 'down', surface, control })
  }
  function up(): void {
    if (!held) return
    held = false
    target.classList.remove('down')
    send({ type: 'up', surface, control })
  }
  target.addEventListener('pointerdown', down)
  target.addEventListener('pointerup', up)
  target.addEventListener('pointercancel', up)
  target.addEventListener('lostpointercapture', up)
  target.addEventListener('keydown', (e) => {
    if ((e.key === ' ' || e.key === 'Enter') && !e.repeat) {
      e.preventDefault()
      down()
    }
  })
  target.addEventListener('keyup', (e) => {
    if (e.key === ' ' || e.key === 'Enter') up()
  })
  target.addEventListener('blur', up)
}

/** Sums rotation per control and sends it at most once per `ROTATE_BATCH_MS`. */
export class RotationBatcher {
  private readonly pending = new Map<string, { surface: string; control: string; delta: number }>()
  private timer = 0

  constructor(private readonly send: Send) {}

  /** Adds `steps` to the control's pending rotation and turns its on-screen mark to match. */
  queue(surface: string, control: string, steps: number, mark: HTMLElement): void {
    if (steps === 0) return
    const key = JSON.stringify([surface, control])
    const entry = this.pending.get(key)
    if (entry) entry.delta += steps
    else this.pending.set(key, { surface, control, delta: steps })
    const angle = (Number(mark.dataset.angle) || 0) + steps * DEGREES_PER_STEP
    mark.dataset.angle = String(angle)
    mark.style.transform = `rotate(${angle}deg)`
    if (!this.timer) this.timer = window.setTimeout(() => this.flush(), ROTATE_BATCH_MS)
  }

  private flush(): void {
    this.timer = 0
    for (const { surface, control, delta } of this.pending.values()) {
      if (delta !== 0) this.send({ type: 'rotate', surface, control, delta })
    }
    this.pending.clear()
  }
}

/** Makes `ring` turn by dragging (right or up is clockwise) and by the wheel. */
export function rotatable(
  ring: HTMLElement,
  turn: HTMLElement,
  surface: string,
  control: string,
  rotations: RotationBatcher,
): void {
  let dragging = false
  let last = 0
  let carry = 0
  let wheelCarry = 0
  ring.addEventListener('pointerdown', (e) => {
    if (e.target !== ring && e.target !== turn) return
    e.preventDefault()
    ring.setPointerCapture(e.pointerId)
    dragging = true
    last = e.clientX - e.clientY
    carry = 0
  })
  ring.addEventListener('pointermove', (e) => {
    if (!dragging) return
    const pos = e.clientX - e.clientY
    carry += pos - last
    last = pos
    const steps = Math.trunc(carry / DRAG_PIXELS_PER_STEP)
    carry -= steps * DRAG_PIXELS_PER_STEP
    rotations.queue(surface, control, steps, turn)
  })
  const stop = (): void => {
    dragging = false
  }
  ring.addEventListener('pointerup', stop)
  ring.addEventListener('pointercancel', stop)
  ring.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault()
      const scale = e.deltaMode === 1 ? WHEEL_LINE_PIXELS : e.deltaMode === 2 ? WHEEL_PAGE_PIXELS : 1
      wheelCarry += e.deltaY * scale
      const steps = Math.trunc(wheelCarry / WHEEL_PIXELS_PER_STEP)
      wheelCarry -= steps * WHEEL_PIXELS_PER_STEP
      rotations.queue(surface, control, steps, turn)
    },
    { passive: false },
  )
}
