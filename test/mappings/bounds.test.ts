/**
 * Bounded work for hostile mapping files (issue 24, item 3, the loader's part): deep nesting refused
 * while parsing, at the `line:col` of the first level too deep; over-long names get no suggestion and
 * are not echoed whole. How long these take is measured in `bench/config-bounds.bench.ts`, not here.
 */
import { LineCounter } from 'yaml'
import { describe, expect, it } from 'vitest'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'
import { nameText } from '../../src/mappings/problems.js'
import { parseYaml } from '../../src/mappings/yaml-read.js'
import { CONFIG_LIMITS } from '../../src/mappings/limits.js'

async function problems(text: string): Promise<string[]> {
  return (await loadConfigText(text, 'c.yaml')).problems.map(formatProblem)
}

const TOO_DEEP = `values are nested deeper than ${CONFIG_LIMITS.depth} levels`

describe('deep nesting', () => {
  it('is refused while parsing, before the yaml library composes anything', () => {
    const text = `version: 1\nx: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`
    const read = parseYaml(text, new LineCounter())
    expect(read).toHaveProperty('tooDeepAt')
    // Stopped a few levels past the limit: near the start of the brackets, not at their end.
    const at = (read as { tooDeepAt: number }).tooDeepAt
    expect(at).toBeGreaterThan('version: 1\nx: '.length + CONFIG_LIMITS.depth - 2)
    expect(at).toBeLessThan('version: 1\nx: '.length + CONFIG_LIMITS.depth + 4)
  })

  it.each([
    ['flow lists 10,000 deep', `version: 1\nbindings: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`],
    ['flow maps 10,000 deep', `version: 1\nbindings: ${'{a: '.repeat(10_000)}1${'}'.repeat(10_000)}\n`],
    ['block lists on one line 10,000 deep', `version: 1\nbindings:\n  ${'- '.repeat(10_000)}1\n`],
    ['block maps', `version: 1\n${Array.from({ length: 200 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')} 1\n`],
  ])('%s: one problem, on the line where the nesting is', async (_name, text) => {
    const found = await problems(text)
    expect(found).toHaveLength(1)
    expect(found[0]).toMatch(new RegExp(`^c\\.yaml:(\\d+):(\\d+): ${TOO_DEEP}$`))
    const [, line, col] = /^c\.yaml:(\d+):(\d+)/.exec(found[0]!)!
    expect(Number(line)).toBeGreaterThan(1)
    expect(Number(col)).toBeGreaterThanOrEqual(1)
  })

  it('the limit itself loads past the parse; one level more is refused at its node', async () => {
    // `x:` is level 1 (the file's map is level 0 of the values below it, level 1 as counted).
    const nested = (levels: number): string => `version: 1\nx: ${'['.repeat(levels)}${']'.repeat(levels)}\n`
    expect(await problems(nested(CONFIG_LIMITS.depth - 1))).toEqual(['c.yaml:2:1: unknown key x'])
    expect(await problems(nested(CONFIG_LIMITS.depth))).toEqual([`c.yaml:2:${3 + CONFIG_LIMITS.depth}: ${TOO_DEEP}`])
  })

  it('an alias that makes a value deeper than written is refused too', async () => {
    const inner = `${'['.repeat(20)}1${']'.repeat(20)}`
    expect(await problems(`version: 1\na: &a ${inner}\nb: [[[[[[[[[[[[[[[*a]]]]]]]]]]]]]]]\n`)).toEqual([
      `c.yaml:1:1: ${TOO_DEEP}`,
    ])
  })
})

describe('over-long names', () => {
  const long = 'l'.repeat(10_000)

  it('an unknown 10,000-character key: no suggestion, and the message shows a cut name with its length', async () => {
    const found = await problems(`version: 1\nlisten: { ${long}: 1 }\n`)
    expect(found).toEqual([
      `c.yaml:2:11: listen: unknown key ${'l'.repeat(CONFIG_LIMITS.nameShownChars - 1)}… (10000 characters)`,
    ])
  })

  it('a 10,000-character command or parameter is named cut, never suggested', async () => {
    const found = await problems(`version: 1
surfaces:
  desk: { driver: web, rows: 1, columns: 2 }
bindings:
  - on: desk/key:0
    press: { command: schedule${long}, params: { title: T, action: animateIn } }
  - on: desk/key:1
    press: { command: schedule, params: { title: T, action: animateIn, title${long}: 1 } }
`)
    expect(found).toHaveLength(2)
    expect(found[0]).toBe(
      `c.yaml:6:23: warning: bindings[0].press: ${nameText('schedule' + long)} is not in the command catalogue; sent as written`,
    )
    expect(found[1]).toMatch(/^c\.yaml:8:\d+: bindings\[1\]\.press: schedule: unknown parameter title/)
    expect(found.every((p) => p.length < 300)).toBe(true)
  })

  it('nameText keeps a name up to the cap whole', () => {
    expect(nameText('x'.repeat(CONFIG_LIMITS.nameShownChars))).toBe('x'.repeat(CONFIG_LIMITS.nameShownChars))
    expect(nameText('x'.repeat(CONFIG_LIMITS.nameShownChars + 1))).toBe(
      `${'x'.repeat(CONFIG_LIMITS.nameShownChars - 1)}… (${CONFIG_LIMITS.nameShownChars + 1} characters)`,
    )
  })
})

describe('duplicate keys (found in one walk, not by the yaml library’s check of each key against the ones before)', () => {
  it('in a flow map and a nested block map, each at its key, naming the first', async () => {
    expect(await problems('version: 1\nlisten: {a: 1, b: 2, a: 3}\nx:\n  y:\n    k: 1\n    k: 2\n')).toEqual([
      "c.yaml:2:22: duplicate key 'a': first written at 2:10; a mapping holds each key once",
      "c.yaml:6:5: duplicate key 'k': first written at 5:5; a mapping holds each key once",
    ])
  })

  it('a map of thousands of distinct keys has none', async () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}: 1`).join(', ')
    const found = await problems(`version: 1\nlisten: {${keys}}\n`)
    expect(found.some((p) => p.includes('duplicate key'))).toBe(false)
    expect(found[0]).toBe('c.yaml:2:10: listen: unknown key k0')
  })
})
