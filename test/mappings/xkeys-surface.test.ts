/** An `xkeys` surface in the mapping file: `unit_id` claims one of several identical panels. */
import { describe, expect, it } from 'vitest'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'
import { claimOf } from '../../src/mappings/surfaces.js'

async function load(surfaces: string): Promise<{ problems: string[]; claims: unknown[] }> {
  const r = await loadConfigText(`version: 1\nsurfaces:\n${surfaces}\nbindings: []\n`, 'c.yaml')
  const claims = r.config ? Object.entries(r.config.surfaces).flatMap(([n, s]) => claimOf(n, s) ?? []) : []
  return { problems: r.problems.map(formatProblem), claims }
}

describe('xkeys surfaces in the mapping file', () => {
  it('unit_id claims a panel by its unit id, alone or with its model', async () => {
    expect(
      await load('  left: { driver: xkeys, model: XK24, unit_id: 7 }\n  right: { driver: xkeys, unit_id: 3 }'),
    ).toEqual({
      problems: [],
      claims: [
        { name: 'left', driver: 'xkeys', match: { model: 'XK24', unitId: 7 } },
        { name: 'right', driver: 'xkeys', match: { unitId: 3 } },
      ],
    })
  })

  it('refuses a unit id outside 0..255, and unit_id on a driver without unit ids', async () => {
    const out = await load(
      '  a: { driver: xkeys, unit_id: 256 }\n  b: { driver: xkeys, unit_id: -1 }\n  c: { driver: shuttle, unit_id: 1 }',
    )
    expect(out.problems).toHaveLength(3)
    expect(out.problems[0]).toMatch(/^c\.yaml:3:\d+: surfaces\.a\.unit_id: /)
    expect(out.problems[1]).toMatch(/^c\.yaml:4:\d+: surfaces\.b\.unit_id: /)
    expect(out.problems[2]).toMatch(/^c\.yaml:5:\d+: surfaces\.c.*unit_id/)
  })
})
