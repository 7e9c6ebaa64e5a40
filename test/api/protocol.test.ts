import { describe, expect, it } from 'vitest'
import { isOnAir, parsePlayState } from '../../src/api/protocol.js'
import { expectMapping } from '../helpers/table.js'

describe('play states', () => {
  it('normalises the spellings the real application was seen to use', () => {
    expectMapping(parsePlayState, { Running: 'Running', running: 'Running', Rendering: 'Running' })
    expectMapping(parsePlayState, { Paused: 'Paused', 'paused ': 'Paused', Off: 'Off', Done: 'Off' })
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
