/**
 * A control a surface lacks is refused with what the surface has (issue 40, item 5): the ranges of its
 * controls of that kind, or all of them when it has none of that kind.
 */
import { describe, expect, it } from 'vitest'
import { controlRangeHint, controlRanges } from '../../src/mappings/control-range.js'

const range = (prefix: string, from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}`)

describe('control ranges', () => {
  it('runs of consecutive numbers under one prefix, the plain ids as they are, in the order they come', () => {
    expect(controlRanges([...range('key:', 0, 7), ...range('encoder:', 0, 3), 'jog', 'shuttle'])).toEqual([
      'key:0–key:7',
      'encoder:0–encoder:3',
      'jog',
      'shuttle',
    ])
    // MIDI ids: channel and number; a gap starts a new range, a lone one is written alone.
    expect(controlRanges(['note:1:36', 'note:1:37', 'note:1:38', 'note:1:40', 'cc:1:7', 'note:2:36'])).toEqual([
      'note:1:36–note:1:38',
      'note:1:40',
      'cc:1:7',
      'note:2:36',
    ])
  })

  it('says what the surface has of the kind asked, else everything, at most 8 ranges', () => {
    const xl = [...range('key:', 0, 31)]
    expect(controlRangeHint(xl, 'key:32')).toBe('it has key:0–key:31')
    expect(controlRangeHint([...xl, ...range('encoder:', 0, 3)], 'fader:0')).toBe(
      'it has no fader controls; it has key:0–key:31, encoder:0–encoder:3',
    )
    const gappy = Array.from({ length: 12 }, (_, i) => `note:1:${i * 2}`)
    expect(controlRangeHint(gappy, 'note:1:1')).toBe(
      'it has note:1:0, note:1:2, note:1:4, note:1:6, note:1:8, note:1:10, note:1:12, note:1:14 and 4 more',
    )
    expect(controlRangeHint([], 'key:0')).toBe('it has no controls')
  })
})
