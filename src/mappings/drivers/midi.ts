/**
 * The MIDI family, mapping side (see `common.ts`); the surface side is `src/surfaces/midi/`. A MIDI
 * surface is claimed by its input port's name; its controls are its profile's; its driver takes the
 * entry's ports, profile and relative modes.
 */
import { z } from 'zod'
import { ControlIdError, parseControlId } from '../../face/control-id.js'
import { DEFAULT_PROFILE, MidiProfileError, loadMidiProfile } from '../../surfaces/midi/profile.js'
import { RELATIVE_MODES, type MidiSurfaceConfig } from '../../families/midi.js'
import { modelEntryFor, rehearseField, type MappingFamily, type SurfaceControls, type SurfaceEntry } from './common.js'

const portName = z.string().min(1).max(256)

const schema = z
  .strictObject({
    driver: z.literal('midi'),
    input: portName.describe('The input port’s name, or a part of it (case-insensitive): `APC mini mk2`.'),
    output: portName
      .optional()
      .describe('The output port’s name or a part of it, where it differs from the input’s (default: the same).'),
    profile: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe(
        'The device profile: a shipped one (`apc-mini-mk2`, `behringer-x-touch-mini`, `generic`) or a profile file’s path (relative to the working directory). Default `generic`.',
      ),
    relative: z
      .record(z.string(), z.enum(RELATIVE_MODES))
      .optional()
      .describe(
        'Relative encoders: control id (`cc:CH:N`) → how its value encodes steps (`twos-complement`, `sign-magnitude`, `binary-offset`). Such a control sends rotate instead of value.',
      ),
    ...rehearseField,
  })
  .describe('A MIDI controller, by its port names, with LED feedback through a device profile.')

type MidiEntry = SurfaceEntry<typeof schema>

/** A `midi` surface's controls: its profile's (none known for a profile that lists none, like `generic`). */
async function midiControls(s: MidiEntry): Promise<SurfaceControls> {
  for (const id of Object.keys(s.relative ?? {})) {
    let kind: string
    try {
      kind = parseControlId(id).kind
    } catch (err) {
      if (!(err instanceof ControlIdError)) throw err
      return { problem: err.message, path: ['relative', id] }
    }
    if (kind !== 'cc')
      return { problem: `only a CC (cc:CH:N) is a relative encoder, not ${id}`, path: ['relative', id] }
  }
  try {
    const profile = await loadMidiProfile(s.profile ?? DEFAULT_PROFILE)
    return { controls: profile.controls.size > 0 ? profile.descriptors() : undefined }
  } catch (err) {
    if (!(err instanceof MidiProfileError)) throw err
    return { problem: err.message, path: ['profile'] }
  }
}

/** A `midi` surface entry as the MIDI driver's options for it (the daemon passes all of them to the driver). */
export function midiSurfaceConfig(s: MidiEntry): MidiSurfaceConfig {
  return {
    input: s.input,
    ...(s.output !== undefined ? { output: s.output } : {}),
    ...(s.profile !== undefined ? { profile: s.profile } : {}),
    ...(s.relative !== undefined ? { relative: s.relative } : {}),
  }
}

export const midi: MappingFamily<typeof schema, MidiSurfaceConfig> = {
  schema,
  controlsOf: (_name, entry) => midiControls(entry),
  claimOf: (name, entry) => ({ name, driver: entry.driver, match: { port: entry.input } }),
  driverOptions: midiSurfaceConfig,
  deviceName: (entry) => Promise.resolve(`MIDI port "${entry.input}"`),
  // Why the client number goes: ALSA numbers ports by plug order (`... 24:0`), so a replug renames them.
  entryFor: (device) =>
    device.port !== undefined
      ? { driver: device.driver, input: device.port.replace(/\s+\d+:\d+$/, '') }
      : modelEntryFor(device),
}
