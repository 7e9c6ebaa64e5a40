/**
 * "Did you mean" (issue 22, item 4): a swap of two neighbouring letters is one edit, and the
 * suggestion reaches surface keys, command names (a misspelt command is an error; `unlisted: true`
 * sends an unknown one on purpose), parameter names and `colors`/`labels` keys. A missing key and the
 * unknown key one edit from it are one problem.
 */
import { describe, expect, it } from 'vitest'
import { fc } from '../fuzz/harness.js'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'
import { distanceWithin, nearest, suggest } from '../../src/mappings/suggest.js'
import { CONFIG_LIMITS } from '../../src/mappings/limits.js'

/** The full optimal-string-alignment table, no early stop: what `distanceWithin` must agree with. */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
    }
  }
  return d[a.length]![b.length]!
}

describe('the distance', () => {
  it('counts a swap of two neighbours as one edit', () => {
    expect(distanceWithin('lable', 'label', 3)).toBe(1)
    expect(distanceWithin('titel', 'title', 3)).toBe(1)
    expect(distanceWithin('runing', 'running', 3)).toBe(1)
    expect(distanceWithin('ab', 'ba', 3)).toBe(1)
    expect(distanceWithin('label', 'label', 3)).toBe(0)
  })

  it('stops past the largest distance asked for, answering max + 1', () => {
    expect(distanceWithin('abcdef', 'uvwxyz', 2)).toBe(3)
    expect(distanceWithin('a', 'abcdefgh', 2)).toBe(3)
    expect(distanceWithin('x'.repeat(5000), 'y'.repeat(5000), 1)).toBe(2)
  })

  it('agrees with the full table wherever it is within the bound', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 8 })
    fc.assert(
      fc.property(word, word, fc.nat(4), (a, b, max) => {
        const full = osa(a, b)
        expect(distanceWithin(a, b, max)).toBe(full <= max ? full : max + 1)
      }),
      { numRuns: 500 },
    )
  })
})

describe('nearest', () => {
  it('finds the swapped, the dropped and the doubled letter, case aside', () => {
    expect(nearest('lable', ['on', 'label', 'labels'])).toBe('label')
    expect(nearest('titel', ['title', 'colors'])).toBe('title')
    expect(nearest('Runing', ['Off', 'Running', 'Paused'])).toBe('Running')
    expect(nearest('RUNNING', ['Off', 'Running', 'Paused'])).toBe('Running')
  })

  it('suggests nothing far off, and the first of equals', () => {
    expect(nearest('xyz', ['label', 'page'])).toBeUndefined()
    expect(nearest('pag', ['page', 'pad'])).toBe('page')
    expect(suggest('colums', ['rows', 'columns'])).toBe(' (did you mean columns?)')
    expect(suggest('zzz', ['rows', 'columns'])).toBe('')
  })

  it('looks at no name over the cap, given or known', () => {
    const long = 'a'.repeat(CONFIG_LIMITS.suggestMaxChars)
    expect(nearest(long, [long.slice(1)])).toBe(long.slice(1))
    expect(nearest(long + 'a', [long])).toBeUndefined()
    expect(nearest('a'.repeat(10_000), [long])).toBeUndefined()
    expect(nearest(long.slice(1), [long + 'a', long])).toBe(long)
  })
})

const HEAD = `version: 1
surfaces:
  console: { driver: web, rows: 2, columns: 4, faders: 1 }
bindings:
`

async function problems(text: string): Promise<string[]> {
  return (await loadConfigText(text, 'c.yaml')).problems.map(formatProblem)
}

