/**
 * A Blackmagic panel's input reports come from the device: any bytes, of any length and report id,
 * through the report guard and the library's own decoding give events or nothing, never a throw, and
 * every event they give names one of the model's controls with finite numbers.
 */
import { describe } from 'vitest'
import { BMD_MODELS } from '../../src/families/replay-editor.js'
import { BmdDriver } from '../../src/surfaces/replay-editor/driver.js'
import { MemoryBmdTransport } from '../surfaces/helpers/fake-bmd.js'
import { openFirstDetected } from '../surfaces/helpers/surfaces.js'
import { fc, fuzzParser } from './harness.js'

/** Reports led by the ids the panels use (buttons, jog, lever, battery), or by any byte. */
const report = fc.tuple(
  fc.oneof(fc.constantFrom(0x03, 0x04, 0x06, 0x08, 0x0a), fc.nat(255)),
  fc.uint8Array({ maxLength: 80 }),
)

describe('Blackmagic panels', () => {
  for (const model of BMD_MODELS) {
    fuzzParser(`${model.name} input reports`, {
      input: fc.array(report, { maxLength: 16 }),
      parse: async (reports) => {
        const transport = new MemoryBmdTransport()
        transport.plug(model.id, `/dev/hidraw-fuzz`, 'SER-FUZZ')
        const { surface, events } = await openFirstDetected(new BmdDriver({ transport }))
        try {
          const hid = transport.lastOpened('/dev/hidraw-fuzz')!
          for (const [id, body] of reports) hid.input([id, ...body])
          const controls = new Set(surface.description.controls.map((c) => c.id))
          for (const e of events) {
            if (!controls.has(e.control)) throw new Error(`an event for a control the model has not: ${e.control}`)
            if ('delta' in e && !Number.isFinite(e.delta)) throw new Error(`a rotation of ${e.delta}`)
            if ('value' in e && !Number.isFinite(e.value)) throw new Error(`a value of ${e.value}`)
          }
        } finally {
          await surface.close()
        }
      },
      runs: 60,
    })
  }
})
