/**
 * The one surface-name rule (src/face/surface-name.ts): the rule, control addresses and the mapping
 * file's names agree on every name.
 */
import { describe, expect, it } from 'vitest'
import { isSurfaceName, parseControlAddress, SURFACE_NAME, surfaceNameProblem } from '../../src/face/control-id.js'
import { loadConfigText } from '../../src/mappings/load.js'

const NAMES: [string, boolean][] = [
  ['desk', true],
  ['A-b_9', true],
  ['x'.repeat(SURFACE_NAME.maxChars), true],
  ['x'.repeat(SURFACE_NAME.maxChars + 1), false],
  ['', false],
  ['my desk', false],
  ['dé', false],
  ['a.b', false],
]

describe('the surface-name rule', () => {
  it('says what is wrong with a name, or nothing', () => {
    expect(surfaceNameProblem('desk')).toBeUndefined()
    expect(surfaceNameProblem('my desk')).toBe('may use letters, digits, _ and - only')
    expect(surfaceNameProblem('')).toBe('may use letters, digits, _ and - only')
    expect(surfaceNameProblem('x'.repeat(129))).toBe('is longer than 128 characters')
    expect(isSurfaceName(7)).toBe(false)
  })

  it.each(NAMES)('%j: the rule, a control address and a page name agree (%s)', async (name, good) => {
    expect(isSurfaceName(name)).toBe(good)
    const address = (): unknown => parseControlAddress(`${name}/key:0`)
    if (good) expect(address).not.toThrow()
    else expect(address).toThrow(`the surface name ${JSON.stringify(name)}`)
    // Page names follow the same rule in the mapping file.
    const loaded = await loadConfigText(
      `version: 1\nsurfaces:\n  desk: { driver: web, rows: 1, columns: 1 }\npages:\n  desk: [${JSON.stringify(name)}]\n`,
      'c.yaml',
    )
    expect(loaded.problems.length === 0).toBe(good)
  })
})
