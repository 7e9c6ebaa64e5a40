/**
 * The notification parsers' edges, pinned where mutation testing found them unwatched: value text and
 * its limits, which fields make each shape, the input and id rules, and the snapshot reader's defaults.
 */
import { describe, expect, it } from 'vitest'
import { APP_STATE_MAX_VARIABLE_VALUE_CHARS } from '../../src/api/app-state.js'
import { NOTIFY_MAX_VALUE_DEPTH, parseNotification, parseTitleControlInfo } from '../../src/api/notifications.js'
import { QWebChannelError } from '../../src/api/qwebchannel.js'

/** The variables of a data notification carrying one variable `v` with `value`. */
function valueOf(value: unknown): string | undefined {
  const n = parseNotification({ event: 'data', id: 't', variables: [{ name: 'v', value }] })
  return n?.kind === 'data' ? n.variables.v : 'not data'
}

function nested(levels: number): unknown {
  let v: unknown = 1
  for (let i = 0; i < levels; i++) v = [v]
  return v
}

function bad(f: () => unknown): QWebChannelError {
  try {
    f()
  } catch (err) {
    if (err instanceof QWebChannelError) return err
    throw err
  }
  throw new Error('did not throw')
}

describe('variable values', () => {
  it('keeps text up to the limit and cuts longer text to it', () => {
    const max = APP_STATE_MAX_VARIABLE_VALUE_CHARS
    expect(valueOf('a'.repeat(max))).toHaveLength(max)
    expect(valueOf('b'.repeat(max + 5))).toBe('b'.repeat(max))
  })

  it('turns null and a missing value into empty text, numbers and booleans into their text', () => {
    expect([valueOf(null), valueOf(undefined), valueOf(0), valueOf(false), valueOf(true)]).toEqual([
      '',
      '',
      '0',
      'false',
      'true',
    ])
  })

  it('turns JSON into its text, cut to the limit; drops JSON nested past the limit and says why', () => {
    expect(valueOf({ a: [1] })).toBe('{"a":[1]}')
    const long = valueOf(['c'.repeat(APP_STATE_MAX_VARIABLE_VALUE_CHARS)])
    expect(long).toHaveLength(APP_STATE_MAX_VARIABLE_VALUE_CHARS)
    expect(valueOf(nested(NOTIFY_MAX_VALUE_DEPTH))).toBe(JSON.stringify(nested(NOTIFY_MAX_VALUE_DEPTH)))
    const dropped: string[] = []
    const n = parseNotification(
      { event: 'data', id: 't', variables: [{ name: 'deep', value: nested(NOTIFY_MAX_VALUE_DEPTH + 1) }] },
      (name, why) => dropped.push(`${name}: ${why}`),
    )
    expect(n).toEqual({ kind: 'data', id: 't', variables: {} })
    expect(dropped).toEqual([`deep: value nested deeper than ${NOTIFY_MAX_VALUE_DEPTH} levels`])
  })

  it('keeps a variable named __proto__ as an entry', () => {
    const n = parseNotification({ event: 'data', id: 't', variables: [{ name: '__proto__', value: 'x' }] })
    expect(n?.kind === 'data' && Object.entries(n.variables)).toEqual([['__proto__', 'x']])
  })
})

