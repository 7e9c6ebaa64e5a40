/**
 * The command client's reply parsing (`parseReply`, the one function every reply goes through): any
 * status and body give a reply or a CommandError, never another throw; `formDecode` never throws and
 * undoes percent-encoding.
 */
import { describe, expect, test } from 'vitest'
import { formDecode, parseReply } from '../../src/api/codec.js'
import { COMMAND_NAMES, getCommandSpec } from '../../src/api/commands.js'
import { isCommandError } from '../../src/api/errors.js'
import { checkProperty, deepJsonText, fc, fuzzParser, hostileText, FUZZ_MAX_DEPTH } from './harness.js'
import { unlessRefused } from './outside.js'

const REQUEST_ID = 'pb-fuzz-1'
const command = fc.constantFrom(...COMMAND_NAMES)

/** Hostile JSON text for one value: ordinary, deep or garbage. */
const valueText = fc.oneof(
  hostileText,
  fc.nat(FUZZ_MAX_DEPTH).map((d) => deepJsonText(d, '"x"')),
  fc.constantFrom('null', 'true', '"1"', '1.5', '"12:00"', '[]', '{}', `"${REQUEST_ID}"`),
)

/** An envelope with the right command and id, and one hostile field (a catalogue field or a key of the envelope). */
const envelope = command.chain((name) => {
  const spec = getCommandSpec(name)!
  const fields = [...Object.keys(spec.reply), 'error', 'success', 'requestId', 'command', 'reply']
  return fc
    .tuple(fc.constant(name), fc.constantFrom(...fields), valueText, fc.boolean())
    .map(([n, field, value, keepId]) => {
      const id = keepId && field !== 'requestId' ? `"requestId":"${REQUEST_ID}",` : ''
      return { name: n, body: `{"result":{${id}"command":"${n}","${field}":${value}}}` }
    })
})

describe('client reply parsing', () => {
  fuzzParser('parseReply (any body)', {
    input: fc.tuple(command, fc.constantFrom(200, 200, 200, 404, 500), fc.oneof(hostileText, valueText)),
    parse: ([name, status, body]) => parseReply(name, status, body, REQUEST_ID),
    typedError: isCommandError,
  })
  fuzzParser('parseReply (envelopes with one hostile field)', {
    input: envelope,
    parse: ({ name, body }) => parseReply(name, 200, body, REQUEST_ID),
    typedError: isCommandError,
  })
  fuzzParser('parseReply (unknown command names)', {
    input: fc.tuple(fc.string({ maxLength: 40 }), hostileText),
    parse: ([name, body]) => parseReply(name, 200, body, REQUEST_ID),
    typedError: isCommandError,
  })
  fuzzParser('formDecode', { input: fc.string({ maxLength: 4096, unit: 'binary' }), parse: formDecode })

  test('fuzz: formDecode undoes encodeURIComponent (which never leaves a +)', async () => {
    await checkProperty(
      'formDecode round trip',
      fc.property(fc.string({ maxLength: 1024, unit: 'binary' }), (text) => {
        // A lone surrogate has no UTF-8 encoding: not an input the round trip covers.
        const encoded = unlessRefused(
          () => encodeURIComponent(text),
          (err) => err instanceof URIError,
        )
        if (encoded) expect(formDecode(encoded.value)).toBe(text)
      }),
    )
  })

  test('fuzz: a reply that echoes the id and command parses, with the raw result kept', async () => {
    await checkProperty(
      'reply round trip',
      fc.property(command, fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 40 })), (name, extra) => {
        const spec = getCommandSpec(name)!
        // Extra fields that are not the catalogue's or the envelope's keep their value in `raw`.
        const kept = Object.fromEntries(
          Object.entries(extra).filter(
            ([k]) =>
              !(k in spec.reply) && !['error', 'success', 'requestId', 'command', 'reply', '__proto__'].includes(k),
          ),
        )
        const body = JSON.stringify({ result: { ...kept, command: name, requestId: REQUEST_ID } })
        let parsed
        try {
          parsed = parseReply(name, 200, body, REQUEST_ID)
        } catch (err) {
          // A catalogue field the envelope lacks is a typed refusal, not a parser fault.
          if (isCommandError(err) && err.code === 'BAD_ENVELOPE') return
          throw err
        }
        expect(parsed.raw).toMatchObject(kept)
      }),
    )
  })
})
