/**
 * The mapping author's view of the command catalogue (`src/api/commands.ts`): every command with its
 * parameters (type, required, allowed values, note), whether a press of it needs a hold to confirm
 * (`CONFIRM_COMMANDS`), and which of its parameters take every target when left empty. One source for
 * `panelbridge commands [NAME]`, `docs/commands.md` (`npm run commands-doc`; a test fails when stale)
 * and the JSON Schema's command names and parameter names (`./schema-file.ts`).
 */
import { COMMAND_NAMES, getCommandSpec, type CommandGroup, type CommandSpec, type ParamSpec } from '../api/commands.js'
import { CONFIRM_COMMANDS } from './constants.js'

/** One parameter as the reference shows it. */
export interface ParamFacts {
  name: string
  type: ParamSpec['type']
  required: boolean
  values?: readonly string[]
  note?: string
  /** The name or encoding is an assumption of decisions.md. */
  assumed: boolean
}

/** One command as the reference shows it. */
export interface CommandFacts {
  name: string
  group: CommandGroup
  source: CommandSpec['source']
  summary: string
  params: ParamFacts[]
  /** A press of it waits for a hold (`confirm_ms`, default 1500 ms) before it is sent. */
  confirm: boolean
  /**
   * The parameters that select its target: when none of them is given, the command acts on every
   * target (every title on air, for `schedule`). Empty for a command without such a target.
   */
  allWhenEmpty: readonly string[]
}

/**
 * The target parameters that, all left out, make `name` act on everything: the catalogue's
 * `allWhenEmpty` mark (`schedule` without `id` or `title` takes every title to air).
 */
export function allWhenEmptyOf(name: string): readonly string[] {
  return getCommandSpec(name)?.allWhenEmpty ?? []
}

/** The reference facts of a catalogue command, or undefined for a name the catalogue lacks. */
export function commandFacts(name: string): CommandFacts | undefined {
  const spec = getCommandSpec(name)
  if (spec === undefined) return undefined
  return {
    name,
    group: spec.group,
    source: spec.source,
    summary: spec.summary,
    params: Object.entries(spec.params).map(([p, s]) => ({
      name: p,
      type: s.type,
      required: s.required,
      ...(s.values ? { values: s.values } : {}),
      ...(s.note !== undefined ? { note: s.note } : {}),
      assumed: s.assumed === true,
    })),
    confirm: CONFIRM_COMMANDS.has(name),
    allWhenEmpty: allWhenEmptyOf(name),
  }
}

/** Every catalogue command's facts, in catalogue order. */
export function allCommandFacts(): CommandFacts[] {
  return COMMAND_NAMES.map((n) => commandFacts(n)!)
}

/** How the catalogue's groups are headed, in the order they are listed. */
export const GROUP_TITLES: Readonly<Record<Exclude<CommandGroup, 'unlisted'>, string>> = {
  playout: 'Playing titles',
  title: 'Titles',
  videoIn: 'Video inputs',
  output: 'Output and streaming',
  replay: 'Replay',
  project: 'Project and playlist',
  notification: 'Notifications',
}

/** A parameter's type as written in a mapping file (a list of allowed words, or the type). */
export function paramTypeText(p: ParamFacts): string {
  if (p.values) return p.values.join(' | ')
  return p.type === 'string[]' ? 'list of strings' : p.type === 'object' ? 'map' : p.type
}

/** The short marks after a command's name: hold-to-confirm, acts on everything. */
export function commandMarks(c: CommandFacts): string[] {
  const marks: string[] = []
  if (c.confirm) marks.push('hold to confirm')
  if (c.allWhenEmpty.length > 0) marks.push(`without ${c.allWhenEmpty.join(' or ')}: every target`)
  return marks
}
