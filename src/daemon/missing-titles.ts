/**
 * A title a binding follows (`feedback.title`) that the application does not have shows only as "no
 * such title" on a key. The daemon says so in its log: each time the store takes the whole title list
 * (at link-up and after every resynchronisation), one line per binding whose title is missing, with the
 * nearest name the application has (the loader's own "did you mean").
 */
import type { AppState, TitleState } from '../api/app-state.js'
import type { Logger } from '../log.js'
import type { Binding } from '../mappings/schema.js'
import { nearest } from '../mappings/suggest.js'

export interface MissingTitlesOptions {
  state: AppState
  /** The bindings in force (read at each resynchronisation: a reload changes them). */
  bindings: () => readonly Binding[]
  log: Logger
}

/** The log line for a binding whose followed title is missing, or undefined when the application has it. */
export function missingTitleLine(
  state: Pick<AppState, 'findTitle'>,
  b: Binding,
  titles: readonly TitleState[],
): string | undefined {
  const title = b.feedback?.title
  if (title === undefined || state.findTitle(title) !== undefined) return undefined
  const near = nearest(
    title,
    titles.map((t) => t.name),
  )
  const where = `${b.on}${b.page !== undefined ? ` (page ${b.page})` : ''}`
  return `${where}: follows title '${title}', which the application does not have${near !== undefined ? ` (did you mean '${near}'?)` : ''}`
}

/** Logs the missing titles at every resynchronisation until the returned function is called. */
export function watchMissingTitles(o: MissingTitlesOptions): () => void {
  const onReset = (titles: readonly TitleState[]): void => {
    for (const b of o.bindings()) {
      const line = missingTitleLine(o.state, b, titles)
      if (line !== undefined) o.log.warn(line, { control: b.on, title: b.feedback?.title })
    }
  }
  o.state.on('titlesReset', onReset)
  return () => o.state.off('titlesReset', onReset)
}
