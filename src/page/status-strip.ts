/**
 * The daemon's status strip: the application link (and `reconnected` when it came back), the config
 * (`config reloaded`, or `refused` while an older mapping runs), why a recording asked for is not made,
 * SIMULATED when the built-in simulator stands in for the application, the replay's playhead and clip
 * (in, out, length) while the replay is on, and the latest errors that have not cleared; what it says is
 * `strip-state.ts`'s. It polls the daemon's `/api/status` and `/api/errors` (same origin, so the token
 * cookie rides along). When the page is served without the daemon (the web surface on its own server),
 * those answer 404 and the strip stays hidden.
 */
import { el } from './dom.js'
import { readApps, type StripApp } from './strip-apps.js'
import { readStrip, STATUS_POLL_MS, viewStrip, type StripView } from './strip-state.js'

/** `12:34:56` of an ISO time, or the text as it came. */
function clock(iso: string): string {
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString()
}

/** What each item of the strip means, its tooltip. */
const TIPS = {
  link: 'panelbridge’s link to the graphics application (its command interface). Says nothing about what is on air.',
  simulated:
    'The built-in simulator stands in for the application: commands go to it, none reaches a real application or goes to air.',
  reconnected: 'The application link came back a moment ago.',
  'config reloaded': 'The config file was read again; the new mapping runs.',
  errors: 'The latest errors that have not cleared, newest first.',
} as const

/** A span with its tooltip. */
function tipped(cls: string, text: string, title: string): HTMLElement {
  return Object.assign(el('span', cls, text), { title })
}

/** The plain words shown while the application is not there (and no simulator stands in). */
function waitingBlock(waiting: NonNullable<StripView['waiting']>): HTMLElement {
  const box = el('div', 'waiting-app')
  box.setAttribute('role', 'note')
  box.appendChild(el('strong', undefined, waiting.text))
  const list = el('ul')
  for (const line of waiting.help) list.appendChild(el('li', undefined, line))
  box.appendChild(list)
  return box
}

function render(root: HTMLElement, view: StripView, apps: StripApp[] = []): void {
  const state = view.reading
  const link = el('span', `link ${state.link}`, view.linkText)
  const title = [TIPS.link, state.since ? `since ${state.since}` : '', view.linkTitle ?? '']
  link.title = title.filter(Boolean).join('\n')
  const parts: HTMLElement[] = [link]
  if (view.linkDetail !== undefined) parts.push(tipped('link-error', view.linkDetail, view.linkTitle ?? ''))
  // Several applications (`apps:`): each other one's link beside the default one's.
  for (const a of apps) parts.push(tipped(`link ${a.link}`, a.text, [TIPS.link, a.title].filter(Boolean).join('\n')))
  for (const notice of view.notices) {
    parts.push(tipped('notice', notice, notice === 'reconnected' ? TIPS.reconnected : TIPS['config reloaded']))
  }
  if (view.refusedText !== undefined) {
    const loaded = state.config?.lastGoodLoad ? `running the mapping loaded ${clock(state.config.lastGoodLoad)}` : ''
    const why = state.config?.error ? `\n${state.config.error}` : ''
    parts.push(tipped('config refused', view.refusedText, `The config file on disk was refused; ${loaded}${why}`))
  }
  if (view.recordingText !== undefined) {
    parts.push(tipped('recording failed', view.recordingText, state.recordingFailed?.file ?? ''))
  }
  if (state.simulated) parts.push(tipped('simulated', 'SIMULATED', TIPS.simulated))
  if (view.replayText !== undefined) {
    const replay = tipped('replay', view.replayText, view.replayTitle ?? '')
    // The line's gaps part its values (`in 7.5  out 12.0`): kept, not folded to one space.
    replay.style.whiteSpace = 'pre'
    parts.push(replay)
  }
  if (view.errors.length > 0) {
    const list = el('ul', 'errors')
    list.title = TIPS.errors
    for (const e of view.errors) list.append(el('li', undefined, `${clock(e.time)} ${e.message}`))
    parts.push(list)
  }
  if (view.waiting) parts.push(waitingBlock(view.waiting))
  root.replaceChildren(...parts)
  root.hidden = false
}

async function getJson(path: string): Promise<{ status: number; body?: unknown }> {
  const res = await fetch(path, { cache: 'no-store', credentials: 'same-origin' })
  return res.ok ? { status: res.status, body: await res.json() } : { status: res.status }
}

/** Starts polling into `root` (hidden until the first status arrives). */
export function startStatusStrip(root: HTMLElement): void {
  let view: StripView | undefined
  const poll = async (): Promise<void> => {
    try {
      const [status, errors] = await Promise.all([getJson('/api/status'), getJson('/api/errors')])
      if (status.status === 404) return // no daemon behind this page: stop, stay hidden
      if (status.body !== undefined) {
        view = viewStrip(readStrip(status.body, errors.body), view, Date.now())
        render(root, view, readApps(status.body))
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
