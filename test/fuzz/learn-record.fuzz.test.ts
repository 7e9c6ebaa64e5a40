/**
 * The reader of `learn --record` files (a trace a user sends becomes a test): any text gives traces or
 * its own refusal (a plain Error saying why), never a TypeError or RangeError from deep inside.
 */
import { describe } from 'vitest'
import { LEARN_RECORD, parseLearnRecording } from '../../src/commands/learn-record.js'
import { fc, fuzzParser, hostileText } from './harness.js'

const START = JSON.stringify({ kind: 'start', format: LEARN_RECORD.format, version: LEARN_RECORD.version })
const line = fc.oneof(
  hostileText,
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc
    .record({ kind: fc.constantFrom('device', 'report', 'start'), device: fc.jsonValue(), data: fc.jsonValue() })
    .map((r) => JSON.stringify(r)),
)
const recording = fc.oneof(
  hostileText,
  fc.array(line, { maxLength: 20 }).map((lines) => [START, ...lines].join('\n')),
)

describe('the learn --record reader', () => {
  fuzzParser('parseLearnRecording', {
    input: recording,
    parse: (text) => parseLearnRecording(text),
    typedError: (e) => e instanceof Error && !(e instanceof TypeError) && !(e instanceof RangeError),
  })
})
