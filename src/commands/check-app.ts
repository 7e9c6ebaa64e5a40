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
import { CommandError } from '../api/errors.js'
import type { NameKind, NameUse } from '../mappings/config-names.js'
import type { Path } from '../mappings/problems.js'
import { nearest } from '../mappings/suggest.js'

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
