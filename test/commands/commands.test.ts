/**
 * Issue 22, item 12: `panelbridge commands [NAME]`, docs/commands.md (fails when stale: run
 * `npm run commands-doc`), the JSON Schema's command names and parameter names for editors, the README's
 * sections for templates, play-state words, the default palette and the confirm list, and the reference
 * example in config/ with a `$schema` line that works where docs/install.md copies the schema.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, posix, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { COMMANDS_DOC, commandsMarkdown } from '../../scripts/generate-commands-doc.js'
import { COMMAND_NAMES, getCommandSpec } from '../../src/api/commands.js'
import { EXIT } from '../../src/cli.js'
import { commandDetailText, commandListText, examplePress, parseCommandsArgs } from '../../src/commands/commands.js'
import { allCommandFacts, commandFacts } from '../../src/mappings/command-reference.js'
import { CONFIRM_COMMANDS, FEEDBACK_COLORS } from '../../src/mappings/constants.js'
import { loadConfigText } from '../../src/mappings/load.js'
import { configSchemaText, editorJsonSchema } from '../../src/mappings/schema-file.js'
import { TEMPLATE_NAMES } from '../../src/mappings/template.js'
import { cliInProcess as cli } from '../helpers/cli.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const read = (path: string): string => readFileSync(resolve(root, path), 'utf8')

afterEach(() => vi.restoreAllMocks())

describe('panelbridge commands', () => {
  it('lists every catalogue command with its parameters and marks, by group', async () => {
    const { code, out } = await cli(['commands'])
    expect(code).toBe(EXIT.ok)
    expect(out).toBe(commandListText())
    for (const name of COMMAND_NAMES) expect(out).toMatch(new RegExp(`^  ${name} `, 'm'))
    expect(out).toMatch(/^ {2}stopStreaming .*\[hold to confirm\]$/m)
    expect(out).toMatch(/^ {2}schedule .*\[without id or title: every target\]$/m)
    // Required parameters bare, optional ones in brackets.
    expect(out).toMatch(/params: action \[id\] \[title\]/)
    expect(out).toContain(`${COMMAND_NAMES.length} commands.`)
  })

  it('shows one command in full: each parameter with its type, required or not, and a binding to paste', async () => {
    const { code, out } = await cli(['commands', 'schedule'])
    expect(code).toBe(EXIT.ok)
    expect(out).toMatch(/^ {2}action +required animateIn \| animateOut \|/m)
    expect(out).toMatch(/^ {2}channel +optional number \(-1 = all channels\)$/m)
    expect(out).toContain('acts on every target when id and title are all left out')
    expect(out).toContain('panelbridge send refuses it too, unless --all')
    // The example names a title: the usual intent, and what check asks of a schedule binding.
    expect(out).toContain("press: { command: schedule, params: { action: animateIn, title: '...' } }")
    const stop = commandDetailText(commandFacts('stopStreaming')!)
    expect(stop).toContain('hold to confirm: a press is sent only after a 1.5 s hold')
    expect(stop).toContain('panelbridge send sends it only with --yes')
    expect(stop).toContain('parameters: none')
  })

  it('every example binding loads with check (the example is one to paste)', async () => {
    for (const c of allCommandFacts()) {
      const text = [
        'version: 1',
        'surfaces: { desk: { driver: web, rows: 1, columns: 1 } }',
        'bindings:',
        `  - on: desk/key:0`,
        `    ${examplePress(c)}`,
      ].join('\n')
      const r = await loadConfigText(text, 'example.yaml')
      expect(
        r.problems.filter((p) => p.severity === 'error'),
        c.name,
      ).toEqual([])
    }
  })

  it('a name the catalogue lacks is a usage error with the nearest name', async () => {
    expect(parseCommandsArgs(['schedul'])).toEqual({
      kind: 'error',
      message: "'schedul' is not in the command catalogue (did you mean schedule?)",
    })
    expect(parseCommandsArgs(['schedule', 'extra'])).toMatchObject({ kind: 'error', message: /unexpected argument/ })
    const { code, err } = await cli(['commands', 'stopStreeming'])
    expect(code).toBe(EXIT.usage)
    expect(err).toContain('did you mean stopStreaming?')
  })

  it('marks the confirm list and the commands that act on everything when their target is empty', () => {
    const facts = allCommandFacts()
    expect(facts.filter((c) => c.confirm).map((c) => c.name)).toEqual(
      COMMAND_NAMES.filter((n) => CONFIRM_COMMANDS.has(n)),
    )
    expect(facts.find((c) => c.name === 'schedule')!.allWhenEmpty).toEqual(['id', 'title'])
    for (const c of facts) expect(c.allWhenEmpty).toEqual(getCommandSpec(c.name)!.allWhenEmpty ?? [])
  })
})

describe('docs/commands.md', () => {
  const doc = readFileSync(COMMANDS_DOC, 'utf8')

  it('is the generated reference (run npm run commands-doc when this fails)', () => {
    expect(doc).toBe(commandsMarkdown())
  })

  it('names every command with a section, and every parameter of each', () => {
    for (const c of allCommandFacts()) {
      expect(doc).toContain(`### \`${c.name}\``)
      for (const p of c.params) expect(doc).toContain(`| \`${p.name}\` |`)
    }
    for (const name of CONFIRM_COMMANDS)
      expect(doc).toMatch(new RegExp(`\\| \\[\`${name}\`\\]\\(#${name.toLowerCase()}\\) \\|[^\\n]*hold to confirm`))
  })
})

/** The `then` the editor applies to a command-sending object naming `command`. */
function paramsSchemaFor(schema: Record<string, unknown>, command: string): Record<string, unknown> | undefined {
  const defs = schema.$defs as {
    commandParams: { allOf: { if: unknown; then: { properties: { params: unknown } } }[] }
  }
  const branch = defs.commandParams.allOf.find(
    (b) =>
      JSON.stringify(b.if) === JSON.stringify({ properties: { command: { const: command } }, required: ['command'] }),
  )
  return branch?.then.properties.params as Record<string, unknown> | undefined
}

