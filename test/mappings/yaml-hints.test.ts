/**
 * YAML syntax mistakes (issue 22, item 4): the yaml library's cascade for one mistake becomes one
 * problem at the first real cause, in words that say what to do for the common ones; duplicate keys
 * are each reported. Merge keys (`<<: *base`) work, and a problem in a merged value is placed where
 * the base was written.
 */
import { describe, expect, it } from 'vitest'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'

/** A 2×4 web surface `desk`, up to the `bindings:` key. */
const DESK = `version: 1
surfaces:
  desk: { driver: web, rows: 2, columns: 4 }
bindings:
`

const GOOD = `${DESK}  - on: desk/key:0
    label: Lower Third
    press: { command: schedule, params: { title: Lower Third, action: animateIn } }
`

/** GOOD with `from` (which must be in it) replaced by `to`. */
function edited(from: string, to: string): string {
  expect(GOOD).toContain(from)
  return GOOD.replace(from, to)
}

async function problems(text: string): Promise<string[]> {
  return (await loadConfigText(text, 'c.yaml')).problems.map(formatProblem)
}

describe('one problem at the first real cause', () => {
  it('the file they are edited from loads', async () => {
    expect(await problems(GOOD)).toEqual([])
  })

  it.each([
    [
      'a tab as the indentation',
      edited('    label:', '\tlabel:'),
      'c.yaml:6:1: a tab in the indentation: YAML indents with spaces only',
    ],
    [
      'a tab inside the indentation',
      edited('    label:', '  \t  label:'),
      'c.yaml:6:3: a tab in the indentation: YAML indents with spaces only',
    ],
    [
      'a key indented more than its neighbours',
      edited('    label:', '     label:'),
      'c.yaml:6:6: this line is indented differently from the keys around it: the keys of one mapping start at the same column (indented more than the line above it)',
    ],
    [
      'a key indented less than its neighbours',
      edited('    label:', '   label:'),
      'c.yaml:6:4: this line is indented differently from the keys around it: the keys of one mapping start at the same column',
    ],
    [
      'a top-level key indented',
      edited('bindings:', ' bindings:'),
      'c.yaml:4:2: this line is indented differently from the keys around it: the keys of one mapping start at the same column',
    ],
    [
      'an unquoted colon in a label',
      edited('label: Lower Third', 'label: Next: Lower Third  # the next one'),
      `c.yaml:6:12: a value with ": " in it must be quoted: quote it, 'Next: Lower Third'`,
    ],
    [
      'an unquoted colon in a flow value',
      edited('title: Lower Third', "title: Lower: Third's"),
      `c.yaml:7:50: a value with ": " in it must be quoted: quote it, 'Lower: Third''s'`,
    ],
    [
      'a dash without its space',
      edited('  - on: desk/key:0', '  -on: desk/key:0'),
      'c.yaml:5:3: a list item needs a space after its dash: `- key: value`',
    ],
    [
      'a value starting with a reserved character',
      edited('label: Lower Third', 'label: @home'),
      `c.yaml:6:12: Plain value cannot start with reserved character @: quote it, '@home'`,
    ],
  ])('%s', async (_name, text, expected) => {
    expect(await problems(text)).toEqual([expected])
  })

  it('a mistake the hints do not know keeps the library message, once', async () => {
    expect(await problems(edited('label: Lower Third', 'label: "Lower Third'))).toEqual([
      'c.yaml:8:1: Missing closing "quote',
    ])
  })

  it('every duplicate key is its own problem, named, with the line:col of the key it repeats', async () => {
    expect(await problems(edited('    press:', '    label: a\n    label: b\n    press:'))).toEqual([
      "c.yaml:7:5: duplicate key 'label': first written at 6:5; a mapping holds each key once",
      "c.yaml:8:5: duplicate key 'label': first written at 6:5; a mapping holds each key once",
    ])
  })

  it('a duplicate key in a flow mapping, quoted, anchored or written as another number is found too', async () => {
    const text = `${DESK}  - on: desk/key:0
    press: { command: schedule, params: { title: A, title: B } }
  - on: desk/key:1
    "on": desk/key:2
  - on: desk/key:3
    value: { command: replay_set_replay_speed, param: speed, range: [0, 1] }
    &v value: { command: replay_set_replay_speed, param: speed, range: [0, 2] }
    colors: { 1: a, 1.0: b }
`
    expect(await problems(text)).toEqual([
      "c.yaml:6:53: duplicate key 'title': first written at 6:43; a mapping holds each key once",
      "c.yaml:8:5: duplicate key 'on': first written at 7:5; a mapping holds each key once",
      "c.yaml:11:8: duplicate key 'value': first written at 10:5; a mapping holds each key once",
      "c.yaml:12:21: duplicate key '1': first written at 12:15; a mapping holds each key once",
    ])
  })

  it('a second document in the file is refused', async () => {
    expect(await problems(`${GOOD}---\nversion: 1\n`)).toEqual([
      'c.yaml:8:1: the file holds more than one YAML document',
    ])
  })
})

describe('merge keys', () => {
  const MERGED = `version: 1
surfaces:
  desk: &grid { driver: web, rows: 2, columns: 4 }
  pad:
    <<: *grid
    rows: 1
bindings:
  - on: desk/key:0
    feedback: &lower { title: Lower Third, colors: { Running: '#ff0000' } }
    press: &take { command: schedule, params: { title: Lower Third, action: animateIn } }
  - on: pad/key:0
    feedback: { <<: *lower, title: Upper Third }
    press: { <<: *take, params: { title: Upper Third, action: animateIn } }
`

  it("bring in the base, the map's own keys winning", async () => {
    const r = await loadConfigText(MERGED, 'c.yaml')
    expect(r.problems).toEqual([])
    expect(r.config?.surfaces.pad).toEqual({ driver: 'web', rows: 1, columns: 4 })
    expect(r.config?.bindings[1]?.feedback).toEqual({ title: 'Upper Third', colors: { Running: '#ff0000' } })
    expect(r.config?.bindings[1]?.press).toEqual({
      command: 'schedule',
      params: { title: 'Upper Third', action: 'animateIn' },
    })
  })

  it('several bases in a list, the first winning', async () => {
    const r = await loadConfigText(
      `version: 1
surfaces:
  a: &a { driver: web, rows: 2, columns: 4 }
  b: &b { driver: web, rows: 3, columns: 3, jog: true }
  c: { <<: [*a, *b] }
`,
      'c.yaml',
    )
    expect(r.problems).toEqual([])
    expect(r.config?.surfaces.c).toEqual({ driver: 'web', rows: 2, columns: 4, jog: true })
  })

  it('a problem in a merged value is placed where the base wrote it', async () => {
    expect(
      await problems(`${DESK}  - on: desk/key:0
    feedback: &lower { title: Lower Third, colors: { Running: red } }
  - on: desk/key:1
    feedback: { <<: *lower, title: Upper Third }
`),
    ).toEqual([
      'c.yaml:6:63: bindings[0].feedback.colors.Running: a colour is #rrggbb',
      'c.yaml:6:63: bindings[1].feedback.colors.Running: a colour is #rrggbb',
    ])
  })
})
