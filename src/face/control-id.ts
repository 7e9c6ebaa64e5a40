/**
 * Canonical control ids: the one scheme for every driver, and how to parse, format and validate it.
 *
 * A binding addresses `<surface>/<control>` where `<control>` is one of
 *
 * | id             | what                                                        | events              |
 * | -------------- | ----------------------------------------------------------- | ------------------- |
 * | `key:N`        | a key of a key grid, N from 0, row-major from the top left  | down, up            |
 * | `encoder:N`    | a rotary encoder, N from 0 left to right (press = down/up)  | rotate, down, up    |
 * | `lcd:N`        | a touch segment of an LCD strip (Stream Deck+), N = segment | down, up            |
 * | `jog`          | an endless jog wheel                                        | rotate              |
 * | `shuttle`      | a spring-loaded shuttle ring, value -1..1 (0 = centre)      | value               |
 * | `button:N`     | a plain button (X-keys, Shuttle, pedal), N from 0           | down, up            |
 * | `fader:N`      | an absolute fader or knob, value 0..1                       | value               |
 * | `note:CH:N`    | MIDI note N (0–127) on channel CH (1–16)                    | down, up (velocity) |
 * | `cc:CH:N`      | MIDI control change N on channel CH, value 0..1             | value or rotate     |
 * | `pitchbend:CH` | MIDI pitch bend on channel CH, value -1..1 (0 = centre)     | value               |
 * | `program:CH:N` | MIDI program change to program N (0–127) on channel CH      | down, then up       |
 * | `tbar`         | a T-bar, value 0..1                                         | value               |
 * | `joystick:A`   | a joystick axis: `x` (right +) and `y` (up +), value -1..1  | value               |
 * |                | (0 = centre); `z`, the endless twist of the stick           | rotate              |
 *
 * Rotate deltas are signed steps: positive is clockwise. Absolute values are normalised (0..1, or
 * -1..1 for the shuttle and joystick axes); the raw device value rides along for drivers that have one.
 *
 * Canonical means one spelling per control: lower-case kind, decimal numbers without leading zeros or
 * signs, no spaces. `parseControlId` refuses anything else with a message that says what was expected,
 * so the YAML layer can show it next to `file:line:col`.
 *
 * Shared by the daemon and the page (`../page/`): nothing here knows Node or the DOM.
 */

/** Canonical control id, e.g. `key:3`, `encoder:0`, `jog`, `note:1:60`. */
export type ControlId = string

export type ControlKind =
  | 'key'
  | 'encoder'
  | 'lcd'
  | 'jog'
  | 'shuttle'
  | 'button'
  | 'fader'
  | 'note'
  | 'cc'
  | 'pitchbend'
  | 'program'
  | 'tbar'
  | 'joystick'

/** The events a control sends (the `type` of a `SurfaceEvent`, `../surfaces/types.ts`). */
export type ControlEventType = 'down' | 'up' | 'rotate' | 'value'

export type ParsedControlId =
  | { kind: 'key' | 'encoder' | 'lcd' | 'button' | 'fader'; index: number }
  | { kind: 'jog' | 'shuttle' | 'tbar' }
  | { kind: 'note' | 'cc' | 'program'; channel: number; number: number }
  | { kind: 'pitchbend'; channel: number }
  | { kind: 'joystick'; axis: JoystickAxis }

/** The axes of a joystick: `x` (right is positive), `y` (up is positive), `z` (the twist of the stick). */
export type JoystickAxis = 'x' | 'y' | 'z'

/** Every joystick axis, in the order a surface lists them. */
export const JOYSTICK_AXES: readonly JoystickAxis[] = ['x', 'y', 'z']

/** Stable codes for callers that branch on the kind of mistake. */
export type ControlIdErrorCode = 'empty' | 'unknown-kind' | 'bad-arguments' | 'out-of-range' | 'not-canonical'

export class ControlIdError extends Error {
  override readonly name = 'ControlIdError'
  constructor(
    readonly code: ControlIdErrorCode,
    readonly input: string,
    message: string,
  ) {
    super(message)
  }
}

