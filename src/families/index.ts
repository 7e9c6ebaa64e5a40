/**
 * Every hardware family's facts (`family.ts`), in one table keyed by driver name (the `driver:` of the
 * mapping file), in the order the udev rules name them. The web mirror's faces and the udev rules are
 * built from it; a family added here (one line; its record in its own file) appears in all of them with
 * no other change. The drivers' table (`src/surfaces/drivers.ts`) and the mapping file's
 * (`src/mappings/drivers/index.ts`) are the family's other two lines. A family whose lights look other
 * than the common rules (`lights.ts`) has a line in FAMILY_LIGHTS too, its rules in a file of their own:
 * the config loader takes a family's facts file, and no light rule with it.
 */
import { browserDeckFacts } from './browser-deck.js'
import type { DeviceFace } from '../face/device-face.js'
import type { FamilyFacts } from './family.js'
import type { LightChooser } from './lights.js'
import { midiFacts } from './midi.js'
import { replayEditorFacts } from './replay-editor.js'
import { replayEditorLights } from './replay-editor-lights.js'
import { midiLights } from './midi-lights.js'
import { reportMapFacts } from './report-map.js'
import { satelliteFacts } from './satellite.js'
import { shuttleFacts } from './shuttle.js'
import { streamdeckFacts } from './streamdeck.js'
import { streamdeckNetFacts } from './streamdeck-net.js'
import { xkeysFacts } from './xkeys.js'
import { xkeysLights } from './xkeys-lights.js'
import type { SurfaceDescription } from '../face/surface.js'

export const FAMILIES: Readonly<Record<string, FamilyFacts>> = {
  streamdeck: streamdeckFacts,
  'streamdeck-net': streamdeckNetFacts,
  'browser-deck': browserDeckFacts,
  shuttle: shuttleFacts,
  xkeys: xkeysFacts,
  'replay-editor': replayEditorFacts,
  midi: midiFacts,
  hid: reportMapFacts,
  satellite: satelliteFacts,
}

/** How the lit controls of a family's surface look, by driver name, where the family's differ from the common rules. */
const FAMILY_LIGHTS: Readonly<
  Record<string, (description: Pick<SurfaceDescription, 'model'>) => LightChooser | undefined>
> = {
  xkeys: xkeysLights,
  'replay-editor': replayEditorLights,
  midi: midiLights,
}

function factsOf(driver: string): FamilyFacts | undefined {
  return Object.hasOwn(FAMILIES, driver) ? FAMILIES[driver] : undefined
}

/** How the lit controls of an open surface look, where its family says (FAMILY_LIGHTS). */
export function familyLights(description: Pick<SurfaceDescription, 'driver' | 'model'>): LightChooser | undefined {
  return Object.hasOwn(FAMILY_LIGHTS, description.driver) ? FAMILY_LIGHTS[description.driver]!(description) : undefined
}

/** Where an open or waiting surface has its controls on its face, where its family says (`FamilyFacts.face`). */
export function familyFace(
  description: Pick<SurfaceDescription, 'driver' | 'model' | 'controls'>,
): DeviceFace | undefined {
  return factsOf(description.driver)?.face?.(description)
}
