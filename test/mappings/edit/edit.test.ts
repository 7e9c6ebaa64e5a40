import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { addBinding, copyBinding, deleteBinding, putBinding, replaceBinding } from '../../../src/mappings/edit/edit.js'
import { allBindings, EditError, locateBinding, parseForEdit } from '../../../src/mappings/edit/locate.js'
import { loaderCheck } from '../../../src/mappings/edit/check.js'

const EXAMPLES = 'config/examples'
const EVERYTHING = 'test/fixtures/edit/everything.yaml'
const files = [...readdirSync(EXAMPLES).map((f) => join(EXAMPLES, f)), EVERYTHING]
const read = (f: string): string => readFileSync(f, 'utf8')

/** The address of a binding's `on` and `page`. */
function refOf(b: { on?: unknown; page?: unknown }) {
  const on = String(b.on)
  const slash = on.indexOf('/')
  return {
    surface: on.slice(0, slash),
    control: on.slice(slash + 1),
    ...(typeof b.page === 'string' ? { page: b.page } : {}),
  }
}

type Leaf = { path: (string | number)[]; value: string | number | boolean }

/** Every scalar of a binding's data with its path. */
function leaves(v: unknown, path: (string | number)[] = []): Leaf[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, [...path, i]))
  if (typeof v === 'object' && v !== null) return Object.entries(v).flatMap(([k, x]) => leaves(x, [...path, k]))
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return [{ path, value: v }]
  return []
}

