/**
 * "Did you mean" reads the keys the schema allows at the unknown key's place (no hand-kept list):
 * through unions and lists, and a `surfaces:` entry by its own driver's keys.
 */
import { describe, expect, it } from 'vitest'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'
import { binding } from '../../src/mappings/schema.js'
import { keysAt } from '../../src/mappings/schema-issues.js'

async function problems(text: string): Promise<string[]> {
  return (await loadConfigText(text, 'c.yaml')).problems.map(formatProblem)
}

describe('keysAt', () => {
  const root = {
    surfaces: { desk: { driver: 'streamdeck' }, keys: { driver: 'midi' } },
    bindings: [{ press: [{}], toggle: { on: {} }, steps: [{}, [{}]] }],
  }

  it('gives the keys of every option of a union, in the schema order, each once', () => {
    const actionKeys = ['command', 'params', 'all', 'unlisted', 'app', 'wait_ms', 'page', 'resync', 'clip', 'speed']
    expect(keysAt(['bindings', 0, 'press'], root)).toEqual(actionKeys)
    expect(keysAt(['bindings', 0, 'press', 0], root)).toEqual(actionKeys)
    expect(keysAt(['bindings', 0, 'steps', 1, 0], root)).toEqual(actionKeys)
    expect(keysAt(['bindings', 0, 'toggle', 'on'], root)).toEqual(actionKeys)
    // A hold is a command or a page with after_ms; it never waits.
    expect(keysAt(['bindings', 0, 'hold'], root)).toEqual([
      'command',
      'params',
      'all',
      'unlisted',
      'app',
      'after_ms',
      'page',
    ])
  })

  it('gives an object its own keys only: a toggle has on and off, a jog its scrub', () => {
    expect(keysAt(['bindings', 0, 'toggle'], root)).toEqual(['on', 'off'])
    expect(keysAt(['bindings', 0, 'jog'], root)).toEqual(['scrub'])
    expect(keysAt(['bindings', 0, 'jog', 'scrub'], root)).toEqual([
      'step_frames',
      'step_seconds',
      'frames_per_turn',
      'detents_per_turn',
      'fine',
      'acceleration',
      'enter',
    ])
    expect(keysAt(['bindings', 0], root)).toEqual(Object.keys(binding.shape))
  })

  it("reads a surface entry's keys from the family its driver names", () => {
    expect(keysAt(['surfaces', 'desk'], root)).toContain('serial')
    expect(keysAt(['surfaces', 'desk'], root)).not.toContain('input')
    expect(keysAt(['surfaces', 'keys'], root)).toContain('input')
    expect(keysAt(['surfaces', 'keys'], root)).not.toContain('serial')
  })

  it('gives nothing where no object can be', () => {
    expect(keysAt(['bindings', 0, 'on'], root)).toEqual([])
    expect(keysAt(['nothing', 'here'], root)).toEqual([])
  })
})

describe('did you mean', () => {
  it('suggests a key of the surface entry its driver allows', async () => {
    expect(
      await problems(`version: 1
surfaces:
  desk: { driver: streamdeck, seral: S1 }
  keys: { driver: midi, input: Launch, profle: x }
`),
    ).toEqual([
      'c.yaml:3:31: surfaces.desk: unknown key seral (did you mean serial?)',
      'c.yaml:4:40: surfaces.keys: unknown key profle (did you mean profile?)',
    ])
  })
})
