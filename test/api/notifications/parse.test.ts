/**
 * The notification parsers: the five notification shapes and everything else, variable values and their
 * limits, the input and id rules, the getTitleControlInfo reader and its defaults, and the layer state
 * (readLayerState, titlePlay). Pure functions: no socket, no clock.
 * Cases from the former notifications.test.ts ('notification parsing'), notifications-mutants.test.ts
 * (mutation survivors) and notifications-signals.test.ts ('readLayerState and titlePlay').
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { APP_STATE_LIMITS } from '../../../src/api/app-state.js'
import {
  LINK_TUNABLES,
  parseNotification,
  parseTitleControlInfo,
  readLayerState,
  titlePlay,
} from '../../../src/api/notifications.js'
import { QWebChannelError } from '../../../src/api/qwebchannel.js'
import { thrownBy } from '../../helpers/thrown.js'
import { nested } from './harness.js'

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

/** The variables of a data notification carrying one variable `v` with `value`. */
function valueOf(value: unknown): string | undefined {
  const n = parseNotification({ event: 'data', id: 't', variables: [{ name: 'v', value }] })
  return n?.kind === 'data' ? n.variables.v : 'not data'
}

const bad = (f: () => unknown): QWebChannelError => thrownBy(f, QWebChannelError)

describe('variable values', () => {
  it('keeps text up to the limit and cuts longer text to it', () => {
    const max = APP_STATE_LIMITS.maxVariableValueChars
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
    const long = valueOf(['c'.repeat(APP_STATE_LIMITS.maxVariableValueChars)])
    expect(long).toHaveLength(APP_STATE_LIMITS.maxVariableValueChars)
    expect(valueOf(nested(LINK_TUNABLES.maxValueDepth))).toBe(JSON.stringify(nested(LINK_TUNABLES.maxValueDepth)))
    const dropped: string[] = []
    const n = parseNotification(
      { event: 'data', id: 't', variables: [{ name: 'deep', value: nested(LINK_TUNABLES.maxValueDepth + 1) }] },
      (name, why) => dropped.push(`${name}: ${why}`),
    )
    expect(n).toEqual({ kind: 'data', id: 't', variables: {} })
    expect(dropped).toEqual([`deep: value nested deeper than ${LINK_TUNABLES.maxValueDepth} levels`])
  })

  it('keeps the own text of values JSON cannot write (NaN, Infinity, a bigint), and never throws on them', () => {
    expect([valueOf(Number.NaN), valueOf(-Infinity), valueOf(10n)]).toEqual(['NaN', '-Infinity', '10'])
  })

  it('drops a value nested too deep without throwing when nobody asked to hear about it', () => {
    const deep = {
      event: 'data',
      id: 't',
      variables: [{ name: 'deep', value: nested(LINK_TUNABLES.maxValueDepth + 1) }],
    }
    expect(parseNotification(deep)).toEqual({ kind: 'data', id: 't', variables: {} })
    const title = { id: 'a', variables: [{ variable: 'deep', value: nested(LINK_TUNABLES.maxValueDepth + 1) }] }
    expect(parseTitleControlInfo({ result: { titles: [title] } })[0]?.variables).toEqual({})
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
                { variable: 'deep', value: nested(LINK_TUNABLES.maxValueDepth + 1) },
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
    expect(bad(() => parseTitleControlInfo({ result: 5 })).message).toBe('getTitleControlInfo: result is not an object')
    expect(bad(() => parseTitleControlInfo(null)).code).toBe('BAD_REPLY')
    const long = 'e'.repeat(300)
    // The application's error text, quoted and cut to 200 characters.
    expect(bad(() => parseTitleControlInfo({ result: { error: long } })).message).toBe(
      `getTitleControlInfo: "${'e'.repeat(199)}`,
    )
    expect(bad(() => parseTitleControlInfo({ result: { titles: {} } })).message).toBe(
      'getTitleControlInfo: no titles array',
    )
    for (const reply of [{ result: { error: 'x' } }, { result: { titles: {} } }]) {
      expect(bad(() => parseTitleControlInfo(reply)).code).toBe('BAD_REPLY')
    }
    // One reader for both transports: an `error` of any type fails the reply, as it does over HTTP.
    expect(bad(() => parseTitleControlInfo({ result: { error: 5, titles: [] } })).message).toBe(
      'getTitleControlInfo: "5"',
    )
  })
})

