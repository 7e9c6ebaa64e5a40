/**
 * What the page's editor offers (issue 42 item 2), `GET /api/config/choices`: every catalogue command
 * grouped and headed as the command reference groups them, each with its description and typed
 * parameters (the parameters that name a title, a video input or a replay input say so); and the names
 * to pick from, from the live application when it answers, else from the names the file already uses.
 * Also the application's names as a save's check looks them up (`liveNames`).
 * Read-only: the application is asked only its listing commands (the ones `check --app` sends; titles
 * without their icons), with a
 * short time-out, and every list is bounded.
 */
import type { TitleState } from '../api/app-state.js'
import { allCommandFacts, GROUP_TITLES, paramTypeText } from '../mappings/command-reference.js'
import { namedKindOf, namesInConfig, type AppNames, type NameKind } from '../mappings/config-names.js'
import type { CommandPort } from '../mappings/sender.js'
import type { Config } from '../mappings/schema.js'
import type { CommandChoice, EditChoices, NameChoices } from './api.js'

/**
 * Bounds of the lists read from the application: how long it is given to answer a listing, ms, the most
 * names a list keeps and the longest name kept. ASSUMED: an editor waits two seconds at most for a
 * picker; a show has far fewer than 2,000 titles or inputs (the app state's own title bound).
 */
export const EDIT_CHOICES_LIMITS = { appTimeoutMs: 2000, maxNames: 2000, maxNameLength: 200 } as const

export interface ChoicesSources {
  /** The mapping in force (the names the file already uses). */
  config: Config
  /** The default application's titles as its state knows them, when its link is up (when the listing fails). */
  titles?: readonly TitleState[]
  /** The default application's client, when it has one (video and replay inputs are asked of it). */
  client?: CommandPort
}

/** The catalogue as the editor's command picker shows it, in the reference's group order. */
function commandGroups(): EditChoices['groups'] {
  const facts = allCommandFacts()
  return Object.entries(GROUP_TITLES).map(([group, title]) => ({
    group,
    title,
    commands: facts
      .filter((c) => c.group === group)
      .map((c): CommandChoice => ({
        name: c.name,
        summary: c.summary,
        confirm: c.confirm,
        allWhenEmpty: [...c.allWhenEmpty],
        params: c.params.map((p) => {
          const names = namedKindOf(c.name, p.name)
          return {
            name: p.name,
            type: p.type,
            typeText: paramTypeText(p),
            required: p.required,
            ...(p.values ? { values: [...p.values] } : {}),
            ...(p.note !== undefined ? { note: p.note } : {}),
            ...(names !== undefined ? { names } : {}),
          }
        }),
      })),
  }))
}

/** Distinct, bounded, sorted names. */
function bounded(names: Iterable<unknown>): string[] {
  const out = new Set<string>()
  for (const n of names) {
    if (typeof n !== 'string' || n === '' || n.length > EDIT_CHOICES_LIMITS.maxNameLength) continue
    out.add(n)
    if (out.size >= EDIT_CHOICES_LIMITS.maxNames) break
  }
  return [...out].sort((a, b) => a.localeCompare(b))
}

/** The names of `kinds` the file uses. */
function fileNames(config: Config, kinds: readonly NameKind[]): string[] {
  return bounded(namesInConfig(config).flatMap((u) => (kinds.includes(u.kind) ? [u.name] : [])))
}

/** One listing of the application, or undefined when it does not answer it. */
async function listed(
  client: CommandPort | undefined,
  command: string,
  field: string,
  params: Record<string, unknown> = {},
): Promise<unknown[] | undefined> {
  if (!client) return undefined
  try {
    const r = await client.callByName(command, params, { timeoutMs: EDIT_CHOICES_LIMITS.appTimeoutMs })
    const list = (r.raw as Record<string, unknown>)[field]
    return Array.isArray(list) ? list : undefined
  } catch {
    return undefined
  }
}

/** A title as `getTitleControlInfo` lists it (`{ id, name, … }`). */
function titleName(item: unknown): unknown {
  return item !== null && typeof item === 'object' ? (item as { name?: unknown }).name : undefined
}

/** A replay input as `replay_get_inputs` lists it (a name, or an object with one; ASSUMED as `check --app`). */
function replayInputName(item: unknown): unknown {
  return item !== null && typeof item === 'object' ? (item as { name?: unknown }).name : item
}

/** The choices: the catalogue, and each kind of name from the application when it answers, else from the file. */
export async function editChoices(s: ChoicesSources): Promise<EditChoices> {
  const pick = (live: unknown[] | undefined, kinds: readonly NameKind[]): NameChoices =>
    live !== undefined
      ? { from: 'application', names: bounded(live) }
      : { from: 'file', names: fileNames(s.config, kinds) }
  const [titles, videoIns, replayIns] = await Promise.all([
    listed(s.client, 'getTitleControlInfo', 'titles', { icon: false }),
    listed(s.client, 'getAllVideoIns', 'videoIns'),
    listed(s.client, 'replay_get_inputs', 'inputs'),
  ])
  return {
    groups: commandGroups(),
    names: {
      titles: pick(titles?.map(titleName) ?? s.titles?.map((t) => t.name), ['title']),
      videoInputs: pick(videoIns, ['video input']),
      replayInputs: pick(replayIns?.map(replayInputName), ['replay input']),
    },
  }
}

/** A listing's names, bounded as the pickers' are; undefined when the application did not answer it. */
function boundedList(live: unknown[] | undefined, name: (item: unknown) => unknown = (x) => x): string[] | undefined {
  return live === undefined ? undefined : bounded(live.map(name))
}

/** A title as `getTitleControlInfo` lists it, with its id (a save's check finds a title by id too). */
function titleWithId(item: unknown): { id: string; name: string } | undefined {
  if (item === null || typeof item !== 'object') return undefined
  const { id, name } = item as { id?: unknown; name?: unknown }
  if (typeof name !== 'string' || name === '' || name.length > EDIT_CHOICES_LIMITS.maxNameLength) return undefined
  return { id: typeof id === 'string' && id.length <= EDIT_CHOICES_LIMITS.maxNameLength ? id : '', name }
}

/**
 * The application's titles (with their ids), video inputs and replay inputs, as a save's check looks a
 * name up in them; a listing it does not answer leaves that kind absent (not checked), and no answer at
 * all (or no client) is undefined: the save is then checked by the loader alone.
 */
export async function liveNames(client: CommandPort | undefined): Promise<AppNames | undefined> {
  if (!client) return undefined
  const [titles, videoIns, replayIns] = await Promise.all([
    listed(client, 'getTitleControlInfo', 'titles', { icon: false }),
    listed(client, 'getAllVideoIns', 'videoIns'),
    listed(client, 'replay_get_inputs', 'inputs'),
  ])
  if (titles === undefined && videoIns === undefined && replayIns === undefined) return undefined
  const names: AppNames = { notes: [] }
  if (titles !== undefined)
    names.titles = titles.slice(0, EDIT_CHOICES_LIMITS.maxNames).flatMap((t) => titleWithId(t) ?? [])
  const video = boundedList(videoIns)
  if (video !== undefined) names.videoInputs = video
  const replay = boundedList(replayIns, replayInputName)
  if (replay !== undefined) names.replayInputs = replay
  return names
}
