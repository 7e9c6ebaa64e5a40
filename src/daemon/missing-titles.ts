/**
 * A title a binding follows (`feedback.title`) that the application does not have shows only as "no
 * such title" on a key. The daemon says so in its log, once: one line per binding whose title is
 * missing, with the nearest name the application has (the loader's own "did you mean"). The title list
 * is read again at every resynchronisation, and on the real application at every play-state change too
 * (its change signals, src/api/notifications.ts), so a line is written only when the binding's title
 * went missing since the last list: at link-up, after a reload that changed the title it follows, or
 * when a title it found before is gone again.
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

/** A binding following a title, as the missing ones are remembered: its control, page and title. */
function followKey(b: Binding): string {
  return JSON.stringify([b.on, b.page ?? null, b.feedback?.title])
}

/**
 * Logs each binding's missing title once, until the returned function is called: again only after the
 * title was found in between, or when the binding follows another title (a reload).
 */
export function watchMissingTitles(o: MissingTitlesOptions): () => void {
  // The bindings missing their title in the last list read: bounded by the bindings in force.
  let warned = new Set<string>()
  const onReset = (titles: readonly TitleState[]): void => {
    const missing = new Set<string>()
    for (const b of o.bindings()) {
      const line = missingTitleLine(o.state, b, titles)
      if (line === undefined) continue
      const key = followKey(b)
      missing.add(key)
      if (!warned.has(key)) o.log.warn(line, { control: b.on, title: b.feedback?.title })
    }
    warned = missing
  }
  o.state.on('titlesReset', onReset)
  return () => o.state.off('titlesReset', onReset)
}
