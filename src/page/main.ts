/**
 * The page script, bundled for the browser by esbuild (`client-script.ts`). It paints keys from the
 * faces the server sends (`./keys.ts`), with the daemon's own key layout and font. It keeps one WebSocket to the server, reconnecting with
 * backoff, and turns server messages into DOM and input into client messages (types in `../face/protocol.ts`,
 * checked on both sides).
 */
import { VIEW_PARAM, type ClientMessage, type ServerMessage } from '../face/protocol.js'
import { BrowserDecks } from './browser-deck.js'
import { byId } from './dom.js'
import { Editor } from './editor/panel.js'
import { trackChrome } from './layout.js'
import { allSurfacesHref, pageOptions } from './options.js'
import { startStatusStrip } from './status-strip.js'
import { SurfacesView } from './surfaces.js'

const RECONNECT_FIRST_MS = 500
const RECONNECT_MAX_MS = 5000

const options = pageOptions(location.search)
const status = byId('status')
let socket: WebSocket | null = null
let retryMs = RECONNECT_FIRST_MS

/**
 * The page's own link to panelbridge, in words that cannot be read as "on air": `live` is the class the
 * stylesheet colours (green), never a word on the page.
 */
const PAGE_LINK_TIP =
  'This page’s link to panelbridge: while connected it shows the surfaces as they are and sends your presses. ' +
  'It says nothing about the application or what is on air.'

function setStatus(text: string, live: boolean): void {
  status.textContent = text
  status.title = PAGE_LINK_TIP
  status.classList.toggle('live', live)
}

function send(message: ClientMessage): void {
  // A viewer draws nothing that sends; this is the page's second lock (the server's socket is the third).
  if (options.view) return
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message))
}

/** The WebSocket next to the page, whatever path the page is mounted under; a viewer's says so. */
function wsUrl(): string {
  const u = new URL('ws', location.href)
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:'
  u.search = options.view ? `?${VIEW_PARAM}=1` : ''
  u.hash = ''
  return u.href
}

document.body.classList.toggle('single', options.surface !== undefined)
document.body.classList.toggle('viewer', options.view)
const back = byId('all-surfaces')
back.setAttribute('href', allSurfacesHref(options.view))
back.hidden = options.surface === undefined
const missing = byId('missing')
missing.textContent = options.surface === undefined ? '' : `No surface named ${JSON.stringify(options.surface)} (yet).`
const view = new SurfacesView(byId('surfaces'), byId('surface-list'), send, options, missing)
trackChrome(byId('surfaces'))
// A Stream Deck on this computer (WebHID): not for a read-only viewer.
const decks = options.view
  ? undefined
  : new BrowserDecks(document.querySelector<HTMLElement>('header.top') ?? document.body, sendText)

// The binding editor (its "Edit" switch shows when the daemon has editing on): never on a viewer.
const editor = options.view
  ? undefined
  : new Editor(
      document.querySelector<HTMLElement>('header.top') ?? document.body,
      (m) => sendText(JSON.stringify(m)),
      byId('surfaces'),
    )

/** Sends a frame as it is, while the socket is open (the decks' messages, the editor's find). */
function sendText(text: string): void {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(text)
}

/** Only the shape every message shares is checked here: the server is the page's own origin. */
function isMessage(value: unknown): value is ServerMessage {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
}

function connect(): void {
  setStatus('connecting to panelbridge…', false)
  const ws = new WebSocket(wsUrl())
  socket = ws
  ws.onopen = () => {
    retryMs = RECONNECT_FIRST_MS
    setStatus('page connected', true)
  }
  ws.onmessage = (e: MessageEvent<unknown>) => {
    let m: unknown
    try {
      m = JSON.parse(String(e.data))
    } catch {
      return
    }
    if (!isMessage(m)) return
    view.handle(m)
    decks?.handle(m)
    editor?.handle(m)
  }
  ws.onclose = () => {
    socket = null
    setStatus('page disconnected, retrying…', false)
    window.setTimeout(connect, retryMs)
    retryMs = Math.min(retryMs * 2, RECONNECT_MAX_MS)
  }
}

connect()
startStatusStrip(byId('daemon-status'))
// The header's `legend` link opens the legend under the surfaces and brings it into view.
byId('legend-link').addEventListener('click', (e) => {
  e.preventDefault()
  const legend = byId('legend')
  legend.setAttribute('open', '')
  legend.scrollIntoView({ block: 'start' })
})
