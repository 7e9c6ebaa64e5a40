/**
 * The Blackmagic panels family, surface side (see `../driver-family.ts`): its driver. What the family is
 * (its models, face and udev entries) is `src/families/replay-editor.ts`; the mapping side is
 * `src/mappings/drivers/replay-editor.ts`.
 */
import { modelControlsOf, type DriverFamily } from '../driver-family.js'
import { BmdDriver, type BmdDriverOptions } from './driver.js'
import { bmdModels } from '../../families/replay-editor.js'

export const replayEditorFamily: DriverFamily<BmdDriverOptions> = {
  create: (options) => ({ driver: new BmdDriver(options), controlsOf: modelControlsOf(bmdModels) }),
  models: bmdModels,
}
