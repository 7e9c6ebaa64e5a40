/**
 * The status strip's other applications (issue 27, `apps:`): with several, `/api/status` lists each
 * with its link, and the strip shows each beside the default one's `application: …` (which stays as it
 * was). One application: nothing here. Read as untrusted JSON, bounded (the daemon allows at most 16).
 */

/** How many applications the strip shows at most. */
export const STRIP_MAX_APPS = 16

/** One application beside the default, as the strip shows it. */
export interface StripApp {
  name: string
  link: 'connected' | 'stale'
  /** `backup: connected`, `graphics2: not reachable`. */
  text: string
  /** The tooltip: which it mirrors, since when, the link's error. */
  title: string
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

function text(value: unknown, max = 200): string {
  return typeof value === 'string' ? value.slice(0, max) : ''
}

/** The applications other than the default one, from `/api/status` (none when it lists one or none). */
export function readApps(status: unknown): StripApp[] {
  const list = record(status).apps
  if (!Array.isArray(list) || list.length < 2) return []
  return list
    .slice(0, STRIP_MAX_APPS)
    .map(record)
    .filter((a) => a.default !== true && text(a.name) !== '')
    .map((a) => {
      const link = record(a.link)
      const up = link.state === 'connected'
      const mirror = text(a.mirrorOf)
      const title = [
        mirror ? `mirror of ${mirror}` : '',
        text(link.since) ? `since ${text(link.since)}` : '',
        text(link.error),
      ].filter(Boolean)
      return {
        name: text(a.name),
        link: up ? 'connected' : 'stale',
        text: `${text(a.name)}: ${up ? 'connected' : 'not reachable'}`,
        title: title.join('\n'),
      } satisfies StripApp
    })
}
