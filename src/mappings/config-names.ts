/**
 * The names a mapping file gives the application (titles, title ids, video inputs, replay inputs), and
 * which command parameter names which kind: read by `check --app` (`src/commands/check-app.ts`), which
 * looks them up in the running application, and by the page's editor, whose pickers offer the names the
 * file already uses when the application does not answer. Also the lookup itself (`appProblems`): which
 * of those names a given list of the application's lacks, with the nearest it has; shared by `check --app`
 * and the editor's save, which refuses a name an edit adds that the live application lacks.
 */
import { getCommandSpec, type CommandGroup } from '../api/commands.js'
import type { Path } from './problems.js'
import type { Actions, CommandAction, Config } from './schema.js'
import { nearest } from './suggest.js'
import { usesTemplate } from './template.js'

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

/** What a command's parameter names (a title, a video input…), or undefined for a parameter that names nothing. */
export function namedKindOf(command: string, param: string): NameKind | undefined {
  const spec = getCommandSpec(command)
  const named = NAMED_PARAMS[param]
  if (spec === undefined || named === undefined || !Object.hasOwn(spec.params, param)) return undefined
  return named.groups.includes(spec.group) ? named.kind : undefined
}

/** A value that names something as written (a template is filled in only when sent). */
function plainName(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' && !usesTemplate(value) ? value : undefined
}

/** The names in one command's parameters. */
function commandNames(command: string, params: Readonly<Record<string, unknown>> | undefined, at: Path): NameUse[] {
  if (params === undefined) return []
  const out: NameUse[] = []
  for (const [param, value] of Object.entries(params)) {
    const kind = namedKindOf(command, param)
    if (kind === undefined) continue
    if (kind === 'replay input') {
      // A list, or comma-separated text (how a GET carries it).
      const items: { v: unknown; p: Path }[] = Array.isArray(value)
        ? value.map((v: unknown, i) => ({ v, p: [...at, param, i] }))
        : [{ v: value, p: [...at, param] }]
      for (const { v, p } of items) {
        for (const name of typeof v === 'string' ? v.split(',') : []) {
          const plain = plainName(name.trim())
          if (plain !== undefined) out.push({ kind, name: plain, path: p })
        }
      }
      continue
    }
    const name = plainName(value)
    if (name !== undefined) out.push({ kind, name, path: [...at, param] })
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
