/**
 * The text of `config/panelbridge.schema.json`, as `npm run schema` writes it: the mapping schema's JSON
 * Schema (`configJsonSchema`), with the command catalogue added for editors. Every `command:` is
 * completed from the catalogue's names (`$defs.command`) and must be one of them unless the action says
 * `unlisted: true` (`check` refuses a near miss and warns about any other unknown name; an editor has
 * no warnings, so it marks both). Its `params:` offer that command's parameter names, each described
 * with its type and note, and the allowed words of a parameter that has them (`$defs.commandParams`:
 * one `if command is X then params has these` per command). Parameter values are not typed here: a
 * template (`{{value}}`) stands for a number or a word, and `check` types the values. The README's
 * configuration reference reads the schema without these additions.
 */
import { allCommandFacts, commandMarks, paramTypeText, type CommandFacts } from './command-reference.js'
import { configJsonSchema } from './schema.js'

type Json = Record<string, unknown>

const TEMPLATE = { type: 'string', pattern: '\\{\\{.*\\}\\}', description: 'A template, filled in when sent.' }

/** A command's parameters as schema properties: named, described, allowed words where there are some. */
function paramProperties(c: CommandFacts): Json {
  const properties: Json = {}
  for (const p of c.params) {
    const description = [
      `${p.required ? 'Required' : 'Optional'} ${paramTypeText(p)}.`,
      p.note !== undefined ? `${p.note}.` : undefined,
    ]
      .filter((x) => x !== undefined)
      .join(' ')
    properties[p.name] = p.values ? { description, anyOf: [{ enum: [...p.values] }, TEMPLATE] } : { description }
  }
  return properties
}

/** `$defs` for the catalogue: the command names and, per command, its parameters. */
export function commandDefs(): Json {
  const all = allCommandFacts()
  const names = all.map((c) => c.name)
  return {
    command: {
      type: 'string',
      minLength: 1,
      description: 'A command of the application: `panelbridge commands` lists them, docs/commands.md too.',
      // The names to complete; any other passes here, and `commandParams` holds it to the names.
      anyOf: [{ enum: names }, { not: { enum: names } }],
    },
    commandParams: {
      allOf: [
        {
          if: { not: { properties: { unlisted: { const: true } }, required: ['unlisted'] } },
          then: { properties: { command: { enum: names } } },
        },
        ...all.map((c) => ({
          if: { properties: { command: { const: c.name } }, required: ['command'] },
          then: {
            properties: {
              params: {
                description: [c.summary, ...commandMarks(c)].join(' '),
                properties: paramProperties(c),
              },
            },
          },
        })),
      ],
    },
  }
}

/** Gives every object that sends a command (`command:` beside `params:`) the catalogue's names and parameters. */
function addCommands(node: unknown, depth = 0): void {
  // The schema is ours and a few levels deep; the bound only keeps a mistake from recursing forever.
  if (depth > 64 || node === null || typeof node !== 'object') return
  if (Array.isArray(node)) {
    for (const item of node) addCommands(item, depth + 1)
    return
  }
  const object = node as Json
  const properties = object.properties as Json | undefined
  const command = properties?.command as Json | undefined
  if (properties && command?.type === 'string') {
    const { type: _type, minLength: _minLength, ...rest } = command
    properties.command = { ...rest, $ref: '#/$defs/command' }
    object.allOf = [...((object.allOf as unknown[] | undefined) ?? []), { $ref: '#/$defs/commandParams' }]
  }
  for (const value of Object.values(object)) addCommands(value, depth + 1)
}

/** The editors' schema: the mapping schema with the command catalogue added. */
export function editorJsonSchema(): Json {
  const schema = configJsonSchema()
  addCommands(schema)
  return { ...schema, $defs: { ...(schema.$defs ?? {}), ...commandDefs() } }
}

export function configSchemaText(): string {
  return `${JSON.stringify(editorJsonSchema(), null, 2)}\n`
}
