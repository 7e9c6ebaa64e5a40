/**
 * The one reply reader (`readReply`): any text or JSON value gives a reading or a ReplyShapeError,
 * never another throw; the link's and the client's readers built on it keep their own typed errors.
 */
import { describe } from 'vitest'
import { parseReply } from '../../src/api/codec.js'
import { isCommandError } from '../../src/api/errors.js'
import { parseTitleControlInfo } from '../../src/api/notifications.js'
import { QWebChannelError } from '../../src/api/qwebchannel.js'
import { readReply, ReplyShapeError } from '../../src/api/reply.js'
import { deepJsonText, fc, fuzzParser, hostileText, FUZZ_MAX_DEPTH } from './harness.js'

const wrapped = fc
  .tuple(fc.constantFrom('result', 'error', 'titles', 'success'), hostileText)
  .map(
    ([key, value]) => `{"${key}":${JSON.stringify(value)},"result":{"titles":${value.startsWith('[') ? value : '[]'}}}`,
  )
const reply = fc.oneof(
  hostileText,
  wrapped,
  fc.nat(FUZZ_MAX_DEPTH).map((d) => deepJsonText(d, '{"result":1}')),
  fc.json().map((t) => JSON.parse(t) as unknown),
)

describe('the reply reader', () => {
  fuzzParser('readReply', { input: reply, parse: (r) => readReply(r), typedError: (e) => e instanceof ReplyShapeError })
  fuzzParser('parseTitleControlInfo through readReply', {
    input: reply,
    parse: (r) => parseTitleControlInfo(r),
    typedError: (e) => e instanceof QWebChannelError,
  })
  fuzzParser('parseReply through readReply', {
    input: fc.oneof(hostileText, wrapped),
    parse: (body) => parseReply('getTitleControlInfo', 200, body, 'rid'),
    typedError: isCommandError,
  })
})
