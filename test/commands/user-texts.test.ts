/**
 * What users read stands on its own (issue 40, item 5): no pointer to documents they do not have (the
 * project's protocol notes, its decisions, an issue number) in the command catalogue's words (printed
 * by `panelbridge commands`, in docs/commands.md and the editors' schema), the README, the install
 * guide and the shipped configs; and the nine `schedule` actions explained where users meet them.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { COMMANDS, SCHEDULE_ACTION_WORDS } from '../../src/api/commands.js'
import { SCHEDULE_ACTIONS } from '../../src/api/protocol.js'
import { EXIT } from '../../src/cli.js'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'
import { cliInProcess as cli } from '../helpers/cli.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const read = (file: string): string => readFileSync(`${root}${file}`, 'utf8')

/** A pointer to a document users do not have. */
const POINTER = /\bnotes \d|\(notes\b|decisions(\.md|:)|protocol[ -]notes|docs artefact|\bissue \d+/i

describe('texts users read', () => {
  it('the command catalogue: every summary and note', () => {
    const words: string[] = []
    JSON.stringify(COMMANDS, (key, value: unknown) => {
      if ((key === 'summary' || key === 'note') && typeof value === 'string') words.push(value)
      return value
    })
    expect(words.length).toBeGreaterThan(50)
    expect(words.filter((w) => POINTER.test(w))).toEqual([])
  })

  it.each([
    'README.md',
    'docs/commands.md',
    'docs/install.md',
    'config/panelbridge.schema.json',
    'config/default.yaml',
    'config/reference.yaml',
  ])('%s', (file) => {
    const lines = read(file).split('\n')
    expect(lines.filter((l) => POINTER.test(l))).toEqual([])
  })

  it('panelbridge commands schedule explains the nine actions, and says where the command comes from', async () => {
    const { code, out } = await cli(['commands', 'schedule'])
    expect(code).toBe(EXIT.ok)
    expect(SCHEDULE_ACTIONS).toHaveLength(9)
    for (const action of SCHEDULE_ACTIONS) expect(out).toContain(`${action}: ${SCHEDULE_ACTION_WORDS[action]}`)
    expect(out).toContain("group: playout (not in the application's command reference: seen in its own clients)")
    expect(out).not.toMatch(POINTER)
    expect(read('docs/commands.md')).toContain(`cutin: ${SCHEDULE_ACTION_WORDS.cutin}`)
  })

  it('check, on an action it does not know, says where each is explained', async () => {
    const text = `version: 1
surfaces:
  desk: { driver: web, rows: 1, columns: 1 }
bindings:
  - on: desk/key:0
    press: { command: schedule, params: { action: fly, title: A } }
`
    const problems = (await loadConfigText(text, 'c.yaml')).problems.map(formatProblem)
    expect(problems).toEqual([
      expect.stringMatching(
        /^c\.yaml:6:51: bindings\[0\]\.press: schedule: parameter action must be one of animateIn, .*automatic, got "fly" \(`panelbridge commands schedule` says what each does\)$/,
      ),
    ])
  })
})
