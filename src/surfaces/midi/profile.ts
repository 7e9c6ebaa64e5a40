/**
 * MIDI device profiles: data, one YAML file per device (`config/midi-profiles/<id>.yaml`), so a user
 * adds a controller without code. A profile names the device's controls (groups of notes or CCs, with
 * their place in a grid) and how each shows feedback: which message (note or CC), number, value and
 * channel per state (off, on, blink), colour (a palette: nearest colour wins) and brightness (a channel
 * per brightness step: the Akai APC mini mk2 takes brightness from the channel), and an LED ring's
 * value from `Feedback.value`.
 *
 * Checked with zod; a problem is reported as `file:line:col: path: message`.
 */
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LineCounter, isNode, parseDocument } from 'yaml'
import { z } from 'zod'
import { formatControlId, type ControlId } from '../../face/control-id.js'
import { RELATIVE_MODES, type RelativeMode } from '../../families/midi.js'
import type { ControlDescriptor } from '../../face/surface.js'

/** Largest profile file read, bytes. */
const MAX_PROFILE_BYTES = 256 * 1024
/** Alias expansions a profile may make. */
const MAX_PROFILE_ALIASES = 100

/** Where the shipped profiles live (`config/midi-profiles`, found from this file in `src` or `dist`). */
const SHIPPED_PROFILE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'config', 'midi-profiles')
/** The profile used when a MIDI surface names none. */
export const DEFAULT_PROFILE = 'generic'

const channel = z.int().min(1).max(16)
const byte = z.int().min(0).max(127)
const color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour is #rrggbb')

const stateOut = z
  .strictObject({
    value: byte.optional().describe('The note velocity or CC value sent.'),
    channel: channel.optional().describe('The channel it is sent on (default: the LED’s channel).'),
  })
  .describe('What one LED state sends.')

const ledOut = z
  .strictObject({
    message: z.enum(['note', 'cc']).default('note').describe('Note on or control change.'),
    channel: channel.optional().describe('Default: the control’s own channel.'),
    offset: z.int().min(-127).max(127).default(0).describe('LED number = control number + offset.'),
    off: stateOut.default({ value: 0 }),
    on: stateOut.default({ value: 127 }),
    blink: stateOut.optional().describe('Without it, blinking shows as on.'),
    palette: z
      .record(color, byte)
      .optional()
      .describe('Colour → value for RGB pads: the nearest colour’s value replaces the state’s value.'),
    brightness: z
      .array(z.strictObject({ min: z.int().min(0).max(100), channel }))
      .min(1)
      .max(16)
      .optional()
      .describe('The channel of `on` by surface brightness (percent): the last step whose min it reaches.'),
  })
  .describe('How a control’s LED is lit.')

const ringOut = z
  .strictObject({
    message: z.enum(['note', 'cc']).default('cc'),
    channel: channel.optional(),
    offset: z.int().min(-127).max(127).default(0),
    min: byte.default(0).describe('Value sent for Feedback.value 0.'),
    max: byte.default(127).describe('Value sent for Feedback.value 1.'),
  })
  .describe('An LED ring (or meter) showing Feedback.value.')

const group = z
  .strictObject({
    kind: z.enum(['note', 'cc', 'pitchbend', 'program']),
    channel,
    first: byte.default(0).describe('The first note, controller or program number.'),
    count: z.int().min(1).max(128).default(1),
    grid: z
      .strictObject({
        row: z.int().min(0).max(63),
        column: z.int().min(0).max(63),
        columns: z.int().min(1).max(64).default(1).describe('Controls per row before the next row starts.'),
        up: z.boolean().default(false).describe('Rows go upwards (pad 0 at the bottom left).'),
      })
      .optional(),
    relative: z.enum(RELATIVE_MODES).optional().describe('CC encoders: how the value encodes steps.'),
    led: ledOut.optional(),
    rgb: z.boolean().default(false).describe('The LED shows colours (through led.palette).'),
    ring: ringOut.optional(),
  })
  .superRefine((g, ctx) => {
    if ((g.kind === 'pitchbend' && g.count !== 1) || g.first + g.count > 128) {
      ctx.addIssue({ code: 'custom', path: ['count'], message: 'the group runs past number 127' })
    }
    for (const [key, out] of [
      ['led', g.led],
      ['ring', g.ring],
    ] as const) {
      if (!out) continue
      const lo = g.first + out.offset
      const hi = g.first + g.count - 1 + out.offset
      if (lo < 0 || hi > 127) {
        ctx.addIssue({ code: 'custom', path: [key, 'offset'], message: `LED numbers ${lo}..${hi} leave 0..127` })
      }
    }
    if (g.rgb && !g.led?.palette) {
      ctx.addIssue({ code: 'custom', path: ['rgb'], message: 'an rgb group needs led.palette' })
    }
  })

