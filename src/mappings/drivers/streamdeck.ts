/** The Stream Deck family, mapping side (see `common.ts`); the surface side is `src/surfaces/streamdeck/`. */
import { z } from 'zod'
import { streamdeckModels } from '../../families/streamdeck.js'
import {
  brightnessField,
  claimFields,
  modelClaim,
  modelControls,
  modelName,
  rehearseField,
  type MappingFamily,
} from './common.js'

const schema = z
  .strictObject({
    driver: z.literal('streamdeck'),
    model: z
      .string()
      .min(1)
      .optional()
      .describe('Model id as the Stream Deck library names it: `plus`, `xl`, `mini`, ...'),
    ...claimFields,
    ...rehearseField,
    ...brightnessField(
      'Brightness, 0 to 100, sent when the deck opens and every time it is plugged in again; a reload that changes it sends it at once. Without it, the deck keeps its own.',
    ),
  })
  .describe('An Elgato Stream Deck.')

export const streamdeck: MappingFamily<typeof schema> = {
  schema,
  controlsOf: (_name, entry) => modelControls(streamdeckModels, entry.model),
  deviceName: (entry) => modelName(streamdeckModels, entry.model),
  claimOf: (name, entry) => modelClaim(name, entry),
  brightnessOf: (entry) => entry.brightness,
}
