/**
 * `check --app URL`: the names a mapping file gives the application (titles, video inputs, replay
 * inputs) looked up in the running application, read-only, through the daemon's own command client
 * (and so its reply reader). Each name the application lacks is a problem at its node, with the
 * nearest name it has.
 *
 * Read-only: only listing commands are sent (a test holds the simulator's command log to that), and only
 * those the file needs (no replay input named: no replay question): `getTitleControlInfo` (protocol
 * notes 4.2; without icons), `getAllVideoIns` (contract: every video input device), `replay_get_inputs`
 * (contract: inputs usable for replay).
 */
import { CommandClient } from '../api/client.js'
import { getCommandSpec, type CommandGroup } from '../api/commands.js'
import { CommandError } from '../api/errors.js'
import type { Path } from '../mappings/problems.js'
import type { Actions, CommandAction, Config } from '../mappings/schema.js'
import { nearest } from '../mappings/suggest.js'
import { usesTemplate } from '../mappings/template.js'

/** What a name in the file stands for. */
export type NameKind = 'title' | 'title id' | 'video input' | 'replay input'

/** A name the file gives the application, and where. */
export interface NameUse {
  kind: NameKind
  name: string
  path: Path
}

/**
 * Which parameter of which commands names what, by the catalogue's groups: a title command's and a
 * playout command's `title` (a name or an id) and `id`, a video-input command's `video` and `videoIn`,
 * a replay command's `inputs`. (A title's data `input` is not checked: no read-only command lists
 * the inputs a title may take.)
 */
const NAMED_PARAMS: Readonly<Record<string, { groups: readonly CommandGroup[]; kind: NameKind }>> = {
  title: { groups: ['title', 'playout'], kind: 'title' },
  id: { groups: ['title', 'playout'], kind: 'title id' },
  video: { groups: ['videoIn'], kind: 'video input' },
  videoIn: { groups: ['videoIn'], kind: 'video input' },
  inputs: { groups: ['replay'], kind: 'replay input' },
}

/** A value that names something as written (a template is filled in only when sent). */
function plainName(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' && !usesTemplate(value) ? value : undefined
}

/** The names in one command's parameters. */
function commandNames(command: string, params: Readonly<Record<string, unknown>> | undefined, at: Path): NameUse[] {
  const spec = getCommandSpec(command)
  if (spec === undefined || params === undefined) return []
  const out: NameUse[] = []
  for (const [param, value] of Object.entries(params)) {
    const named = NAMED_PARAMS[param]
    if (named === undefined || !named.groups.includes(spec.group) || !Object.hasOwn(spec.params, param)) continue
    if (named.kind === 'replay input') {
      // A list, or comma-separated text (how a GET carries it).
      const items: { v: unknown; p: Path }[] = Array.isArray(value)
        ? value.map((v: unknown, i) => ({ v, p: [...at, param, i] }))
        : [{ v: value, p: [...at, param] }]
      for (const { v, p } of items) {
        for (const name of typeof v === 'string' ? v.split(',') : []) {
          const plain = plainName(name.trim())
          if (plain !== undefined) out.push({ kind: named.kind, name: plain, path: p })
        }
      }
      continue
    }
    const name = plainName(value)
    if (name !== undefined) out.push({ kind: named.kind, name, path: [...at, param] })
  }
  return out
}

/** Every command action of a press, hold, toggle side or step, with its path. */
function commandActions(b: Config['bindings'][number], at: Path): { action: CommandAction; path: Path }[] {
  const out: { action: CommandAction; path: Path }[] = []
  const add = (a: Actions, path: Path): void => {
    const list = Array.isArray(a) ? a.map((x, i) => ({ x, p: [...path, i] })) : [{ x: a, p: path }]
    for (const { x, p } of list) if ('command' in x) out.push({ action: x, path: p })
  }
  if (b.press) add(b.press, [...at, 'press'])
  if (b.hold && 'command' in b.hold) out.push({ action: b.hold, path: [...at, 'hold'] })
  if (b.toggle) {
    add(b.toggle.on, [...at, 'toggle', 'on'])
    add(b.toggle.off, [...at, 'toggle', 'off'])
  }
  if (b.steps) for (const [i, s] of b.steps.entries()) add(s, [...at, 'steps', i])
  return out
}

/** Every name a loaded mapping gives the application, in file order of bindings. */
export function namesInConfig(config: Config): NameUse[] {
  const out: NameUse[] = []
  for (const [i, b] of config.bindings.entries()) {
    const at: Path = ['bindings', i]
    const title = plainName(b.feedback?.title)
    if (title !== undefined) out.push({ kind: 'title', name: title, path: [...at, 'feedback', 'title'] })
    const input = plainName(b.feedback?.input)
    if (input !== undefined) out.push({ kind: 'video input', name: input, path: [...at, 'feedback', 'input'] })
    for (const { action, path } of commandActions(b, at))
      out.push(...commandNames(action.command, action.params, [...path, 'params']))
    if (b.value) out.push(...commandNames(b.value.command, b.value.params, [...at, 'value', 'params']))
    if (b.rotate) out.push(...commandNames(b.rotate.command, b.rotate.params, [...at, 'rotate', 'params']))
  }
  return out
}

