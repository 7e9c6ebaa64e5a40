/**
 * The daemon's status strip: the application link, SIMULATED when the built-in simulator stands in
 * for the application, and the latest errors. It polls the daemon's `/api/status` and `/api/errors`
 * (same origin, so the token cookie rides along). When the page is served without the daemon (the
 * web surface on its own server), those answer 404 and the strip stays hidden.
 *
 * The replies are read as untrusted JSON: only the fields shown are taken, each checked for its type.
 */
import { el } from './dom.js'

/** How often the strip asks for the daemon's status, ms. */
export const STATUS_POLL_MS = 2000
/** Errors shown, newest first. */
export const STRIP_MAX_ERRORS = 3

interface StripState {
  link: 'connected' | 'stale'
  since: string
  error: string
  simulated: boolean
  errors: { time: string; message: string }[]
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

/** The fields the strip shows, from the two replies. */
function read(status: unknown, errors: unknown): StripState {
  const s = record(status)
  const app = record(s.app)
  const list = record(errors).errors
  return {
    link: app.state === 'connected' ? 'connected' : 'stale',
    since: text(app.since),
    error: text(app.error),
    simulated: s.simulated === true,
    errors: (Array.isArray(list) ? list : [])
      .slice(0, STRIP_MAX_ERRORS)
      .map((e) => ({ time: text(record(e).time), message: text(record(e).message) })),
  }
}

/** `12:34:56` of an ISO time, or the text as it came. */
function clock(iso: string): string {
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString()
}

function render(root: HTMLElement, state: StripState): void {
  const link = el(
    'span',
    `link ${state.link}`,
    state.link === 'connected' ? 'application: connected' : 'application: not reachable',
  )
  if (state.since) link.title = `since ${state.since}`
  const parts: HTMLElement[] = [link]
  if (state.error && state.link !== 'connected') parts.push(el('span', 'link-error', state.error))
  if (state.simulated) parts.push(el('span', 'simulated', 'SIMULATED'))
  if (state.errors.length > 0) {
    const list = el('ul', 'errors')
    for (const e of state.errors) list.append(el('li', undefined, `${clock(e.time)} ${e.message}`))
    parts.push(list)
  }
  root.replaceChildren(...parts)
  root.hidden = false
}

async function getJson(path: string): Promise<{ status: number; body?: unknown }> {
  const res = await fetch(path, { cache: 'no-store', credentials: 'same-origin' })
  return res.ok ? { status: res.status, body: await res.json() } : { status: res.status }
}

/** Starts polling into `root` (hidden until the first status arrives). */
export function startStatusStrip(root: HTMLElement): void {
  const poll = async (): Promise<void> => {
    try {
      const [status, errors] = await Promise.all([getJson('/api/status'), getJson('/api/errors')])
      if (status.status === 404) return // no daemon behind this page: stop, stay hidden
      if (status.body !== undefined) {
        render(root, read(status.body, errors.body))
      } else {
        root.replaceChildren(el('span', 'link stale', `daemon status unavailable (HTTP ${status.status})`))
        root.hidden = false
      }
    } catch {
      // The daemon is down or restarting; the WebSocket status already says so. Try again later.
    }
    window.setTimeout(() => void poll(), STATUS_POLL_MS)
  }
  void poll()
}