describe('the editors’ JSON Schema', () => {
  const schema = editorJsonSchema()

  it('is what config/panelbridge.schema.json holds (run npm run schema when this fails)', () => {
    expect(read('config/panelbridge.schema.json')).toBe(configSchemaText())
  })

  it('takes the catalogue’s command names in every command-sending place', () => {
    const defs = schema.$defs as {
      command: { anyOf: { enum?: string[] }[] }
      commandParams: { allOf: { if: unknown; then: { properties: Record<string, unknown> } }[] }
    }
    // Completed from the catalogue's names; held to them unless the action says unlisted: true.
    expect(defs.command.anyOf[0]!.enum).toEqual(COMMAND_NAMES)
    expect(defs.commandParams.allOf[0]).toEqual({
      if: { not: { properties: { unlisted: { const: true } }, required: ['unlisted'] } },
      then: { properties: { command: { enum: COMMAND_NAMES } } },
    })
    const text = JSON.stringify(schema)
    // press, hold, toggle on/off, steps, value and rotate: each refers to the names and the parameters.
    const places = text.split('"$ref":"#/$defs/command"').length - 1
    const paramRefs = text.split('"$ref":"#/$defs/commandParams"').length - 1
    expect(places).toBeGreaterThanOrEqual(7)
    expect(paramRefs).toBe(places)
    const press = (schema as { properties: { bindings: { items: { properties: { value: unknown } } } } }).properties
      .bindings.items.properties.value as { properties: { command: unknown }; allOf: unknown[] }
    expect(press.properties.command).toEqual({ $ref: '#/$defs/command' })
    expect(press.allOf).toContainEqual({ $ref: '#/$defs/commandParams' })
  })

  it('offers each command’s parameter names, with their types and allowed words', () => {
    for (const c of allCommandFacts()) {
      const params = paramsSchemaFor(schema, c.name)
      expect(Object.keys((params?.properties as object | undefined) ?? {}), c.name).toEqual(c.params.map((p) => p.name))
    }
    const schedule = paramsSchemaFor(schema, 'schedule')!.properties as Record<
      string,
      { description: string; anyOf?: unknown[] }
    >
    expect(schedule.action!.description).toMatch(/^Required animateIn \| animateOut/)
    expect(schedule.action!.anyOf![0]).toEqual({ enum: getCommandSpec('schedule')!.params.action!.values })
    expect(schedule.channel!.description).toBe('Optional number. -1 = all channels.')
  })
})