const INDEXED = ['key', 'encoder', 'lcd', 'button', 'fader'] as const
const PLAIN = ['jog', 'shuttle', 'tbar'] as const
const MIDI = ['note', 'cc', 'program'] as const
const CHANNEL_ONLY = ['pitchbend'] as const
/** Every control kind, in the order of the table above. */
const CONTROL_KINDS: readonly ControlKind[] = [
  'key',
  'encoder',
  'lcd',
  'jog',
  'shuttle',
  'button',
  'fader',
  'note',
  'cc',
  'pitchbend',
  'program',
  'tbar',
  'joystick',
]
/** The events each control kind sends (the table above). */
const CONTROL_EVENTS: Readonly<Record<ControlKind, readonly ControlEventType[]>> = {
  key: ['down', 'up'],
  encoder: ['rotate', 'down', 'up'],
  lcd: ['down', 'up'],
  jog: ['rotate'],
  shuttle: ['value'],
  button: ['down', 'up'],
  fader: ['value'],
  note: ['down', 'up'],
  cc: ['value', 'rotate'],
  pitchbend: ['value'],
  program: ['down', 'up'],
  tbar: ['value'],
  // Why two: `joystick:x` and `joystick:y` send values, the endless twist `joystick:z` sends rotate steps.
  joystick: ['value', 'rotate'],
}

/** Whether a control of this kind sends this event. */
export function controlSends(kind: ControlKind, type: ControlEventType): boolean {
  return CONTROL_EVENTS[kind].includes(type)
}

/** Zones of a shuttle ring either side of centre (a Contour ShuttlePRO's ring has 7). */
export const SHUTTLE_ZONES = 7

/** The shuttle zone of a value in -1..1: round(|value| × 7), signed like the value (-7..7). */
export function shuttleZone(value: number): number {
  const zone = Math.round(Math.min(1, Math.abs(value)) * SHUTTLE_ZONES)
  return value < 0 && zone > 0 ? -zone : zone
}

/** Largest index accepted for `key:N` and the like: no surface has more controls than this. */
const MAX_CONTROL_INDEX = 9999

const EXAMPLES: Record<ControlKind, string> = {
  key: 'key:0',
  encoder: 'encoder:0',
  lcd: 'lcd:0',
  button: 'button:0',
  fader: 'fader:0',
  jog: 'jog',
  shuttle: 'shuttle',
  tbar: 'tbar',
  joystick: 'joystick:x',
  note: 'note:1:60',
  cc: 'cc:1:7',
  pitchbend: 'pitchbend:1',
  program: 'program:1:0',
}

const NUMBER_WORDS: Record<(typeof MIDI)[number], string> = {
  note: 'the note number',
  cc: 'the controller number',
  program: 'the program number',
}

function isKind<T extends string>(list: readonly T[], s: string): s is T {
  return (list as readonly string[]).includes(s)
}

function fail(code: ControlIdErrorCode, input: string, why: string): never {
  throw new ControlIdError(code, input, `bad control id ${JSON.stringify(input)}: ${why}`)
}

/** Parses a decimal number that must be written canonically and lie in [min, max]. */
function number(input: string, text: string, what: string, min: number, max: number): number {
  if (!/^\d+$/.test(text)) fail('bad-arguments', input, `${what} must be a whole number, got ${JSON.stringify(text)}`)
  const n = Number(text)
  if (n < min || n > max) fail('out-of-range', input, `${what} must be from ${min} to ${max}, got ${n}`)
  if (String(n) !== text) fail('not-canonical', input, `write ${what} without leading zeros (${n})`)
  return n
}

