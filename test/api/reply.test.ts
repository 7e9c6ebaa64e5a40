/**
 * The one reply reader (`src/api/reply.ts`) over every shape the protocol notes allow: JSON text or an
 * object, `result`-wrapped or flat (1.3 [code S1]), `error` at either level beside `success: true`
 * (5.1 [docs]). The same four shapes go through the link's `getTitleControlInfo` reader and the HTTP
 * client's envelope check, so that the two transports cannot disagree.
 */
import { describe, expect, it } from 'vitest'
import { parseReply } from '../../src/api/codec.js'
import { isCommandError } from '../../src/api/errors.js'
import { parseTitleControlInfo } from '../../src/api/notifications.js'
import { QWebChannelError } from '../../src/api/qwebchannel.js'
import { readReply, ReplyShapeError } from '../../src/api/reply.js'

const TITLE = { id: '{0b0c0d0e-0000-4000-8000-000000000001}', name: 'Lower Third', status: 'Paused', variables: [] }
const FIELDS = { command: 'getTitleControlInfo', reply: 'getTitleControlInfo', success: true, titles: [TITLE] }

/** The four combinations: string/object × flat/wrapped. */
const SHAPES = [
  { encoding: 'string', envelope: 'flat', raw: JSON.stringify(FIELDS) },
  { encoding: 'string', envelope: 'wrapped', raw: JSON.stringify({ result: FIELDS }) },
  { encoding: 'object', envelope: 'flat', raw: FIELDS },
  { encoding: 'object', envelope: 'wrapped', raw: { result: FIELDS } },
] as const

describe('readReply', () => {
  it.each(SHAPES)('reads a $encoding, $envelope reply to the same fields', ({ encoding, envelope, raw }) => {
    const read = readReply(raw)
    expect(read.shape).toEqual({ encoding, envelope })
    expect(read.fields).toEqual(FIELDS)
    expect(read.error).toBeUndefined()
  })

  it.each(SHAPES)('the link reads titles from a $encoding, $envelope getTitleControlInfo', ({ raw }) => {
    expect(parseTitleControlInfo(raw)).toEqual([
      { id: TITLE.id, name: 'Lower Third', play: 'Paused', variables: {}, inputs: [] },
    ])
  })

  it.each(SHAPES)('the HTTP client reads a $encoding, $envelope body to the same reply', ({ raw }) => {
    const body = typeof raw === 'string' ? raw : JSON.stringify(raw)
    const { reply } = parseReply('getTitleControlInfo', 200, body, 'rid')
    expect(reply.titles).toEqual([expect.objectContaining({ id: TITLE.id, name: 'Lower Third' })])
  })

  const ERRORS = [
    { where: 'inside result', raw: { result: { success: true, error: 'no such title' } } },
    { where: 'beside result', raw: { result: { success: true }, error: 'no such title' } },
    { where: 'flat', raw: { success: true, error: 'no such title' } },
    { where: 'flat, as text', raw: JSON.stringify({ success: true, error: 'no such title' }) },
  ]
  it.each(ERRORS)('reads an error $where, whatever success says', ({ raw }) => {
    expect(readReply(raw).error).toBe('no such title')
    const link = (() => {
      try {
        parseTitleControlInfo(raw)
      } catch (err) {
        return err
      }
    })()
    expect(link).toBeInstanceOf(QWebChannelError)
    expect((link as QWebChannelError).message).toBe('getTitleControlInfo: "no such title"')
    const body = typeof raw === 'string' ? raw : JSON.stringify(raw)
    let http: unknown
    try {
      parseReply('getOutputDevice', 200, body, 'rid')
    } catch (err) {
      http = err
    }
    expect(isCommandError(http) && [http.code, http.message]).toEqual([
      'APP_ERROR',
      'getOutputDevice: application error: no such title',
    ])
  })

  it('prefers the inner error when both levels carry one, and reads success false as a failure', () => {
    expect(readReply({ result: { error: 'inner' }, error: 'outer' }).error).toBe('inner')
    expect(readReply({ success: false }).error).toBe('success is false')
    expect(readReply({ result: { success: 'false' } }).error).toBe('success is false')
    expect(readReply({ result: { error: null, success: true } }).error).toBeUndefined()
  })

  it('tells the bare {} apart, and never keeps a result key among flat fields', () => {
    expect(readReply({}).shape.envelope).toBe('empty')
    expect(readReply('{}').shape).toEqual({ encoding: 'string', envelope: 'empty' })
    expect(readReply({ result: null, titles: [] })).toMatchObject({
      fields: { titles: [] },
      shape: { envelope: 'flat' },
    })
  })

  it('refuses what is no reply, with its own error only', () => {
    const problem = (raw: unknown): string => {
      try {
        readReply(raw)
      } catch (err) {
        if (err instanceof ReplyShapeError) return err.problem
        throw err
      }
      return 'read'
    }
    expect([problem('not json{'), problem('[1]'), problem(5), problem({ result: 'x' }), problem(null)]).toEqual([
      'not-json',
      'not-object',
      'not-object',
      'result-not-object',
      'not-object',
    ])
  })

  it('a flat HTTP body must name itself a reply or carry a field of its command', () => {
    expect(() => parseReply('getOutputDevice', 200, '{"x": 1}', 'rid')).toThrow(/reply has no result object/)
    expect(parseReply('getOutputDevice', 200, '{"device": "NDI"}', 'rid').reply).toEqual({ device: 'NDI' })
    expect(parseReply('closeDesigner', 200, '{"success": true}', 'rid').reply).toEqual({})
  })
})
