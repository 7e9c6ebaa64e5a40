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
import type { AppNames, NameKind } from '../mappings/config-names.js'

// The names' lookup is the mapping part's (the daemon's editor checks a save with it too).
export { appProblems, type AppNames } from '../mappings/config-names.js'

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