/** Parses a canonical control id; throws `ControlIdError` with a clear message otherwise. */
export function parseControlId(input: string): ParsedControlId {
  if (typeof input !== 'string' || input === '') fail('empty', String(input), 'a control id cannot be empty')
  const parts = input.split(':')
  const kind = parts[0]!
  if (!isKind(CONTROL_KINDS, kind)) {
    const lower = kind.toLowerCase()
    if (isKind(CONTROL_KINDS, lower)) fail('not-canonical', input, `write the kind in lower case (${lower})`)
    fail(
      'unknown-kind',
      input,
      `unknown control kind ${JSON.stringify(kind)}; expected one of ${CONTROL_KINDS.join(', ')}`,
    )
  }
  const args = parts.slice(1)
  if (isKind(PLAIN, kind)) {
    if (args.length !== 0) fail('bad-arguments', input, `${kind} takes no number (write ${kind})`)
    return { kind }
  }
  if (isKind(INDEXED, kind)) {
    if (args.length !== 1) fail('bad-arguments', input, `expected ${kind}:N, e.g. ${EXAMPLES[kind]}`)
    return { kind, index: number(input, args[0]!, 'the index', 0, MAX_CONTROL_INDEX) }
  }
  if (isKind(MIDI, kind)) {
    if (args.length !== 2) fail('bad-arguments', input, `expected ${kind}:CH:N, e.g. ${EXAMPLES[kind]}`)
    const channel = number(input, args[0]!, 'the MIDI channel', 1, 16)
    const n = number(input, args[1]!, NUMBER_WORDS[kind], 0, 127)
    return { kind, channel, number: n }
  }
  if (kind === 'joystick') {
    if (args.length !== 1) fail('bad-arguments', input, `expected joystick:AXIS (x, y or z), e.g. ${EXAMPLES[kind]}`)
    const axis = args[0]!
    if (isKind(JOYSTICK_AXES, axis)) return { kind, axis }
    if (isKind(JOYSTICK_AXES, axis.toLowerCase())) {
      fail('not-canonical', input, `write the joystick axis in lower case (${axis.toLowerCase()})`)
    }
    fail('bad-arguments', input, `the joystick axis must be x, y or z, got ${JSON.stringify(axis)}`)
  }
  if (isKind(CHANNEL_ONLY, kind)) {
    if (args.length !== 1) fail('bad-arguments', input, `expected ${kind}:CH, e.g. ${EXAMPLES[kind]}`)
    return { kind, channel: number(input, args[0]!, 'the MIDI channel', 1, 16) }
  }
  return fail('unknown-kind', input, `unknown control kind ${JSON.stringify(kind)}`)
}

/** Formats a parsed control id canonically. `formatControlId(parseControlId(s)) === s` for every valid `s`. */
export function formatControlId(id: ParsedControlId): ControlId {
  if ('index' in id) return `${id.kind}:${id.index}`
  if ('number' in id) return `${id.kind}:${id.channel}:${id.number}`
  if ('channel' in id) return `${id.kind}:${id.channel}`
  if ('axis' in id) return `${id.kind}:${id.axis}`
  return id.kind
}

/** Whether `input` is a canonical control id. */
export function isControlId(input: string): boolean {
  try {
    parseControlId(input)
    return true
  } catch (err) {
    if (err instanceof ControlIdError) return false
    throw err
  }
}

/** Builds `kind:N` for the indexed kinds (drivers use this rather than string templates). */
export function controlId(kind: 'key' | 'encoder' | 'lcd' | 'button' | 'fader', index: number): ControlId {
  return formatControlId({ kind, index })
}

/**
 * Splits a binding address `<surface>/<control>` (e.g. `desk/key:0`) and validates the control part.
 * The surface name follows the one rule of `surfaceNameProblem` below.
 */
export function parseControlAddress(input: string): { surface: string; control: ControlId; parsed: ParsedControlId } {
  const slash = input.indexOf('/')
  if (slash < 0) fail('bad-arguments', input, 'expected <surface>/<control>, e.g. desk/key:0')
  const surface = input.slice(0, slash)
  const problem = surfaceNameProblem(surface)
  if (problem !== undefined) fail('bad-arguments', input, `the surface name ${JSON.stringify(surface)} ${problem}`)
  const control = input.slice(slash + 1)
  const parsed = parseControlId(control)
  return { surface, control, parsed }
}

/*
 * Surface names. The one rule for a surface name (page names follow it too): what the mapping file accepts, what a
 * control address `<surface>/<control>` may carry, and what the remote API and `learn` take. Letters,
 * digits, `_` and `-`, 1 to SURFACE_NAME.maxChars characters. Here, in the lowest layer that names
 * surfaces, so the mappings, the daemon and the commands all read the same rule.
 */

/** The rule of a surface or page name. */
export const SURFACE_NAME = {
  /** The longest surface or page name. */
  maxChars: 128,
  /** The characters of a name (the pattern also refuses the empty name). */
  chars: /^[A-Za-z0-9_-]+$/,
  /** What the messages say of a name with other characters. */
  rule: 'may use letters, digits, _ and - only',
} as const

/** What is wrong with `name` as a surface name (a phrase for "the surface name X …"), or undefined. */
export function surfaceNameProblem(name: string): string | undefined {
  if (!SURFACE_NAME.chars.test(name)) return SURFACE_NAME.rule
  if (name.length > SURFACE_NAME.maxChars) return `is longer than ${SURFACE_NAME.maxChars} characters`
  return undefined
}

/** Whether `value` is a surface name that can be configured. */
export function isSurfaceName(value: unknown): value is string {
  return typeof value === 'string' && surfaceNameProblem(value) === undefined
}