export const midiProfileSchema = z
  .strictObject({
    name: z.string().min(1).max(128).describe('The device’s name.'),
    port: z.string().min(1).max(256).optional().describe('Default input (and output) port name: a substring.'),
    output_port: z.string().min(1).max(256).optional().describe('Default output port name when it differs.'),
    grid: z.strictObject({ rows: z.int().min(1).max(64), columns: z.int().min(1).max(64) }).optional(),
    sysex: z.boolean().default(false).describe('Whether the device’s SysEx is read (ignored otherwise).'),
    controls: z.array(group).max(256).default([]),
    fallback: z
      .strictObject({ led: ledOut })
      .optional()
      .describe('Feedback for a note or CC the profile does not list (a generic device).'),
  })
  .describe('A MIDI device profile.')

export type MidiProfileData = z.output<typeof midiProfileSchema>
type Group = MidiProfileData['controls'][number]
export type LedOut = z.output<typeof ledOut>
export type RingOut = z.output<typeof ringOut>

/** A profile that cannot be used; `problems` are `file:line:col: path: message` lines. */
export class MidiProfileError extends Error {
  override readonly name = 'MidiProfileError'
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'))
  }
}

/** One control of a profile, with its output rules. */
export interface ProfileControl {
  descriptor: ControlDescriptor
  /** The control's own number (note, CC or program) and channel. */
  channel: number
  number: number
  relative?: RelativeMode
  led?: LedOut
  ring?: RingOut
}

/** A checked profile, with its controls expanded. */
export class MidiProfile {
  readonly controls: ReadonlyMap<ControlId, ProfileControl>

  constructor(
    /** The profile's id (its file name) or path. */
    readonly id: string,
    readonly data: MidiProfileData,
  ) {
    const controls = new Map<ControlId, ProfileControl>()
    for (const g of data.controls) for (const c of expand(g)) controls.set(c.descriptor.id, c)
    this.controls = controls
  }

  get name(): string {
    return this.data.name
  }

  descriptors(): ControlDescriptor[] {
    return [...this.controls.values()].map((c) => c.descriptor)
  }
}

function expand(g: Group): ProfileControl[] {
  const out: ProfileControl[] = []
  for (let i = 0; i < g.count; i++) {
    const number = g.first + i
    const id =
      g.kind === 'pitchbend'
        ? formatControlId({ kind: 'pitchbend', channel: g.channel })
        : formatControlId({ kind: g.kind, channel: g.channel, number })
    const descriptor: ControlDescriptor = { id, kind: g.kind, capabilities: {} }
    if (g.grid) {
      const step = Math.floor(i / g.grid.columns)
      descriptor.column = g.grid.column + (i % g.grid.columns)
      descriptor.row = g.grid.up ? g.grid.row - step : g.grid.row + step
    }
    if (g.led) descriptor.capabilities = g.rgb ? { rgb: true } : { led: true }
    if (g.ring) descriptor.capabilities = { ...descriptor.capabilities, ring: true }
    out.push({
      descriptor,
      channel: g.channel,
      number,
      ...(g.relative ? { relative: g.relative } : {}),
      ...(g.led ? { led: g.led } : {}),
      ...(g.ring ? { ring: g.ring } : {}),
    })
  }
  return out
}

