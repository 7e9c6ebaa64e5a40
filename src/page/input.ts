/**
 * Input on the page: pointer down/up (and Space/Enter) on a key or an encoder's centre → `down`/`up`;
 * dragging around a ring (by angle, `./angle.ts`), the wheel or the arrow keys on it → `rotate` with
 * signed steps (clockwise positive), summed over `ROTATE_BATCH_MS` before sending.
 */
import type { ClientMessage } from '../face/protocol.js'
import { DEAD_ZONE_FRACTION, TurnTracker } from './angle.js'

/** Sends one message if the socket is open (input while disconnected is dropped, never replayed late). */
export type Send = (message: ClientMessage) => void

export const ROTATE_BATCH_MS = 16
const WHEEL_PIXELS_PER_STEP = 100
/** Wheel `deltaMode` 1 counts lines (3 per notch in Firefox), 2 pages; one mouse notch is one step. */
const WHEEL_LINE_PIXELS = 34
const WHEEL_PAGE_PIXELS = 800

/** Presses and releases a holdable control as a pointer or Space would (the hotkeys use it). */
export interface Hold {
  down(): void
  up(): void
}

/** Makes `target` send `down` on press and `up` on release, once per hold. */
export function holdable(target: HTMLElement, surface: string, control: string, send: Send): Hold {
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
  return { down: () => down(), up }
}

/** Sums rotation per control and sends it at most once per `ROTATE_BATCH_MS`. */
export class RotationBatcher {
  private readonly pending = new Map<string, { surface: string; control: string; delta: number }>()
  private timer = 0

  constructor(private readonly send: Send) {}

  /** Adds `steps` to the control's pending rotation. */
  queue(surface: string, control: string, steps: number): void {
    if (steps === 0) return
    const key = JSON.stringify([surface, control])
    const entry = this.pending.get(key)
    if (entry) entry.delta += steps
    else this.pending.set(key, { surface, control, delta: steps })
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

/** A dial's mark's angle, clockwise from twelve o'clock. */
function markAngle(turn: HTMLElement): number {
  return Number(turn.dataset.angle) || 0
}

function setMark(turn: HTMLElement, angle: number): void {
  turn.dataset.angle = String(angle)
  turn.style.transform = `rotate(${angle}deg)`
}

/** One rotary control on the page, as `rotatable` drives it. */
export interface RotaryTarget {
  surface: string
  control: string
  /** Steps a full turn gives (`JOG_STEPS_PER_TURN`, `ENCODER_STEPS_PER_TURN`). */
  stepsPerTurn: number
}

/**
 * Makes `ring` turn by dragging around its centre (by angle: a full clockwise circle is one turn
 * forward), by the wheel (one notch a step, down is clockwise) and, when focused, by the arrow keys
 * (right or up a step clockwise). Returns the function that turns it by whole steps (the hotkeys').
 */
export function rotatable(
  ring: HTMLElement,
  turn: HTMLElement,
  target: RotaryTarget,
  rotations: RotationBatcher,
): (steps: number) => void {
  const { surface, control, stepsPerTurn } = target
  const degreesPerStep = 360 / stepsPerTurn
  let tracker: TurnTracker | undefined
  /** The mark's angle when the drag began; it follows the pointer exactly from there. */
  let markAtGrab = 0
  let wheelCarry = 0
  const step = (steps: number): void => {
    if (steps === 0) return
    setMark(turn, markAngle(turn) + steps * degreesPerStep)
    rotations.queue(surface, control, steps)
  }
  const centre = (e: PointerEvent): [number, number] => {
    const box = ring.getBoundingClientRect()
    return [e.clientX - (box.left + box.width / 2), e.clientY - (box.top + box.height / 2)]
  }
  ring.addEventListener('pointerdown', (e) => {
    // The encoder's press button in the middle is a control of its own.
    if (e.button !== 0 || (e.target instanceof Element && e.target.closest('.press'))) return
    e.preventDefault()
    ring.setPointerCapture(e.pointerId)
    tracker = new TurnTracker(stepsPerTurn, (ring.getBoundingClientRect().width / 2) * DEAD_ZONE_FRACTION)
    tracker.start(...centre(e))
    markAtGrab = markAngle(turn)
    ring.classList.add('held')
  })
  ring.addEventListener('pointermove', (e) => {
    if (!tracker) return
    const steps = tracker.move(...centre(e))
    setMark(turn, markAtGrab + tracker.turned)
    rotations.queue(surface, control, steps)
  })
  const stop = (): void => {
    tracker = undefined
    ring.classList.remove('held')
  }
  ring.addEventListener('pointerup', stop)
  ring.addEventListener('pointercancel', stop)
  ring.addEventListener('lostpointercapture', stop)
  ring.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault()
      const scale = e.deltaMode === 1 ? WHEEL_LINE_PIXELS : e.deltaMode === 2 ? WHEEL_PAGE_PIXELS : 1
      wheelCarry += e.deltaY * scale
      const steps = Math.trunc(wheelCarry / WHEEL_PIXELS_PER_STEP)
      wheelCarry -= steps * WHEEL_PIXELS_PER_STEP
      step(steps)
    },
    { passive: false },
  )
  ring.addEventListener('keydown', (e) => {
    const steps =
      e.key === 'ArrowRight' || e.key === 'ArrowUp' ? 1 : e.key === 'ArrowLeft' || e.key === 'ArrowDown' ? -1 : 0
    if (steps === 0 || e.target !== ring) return
    e.preventDefault()
    step(steps)
  })
  return step
}
