/** What the page gets of `value` and `detail`: the state of a control without an image, a key's label. */
import { describe, expect, it } from 'vitest'
import { controlStateOf, imageLabelOf } from '../../../src/surfaces/web/views.js'

describe('controlStateOf: value and detail', () => {
  it('passes value clamped to 0..1 and detail through', () => {
    expect(controlStateOf({ text: 'Vol', value: 0.25, detail: '-6 dB' })).toEqual({
      text: 'Vol',
      value: 0.25,
      detail: '-6 dB',
    })
    expect(controlStateOf({ value: 1.5 }).value).toBe(1)
    expect(controlStateOf({ value: -2 }).value).toBe(0)
    expect(controlStateOf({ value: 0 }).value).toBe(0)
  })

  it('leaves out a value that is not finite and a blank detail', () => {
    for (const value of [NaN, Infinity, -Infinity]) expect(controlStateOf({ value })).toEqual({})
    expect(controlStateOf({ detail: ' \n' })).toEqual({})
  })
})

describe('imageLabelOf', () => {
  it('is the text, with the detail after it in brackets, or the detail alone', () => {
    expect(imageLabelOf({ text: 'GO' })).toBe('GO')
    expect(imageLabelOf({ text: 'GO', detail: '2 s' })).toBe('GO (2 s)')
    expect(imageLabelOf({ detail: 'refused' })).toBe('refused')
    expect(imageLabelOf({ text: 'GO', detail: '  ' })).toBe('GO')
    expect(imageLabelOf({})).toBe('')
  })
})