function setAt(root: Record<string, unknown>, path: (string | number)[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(root)
  type Node = Record<string | number, unknown>
  let node = copy as Node
  for (const p of path.slice(0, -1)) node = node[p] as Node
  node[path.at(-1)!] = value
  return copy
}

/** The lines that differ, by index, when the two texts have as many lines. */
function changedLines(a: string, b: string): number[] {
  const x = a.split('\n')
  const y = b.split('\n')
  expect(y.length).toBe(x.length)
  return x.flatMap((line, i) => (line === y[i] ? [] : [i]))
}

/** The old lines [from, to) that differ, between the lines both texts begin and end with. */
function changedRegion(a: string, b: string): { from: number; to: number } {
  const x = a.split('\n')
  const y = b.split('\n')
  let from = 0
  while (from < x.length && from < y.length && x[from] === y[from]) from++
  let tail = 0
  while (tail < x.length - from && tail < y.length - from && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++
  return { from, to: x.length - tail }
}

function lineIndex(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length - 1
}

/** The editable bindings of a file with their data. */
function editable(text: string) {
  return allBindings(parseForEdit(text), 'f.yaml').filter((b) => b.editable)
}

describe('locate', () => {
  it('finds a binding by surface, control and page, with file:line, its YAML and its fields', () => {
    const text = read('config/examples/web-control-room.yaml')
    const found = locateBinding(
      parseForEdit(text),
      { surface: 'graphics', control: 'key:1', page: 'cameras' },
      'w.yaml',
    )
    expect(found?.where).toBe('w.yaml:33')
    expect(found?.yaml).toBe(
      [
        '  - on: graphics/key:1',
        '    page: cameras',
        "    label: 'Cam 1'",
        "    press: { command: switchVideoIn, params: { channel: 0, video: 'Camera 1' } }",
        "    feedback: { input: 'Camera 1' }",
        '',
      ].join('\n'),
    )
    expect(found?.binding).toEqual({
      label: 'Cam 1',
      press: { command: 'switchVideoIn', params: { channel: 0, video: 'Camera 1' } },
      feedback: { input: 'Camera 1' },
    })
    expect(found?.page).toBe('cameras')
    expect(found?.editable).toBe(true)
  })

  it('a page without its own binding finds the control’s binding without a page; none is undefined', () => {
    const ed = parseForEdit(read('config/examples/web-control-room.yaml'))
    expect(locateBinding(ed, { surface: 'graphics', control: 'key:7', page: 'cameras' }, 'w')?.line).toBe(43)
    expect(locateBinding(ed, { surface: 'graphics', control: 'key:5', page: 'cameras' }, 'w')).toBeUndefined()
    expect(locateBinding(ed, { surface: 'graphics', control: 'key:0' }, 'w')).toBeUndefined()
  })

  it('a binding built by a merge key or holding an anchor another repeats is not editable, with the reason', () => {
    const ed = parseForEdit(read(EVERYTHING))
    const merged = locateBinding(ed, { surface: 'desk', control: 'key:2', page: 'cams' }, 'e')!
    expect(merged.editable).toBe(false)
    expect(merged.reason).toMatch(/merge key \(<<\)/)
    expect(merged.binding.label).toBe('Cam 1')
    const anchored = locateBinding(ed, { surface: 'desk', control: 'key:0', page: 'live' }, 'e')!
    expect(anchored.editable).toBe(false)
    expect(anchored.reason).toMatch(/&onair is repeated elsewhere by \*onair/)
    expect(() => replaceBinding(read(EVERYTHING), { surface: 'desk', control: 'key:0', page: 'live' }, {})).toThrow(
      expect.objectContaining({ code: 'NOT_EDITABLE' }),
    )
  })
})

describe('golden diffs', () => {
  for (const file of files) {
    it(`${file}: writing every binding back unchanged gives the same bytes`, () => {
      const text = read(file)
      for (const b of editable(text)) {
        const ref = refOf({ on: `${parseForEdit(text).bindings[b.index]!.on as string}`, page: b.page })
        expect(replaceBinding(text, ref, b.binding).text).toBe(text)
      }
    })

    it(`${file}: a one-field edit changes only that field's line (lines, for a block scalar)`, () => {
      const text = read(file)
      const ed = parseForEdit(text)
      let edits = 0
      for (const b of editable(text)) {
        const ref = refOf(ed.bindings[b.index]!)
        for (const leaf of leaves(b.binding)) {
          const value =
            typeof leaf.value === 'string'
              ? `2 ${leaf.value}`
              : typeof leaf.value === 'number'
                ? leaf.value + 1
                : !leaf.value
          const result = replaceBinding(text, ref, setAt(b.binding, leaf.path, value))
          // The lines the field is written on (several for a block scalar).
          // (Under an alias, the alias: the field is written there.)
          let node: { range: number[] } | undefined
          for (let n = leaf.path.length; node === undefined; n--)
            node = ed.doc.getIn(['bindings', b.index, ...leaf.path.slice(0, n)], true) as typeof node
          const first = lineIndex(text, node.range[0]!)
          const last = lineIndex(text, node.range[1]! - 1)
          const changed = changedRegion(text, result.text)
          expect(changed.from).toBeGreaterThanOrEqual(first)
          expect(changed.to).toBeLessThanOrEqual(last + 1)
          if (first === last) expect(changedLines(text, result.text)).toEqual([first])
          // The value read back is the one written.
          const back = locateBinding(parseForEdit(result.text), ref, 'f')!
          expect(back.binding).toEqual(setAt(b.binding, leaf.path, value))
          edits++
        }
      }
      expect(edits).toBeGreaterThan(0)
    })
  }

  it('a one-field edit keeps the field’s quoting and its comment', () => {
    const text = read(EVERYTHING)
    const ref = { surface: 'desk', control: 'key:1', page: 'live' }
    let b = locateBinding(parseForEdit(text), ref, 'e')!.binding
    b = setAt(b, ['press', 0, 'params', 'title'], 'Score Bug 2')
    b = setAt(b, ['press', 2, 'params', 'title'], 'Clock')
    b = setAt(b, ['label'], 'Score\nin\n')
    const out = replaceBinding(text, ref, b).text
    expect(out).toContain(
      '      - { command: schedule, params: { action: update, title: "Score Bug 2" } } # double-quoted\n',
    )
    expect(out).toContain('        params: { action: animateIn, title: Clock } # a plain string with a space\n')
    expect(out).toContain('    label: | # a literal block scalar\n      Score\n      in\n    press:')
  })

  it('a plain value that would read as another type is quoted as the file quotes', () => {
    const text = read('config/examples/web-control-room.yaml')
    const ref = { surface: 'replay', control: 'fader:0' }
    const b = setAt(locateBinding(parseForEdit(text), ref, 'w')!.binding, ['value', 'param'], '12')
    const out = replaceBinding(text, ref, b).text
    expect(changedLines(text, out)).toHaveLength(1)
    expect(out).toContain("value: { command: replay_set_replay_speed, param: '12', range: [0, 2] }")
  })
})

describe('property: a single-field edit changes only lines inside the edited binding', () => {
  const examples = files.filter((f) => f !== EVERYTHING)
  it('holds for any value of any field of any binding of the examples', () => {
    const cases = examples.flatMap((file) => {
      const text = read(file)
      const ed = parseForEdit(text)
      return editable(text).flatMap((b) =>
        leaves(b.binding).map((leaf) => ({ text, b, leaf, ref: refOf(ed.bindings[b.index]!) })),
      )
    })
    const value = fc.oneof(
      fc.string({ maxLength: 24 }),
      fc.integer({ min: -1000, max: 1000 }),
      fc.boolean(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    )
    fc.assert(
      fc.property(fc.integer({ min: 0, max: cases.length - 1 }), value, (i, v) => {
        const { text, b, leaf, ref } = cases[i]!
        const result = replaceBinding(text, ref, setAt(b.binding, leaf.path, v))
        const before = text.slice(0, b.start)
        const after = text.slice(b.end)
        expect(result.text.startsWith(before)).toBe(true)
        expect(result.text.endsWith(after)).toBe(true)
        const back = locateBinding(parseForEdit(result.text), ref, 'f')!
        // As JSON carries it (-0 is 0).
        expect(back.binding).toEqual(JSON.parse(JSON.stringify(setAt(b.binding, leaf.path, v))))
      }),
      { numRuns: 300 },
    )
  })
})

describe('every binding of the examples deleted and added back in the file’s style', () => {
  for (const file of files.filter((f) => f.startsWith(EXAMPLES))) {
    it(`${file}: the loader accepts the result and reads the same bindings`, async () => {
      const text = read(file)
      const ed = parseForEdit(text)
      for (const b of editable(text)) {
        const ref = refOf(ed.bindings[b.index]!)
        const gone = deleteBinding(text, ref)
        const back = addBinding(gone.text, ref, b.binding)
        expect(await loaderCheck(file)(back.text)).toEqual([])
        const sorted = (t: string) =>
          parseForEdit(t)
            .bindings.map((x) => JSON.stringify(x))
            .sort()
        expect(sorted(back.text)).toEqual(sorted(text))
        // Written as the file writes it: the same lines as before, moved at most (a comment in the
        // binding goes with it).
        const lines = (t: string) =>
          t
            .split('\n')
            .filter((l) => !/^\s*#/.test(l))
            .map((l) => l.replace(/\s+#[^'"]*$/, ''))
            .sort()
        expect(lines(back.text)).toEqual(lines(text))
      }
    })
  }
})

describe('add, delete, copy', () => {
  const text = [
    '# a desk # top',
    'version: 1',
    'surfaces:',
    '  desk: { driver: web, rows: 2, columns: 4 }',
    '  side: { driver: web, rows: 1, columns: 2 }',
    'bindings:',
    '  - on: desk/key:0 # first',
    "    label: 'Lower Third'",
    "    press: { command: schedule, params: { action: automatic, title: 'Lower Third' } }",
    '  # the side panel',
    '  - on: side/key:0',
    '    press:',
    '      - { command: replay_enable }',
    '      - { wait_ms: 100 }',
    '',
  ].join('\n')

  it('adds after the surface’s last binding in the file’s indentation and quoting', () => {
    const out = addBinding(
      text,
      { surface: 'desk', control: 'key:1' },
      {
        label: 'Score Bug',
        press: { command: 'schedule', params: { action: 'automatic', title: 'Score Bug' } },
      },
    )
    expect(out.text).toBe(
      text.replace(
        '  # the side panel',
        [
          '  - on: desk/key:1',
          "    label: 'Score Bug'",
          "    press: { command: schedule, params: { action: automatic, title: 'Score Bug' } }",
          '  # the side panel',
        ].join('\n'),
      ),
    )
    expect(out.line).toBe(10)
  })

  it('adds after the last binding for a surface with none, a sequence in block style as the file writes it', () => {
    const withOther = text.replace(
      '  side: { driver: web, rows: 1, columns: 2 }\n',
      '  side: { driver: web, rows: 1, columns: 2 }\n  more: { driver: web, rows: 1, columns: 1 }\n',
    )
    const out = addBinding(
      withOther,
      { surface: 'more', control: 'key:0', page: 'p' },
      {
        press: [{ command: 'replay_enable' }, { wait_ms: 5 }],
      },
    )
    expect(out.text).toBe(
      `${withOther}${['  - on: more/key:0', '    page: p', '    press:', '      - { command: replay_enable }', '      - { wait_ms: 5 }', ''].join('\n')}`,
    )
  })

  it('refuses to add over an existing binding', () => {
    expect(() => addBinding(text, { surface: 'desk', control: 'key:0' }, {})).toThrow(
      expect.objectContaining({ code: 'ALREADY_BOUND' }),
    )
  })

  it('deletes a binding’s lines and nothing else', () => {
    const out = deleteBinding(text, { surface: 'side', control: 'key:0' })
    expect(out.text).toBe(text.replace(/ {2}- on: side\/key:0\n[\s\S]*$/, ''))
    const one = deleteBinding(out.text, { surface: 'desk', control: 'key:0' })
    // A comment between two bindings stays: it is outside both.
    expect(one.text).toBe(out.text.replace(/bindings:\n[\s\S]*$/, 'bindings: []\n  # the side panel\n'))
  })

  it('copies a binding to another control, after that surface’s last', () => {
    const out = copyBinding(text, { surface: 'desk', control: 'key:0' }, { surface: 'side', control: 'key:1' })
    expect(out.text).toBe(
      `${text}${['  - on: side/key:1', "    label: 'Lower Third'", "    press: { command: schedule, params: { action: automatic, title: 'Lower Third' } }", ''].join('\n')}`,
    )
  })

  it('a field added, removed and reshaped changes only that binding’s lines', () => {
    const ref = { surface: 'desk', control: 'key:0' }
    const out = replaceBinding(text, ref, {
      press: [{ command: 'schedule', params: { action: 'automatic', title: 'Lower Third' } }, { wait_ms: 10 }],
      feedback: { title: 'Lower Third' },
    })
    expect(out.text).toBe(
      text.replace(
        "    label: 'Lower Third'\n    press: { command: schedule, params: { action: automatic, title: 'Lower Third' } }\n",
        "    press:\n      - { command: schedule, params: { action: automatic, title: 'Lower Third' } }\n      - { wait_ms: 10 }\n    feedback: { title: 'Lower Third' }\n",
      ),
    )
  })

  it('refuses a binding carrying its own on or page', () => {
    expect(() => replaceBinding(text, { surface: 'desk', control: 'key:0' }, { on: 'x/key:0' })).toThrow(EditError)
  })

  it('an edit of every example file is accepted by the loader when the binding is valid', () => {
    // The surface's next free key gets a copy of its first binding (on its page).
    const file = 'config/examples/xkeys24-titles.yaml'
    const t = read(file)
    const ed = parseForEdit(t)
    const first = refOf(ed.bindings[0]!)
    const out = copyBinding(t, first, { ...first, control: 'button:23' })
    expect(out.text.slice(0, out.start)).toBe(t.slice(0, out.start))
  })

  it('put replaces the control’s binding, or adds one when it has none', () => {
    const replaced = putBinding(text, { surface: 'side', control: 'key:0' }, { press: { command: 'replay_enable' } })
    expect(replaced.text).toBe(
      text.replace(
        '    press:\n      - { command: replay_enable }\n      - { wait_ms: 100 }\n',
        '    press: { command: replay_enable }\n',
      ),
    )
    const added = putBinding(text, { surface: 'side', control: 'key:1' }, { press: { command: 'replay_enable' } })
    expect(added.text).toBe(`${text}  - on: side/key:1\n    press: { command: replay_enable }\n`)
  })

  it('gives a file without bindings its first, under bindings: or a new bindings:', () => {
    const head = 'version: 1 # v\nsurfaces:\n  desk: { driver: web, rows: 1, columns: 2 }\n'
    const first = { surface: 'desk', control: 'key:0' }
    const binding = { label: 'Go', press: { command: 'replay_enable' } }
    const item = '  - on: desk/key:0\n    label: Go\n    press: { command: replay_enable }\n'
    const added = addBinding(head, first, binding)
    expect(added.text).toBe(`${head}bindings:\n${item}`)
    expect(added.text.slice(added.start, added.end)).toBe(item)
    expect(added.line).toBe(5)
    const under = addBinding(`${head}bindings: []\n`, first, binding)
    expect([under.text.slice(under.start, under.end), under.line]).toEqual([item, 5])
    expect(addBinding(`${head}bindings: []\n# end\n`, first, binding).text).toBe(`${head}bindings:\n${item}# end\n`)
    expect(addBinding(head.slice(0, -1), first, binding).text).toBe(`${head}bindings:\n${item}`)
  })

  it('a flow-style binding is written anew on its own line; removing the field on the - line rewrites the binding', () => {
    const flowText = text.replace(
      "  - on: desk/key:0 # first\n    label: 'Lower Third'\n    press: { command: schedule, params: { action: automatic, title: 'Lower Third' } }\n",
      '  - { on: desk/key:0, label: Go }\n',
    )
    const out = replaceBinding(flowText, { surface: 'desk', control: 'key:0' }, { label: 'Stop' })
    expect(out.text).toBe(
      flowText.replace('  - { on: desk/key:0, label: Go }\n', '  - { on: desk/key:0, label: Stop }\n'),
    )
    const labelFirst = text.replace(
      "  - on: desk/key:0 # first\n    label: 'Lower Third'\n",
      "  - label: 'Lower Third'\n    on: desk/key:0\n",
    )
    const dropped = replaceBinding(
      labelFirst,
      { surface: 'desk', control: 'key:0' },
      { press: { command: 'replay_enable' } },
    )
    expect(dropped.text).toBe(
      labelFirst.replace(
        "  - label: 'Lower Third'\n    on: desk/key:0\n    press: { command: schedule, params: { action: automatic, title: 'Lower Third' } }\n",
        '  - on: desk/key:0\n    press: { command: replay_enable }\n',
      ),
    )
  })
})
