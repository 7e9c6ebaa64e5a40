/**
 * The page's reader of `/api/status` and `/api/errors` (the status strip: the links, the waiting line,
 * a refused config, a recording that failed, the replay): any JSON, of the daemon's shape or not, gives a reading
 * and a view, never a throw. The replies are untrusted: a proxy, another version, a damaged answer.
 */
import { describe } from 'vitest'
import { readStrip, viewStrip } from '../../src/page/strip-state.js'
import { fc, fuzzParser } from './harness.js'

const link = fc.record(
  { state: fc.oneof(fc.constantFrom('connected', 'stale', 'connecting'), fc.jsonValue()), url: fc.jsonValue() },
  { requiredKeys: [] },
)
const status = fc.oneof(
  fc.jsonValue(),
  fc.record(
    {
      simulated: fc.oneof(fc.boolean(), fc.jsonValue()),
      app: fc.oneof(link, fc.jsonValue()),
      apps: fc.oneof(fc.array(fc.record({ name: fc.jsonValue(), link, default: fc.jsonValue() })), fc.jsonValue()),
      configState: fc.oneof(
        fc.record({ state: fc.constantFrom('ok', 'refused'), error: fc.jsonValue() }),
        fc.jsonValue(),
      ),
      recording: fc.oneof(
        fc.record({
          state: fc.constantFrom('off', 'recording', 'failed'),
          file: fc.jsonValue(),
          error: fc.jsonValue(),
        }),
        fc.jsonValue(),
      ),
      replay: fc.oneof(
        fc.record(
          {
            state: fc.oneof(fc.constantFrom('disabled', 'off', 'armed', 'replay', 'playback'), fc.jsonValue()),
            position: fc.oneof(fc.double(), fc.jsonValue()),
            in: fc.oneof(fc.double(), fc.jsonValue()),
            out: fc.oneof(fc.double(), fc.jsonValue()),
            length: fc.oneof(fc.double(), fc.jsonValue()),
            speed: fc.oneof(fc.double(), fc.jsonValue()),
          },
          { requiredKeys: [] },
        ),
        fc.jsonValue(),
      ),
    },
    { requiredKeys: [] },
  ),
)
const errors = fc.oneof(fc.jsonValue(), fc.array(fc.record({ time: fc.jsonValue(), message: fc.jsonValue() })))

describe('the status strip reader', () => {
  fuzzParser('readStrip and viewStrip', {
    input: fc.tuple(status, errors),
    parse: ([s, e]) => viewStrip(readStrip(s, e), undefined, 0),
  })
})
