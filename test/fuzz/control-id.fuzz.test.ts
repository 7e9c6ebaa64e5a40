/** Control ids arrive from the YAML file and the remote API: any text parses or gives a ControlIdError. */
import { describe, expect, test } from 'vitest'
import { ControlIdError, formatControlId, parseControlAddress, parseControlId } from '../../src/face/control-id.js'
import { checkProperty, fc, fuzzParser } from './harness.js'
import { unlessRefused } from './outside.js'

const idLike = fc.oneof(
  fc.string({ maxLength: 64 }),
  fc
    .tuple(
      fc.constantFrom(
        'key',
        'encoder',
        'lcd',
        'button',
        'fader',
        'jog',
        'shuttle',
        'tbar',
        'joystick',
        'note',
        'cc',
        'pitchbend',
        'program',
        'x',
      ),
      fc.array(fc.oneof(fc.nat(20_000).map(String), fc.constantFrom('x', 'y', 'z', 'X'), fc.string({ maxLength: 4 })), {
        maxLength: 3,
      }),
    )
    .map(([kind, args]) => [kind, ...args].join(':')),
)

describe('control ids', () => {
  fuzzParser('parseControlId', { input: idLike, parse: parseControlId, typedError: (e) => e instanceof ControlIdError })
  fuzzParser('parseControlAddress', {
    input: fc.tuple(fc.string({ maxLength: 16 }), idLike).map(([s, c]) => `${s}/${c}`),
    parse: parseControlAddress,
    typedError: (e) => e instanceof ControlIdError,
  })

  test('fuzz: a parsed id formats back to the text it came from (ids are canonical)', async () => {
    await checkProperty(
      'control id round trip',
      fc.property(idLike, (text) => {
        const parsed = unlessRefused(
          () => parseControlId(text),
          (err) => err instanceof ControlIdError,
        )
        if (parsed) expect(formatControlId(parsed.value)).toBe(text)
      }),
    )
  })
})
