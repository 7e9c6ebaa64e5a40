/**
 * The X-keys family, mapping side (see `common.ts`); the surface side is `src/surfaces/xkeys/`. A panel
 * is also claimed, and suggested, by its unit id: identical panels often share a serial number or have
 * none.
 */
import { z } from 'zod'
import { xkeysModels } from '../../families/xkeys.js'
import {
  claimFields,
  modelClaim,
  modelControls,
  modelName,
  rehearseField,
  modelEntryFor,
  type MappingFamily,
} from './common.js'

const schema = z
  .strictObject({
    driver: z.literal('xkeys'),
    model: z
      .string()
      .min(1)
      .optional()
      .describe('Model id as the X-keys library names it: `XK24`, `XK80`, `XK12JOG`, `XK68JOGSHUTTLE`, ...'),
    ...claimFields,
    ...rehearseField,
    unit_id: z
      .int()
      .min(0)
      .max(255)
      .optional()
      .describe(
        "Claims the panel with this unit id (0..255; 0 from the factory, set with the X-keys tools), which tells identical panels apart whichever port they are in. `panelbridge devices` shows each panel's.",
      ),
  })
  .describe('A P.I. Engineering X-keys panel: backlit keys, and a jog, shuttle, T-bar or joystick on some models.')

export const xkeys: MappingFamily<typeof schema> = {
  schema,
  controlsOf: (_name, entry) => modelControls(xkeysModels, entry.model),
  deviceName: (entry) => modelName(xkeysModels, entry.model),
  claimOf: (name, entry) => modelClaim(name, entry, entry.unit_id !== undefined ? { unitId: entry.unit_id } : {}),
  entryFor: (device) => modelEntryFor(device, device.unitId !== undefined ? { unit_id: device.unitId } : {}),
}
