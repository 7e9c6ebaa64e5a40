/**
 * Notification parsing takes whatever the application (or whoever answers on its port) pushes: every
 * value parses or gives undefined, a snapshot parses or gives BAD_REPLY, and a data notification built
 * from names and text values reads back the same variables.
 */
import { describe, expect, test } from 'vitest'
import { APP_STATE_LIMITS } from '../../src/api/app-state.js'
import { parseNotification, parseTitleControlInfo } from '../../src/api/notifications.js'
import { QWebChannelError } from '../../src/api/qwebchannel.js'
import { checkProperty, fc, fuzzParser, hostileJsonValue, hostileText, objectWith } from './harness.js'

const isQwcError = (e: unknown): boolean => e instanceof QWebChannelError

/** Notification-like objects: the right keys with hostile values, plus variables lists of hostile entries. */
const notificationLike = fc.oneof(
  objectWith({ event: fc.constantFrom('data', 'play', undefined), id: fc.constantFrom('T', '') }, [
    'variables',
    'play',
    'state',
    'input',
    'control',
    'data',
  ]),
  fc.record({
    event: fc.constant('data'),
    id: fc.constant('T'),
    variables: fc.array(objectWith({ name: fc.string({ maxLength: 8 }) }, ['value']), { maxLength: 8 }),
  }),
)

const snapshotLike = fc.oneof(
  hostileJsonValue.map((titles) => ({ result: { titles } })),
  fc
    .array(
      objectWith({ id: fc.string({ maxLength: 8 }) }, ['name', 'status', 'input', 'variables']).chain((t) =>
        fc
          .array(objectWith({ variable: fc.string({ maxLength: 8 }) }, ['value']), { maxLength: 6 })
          .map((variables) => ({ ...t, variables })),
      ),
      { maxLength: 6 },
    )
    .map((titles) => ({ result: { titles } })),
  objectWith({}, ['result']),
)

describe('notifications', () => {
  fuzzParser('parseNotification (values)', {
    input: fc.oneof(hostileJsonValue, notificationLike),
    parse: parseNotification,
  })
  fuzzParser('parseNotification (text)', {
    input: fc.oneof(
      hostileText,
      // Built as text: the values may be nested deeper than the test's own JSON.stringify could print.
      fc
        .tuple(fc.constantFrom('play', 'state', 'input', 'control', 'data'), hostileText)
        .map(([key, value]) => `{"event":"play","id":"T","${key}":${value}}`),
      fc
        .array(hostileText, { maxLength: 4 })
        .map(
          (values) =>
            `{"event":"data","id":"T","variables":[${values.map((v) => `{"name":"v","value":${v}}`).join(',')}]}`,
        ),
    ),
    parse: parseNotification,
  })
  fuzzParser('parseTitleControlInfo', {
    input: fc.oneof(hostileJsonValue, snapshotLike),
    parse: parseTitleControlInfo,
    typedError: isQwcError,
  })

  test('fuzz: a data notification of names and text values reads back the same variables', async () => {
    await checkProperty(
      'data notification round trip',
      fc.property(
        fc.dictionary(fc.string({ maxLength: 32 }), fc.string({ maxLength: 256, unit: 'binary' }), { maxKeys: 20 }),
        fc.boolean(),
        (vars, asText) => {
          const message = {
            event: 'data',
            id: 'T',
            variables: Object.entries(vars).map(([name, value]) => ({ name, value })),
          }
          const n = parseNotification(asText ? JSON.stringify(message) : message)
          expect(n?.kind).toBe('data')
          expect({ ...(n as { variables: Record<string, string> }).variables }).toEqual({ ...vars })
        },
      ),
    )
  })

  test('fuzz: a variable value is never longer than the store keeps', async () => {
    await checkProperty(
      'bounded value text',
      fc.property(hostileJsonValue, (value) => {
        const n = parseNotification({ event: 'data', id: 'T', variables: [{ name: 'v', value }] })
        const text = (n as { variables: Record<string, string> }).variables.v
        if (text !== undefined) expect(text.length).toBeLessThanOrEqual(APP_STATE_LIMITS.maxVariableValueChars)
      }),
    )
  })
})