/** What the application has, by kind; a kind not asked for (no name of it in the files) is absent. */
export interface AppNames {
  titles?: { id: string; name: string }[]
  videoInputs?: string[]
  replayInputs?: string[]
  /** A listing the application refused (an older version, an unlicensed replay): its kind is not checked. */
  notes: string[]
}

/** The application could not be reached at all: `check --app` says so and exits EXIT.appUnreachable. */
export class AppUnreachableError extends Error {
  override readonly name = 'AppUnreachableError'
}

/** Codes that mean nothing answered (as opposed to an answer `check` cannot use). */
const UNREACHABLE = new Set(['CONNECTION_REFUSED', 'TIMEOUT', 'NETWORK'])

/** A replay input as `replay_get_inputs` gives it: its items' properties are not shown (ASSUMED: `name`). */
function replayInputName(item: unknown): string | undefined {
  if (typeof item === 'string') return item
  const name = item !== null && typeof item === 'object' ? (item as { name?: unknown }).name : undefined
  return typeof name === 'string' ? name : undefined
}

/**
 * Asks the application, read-only, for the kinds `wanted` names. Throws AppUnreachableError when it
 * does not answer; a listing it refuses becomes a note and leaves that kind unchecked.
 */
export async function readAppNames(url: string, wanted: ReadonlySet<NameKind>, timeoutMs: number): Promise<AppNames> {
  const client = new CommandClient({ baseUrl: url, timeoutMs, connections: 1 })
  const names: AppNames = { notes: [] }
  const ask = async <T>(what: string, read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read()
    } catch (err) {
      if (err instanceof CommandError && UNREACHABLE.has(err.code))
        throw new AppUnreachableError(`the application at ${url} is not reachable: ${err.message}`)
      names.notes.push(`${what} not checked: ${err instanceof Error ? err.message : String(err)}`)
      return undefined
    }
  }
  try {
    if (wanted.has('title') || wanted.has('title id')) {
      const r = await ask('titles', () => client.call('getTitleControlInfo', { icon: false }))
      if (r) names.titles = r.titles.flatMap((t) => (t.name !== undefined ? [{ id: t.id ?? '', name: t.name }] : []))
    }
    if (wanted.has('video input')) {
      const r = await ask('video inputs', () => client.call('getAllVideoIns'))
      if (r) names.videoInputs = r.videoIns
    }
    if (wanted.has('replay input')) {
      const r = await ask('replay inputs', () => client.call('replay_get_inputs'))
      if (r) names.replayInputs = r.inputs.flatMap((i) => replayInputName(i) ?? [])
    }
  } finally {
    await client.close()
  }
  return names
}

/** A title id as the application may write it: braces and case do not matter. */
function bareId(id: string): string {
  return id.replace(/^\{|\}$/g, '').toLowerCase()
}

/** ` (did you mean 'X'?)`, quoted: titles and inputs have spaces. */
function didYouMean(name: string, known: readonly string[]): string {
  const near = nearest(name, known)
  return near === undefined ? '' : ` (did you mean '${near}'?)`
}

/** A name the application lacks, with its message; undefined when it has it (or its kind was not read). */
function missing(use: NameUse, app: AppNames): string | undefined {
  const quoted = `'${use.name}'`
  switch (use.kind) {
    case 'title':
    case 'title id': {
      if (!app.titles) return undefined
      const ids = new Set(app.titles.map((t) => bareId(t.id)))
      if (ids.has(bareId(use.name))) return undefined
      if (use.kind === 'title' && app.titles.some((t) => t.name === use.name)) return undefined
      const names = app.titles.map((t) => t.name)
      return use.kind === 'title'
        ? `the application has no title ${quoted}${didYouMean(use.name, names)}`
        : `the application has no title with id ${quoted}`
    }
    case 'video input':
      if (!app.videoInputs || app.videoInputs.includes(use.name)) return undefined
      return `the application has no video input ${quoted}${didYouMean(use.name, app.videoInputs)}`
    case 'replay input':
      if (!app.replayInputs || app.replayInputs.includes(use.name)) return undefined
      return `the application has no replay input ${quoted}${didYouMean(use.name, app.replayInputs)}`
  }
}

/** Each name of `uses` the application lacks, with where it is. */
export function appProblems(uses: readonly NameUse[], app: AppNames): { path: Path; message: string }[] {
  return uses.flatMap((use) => {
    const message = missing(use, app)
    return message === undefined ? [] : [{ path: use.path, message }]
  })
}