describe('notification parsing', () => {
  it('normalises the five shapes', () => {
    expect(parseNotification('{"id":"{a}","play":"Running"}')).toEqual({ kind: 'play', id: '{a}', play: 'Running' })
    expect(parseNotification({ event: 'play', id: '{a}', state: 'paused', input: 'Cam' })).toEqual({
      kind: 'play',
      id: '{a}',
      play: 'Paused',
      input: 'Cam',
    })
    expect(parseNotification({ event: 'data', id: '{a}', variables: [{ name: 'n', value: 2 }, { bad: 1 }] })).toEqual({
      kind: 'data',
      id: '{a}',
      variables: { n: '2' },
    })
    expect(parseNotification({ control: 'addTitle' })).toEqual({ kind: 'control', control: 'addTitle' })
    expect(parseNotification({ data: 'Update' })).toEqual({ kind: 'update' })
  })

  it('ignores everything else', () => {
    for (const raw of [
      '',
      'x',
      '[]',
      'null',
      42,
      null,
      {},
      { id: '{a}' },
      { play: 'Running' },
      { event: 'data', id: '{a}' },
    ]) {
      expect(parseNotification(raw)).toBeUndefined()
    }
  })

  it('reads getTitleControlInfo and refuses a reply without titles', () => {
    const titles = parseTitleControlInfo({
      result: {
        titles: [
          { id: '{a}', name: 'A', status: 'Running', variables: [{ variable: 'x', value: '1', type: 'text' }] },
          { id: '{b}', name: 'B', status: 'Done' },
          'junk',
        ],
      },
    })
    expect(titles.map((t) => [t.id, t.play, t.variables])).toEqual([
      ['{a}', 'Running', { x: '1' }],
      ['{b}', 'Off', {}],
    ])
    expect(() => parseTitleControlInfo({ result: { error: 'nope' } })).toThrow(QWebChannelError)
    expect(() => parseTitleControlInfo({})).toThrow(QWebChannelError)
  })
})

describe('readLayerState and titlePlay', () => {
  it('reads playState of an entry, lowercase or not, and a bare state; anything else is nothing', () => {
    const read = readLayerState({
      '{A}': { playState: 'running' },
      '{B}': { playState: 'Paused' },
      '{C}': 'paused',
      '{D}': { playState: 'unknown' },
      '{E}': { state: 'running' },
      '{F}': 5,
    })!
    expect(['{A}', '{B}', '{C}', '{D}', '{E}', '{F}', '{G}'].map(read)).toEqual([
      'Running',
      'Paused',
      'Paused',
      undefined,
      undefined,
      undefined,
      undefined,
    ])
  })

  it('looks up own entries only: an id named like a property of every object is not in an empty map', () => {
    const read = readLayerState('{}')!
    expect(['constructor', '__proto__', 'toString'].map(read)).toEqual([undefined, undefined, undefined])
    expect(readLayerState('{"__proto__": {"playState": "running"}}')!('__proto__')).toBe('Running')
  })

  it('is no map for text that is not JSON, JSON that is not an object, or nothing', () => {
    for (const reply of ['nope', '[1]', '5', null, undefined, 7, [{ playState: 'running' }]]) {
      expect(readLayerState(reply)).toBeUndefined()
    }
  })

  it('titlePlay: the status wins; without one the layer state; without either Off', () => {
    const layers = readLayerState({ '{A}': { playState: 'paused' } })
    expect(titlePlay('Off', layers, '{A}')).toBe('Off')
    expect(titlePlay('Running', layers, '{B}')).toBe('Running')
    expect(titlePlay(undefined, layers, '{A}')).toBe('Paused')
    expect(titlePlay(undefined, layers, '{B}')).toBe('Off')
    expect(titlePlay(undefined, undefined, '{A}')).toBe('Off')
  })
})
