/**
 * The plain read of a mapping file (`src/mappings/yaml-data.ts`): where it gives data, the data is the
 * YAML document's to the letter (the loader's options: merge keys, unique keys, the alias limit); it
 * gives up on what it leaves to the document; and the loader's result is the same whichever read it took.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { loadConfigText } from '../../src/mappings/load.js'
import { readPlainData } from '../../src/mappings/yaml-data.js'
import { bigConfig } from '../../bench/config-reload.bench.js'
import { checkProperty, fc } from '../fuzz/harness.js'

/** The data the loader's YAML document gives, or 'refused' where the document has an error. */
function documentData(text: string): unknown {
  const doc = parseDocument(text, { merge: true, uniqueKeys: true })
  if (doc.errors.length > 0) return 'refused'
  try {
    return doc.toJS({ maxAliasCount: 100 })
  } catch {
    return 'refused'
  }
}

/** A comment that makes the plain read give up (its `?` indicator check) and changes no data. */
const THROUGH_THE_DOCUMENT = '\n# ? read through the document\n'

const root = join(import.meta.dirname, '..', '..')
const corpus = [
  ...['config/reference.yaml', 'config/default.yaml'],
  ...readdirSync(join(root, 'config/examples')).map((f) => `config/examples/${f}`),
  ...readdirSync(join(root, 'test/fixtures/mappings/problems')).map((f) => `test/fixtures/mappings/problems/${f}`),
].filter((f) => f.endsWith('.yaml'))