describe('notification shapes', () => {
  it('reads JSON text and objects alike; JSON that is not an object is nothing', () => {
    expect(parseNotification('{"control":"addTitle"}')).toEqual({ kind: 'control', control: 'addTitle' })
    expect(parseNotification('"addTitle"')).toBeUndefined()
  })

  it('keeps a non-empty string input; an empty or non-string input is left out', () => {
    expect(parseNotification({ id: 't', play: 'Running', input: 'Cam' })).toEqual({
      kind: 'play',
      id: 't',
      play: 'Running',
      input: 'Cam',
    })
    for (const input of ['', 5]) {
      expect(parseNotification({ id: 't', play: 'Running', input })).toEqual({ kind: 'play', id: 't', play: 'Running' })
    }
    expect(parseNotification({ event: 'data', id: 't', variables: [], input: 'Cam' })).toEqual({
      kind: 'data',
      id: 't',
      variables: {},
      input: 'Cam',
    })
  })

  it('needs a non-empty string id for play and data', () => {
    for (const id of ['', 5, undefined]) {
      expect(parseNotification({ id, play: 'Running' })).toBeUndefined()
      expect(parseNotification({ event: 'play', id, play: 'Running' })).toBeUndefined()
      expect(parseNotification({ event: 'data', id, variables: [] })).toBeUndefined()
    }
  })

  it("event 'play' takes the first field that parses: play, state, status, then playState", () => {
    const play = (fields: Record<string, unknown>) => parseNotification({ event: 'play', id: 't', ...fields })
    expect(play({ play: 'x', state: 'Paused', status: 'Running' })).toEqual({ kind: 'play', id: 't', play: 'Paused' })
    expect(play({ status: 'running' })).toEqual({ kind: 'play', id: 't', play: 'Running' })
    expect(play({ playState: 'off' })).toEqual({ kind: 'play', id: 't', play: 'Off' })
    expect(play({ play: 'nonsense' })).toBeUndefined()
  })

  it('a play field with another event, or an unreadable play state, is nothing', () => {
    expect(parseNotification({ event: 'other', id: 't', play: 'Running' })).toBeUndefined()
    expect(parseNotification({ id: 't', play: 'sideways' })).toBeUndefined()
  })

  it('data needs a variables list; variables without a string name are skipped', () => {
    expect(parseNotification({ event: 'data', id: 't', variables: {} })).toBeUndefined()
    expect(
      parseNotification({ event: 'data', id: 't', variables: [{ name: 5, value: 'x' }, 'junk', { name: 'ok' }] }),
    ).toEqual({ kind: 'data', id: 't', variables: { ok: '' } })
  })

  it("keeps any non-empty control; an empty one, or data other than 'Update', is nothing", () => {
    expect(parseNotification({ control: 'removeTitle' })).toEqual({ kind: 'control', control: 'removeTitle' })
    expect(parseNotification({ control: '' })).toBeUndefined()
    expect(parseNotification({ control: 5 })).toBeUndefined()
    expect(parseNotification({ data: 'update' })).toBeUndefined()
  })
})

describe('getTitleControlInfo', () => {
  it('defaults the name to the id and the play state to Off, and splits inputs on commas', () => {
    const titles = parseTitleControlInfo({
      result: {
        titles: [
          { id: 'a', name: 5, status: 'nonsense', input: ' Cam 1 , Cam 2' },
          { id: 'b', input: '' },
          { id: 'c', input: 7, variables: 'x' },
          { id: 5 },
        ],
      },
    })
    expect(titles.map((t) => [t.id, t.name, t.play, t.inputs])).toEqual([
      ['a', 'a', 'Off', ['Cam 1', 'Cam 2']],
      ['b', 'b', 'Off', []],
      ['c', 'c', 'Off', []],
    ])
  })

  it('reads variables by their "variable" name, skipping others, and reports deep values', () => {
    const dropped: string[] = []
    const [t] = parseTitleControlInfo(
      {
        result: {
          titles: [
            {
              id: 'a',
              variables: [
                { variable: 'x', value: 1 },
                { name: 'y', value: 2 },
                'junk',
                { variable: 'deep', value: nested(NOTIFY_MAX_VALUE_DEPTH + 1) },
              ],
            },
          ],
        },
      },
      (name) => dropped.push(name),
    )
    expect(t!.variables).toEqual({ x: '1' })
    expect(dropped).toEqual(['deep'])
  })

  it('names why a reply is refused', () => {
    expect(bad(() => parseTitleControlInfo({ result: 5 })).message).toBe('getTitleControlInfo: no result object')
    expect(bad(() => parseTitleControlInfo(null)).code).toBe('BAD_REPLY')
    const long = 'e'.repeat(300)
    // The application's error text, quoted and cut to 200 characters.
    expect(bad(() => parseTitleControlInfo({ result: { error: long } })).message).toBe(
      `getTitleControlInfo: "${'e'.repeat(199)}`,
    )
    expect(bad(() => parseTitleControlInfo({ result: { titles: {} } })).message).toBe(
      'getTitleControlInfo: no titles array',
    )
    expect(parseTitleControlInfo({ result: { error: 5, titles: [] } })).toEqual([])
  })
})
