/** The Contour Shuttle family, mapping side (see `common.ts`); the surface side is `src/surfaces/shuttle/`. */
import { z } from 'zod'
import { shuttleModels } from '../../families/shuttle.js'
import { claimFields, modelClaim, modelControls, modelName, rehearseField, type MappingFamily } from './common.js'

const schema = z
  .strictObject({
    driver: z.literal('shuttle'),
    model: z
      .string()
      .min(1)
      .optional()
      .describe('Model id as the Contour library names it: `shuttlexpress`, `shuttlepro_v1`, `shuttlepro_v2`.'),
    ...claimFields,
    ...rehearseField,
  })
  .describe('A Contour ShuttleXpress or ShuttlePro: buttons, a jog wheel and a shuttle ring.')

export const shuttle: MappingFamily<typeof schema> = {
  schema,
  controlsOf: (_name, entry) => modelControls(shuttleModels, entry.model),
  deviceName: (entry) => modelName(shuttleModels, entry.model),
  claimOf: (name, entry) => modelClaim(name, entry),
}