describe('the plain read of a mapping file', () => {
  it.each(corpus)('%s: the plain data, where given, is the document data', (file) => {
    const text = readFileSync(join(root, file), 'utf8')
    const plain = readPlainData(text)
    if (plain) expect(plain.data).toStrictEqual(documentData(text))
    else expect(readPlainData(text + THROUGH_THE_DOCUMENT)).toBeUndefined()
  })

  it('takes the files it is for: the shipped examples and a 4,092-binding file', () => {
    for (const file of ['config/reference.yaml', 'config/examples/streamdeck-xl-titles.yaml']) {
      expect(readPlainData(readFileSync(join(root, file), 'utf8')), file).toBeDefined()
    }
    const big = bigConfig()
    const plain = readPlainData(big)
    expect(plain).toBeDefined()
    expect((plain!.data as { bindings: unknown[] }).bindings).toHaveLength(4092)
    expect(plain!.data).toStrictEqual(documentData(big))
  })

  it.each([
    ['an anchor and its alias', 'a: &x 1\nb: *x\n'],
    ['an anchor alone', 'a: &x 1\n'],
    ['a merge key', 'base: {a: 1}\nb:\n  <<: {a: 2}\n'],
    ['a directive', '%YAML 1.1\n---\na: yes\n'],
    ['two documents', 'a: 1\n---\nb: 2\n'],
    ['an explicit key', '? a\n: 1\n'],
    ['a collection key', '[a, b]: 1\n'],
    ['a null key', '~: 1\n'],
    ['a __proto__ key', '__proto__: {a: 1}\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a key the document thinks a duplicate', '1: a\n1.0: b\n'],
    ['an unknown tag', 'a: !thing 1\n'],
    ['a binary tag', 'a: !!binary aGk=\n'],
    ['nesting past the limit', `${'['.repeat(40)}1${']'.repeat(40)}\n`],
    ['a tab in the indentation', 'a:\n\tb: 1\n'],
    ['an empty file', ''],
    // A comment must follow white space: js-yaml reads these as comments, the document as errors.
    ['a comment touching a flow sequence', 'a:\n  flow: []#]\n'],
    ['a comment touching a flow mapping', 'a: {b: 1}#c\n'],
    ['a comment right after a flow comma', 'a: [b,#c]\n'],
    ['a comment touching a quoted scalar', 'a: "x"#c\n'],
    // No comment, but the read does not look inside quotes: the document decides, as it can.
    ['a `,#` inside a quoted scalar of a flow collection', 'c: {d: "x,#y"}\n'],
  ])('gives up on %s (the document decides)', (_name, text) => {
    expect(readPlainData(text)).toBeUndefined()
  })

  it('still takes a # inside quotes or after white space (colours, comments)', () => {
    const text = 'a: "#c00000"\nb: ["#fff", \'#000\'] # two\ne: "x" # note\nf: [g, "h"] # after\n'
    const plain = readPlainData(text)
    expect(plain).toBeDefined()
    expect(plain!.data).toStrictEqual(documentData(text))
  })

  it('resolves plain scalars as the document does (YAML 1.2 core), quoted ones as strings', () => {
    const text = [
      'a: 1',
      'b: 0o17',
      'c: 0x1F',
      'd: 1e3',
      'e: .5',
      'f: ~',
      'g: True',
      'h: yes',
      'i: 0b11',
      'j: 1_000',
      'k: -0',
      'l: -.inf',
      'm: "1"',
      'n: 2001-12-14',
      "o: 'true'",
      'p: .NaN',
      'q: +12',
      'r: 1.50',
      's:',
      'T: NULL',
      '',
    ].join('\n')
    const plain = readPlainData(text)
    expect(plain).toBeDefined()
    expect(plain!.data).toStrictEqual(documentData(text))
    expect(plain!.data).toMatchObject({
      b: 15,
      c: 31,
      d: 1000,
      g: true,
      h: 'yes',
      i: '0b11',
      m: '1',
      o: 'true',
      s: null,
    })
  })

  it('gives the document data or gives up, over generated files', async () => {
    const scalar = fc.oneof(
      fc.constantFrom(
        ...['true', 'True', 'TRUE', 'yes', 'No', 'on', 'null', 'Null', '~', '0o17', '0o8', '0x1f', '0X1F', '0b11'],
        ...['1_000', '1e3', '1E-3', '.5', '5.', '+1', '-0', '007', '.inf', '-.Inf', '.nan', '12:30', '2001-12-14'],
        ...['"quoted"', "'single'", '"a\\tb"', '"\\u00e9"', "'it''s'", 'a #b', 'a: b', '- x', '"x: y"', 'GO!'],
        ...['|', '>', '*', '&a', '!t', '%', '@x', '`x', '"', "'", '{', '}', '[', ']', ',', '?', ':', ''],
      ),
      fc.string({ maxLength: 12 }),
    )
    const key = fc.oneof(fc.constantFrom('a', 'b', 'c', '1', 'true', '"q"', 'x y', "'k'"), fc.string({ maxLength: 6 }))
    const line = fc.oneof(
      fc.constantFrom('x', 'two words', '  lead', 'trail  ', '', '#c', 'a: b', '- d'),
      fc.string({ maxLength: 8 }),
    )
    type Tree =
      | string
      | { map: [string, Tree][] }
      | { seq: Tree[] }
      | { flow: string[] }
      | { flowMap: [string, string][] }
      | { block: string; lines: string[] }
      | { quoted: string[] }
      | { comment: Tree }
    const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        scalar,
        fc.record({ map: fc.array(fc.tuple(key, tie('tree')), { maxLength: 4 }) }),
        fc.record({ seq: fc.array(tie('tree'), { maxLength: 4 }) }),
        fc.record({ flow: fc.array(scalar, { maxLength: 4 }) }),
        fc.record({ flowMap: fc.array(fc.tuple(key, scalar), { maxLength: 3 }) }),
        fc.record({
          block: fc.constantFrom('|', '>', '|-', '>-', '|+', '>+', '|2', '>1'),
          lines: fc.array(line, { maxLength: 4 }),
        }),
        fc.record({ quoted: fc.array(line, { minLength: 1, maxLength: 3 }) }),
        fc.record({ comment: tie('tree') }),
      ),
    }))
    const render = (t: Tree, indent: string): string => {
      if (typeof t === 'string') return ` ${t}`
      if ('flow' in t) return ` [${t.flow.join(', ')}]`
      if ('flowMap' in t) return ` {${t.flowMap.map(([k, v]) => `${k}: ${v}`).join(', ')}}`
      if ('block' in t) return ` ${t.block}${t.lines.map((l) => `\n${indent}${l}`).join('')}`
      if ('quoted' in t) return ` "${t.quoted.map((l) => l.replace(/["\\]/g, '')).join(`\n${indent}`)}"`
      if ('comment' in t) return ` # note${render(t.comment, indent).replace(/^ /, `\n${indent}`)}`
      if ('seq' in t)
        return t.seq.length === 0 ? ' []' : t.seq.map((v) => `\n${indent}-${render(v, `${indent}  `)}`).join('')
      if (t.map.length === 0) return ' {}'
      return t.map.map(([k, v]) => `\n${indent}${k}:${render(v, `${indent}  `)}`).join('')
    }
    let taken = 0
    await checkProperty(
      'plain read = document data',
      fc.property(fc.array(fc.tuple(key, tree), { minLength: 1, maxLength: 5 }), (entries) => {
        const text = `${entries.map(([k, v]) => `${k}:${render(v, '  ')}`).join('\n')}\n`
        const plain = readPlainData(text)
        if (!plain) return true
        taken++
        const expected = documentData(text)
        if (!isDeepStrictEqual(plain.data, expected)) {
          throw new Error(`${JSON.stringify(text)}: ${JSON.stringify(plain.data)} ≠ ${JSON.stringify(expected)}`)
        }
        return true
      }),
      Number(process.env.YAML_DATA_RUNS ?? 1000),
    )
    // The property is not met by giving up on everything.
    expect(taken).toBeGreaterThan(100)
  })
})

describe('the loader, whichever read it takes', () => {
  const files = [
    ['the reference config', readFileSync(join(root, 'config/reference.yaml'), 'utf8')],
    [
      'a file with problems',
      readFileSync(join(root, 'test/fixtures/mappings/problems/duplicate-bindings.yaml'), 'utf8'),
    ],
    ['a 4,092-binding file', bigConfig()],
    ['a bad version', 'version: 99\n'],
  ] as const
  it.each(files)('%s: the same config and problems (at the same lines) through the document', async (_name, text) => {
    expect(readPlainData(text)).toBeDefined()
    expect(readPlainData(text + THROUGH_THE_DOCUMENT)).toBeUndefined()
    const plain = await loadConfigText(text, 'x.yaml')
    const throughDocument = await loadConfigText(text + THROUGH_THE_DOCUMENT, 'x.yaml')
    expect(plain).toStrictEqual(throughDocument)
  })
})
