/**
 * The Blackmagic panels family (DaVinci Resolve Replay Editor, ATEM Micro Panel), mapping side (see
 * `common.ts`); the surface side is `src/surfaces/replay-editor/`, what the family is
 * `src/families/replay-editor.ts`.
 */
import { z } from 'zod'
import { bmdModels } from '../../families/replay-editor.js'
import { claimFields, modelClaim, modelControls, modelName, rehearseField, type MappingFamily } from './common.js'

const schema = z
  .strictObject({
    driver: z.literal('replay-editor'),
    model: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Model id as the Blackmagic controller library names it: `davinci-resolve-replay-editor`, `atem-micro-panel`.',
      ),
    ...claimFields,
    ...rehearseField,
  })
  .describe(
    'A Blackmagic DaVinci Resolve Replay Editor (buttons with LEDs, a jog wheel, a speed lever with 16 LEDs) or an ATEM Micro Panel (RGB buttons, a T-bar).',
  )

export const replayEditor: MappingFamily<typeof schema> = {
  schema,
  controlsOf: (_name, entry) => modelControls(bmdModels, entry.model),
  deviceName: (entry) => modelName(bmdModels, entry.model),
  claimOf: (name, entry) => modelClaim(name, entry),
}
