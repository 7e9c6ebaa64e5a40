/**
 * Feedback to MIDI bytes through a profile's rules: which message, number, value and channel light a
 * control's LED in a state and colour, and what sets its LED ring. Whether a feedback lights an LED at
 * all is the common rule (`ledStateOf`, `src/families/lights.ts`), which the web mirror draws by too.
 */
import type { Feedback } from '../../face/feedback.js'
import type { LedOut, RingOut } from './profile.js'
import { hexRgb, ledStateOf } from '../../families/lights.js'

/** What a control's output needs: its own channel and number, and the profile's rules for it. */
export interface OutputRule {
  channel: number
  number: number
  led?: LedOut
  ring?: RingOut
}

/** The value of the palette colour nearest to `color` (RGB distance); the first entry wins a tie. */
export function nearestPaletteValue(palette: Readonly<Record<string, number>>, color: string): number | undefined {
  const want = hexRgb(color)
  if (!want) return undefined
  let best: number | undefined
  let bestDistance = Infinity
  for (const [entry, value] of Object.entries(palette)) {
    const c = hexRgb(entry)
    if (!c) continue
    const d = (c[0] - want[0]) ** 2 + (c[1] - want[1]) ** 2 + (c[2] - want[2]) ** 2
    if (d < bestDistance) {
      bestDistance = d
      best = value
    }
  }
  return best
}

function statusByte(message: 'note' | 'cc', channel: number): number {
  return (message === 'note' ? 0x90 : 0xb0) | ((channel - 1) & 0x0f)
}

/** The channel of `on` at a surface brightness: the last step whose `min` the brightness reaches. */
function brightnessChannel(led: LedOut, percent: number): number | undefined {
  let channel: number | undefined
  for (const step of led.brightness ?? []) if (percent >= step.min) channel = step.channel
  return channel ?? led.brightness?.[0]?.channel
}

/** The bytes that light a control's LED in a state (and colour, on an RGB control). */
export function ledMessage(rule: OutputRule, feedback: Feedback, brightness: number): number[] | undefined {
  const led = rule.led
  if (!led) return undefined
  const state = ledStateOf(feedback)
  const base = led.channel ?? rule.channel
  const colour =
    led.palette && feedback.color !== undefined ? nearestPaletteValue(led.palette, feedback.color) : undefined
  let channel: number
  let value: number
  if (state === 'off') {
    channel = led.off.channel ?? base
    // Why the colour when off: an RGB pad shows the engine's dim "idle" colour, so bound pads stay visible.
    value = colour ?? led.off.value ?? 0
  } else if (state === 'blink' && led.blink) {
    channel = led.blink.channel ?? base
    value = colour ?? led.blink.value ?? led.on.value ?? 127
  } else {
    channel = brightnessChannel(led, brightness) ?? led.on.channel ?? base
    value = colour ?? led.on.value ?? 127
  }
  return [statusByte(led.message, channel), rule.number + led.offset, value]
}

/** The bytes that set a control's LED ring from `feedback.value`; none for a non-finite value. */
export function ringMessage(rule: OutputRule, feedback: Feedback): number[] | undefined {
  const ring = rule.ring
  if (!ring || feedback.value === undefined || !Number.isFinite(feedback.value)) return undefined
  const v = Math.min(1, Math.max(0, feedback.value))
  const value = Math.round(ring.min + v * (ring.max - ring.min))
  return [statusByte(ring.message, ring.channel ?? rule.channel), rule.number + ring.offset, value]
}

/** Every message a feedback sends to one control: its LED, then its ring. */
export function feedbackMessages(rule: OutputRule, feedback: Feedback, brightness: number): number[][] {
  return [ledMessage(rule, feedback, brightness), ringMessage(rule, feedback)].filter(
    (m): m is number[] => m !== undefined,
  )
}

/** The bytes that turn a control's LED off (used to blank a surface). */
export function blankMessage(rule: OutputRule): number[] | undefined {
  const led = rule.led
  if (!led) return undefined
  return [
    statusByte(led.message, led.off.channel ?? led.channel ?? rule.channel),
    rule.number + led.offset,
    led.off.value ?? 0,
  ]
}