describe('README sections for mapping authors', () => {
  const readme = read('README.md')

  it('lists every template name', () => {
    for (const name of TEMPLATE_NAMES) expect(readme).toContain(`| \`{{${name}}}\``)
    expect(readme).toContain('| `{{var.NAME}}`')
  })

  it('shows the play-state words, the default palette and the indicator colours as the code has them', () => {
    expect(readme).toContain('### Play-state words')
    expect(readme).toContain("labels: { Running: 'ON AIR', Paused: 'ON AIR', Off: 'off' }")
    for (const [state, colour] of Object.entries(FEEDBACK_COLORS.play))
      expect(readme).toMatch(new RegExp(`\\| \`${state}\` +\\| \`${colour}\` +\\|`))
    expect(readme).toContain(`lit \`${FEEDBACK_COLORS.indicatorOn}\``)
    expect(readme).toContain(`dark \`${FEEDBACK_COLORS.indicatorOff}\``)
  })

  it('lists exactly the commands that need a hold to confirm', () => {
    const section = readme.slice(readme.indexOf('### Hold to confirm'))
    const listed = [...section.slice(0, section.indexOf('\n\n`panelbridge commands`')).matchAll(/^- `(\w+)`$/gm)].map(
      (m) => m[1],
    )
    expect(listed.sort()).toEqual([...CONFIRM_COMMANDS].sort())
  })
})

describe('the reference example', () => {
  const text = read('config/reference.yaml')
  const schemaLine = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text.split('\n')[0]!)

  it('lives in config/, which the package ships', () => {
    const files = (JSON.parse(read('package.json')) as { files: string[] }).files
    expect(files).toContain('config')
    expect(existsSync(resolve(root, 'test/fixtures/mappings/reference.yaml'))).toBe(false)
    expect(read('README.md')).toContain('`config/reference.yaml`')
  })

  it('names a schema that exists beside it in config/', () => {
    expect(schemaLine).not.toBeNull()
    expect(existsSync(resolve(root, 'config', schemaLine![1]!))).toBe(true)
  })

  it('names the schema where docs/install.md copies it, beside /etc/panelbridge/config.yaml', () => {
    const install = read('docs/install.md')
    const copy = /sudo cp \S+\/config\/panelbridge\.schema\.json (\/etc\/panelbridge\/)\n/.exec(install)
    expect(copy).not.toBeNull()
    const installed = posix.join(copy![1]!, 'panelbridge.schema.json')
    expect(posix.resolve('/etc/panelbridge', schemaLine![1]!)).toBe(installed)
    // The examples name it one folder up: install.md's sed makes theirs point beside them too.
    const sed = /sed -i '1s\|\\\$schema=\\\.\\\.\/\|\$schema=\.\/\|' \/etc\/panelbridge\/config\.yaml/.exec(install)
    expect(sed).not.toBeNull()
    const example = read('config/examples/streamdeck-xl-titles.yaml')
      .split('\n')[0]!
      .replace('$schema=../', '$schema=./')
    const path = /\$schema=(\S+)/.exec(example)![1]!
    expect(posix.resolve(dirname('/etc/panelbridge/config.yaml'), path)).toBe(installed)
  })

  it('loads with no error', async () => {
    const r = await loadConfigText(text, 'reference.yaml')
    expect(r.problems.filter((p) => p.severity === 'error')).toEqual([])
    expect(r.config).toBeDefined()
  })
})
