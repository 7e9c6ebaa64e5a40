import { describe, expect, it } from 'vitest'
import { isOnAir, parsePlayState } from '../../src/api/protocol.js'

describe('play states', () => {
  it('normalises the spellings the real application was seen to use', () => {
    expect(parsePlayState('Running')).toBe('Running')
    expect(parsePlayState('running')).toBe('Running')
    expect(parsePlayState('Rendering')).toBe('Running')
    expect(parsePlayState('Paused')).toBe('Paused')
    expect(parsePlayState('paused ')).toBe('Paused')
    expect(parsePlayState('Off')).toBe('Off')
    expect(parsePlayState('Done')).toBe('Off')
  })
  it('returns undefined for what it does not know', () => {
    expect(parsePlayState('on air')).toBeUndefined()
    expect(parsePlayState(3)).toBeUndefined()
    expect(parsePlayState(undefined)).toBeUndefined()
  })
  it('counts Running and Paused as on air', () => {
    expect(isOnAir('Running')).toBe(true)
    expect(isOnAir('Paused')).toBe(true)
    expect(isOnAir('Off')).toBe(false)
  })
})
