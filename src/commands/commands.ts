/**
 * `panelbridge commands [NAME]`: the command catalogue for the mapping author. Without a name, every
 * command by group, one line each (its parameters, required ones first, and its marks: hold to confirm,
 * acts on every target when its target is left out); with one, that command in full, with a binding to
 * paste. What is shown comes from `src/mappings/command-reference.ts`, as `docs/commands.md` does.
 * Exit codes: 0 shown, 2 bad command line (a name the catalogue lacks, with the nearest one).
 */
import { parseArgs } from 'node:util'
import {
  allCommandFacts,
  commandFacts,
  commandMarks,
  GROUP_TITLES,
  paramTypeText,
  type CommandFacts,
  type ParamFacts,
} from '../mappings/command-reference.js'
import { ENGINE_TUNABLES } from '../mappings/constants.js'
import { suggest } from '../mappings/schema-issues.js'
import { COMMAND_NAMES } from '../api/commands.js'
import { UsageError, usageFailure } from './args.js'
import { EXIT, type Subcommand } from './subcommand.js'

export type CommandsCommandLine = { kind: 'commands'; name?: string } | { kind: 'error'; message: string }

/** Reads `commands`'s arguments (after `commands`). Never throws. */
export function parseCommandsArgs(argv: readonly string[]): CommandsCommandLine {
  try {
    const { positionals } = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: {} })
    if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1]}'`)
    const [name] = positionals
    if (name !== undefined && commandFacts(name) === undefined) {
      throw new UsageError(`'${name}' is not in the command catalogue${suggest(name, COMMAND_NAMES)}`)
    }
    return name === undefined ? { kind: 'commands' } : { kind: 'commands', name }
  } catch (err) {
    return { kind: 'error', message: err instanceof Error ? err.message : String(err) }
  }
}

/** Parameters in a line: required first, bare; optional ones in brackets. */
function paramsInLine(params: readonly ParamFacts[]): string {
  const required = params.filter((p) => p.required).map((p) => p.name)
  const optional = params.filter((p) => !p.required).map((p) => `[${p.name}]`)
  return [...required, ...optional].join(' ')
}

/** Every command, grouped, one line each. */
export function commandListText(): string {
  const all = allCommandFacts()
  const width = Math.max(...all.map((c) => c.name.length)) + 2
  const out: string[] = []
  for (const [group, title] of Object.entries(GROUP_TITLES)) {
    const members = all.filter((c) => c.group === group)
    if (members.length === 0) continue
    out.push(`${title}:`)
    for (const c of members) {
      const marks = commandMarks(c)
      out.push(`  ${c.name.padEnd(width)}${c.summary}${marks.length > 0 ? ` [${marks.join('; ')}]` : ''}`)
      if (c.params.length > 0) out.push(`  ${''.padEnd(width)}params: ${paramsInLine(c.params)}`)
    }
    out.push('')
  }
  out.push(`${all.length} commands. 'panelbridge commands NAME' shows one in full.`)
  return `${out.join('\n')}\n`
}

/** A binding's press with the command's required parameters as placeholders. */
export function examplePress(c: CommandFacts): string {
  // A command that acts on everything without its target gets one in the example: the usual intent.
  const target = c.allWhenEmpty.at(-1)
  const required = c.params.filter((p) => p.required || p.name === target)
  const value = (p: ParamFacts): string => {
    if (p.values) return p.values[0]!
    return { number: '0', boolean: 'true', 'string[]': "['...']", object: '{}', string: "'...'" }[p.type]
  }
  if (required.length === 0) return `press: { command: ${c.name} }`
  return `press: { command: ${c.name}, params: { ${required.map((p) => `${p.name}: ${value(p)}`).join(', ')} } }`
}

/** One command in full. */
export function commandDetailText(c: CommandFacts): string {
  const out = [
    `${c.name}: ${c.summary}`,
    `group: ${c.group} (${c.source === 'contract' ? "in the application's command reference" : "not in the application's command reference: seen in its own clients"})`,
  ]
  if (c.params.length === 0) out.push('parameters: none')
  else {
    out.push('parameters:')
    const width = Math.max(...c.params.map((p) => p.name.length)) + 2
    for (const p of c.params) {
      const assumed = p.assumed && !(p.note ?? '').includes('assumed') ? 'assumed' : undefined
      const extra = [p.note, assumed].filter((x) => x !== undefined).join('; ')
      out.push(
        `  ${p.name.padEnd(width)}${(p.required ? 'required ' : 'optional ') + paramTypeText(p)}${extra ? ` (${extra})` : ''}`,
      )
    }
  }
  if (c.confirm) {
    out.push(
      `hold to confirm: a press is sent only after a ${ENGINE_TUNABLES.defaultConfirmMs / 1000} s hold (the binding's confirm_ms changes it; 0 turns it off)`,
      'panelbridge send sends it only with --yes',
    )
  }
  if (c.allWhenEmpty.length > 0) {
    out.push(
      `acts on every target when ${c.allWhenEmpty.join(' and ')} are all left out: check refuses that unless the action says all: true`,
      'panelbridge send refuses it too, unless --all',
    )
  }
  out.push('example:', `  ${examplePress(c)}`)
  return `${out.join('\n')}\n`
}

export const commandsCommand: Subcommand = {
  usage: 'commands [NAME]',
  summary: 'list the application commands a binding can send, or show one with its parameters',
  help: `panelbridge commands — the command catalogue, for writing bindings

Usage:
  panelbridge commands [NAME]

Without NAME, every command by group, with its parameters and marks; with NAME, one command: each
parameter's type, whether it is required, notes, and a binding to paste.

Marks: "hold to confirm" (a press waits for a hold before it is sent: destructive on air), and
"every target" (left without its target, the command acts on everything, e.g. every title).
The same list is docs/commands.md.

Examples:
  panelbridge commands
  panelbridge commands schedule

Exit codes: 0 shown, 2 bad command line (a name not in the catalogue).
`,
  run(argv) {
    const cmd = parseCommandsArgs(argv)
    if (cmd.kind === 'error') return Promise.resolve(usageFailure('commands', cmd.message))
    const facts = cmd.name === undefined ? undefined : commandFacts(cmd.name)
    process.stdout.write(facts ? commandDetailText(facts) : commandListText())
    return Promise.resolve(EXIT.ok)
  },
}