describe('did you mean, in the file', () => {
  it('a binding key and a surface key; a missing key and its slip are one problem', async () => {
    expect(
      await problems(`version: 1
surfaces:
  grid: { driver: web, rows: 2, colums: 4 }
bindings:
  - on: grid/key:0
    lable: x
`),
    ).toEqual([
      'c.yaml:3:33: surfaces.grid: unknown key colums (did you mean columns?)',
      'c.yaml:6:5: bindings[0]: unknown key lable (did you mean label?)',
    ])
  })

  it('a missing key far from the unknown one is still reported', async () => {
    expect(await problems('version: 1\nsurfaces:\n  grid: { driver: web, rows: 2, size: 4 }\n')).toEqual([
      'c.yaml:3:9: surfaces.grid: columns is required',
      'c.yaml:3:33: surfaces.grid: unknown key size',
    ])
  })

  it('colors and labels keys are the play states', async () => {
    expect(
      await problems(
        HEAD +
          `  - on: console/key:0
    label: '{{play}}'
    labels: { Runing: ON }
    feedback: { title: T }
  - on: console/key:1
    feedback: { title: T, colors: { Paused: '#00ff00', Runnig: '#ff0000' } }
`,
      ),
    ).toEqual([
      'c.yaml:7:15: bindings[0].labels: unknown key Runing (did you mean Running?)',
      'c.yaml:10:56: bindings[1].feedback.colors: unknown key Runnig (did you mean Running?)',
    ])
  })

  it('a misspelt command is an error with the command meant; the file is refused', async () => {
    const r = await loadConfigText(HEAD + '  - on: console/key:0\n    press: { command: shcedule }\n', 'c.yaml')
    expect(r.problems.map(formatProblem)).toEqual([
      'c.yaml:6:23: bindings[0].press: shcedule is not in the command catalogue (did you mean schedule?); ' +
        'add unlisted: true to send it as written',
    ])
    expect(r.config).toBeUndefined()
  })

  it('unlisted: true sends a command the catalogue lacks on purpose: no error, no warning', async () => {
    const r = await loadConfigText(
      HEAD +
        `  - on: console/key:0
    press: { command: shcedule, unlisted: true }
  - on: console/key:1
    press: { command: getTally, params: { channel: 1 }, unlisted: true }
  - on: console/fader:0
    value: { command: setLevel, param: level, range: [0, 1], unlisted: true }
`,
      'c.yaml',
    )
    expect(r.problems).toEqual([])
    expect(r.config?.bindings[0]?.press).toEqual({ command: 'shcedule', unlisted: true })
  })

  it('a command near no catalogue command stays a warning, and the file loads', async () => {
    const r = await loadConfigText(HEAD + '  - on: console/key:0\n    press: { command: getTally }\n', 'c.yaml')
    expect(r.problems.map(formatProblem)).toEqual([
      'c.yaml:6:23: warning: bindings[0].press: getTally is not in the command catalogue; sent as written',
    ])
    expect(r.config).toBeDefined()
  })

  it('a misspelt parameter names the one meant, and is not reported missing as well', async () => {
    expect(
      await problems(
        HEAD +
          `  - on: console/key:0
    press: { command: switchVideoIn, params: { chanel: 1, video: Cam } }
  - on: console/key:1
    press: { command: switchVideoIn, params: { channel: "{{replay.speed}}", vidoe: "{{replay.in}}" } }
  - on: console/fader:0
    value: { command: replay_set_replay_speed, param: sped, range: [0, 1] }
  - on: console/key:2
    press: { command: switchVideoIn, params: { channel: 1, video: Cam, zoom: 2 } }
`,
      ),
    ).toEqual([
      'c.yaml:6:56: bindings[0].press: switchVideoIn: unknown parameter chanel (did you mean channel?)',
      'c.yaml:8:84: bindings[1].press: switchVideoIn: unknown parameter vidoe (did you mean video?)',
      'c.yaml:10:55: bindings[2].value: replay_set_replay_speed has no parameter sped (did you mean speed?)',
      'c.yaml:12:78: bindings[3].press: switchVideoIn: unknown parameter zoom',
    ])
  })

  it('a misspelt surface in on:', async () => {
    expect(await problems(HEAD + '  - on: cnosole/key:0\n    label: x\n')).toEqual([
      'c.yaml:5:9: on: cnosole is not a configured surface (did you mean console?)',
    ])
  })
})
