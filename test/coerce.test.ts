/**
 * The one text-to-number and text-to-boolean rule (src/wire.ts): what the reply decoder, the request
 * encoder, the implied app state and the jog accept.
 */
import { describe, expect, it } from 'vitest'
import { booleanOf, finiteNumberOf, numberOf } from '../src/wire.js'

describe('numberOf', () => {
  it('takes numbers and numeric text, blanks around allowed', () => {
    expect(numberOf(23)).toBe(23)
    expect(numberOf('23')).toBe(23)
    expect(numberOf(' 2.5 ')).toBe(2.5)
    expect(numberOf('-1e3')).toBe(-1000)
  })

  it('gives NaN for empty or blank text, other text and other types', () => {
    for (const v of ['', '   ', 'x', '1,5', true, null, undefined, [1], { n: 1 }]) {
      expect(numberOf(v), JSON.stringify(v)).toBeNaN()
    }
  })

  it('finiteNumberOf drops NaN and the infinities', () => {
    expect(finiteNumberOf('7')).toBe(7)
    expect(finiteNumberOf('Infinity')).toBeUndefined()
    expect(finiteNumberOf(Number.NEGATIVE_INFINITY)).toBeUndefined()
    expect(finiteNumberOf('')).toBeUndefined()
  })
})

describe('booleanOf', () => {
  it('takes booleans, 1 and 0, and their text in any case with blanks around', () => {
    for (const v of [true, 1, '1', 'true', ' TRUE ', 'True']) expect(booleanOf(v), String(v)).toBe(true)
    for (const v of [false, 0, '0', 'false', ' False\n']) expect(booleanOf(v), String(v)).toBe(false)
  })

  it('gives undefined for anything else', () => {
    for (const v of ['', 'yes', 'on', 2, -1, '01', null, undefined, [true], {}]) {
      expect(booleanOf(v), JSON.stringify(v)).toBeUndefined()
    }
  })
})
