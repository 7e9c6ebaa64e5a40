/**
 * The browser-deck family, mapping side (see `common.ts`): a Stream Deck plugged into the machine of a
 * browser showing the daemon's page, connected from the page (WebHID; issue 26.2). Claimed like a USB
 * deck, by serial or model; its controls are its model's. The surface side is `src/surfaces/browser-deck/`.
 */
import { z } from 'zod'
import { browserDeckModels } from '../../families/browser-deck.js'
import { claimFields, modelClaim, modelControls, modelName, rehearseField, type MappingFamily } from './common.js'

const schema = z
  .strictObject({
    driver: z.literal('browser-deck'),
    model: z
      .string()
      .min(1)
      .optional()
      .describe('Model id as the Stream Deck library names it: `plus`, `xl`, `mini`, `original-mk2`, ...'),
    // By serial or model (or any): a page reports no USB ids, so vendor_id and product_id would match nothing.
    serial: claimFields.serial,
    any: claimFields.any,
    ...rehearseField,
  })
  .describe(
    'A Stream Deck plugged into the machine of a browser showing the daemon page, connected with its ' +
      '"connect a Stream Deck" button (Chrome or Edge, WebHID).',
  )

export const browserDeck: MappingFamily<typeof schema> = {
  schema,
  controlsOf: (_name, entry) => modelControls(browserDeckModels, entry.model),
  deviceName: (entry) => modelName(browserDeckModels, entry.model),
  claimOf: (name, entry) => modelClaim(name, entry),
}