/** Checks profile text; throws `MidiProfileError` with every problem located. */
export function parseMidiProfile(text: string, file: string, id = file): MidiProfile {
  if (Buffer.byteLength(text, 'utf8') > MAX_PROFILE_BYTES) {
    throw new MidiProfileError([`${file}:1:1: the file is larger than ${MAX_PROFILE_BYTES} bytes`])
  }
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true })
  const at = (offset: number | undefined, message: string): string => {
    const { line, col } = lines.linePos(offset ?? 0)
    return `${file}:${line}:${col}: ${message}`
  }
  if (doc.errors.length > 0) throw new MidiProfileError(doc.errors.map((e) => at(e.pos[0], e.message.split('\n')[0]!)))
  let raw: unknown
  try {
    raw = doc.toJS({ maxAliasCount: MAX_PROFILE_ALIASES })
  } catch (err) {
    throw new MidiProfileError([at(0, `cannot be read as data: ${err instanceof Error ? err.message : String(err)}`)])
  }
  const result = midiProfileSchema.safeParse(raw ?? {})
  if (!result.success) {
    throw new MidiProfileError(
      result.error.issues.map((issue) => {
        let path = issue.path.filter((p): p is string | number => typeof p !== 'symbol')
        // Why walk up: a missing key has no node; its parent map does.
        let node = doc.getIn(path, true)
        while (!isNode(node) && path.length > 0) {
          path = path.slice(0, -1)
          node = doc.getIn(path, true)
        }
        const where = issue.path.map(String).join('.')
        return at(isNode(node) ? node.range?.[0] : 0, `${where === '' ? '' : `${where}: `}${issue.message}`)
      }),
    )
  }
  return new MidiProfile(id, result.data)
}

/** Whether a profile reference is a file path rather than the id of a shipped profile. */
export function isProfilePath(ref: string): boolean {
  return ref.includes('/') || ref.includes('\\') || /\.(ya?ml|json)$/i.test(ref)
}

/**
 * Loads a profile by shipped id (`apc-mini-mk2`) or by path (relative paths from the working
 * directory). Throws `MidiProfileError`.
 */
export async function loadMidiProfile(ref: string, dir = SHIPPED_PROFILE_DIR): Promise<MidiProfile> {
  if (!isProfilePath(ref) && !/^[a-z0-9][a-z0-9-]*$/.test(ref)) {
    throw new MidiProfileError([`unknown MIDI profile ${JSON.stringify(ref)}: ${await profileHint(dir)}`])
  }
  const file = isProfilePath(ref) ? ref : join(dir, `${ref}.yaml`)
  let text: string
  try {
    const bytes = await readFile(file)
    if (bytes.length > MAX_PROFILE_BYTES) {
      throw new MidiProfileError([`${file}:1:1: the file is larger than ${MAX_PROFILE_BYTES} bytes`])
    }
    text = bytes.toString('utf8')
  } catch (err) {
    if (err instanceof MidiProfileError) throw err
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' && !isProfilePath(ref)) {
      throw new MidiProfileError([`unknown MIDI profile ${JSON.stringify(ref)}: ${await profileHint(dir)}`])
    }
    throw new MidiProfileError([
      `${file}: cannot read the profile: ${err instanceof Error ? err.message : String(err)}`,
    ])
  }
  return parseMidiProfile(text, file, ref)
}

/** The ids of the shipped profiles. */
export async function shippedProfileIds(dir = SHIPPED_PROFILE_DIR): Promise<string[]> {
  try {
    return (await readdir(dir))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => f.slice(0, -'.yaml'.length))
      .sort()
  } catch (err) {
    // A build without the profile folder has no shipped profiles; anything else is a real fault.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
}

async function profileHint(dir: string): Promise<string> {
  const ids = await shippedProfileIds(dir)
  return `a shipped profile (${ids.join(', ')}) or a path to a profile file`
}
