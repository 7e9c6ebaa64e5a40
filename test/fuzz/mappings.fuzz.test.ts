/** The YAML loader: any text up to 64 KB gives a config or located problems, never a throw. */
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { loadConfigText } from '../../src/mappings/load.js'
import { checkProperty, fc, fuzzParser, FUZZ_MAX_BYTES, hostileText } from './harness.js'

const reference = readFileSync(new URL('../../config/reference.yaml', import.meta.url), 'utf8')
const referenceLines = reference.split('\n')

/** The reference file with lines dropped, duplicated, cut or spliced with garbage: near misses. */
const mutatedReference = fc
  .array(
    fc.oneof(
      fc.record({ op: fc.constant('drop' as const), at: fc.nat(referenceLines.length - 1) }),
      fc.record({ op: fc.constant('dup' as const), at: fc.nat(referenceLines.length - 1) }),
      fc.record({ op: fc.constant('cut' as const), at: fc.nat(referenceLines.length - 1), len: fc.nat(40) }),
      fc.record({
        op: fc.constant('insert' as const),
        at: fc.nat(referenceLines.length - 1),
        text: fc.string({ maxLength: 60 }),
      }),
    ),
    { maxLength: 8 },
  )
  .map((ops) => {
    const lines = [...referenceLines]
    for (const o of ops) {
      const i = Math.min(o.at, lines.length - 1)
      if (o.op === 'drop') lines.splice(i, 1)
      else if (o.op === 'dup') lines.splice(i, 0, lines[i] ?? '')
      else if (o.op === 'cut') lines[i] = (lines[i] ?? '').slice(0, o.len)
      else lines.splice(i, 0, o.text)
    }
    return lines.join('\n')
  })

const yamlish = fc.oneof(
  hostileText,
  mutatedReference,
  fc.string({ maxLength: FUZZ_MAX_BYTES, unit: 'grapheme' }),
  fc.jsonValue({ maxDepth: 6 }).map((v) => `version: 1\nbindings: ${JSON.stringify(v)}\n`),
)

describe('the mapping loader', () => {
  fuzzParser('loadConfigText', { input: yamlish, parse: (text) => loadConfigText(text, 'fuzz.yaml'), runs: 150 })

  test('fuzz: every problem has a 1-based position inside the text, and a refused file has an error', async () => {
    await checkProperty(
      'loader positions',
      fc.asyncProperty(mutatedReference, async (text) => {
        const r = await loadConfigText(text, 'fuzz.yaml')
        const lines = text.split('\n').length
        for (const p of r.problems) {
          expect(p.line).toBeGreaterThanOrEqual(1)
          expect(p.line).toBeLessThanOrEqual(lines + 1)
          expect(p.col).toBeGreaterThanOrEqual(1)
        }
        if (!r.config) expect(r.problems.some((p) => p.severity === 'error')).toBe(true)
      }),
      100,
    )
  })
})
