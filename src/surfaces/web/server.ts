/**
 * Serves the web surfaces and the read-only mirror of every other surface: an HTTP handler and a
 * WebSocket upgrade handler that the daemon's one server mounts under a path prefix, plus a
 * standalone `listen()` for running without the daemon.
 *
 * Routes, under `basePath` (default `''`; the daemon uses e.g. `/surfaces`):
 * `/` the page, `/style.css`, `/client.js`, `/favicon.svg` (the page's icon), `/key-font.ttf` (the font the page paints keys with, the
 * hardware's), `/key-font-emoji.ttf` and `/key-font-cjk.ttc` (its fallbacks for emoji and CJK, streamed
 * by `./fallback-fonts.ts`), `/ws` the WebSocket (protocol in `../../face/protocol.ts`). The page takes
 * `?surface=NAME` (that surface alone, full screen) and `?view=1` (a read-only viewer, whose WebSocket
 * is `/ws?view=1`: this server refuses every input on it, whatever the page sends).
 *
 * Safety: binds 127.0.0.1 by default. Browsers let any web page open a WebSocket to any address, so
 * an upgrade whose `Origin` is not this server's own host is refused (a page on the internet must
 * not press keys), and a request whose `Host` is a DNS name other than `localhost`, the machine's own
 * names or one listed in `allowedHosts` (`listen.allowed_hosts`) is refused (DNS rebinding): a browser
 * gets a page that names that setting. IP-literal hosts are always accepted. The rules live in
 * `src/http-guard.ts`, shared with the daemon's server and the simulator.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { isIP, type AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type RawData, type WebSocket } from 'ws'
import { DEFAULT_LISTEN_HOST, DEFAULT_PANELBRIDGE_PORT } from '../../defaults.js'
import { createLogger } from '../../log.js'
import type { SurfaceRegistry, SurfaceRegistryEvents } from '../types.js'
import { controlSends, type ControlId } from '../../face/control-id.js'
import type { Feedback } from '../../face/feedback.js'
import { keyFontPath } from '../render/key-renderer.js'
import { KeyImages } from './key-images.js'
import { fallbackFontAt, FallbackFontFiles, MAX_FALLBACK_FONT_BYTES, sendFontFile } from './fallback-fonts.js'
import { OutgoingQueue } from './outgoing.js'
import { FrameTurns, Inbox } from './inbox.js'
import { loadClientScript } from './client-script.js'
import { DECK_SCRIPT_ROUTE, loadDeckScript } from './deck-script.js'
import {
  FAVICON_ROUTE,
  FAVICON_SVG,
  FAVICON_TYPE,
  PAGE_CSP,
  PAGE_CSS,
  renderPage,
  type PageSurfaceEntry,
} from './page.js'
import {
  KEY_FONT_ROUTE,
  MAX_CLIENT_MESSAGE_BYTES,
  parsePageMessage,
  VIEW_PARAM,
  viewerParam,
  WEB_PROTOCOL_VERSION,
  clampValue,
  type ClientMessage,
  type FindClientMessage,
  type ServerMessage,
  type WebSurfaceView,
} from '../../face/protocol.js'
import { RenderedControls } from './rendered-controls.js'
import { mirrorView } from './mirror-view.js'
import type { WebSurface } from './web-surface.js'
import type { PageInfo, PagePort } from '../page-port.js'
import type { PageDeviceLink, PageDevicePort } from './page-devices.js'
import { frameBytes } from '../../wire.js'
import {
  hostAllowed,
  originAllowed,
  REFUSED_HOST_PAGE_CSP,
  refusedHostMessage,
  refusedHostPage,
  requestTarget,
  servedHosts,
  wantsHtmlRefusal,
} from '../../http-guard.js'
import type { ControlDescriptor, SurfaceDescription } from '../../face/surface.js'

/** Where the web surface listens when it runs its own server (panelbridge's one listener). */
export const DEFAULT_WEB_PORT = DEFAULT_PANELBRIDGE_PORT
export const DEFAULT_WEB_HOST = DEFAULT_LISTEN_HOST
/** A browser that answers no ping for this long is dropped (and its held keys released). */
const HEARTBEAT_MS = 30_000
/** How long `close()` waits for browsers to acknowledge the close frame before cutting them off. */
const CLOSE_GRACE_MS = 500

export interface WebSurfaceServerOptions {
  /** Configured web surfaces, shown interactive. More can be added with `addSurface`. */
  surfaces?: Iterable<WebSurface>
  /** Every open surface; all but this server's own web surfaces are mirrored read-only. */
  registry?: SurfaceRegistry
  /** Path prefix when mounted in the daemon's server, e.g. `/surfaces`. Default `''` (the root). */
  basePath?: string
  /** Renderer and image cache for mirrored keys (share the daemon's one). */
  images?: KeyImages
  /** DNS names besides `localhost` and the machine's own that may reach the page (`listen.allowed_hosts`). */
  allowedHosts?: readonly string[]
  /** Ping interval; a browser that misses a whole interval is dropped. Default HEARTBEAT_MS. */
  heartbeatMs?: number
  /**
   * The engine's pages (`Engine` is one): each browser is shown every surface's page, and with
   * `listen.pages: per-browser` keeps a page of its own on each web surface. Without it the page shows
   * no pages (the web surface on its own, `panelbridge surfaces`).
   */
  pages?: PagePort
  /** Where decks a page opened through WebHID register (`./page-devices.ts`); without it they are refused. */
  pageDevices?: PageDevicePort
  /**
   * The controls the mapping binds on a surface: what the mirror of an open device that lists none (a
   * MIDI controller with the generic profile) draws, rather than an empty box. Asked again on
   * `boundChanged` (a reload).
   */
  boundControls?: (surface: string) => readonly ControlDescriptor[]
  /** Called when a key's face or a control's state was written to a browser's socket (the press trace). */
  onKeysWritten?: () => void
}

/** The daemon's find-by-pressing as a page reaches it (`page`: the page socket's number). */
export interface PageFindPort {
  arm(page: number, surfaces: string[] | undefined): void
  disarm(): void
  /** A page socket closed: what it armed ends. */
  closed(page: number): void
}

export interface ListenOptions {
  host?: string
  /** 0 picks a free port. */
  port?: number
}

const log = createLogger('surfaces/web')

/** The page's deck script (WebHID), fetched only when the page connects a deck (see `./deck-script.ts`). */
const DECK_SCRIPT = { name: 'deck script', logKey: 'deck-script', type: 'text/javascript; charset=utf-8' }

/** One browser. */
class Connection {
  alive = true
  /** Keys of `log.once` calls made for this browser, forgotten when it goes. */
  readonly logKeys = new Set<string>()
  /** Controls this browser holds down on waiting surfaces (rehearsal), released when it goes. */
  readonly rehearsing = new Map<string, ClientMessage>()
  readonly outgoing: OutgoingQueue
  /** What it sent, handled a bounded slice per turn of the loop (see `./inbox.ts`). */
  readonly inbox: Inbox
  /** This browser as the page-device port knows it (decks it opened through WebHID). */
  readonly deviceLink: PageDeviceLink

  constructor(
    readonly id: number,
    readonly ws: WebSocket,
    /** A read-only viewer (`ws?view=1`): every input on this socket is refused. */
    readonly viewer: boolean,
    turns: FrameTurns,
    handle: (conn: Connection, data: RawData, isBinary: boolean) => void,
    onKeysWritten?: () => void,
  ) {
    this.outgoing = new OutgoingQueue(ws, undefined, { log, drop: () => ws.terminate() }, onKeysWritten)
    this.deviceLink = {
      id,
      send: (message) => this.outgoing.enqueue(message),
      isOpen: () => ws.readyState === ws.OPEN,
    }
    this.inbox = new Inbox(turns, ws, (data, isBinary) => handle(this, data, isBinary))
  }

  enqueue(message: ServerMessage): void {
    this.outgoing.enqueue(message)
  }
}

/**
 * A configured hardware surface whose device is not plugged in, shown as a greyed mirror "waiting for"
 * its device (`WebSurfaceServer.showWaiting`).
 */
export interface WaitingMirror {
  /** Under the configured name; controls as the config knows them (none when it names no model). */
  description: SurfaceDescription
  /** What it waits for, as the page says it: `Stream Deck XL`. */
  waitingFor: string
  /**
   * Rehearsal: a browser's input on its controls is handed here (the control exists and takes the event;
   * a value is clamped to its kind's range). Returns whether it was taken. Without it the mirror is
   * read-only, as every other mirror.
   */
  rehearse?: (message: ClientMessage) => boolean
}

interface Mirror {
  /** The device's description as the registry gave it (before any bound controls were added). */
  source: SurfaceDescription
  view: WebSurfaceView
  /** A waiting surface's mirror (see `WaitingMirror`); undefined for an open device's. */
  waiting?: WaitingMirror
  rendered: RenderedControls
  /** Its page as the engine last told it, for browsers that connect later. */
  page?: ServerMessage
  /** Stops following its page. */
  unfollow: () => void
}

/** A browser's view of a surface, for the engine's pages (see `PagePort`). */
function viewOf(conn: Connection): string {
  return `browser-${conn.id}`
}

interface OwnSurface {
  surface: WebSurface
  detach: () => void
}

function normalizeBasePath(path: string): string {
  const trimmed = path.replace(/\/+$/, '')
  if (trimmed !== '' && !trimmed.startsWith('/')) throw new TypeError(`web surface server: basePath must start with /`)
  return trimmed
}

export class WebSurfaceServer {
  readonly basePath: string
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES })
  private readonly own = new Map<string, OwnSurface>()
  private readonly mirrors = new Map<string, Mirror>()
  private readonly connections = new Set<Connection>()
  private find: PageFindPort | undefined
  /** Every browser's frames, handed on in bounded slices. */
  private readonly frameTurns = new FrameTurns()
  private readonly images: KeyImages
  /** The emoji and CJK key fonts, streamed to a page whose labels need them. */
  private readonly fallbackFonts = new FallbackFontFiles()
  private allowedHosts: ReadonlySet<string>
  private readonly heartbeatMs: number
  private readonly registry: SurfaceRegistry | undefined
  private readonly pages: PagePort | undefined
  private readonly pageDevices: PageDevicePort | undefined
  private readonly boundControls: ((surface: string) => readonly ControlDescriptor[]) | undefined
  private readonly onKeysWritten: (() => void) | undefined
  private readonly registryListeners: {
    [E in keyof SurfaceRegistryEvents]: (...args: SurfaceRegistryEvents[E]) => void
  }
  private mirrorFlush: NodeJS.Immediate | undefined
  private heartbeat: NodeJS.Timeout | undefined
  private nextConnectionId = 1
  private server: Server | undefined
  private closed = false

  constructor(options: WebSurfaceServerOptions = {}) {
    this.basePath = normalizeBasePath(options.basePath ?? '')
    this.images = options.images ?? new KeyImages()
    this.allowedHosts = servedHosts(options.allowedHosts)
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS
    this.pages = options.pages
    this.pageDevices = options.pageDevices
    this.boundControls = options.boundControls
    this.onKeysWritten = options.onKeysWritten
    for (const surface of options.surfaces ?? []) this.addSurface(surface)
    this.registryListeners = {
      added: (description) => this.addMirror(description),
      removed: (surfaceId) => this.removeMirror(surfaceId),
      feedback: (surfaceId, control, feedback) => this.mirrorFeedback(surfaceId, control, feedback),
    }
    this.registry = options.registry
    if (this.registry) {
      const events = this.registry.events
      events.on('added', this.registryListeners.added)
      events.on('removed', this.registryListeners.removed)
      events.on('feedback', this.registryListeners.feedback)
      for (const description of this.registry.list()) this.addMirror(description)
    }
  }

  /** Shows a configured web surface (interactive). The server does not own it: closing it removes it here. */
  addSurface(surface: WebSurface): void {
    const id = surface.description.id
    if (this.closed) throw new Error(`web surface server: closed; cannot add "${id}"`)
    if (this.own.has(id)) throw new Error(`web surface server: a surface named "${id}" is already served`)
    if (surface.isClosed) return
    if (this.mirrors.has(id)) this.removeMirror(id)
    surface.setWatched(this.connections.size > 0)
    // A browser with a page of its own on this surface gets that page's faces instead of the surface's.
    const onMessage = (message: ServerMessage): void => {
      const faces = message.type === 'key' || message.type === 'state'
      for (const conn of this.connections) if (!faces || !surface.ownsPage(viewOf(conn))) conn.enqueue(message)
    }
    const onClosed = (): void => this.removeSurface(id)
    surface.view.on('message', onMessage)
    surface.events.on('closed', onClosed)
    this.own.set(id, {
      surface,
      detach: () => {
        surface.view.off('message', onMessage)
        surface.events.off('closed', onClosed)
      },
    })
    for (const conn of this.connections) this.showTo(conn, surface)
  }

  /** Shows a web surface to a browser: with the engine's pages, as a view of its own. */
  private showTo(conn: Connection, surface: WebSurface): void {
    const send = (message: ServerMessage): void => conn.enqueue(message)
    if (!this.pages) return surface.showTo(send)
    surface.showTo(send, { port: this.pages, view: viewOf(conn), mayOwn: !conn.viewer })
  }

  /** Where a page's `find` and `disarm` go (the daemon's find-by-pressing); without it they are refused. */
  setFind(port: PageFindPort): void {
    this.find = port
  }

  /** A control was selected by pressing: to every page (the editor opens it). */
  findSelected(e: { surface: string; control: string; page: string | null }): void {
    for (const conn of this.connections) conn.enqueue({ type: 'selected', ...e })
  }

  /** Find-by-pressing armed on `surfaces`, or ended (undefined: timed out, disarmed, its page closed): every page is told. */
  findState(surfaces: string[] | 'all' | undefined): void {
    const m: ServerMessage =
      surfaces === undefined ? { type: 'find-state', armed: false } : { type: 'find-state', armed: true, surfaces }
    for (const conn of this.connections) conn.enqueue(m)
  }

  /** A page's `find` or `disarm`: never from a read-only viewer. */
  private onFind(conn: Connection, m: FindClientMessage): void {
    if (conn.viewer || !this.find) {
      const why = conn.viewer ? 'read-only viewer' : 'no find here'
      this.logOnce(conn, `refused-find:${why}`, 'refused find-by-pressing from a browser', { reason: why })
      return
    }
    if (m.type === 'disarm') return this.find.disarm()
    this.find.arm(conn.id, m.surfaces)
  }

  removeSurface(id: string): void {
    const entry = this.own.get(id)
    if (!entry) return
    entry.detach()
    this.own.delete(id)
    for (const conn of this.connections) entry.surface.forget(viewOf(conn), conn)
    this.broadcast({ type: 'removed', surface: id })
  }

  /** Browsers connected now. */
  get browsers(): number {
    return this.connections.size
  }

  /** What the page lists now: web surfaces first, then mirrors. */
  list(): PageSurfaceEntry[] {
    return [
      ...[...this.own.values()].map((o) => ({
        id: o.surface.description.id,
        model: o.surface.description.model,
        mode: 'interactive' as const,
      })),
      ...[...this.mirrors.values()].map((m) => ({
        id: m.view.id,
        model: m.view.model,
        mode: 'mirror' as const,
      })),
    ]
  }

  /** Replaces the names besides the machine's own that may reach the page (a reload of `listen.allowed_hosts`). */
  setAllowedHosts(names: readonly string[]): void {
    this.allowedHosts = servedHosts(names)
  }

  /** HTTP handler. Returns false when the request is not for this server (the caller answers it). */
  readonly handleRequest = (req: IncomingMessage, res: ServerResponse): boolean => {
    const rel = this.relativePath(req.url)
    if (rel === undefined) return false
    if (!hostAllowed(req, this.allowedHosts)) {
      const host = req.headers.host ?? ''
      if (wantsHtmlRefusal(req)) {
        res.setHeader('content-security-policy', REFUSED_HOST_PAGE_CSP)
        this.reply(res, 403, 'text/html; charset=utf-8', refusedHostPage(host))
      } else this.reply(res, 403, 'text/plain; charset=utf-8', `forbidden host: ${refusedHostMessage(host)}\n`)
      return true
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD')
      this.reply(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n')
      return true
    }
    const head = req.method === 'HEAD'
    switch (rel) {
      case '':
        res.writeHead(301, { location: this.basePath + '/' }).end()
        return true
      case '/':
      case '/index.html':
        res.setHeader('content-security-policy', PAGE_CSP)
        this.reply(res, 200, 'text/html; charset=utf-8', renderPage(this.list()), head)
        return true
      case '/style.css':
        this.reply(res, 200, 'text/css; charset=utf-8', PAGE_CSS, head)
        return true
      case '/client.js':
        this.serveScript(res, head)
        return true
      case FAVICON_ROUTE:
        this.reply(res, 200, FAVICON_TYPE, FAVICON_SVG, head, 'max-age=86400')
        return true
      case DECK_SCRIPT_ROUTE:
        this.replyLoaded(res, head, DECK_SCRIPT, loadDeckScript)
        return true
      case KEY_FONT_ROUTE:
        this.serveFont(res, head)
        return true
      case '/ws':
        this.reply(res, 426, 'text/plain; charset=utf-8', 'WebSocket only\n', head)
        return true
      default: {
        const font = fallbackFontAt(rel)
        if (font) {
          this.fallbackFonts.serve(res, head, font)
          return true
        }
        if (this.basePath === '') return false
        this.reply(res, 404, 'text/plain; charset=utf-8', 'not found\n', head)
        return true
      }
    }
  }

  /** WebSocket upgrade handler. Returns false when the upgrade is not for this server. */
  readonly handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    if (this.relativePath(req.url) !== '/ws') return false
    if (this.closed) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return true
    }
    if (!hostAllowed(req, this.allowedHosts) || !originAllowed(req)) {
      // Logged once per process: a hostile page could retry endlessly.
      log.once('refused-upgrade', 'warn', 'refused a WebSocket from a foreign origin or host', {
        origin: req.headers.origin,
        host: req.headers.host,
      })
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return true
    }
    const viewer = viewerParam(requestTarget(req.url)?.searchParams.get(VIEW_PARAM) ?? null)
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, viewer))
    return true
  }

  /** Runs a server of its own (until the daemon mounts the handlers). Resolves to the page's URL. */
  async listen(options: ListenOptions = {}): Promise<string> {
    if (this.server) throw new Error('web surface server: already listening')
    if (this.closed) throw new Error('web surface server: closed')
    const host = options.host ?? DEFAULT_WEB_HOST
    const server = createServer((req, res) => {
      if (!this.handleRequest(req, res)) this.reply(res, 404, 'text/plain; charset=utf-8', 'not found\n')
    })
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!this.handleUpgrade(req, socket, head)) socket.destroy()
    })
    server.on('clientError', (err, socket) => {
      log.once('client-error', 'warn', 'bad HTTP request on the web surface port', { err })
      socket.destroy()
    })
    this.server = server
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(options.port ?? DEFAULT_WEB_PORT, host, () => {
        server.off('error', reject)
        resolve()
      })
    }).catch((err: unknown) => {
      this.server = undefined
      throw err
    })
    server.on('error', (err) => log.error('web surface server error', { err }))
    const address = server.address() as AddressInfo
    const urlHost = isIP(address.address) === 6 ? `[${address.address}]` : address.address
    const url = `http://${urlHost}:${address.port}${this.basePath}/`
    log.info('web surface listening', { url })
    return url
  }

  /**
   * Stops serving: closes every browser, stops the standalone server, and removes every listener
   * this server added. The web surfaces themselves stay open (they belong to their owner). Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.heartbeat) clearInterval(this.heartbeat)
    if (this.mirrorFlush) clearImmediate(this.mirrorFlush)
    this.heartbeat = this.mirrorFlush = undefined
    this.frameTurns.close()
    if (this.registry) {
      const events = this.registry.events
      events.off('added', this.registryListeners.added)
      events.off('removed', this.registryListeners.removed)
      events.off('feedback', this.registryListeners.feedback)
    }
    for (const [id, entry] of this.own) {
      entry.detach()
      for (const conn of this.connections) entry.surface.forget(viewOf(conn), conn)
      this.own.delete(id)
    }
    for (const mirror of this.mirrors.values()) mirror.unfollow()
    this.mirrors.clear()
    const open = [...this.connections]
    await Promise.all(
      open.map(
        (conn) =>
          new Promise<void>((resolve) => {
            if (conn.ws.readyState === conn.ws.CLOSED) return resolve()
            const cut = setTimeout(() => conn.ws.terminate(), CLOSE_GRACE_MS)
            conn.ws.once('close', () => {
              clearTimeout(cut)
              resolve()
            })
            conn.ws.close(1001, 'server closing')
          }),
      ),
    )
    await new Promise<void>((resolve) => this.wss.close(() => resolve()))
    const server = this.server
    this.server = undefined
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    }
  }

  private relativePath(url: string | undefined): string | undefined {
    const path = requestTarget(url)?.pathname
    if (path === undefined) return undefined
    if (this.basePath === '') return path
    if (path === this.basePath) return ''
    return path.startsWith(this.basePath + '/') ? path.slice(this.basePath.length) : undefined
  }

  private reply(
    res: ServerResponse,
    status: number,
    type: string,
    body: string | Buffer,
    headOnly = false,
    cacheControl = 'no-store',
  ): void {
    res.writeHead(status, {
      'content-type': type,
      'content-length': Buffer.byteLength(body),
      'cache-control': cacheControl,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    })
    res.end(headOnly ? undefined : body)
  }

  /** Replies with what `load` gives, or with a 500 logged once when it fails. */
  private replyLoaded(
    res: ServerResponse,
    head: boolean,
    what: { name: string; logKey: string; type: string; cacheControl?: string },
    load: () => Promise<string | Buffer>,
  ): void {
    load().then(
      (body) => this.reply(res, 200, what.type, body, head, what.cacheControl),
      (err: unknown) => {
        log.once(what.logKey, 'error', `cannot serve the ${what.name}`, { err })
        this.reply(res, 500, 'text/plain; charset=utf-8', `${what.name} unavailable\n`, head)
      },
    )
  }

  /**
   * The key font, streamed from its package on each request and not kept: a browser asks once per page
   * load (it may cache the file for a day), and 700 kB held for that would be a fifth of what this
   * server otherwise keeps; streamed, a client that does not read holds a read buffer, not the file.
   */
  private serveFont(res: ServerResponse, head: boolean): void {
    sendFontFile(res, head, keyFontPath(), 'font/ttf', MAX_FALLBACK_FONT_BYTES).then(
      (sent) => {
        if (!sent) this.reply(res, 500, 'text/plain; charset=utf-8', 'key font unavailable\n', head)
      },
      (err: unknown) => {
        // A browser that leaves mid-file is no fault; a file that cannot be read is one, logged once.
        if (res.destroyed && res.headersSent) return
        log.once('key-font', 'error', 'cannot serve the key font', { err })
        if (!res.headersSent) this.reply(res, 500, 'text/plain; charset=utf-8', 'key font unavailable\n', head)
        else res.destroy()
      },
    )
  }

  /** The page script is read (or, from source, bundled) once, on first request; see `client-script.ts`. */
  private serveScript(res: ServerResponse, head: boolean): void {
    const what = { name: 'page script', logKey: 'client-script', type: 'text/javascript; charset=utf-8' }
    this.replyLoaded(res, head, what, loadClientScript)
  }

  private onConnection(ws: WebSocket, viewer: boolean): void {
    const conn = new Connection(
      this.nextConnectionId++,
      ws,
      viewer,
      this.frameTurns,
      (c, data, isBinary) => this.onMessage(c, data, isBinary),
      this.onKeysWritten,
    )
    // The first browser: draw what waited while nobody looked, so that its snapshot below is current.
    if (this.connections.size === 0) {
      for (const { surface } of this.own.values()) surface.setWatched(true)
      this.flushMirrors()
    }
    this.connections.add(conn)
    ws.on('error', (err) => this.logOnce(conn, 'socket-error', 'web surface socket error', { err }))
    ws.on('pong', () => {
      conn.alive = true
    })
    ws.on('message', (data, isBinary) => conn.inbox.push(data, isBinary))
    ws.on('close', () => {
      this.connections.delete(conn)
      conn.inbox.close()
      conn.outgoing.dispose()
      for (const { surface } of this.own.values()) surface.forget(viewOf(conn), conn)
      this.releaseRehearsal(conn)
      // Find-by-pressing armed by this page ends with it: a closed editor never leaves a desk dead.
      this.find?.closed(conn.id)
      this.pageDevices?.drop(conn.deviceLink)
      for (const key of conn.logKeys) log.clear(key)
      if (this.connections.size === 0) for (const { surface } of this.own.values()) surface.setWatched(false)
      if (this.connections.size === 0 && this.heartbeat) {
        clearInterval(this.heartbeat)
        this.heartbeat = undefined
      }
    })
    this.heartbeat ??= setInterval(() => this.ping(), this.heartbeatMs).unref()
    conn.enqueue({ type: 'hello', version: WEB_PROTOCOL_VERSION })
    for (const { surface } of this.own.values()) this.showTo(conn, surface)
    for (const mirror of this.mirrors.values()) {
      conn.enqueue({ type: 'surface', surface: mirror.view })
      for (const message of mirror.rendered.shown.values()) conn.enqueue(message)
      if (mirror.page) conn.enqueue(mirror.page)
    }
  }

  private ping(): void {
    for (const conn of this.connections) {
      if (!conn.alive) {
        this.logOnce(conn, 'heartbeat', 'a browser stopped answering; dropping it')
        conn.ws.terminate()
        continue
      }
      conn.alive = false
      conn.ws.ping()
    }
  }

  private onMessage(conn: Connection, data: RawData, isBinary: boolean): void {
    const parsed = parsePageMessage(frameBytes(data), isBinary)
    if (!parsed.ok) {
      this.logOnce(conn, `malformed:${parsed.reason}`, 'ignored a malformed message from a browser', {
        reason: parsed.reason,
      })
      return
    }
    if (parsed.find) return this.onFind(conn, parsed.find)
    if (parsed.deck) {
      // Only a page that may send input registers a deck: never a read-only viewer's socket.
      if (conn.viewer || !this.pageDevices) {
        const why = conn.viewer ? 'read-only viewer' : 'no browser decks here'
        this.logOnce(conn, `refused-deck:${why}`, 'refused a Stream Deck from a browser', { reason: why })
        if (parsed.deck.type === 'deck-add')
          conn.deviceLink.send({ type: 'deck-state', deck: parsed.deck.deck, state: 'refused', detail: why })
        return
      }
      return this.pageDevices.handle(conn.deviceLink, parsed.deck)
    }
    const m = parsed.message
    if (conn.viewer) {
      this.logOnce(conn, 'refused:viewer', 'ignored input from a read-only viewer', { surface: m.surface })
      return
    }
    const own = this.own.get(m.surface)
    if (!own && this.mirrors.get(m.surface)?.waiting?.rehearse) return this.rehearse(conn, m)
    if (!own) {
      const why = this.mirrors.has(m.surface) ? 'read-only mirror' : 'unknown surface'
      this.logOnce(conn, `refused:${why}`, 'ignored input for a surface a browser cannot control', {
        reason: why,
        surface: m.surface,
      })
      return
    }
    let accepted: boolean
    const view = viewOf(conn)
    switch (m.type) {
      case 'down':
        accepted = own.surface.press(m.control, conn, view)
        break
      case 'up':
        accepted = own.surface.release(m.control, conn, view)
        break
      case 'rotate':
        accepted = own.surface.rotate(m.control, m.delta, view)
        break
      case 'value':
        accepted = own.surface.value(m.control, m.value, conn, view)
        break
    }
    if (!accepted) {
      this.logOnce(conn, 'refused:control', 'ignored input for a control that does not take it', {
        surface: m.surface,
        control: m.control,
        type: m.type,
      })
    }
  }

  /** A browser's input on a waiting surface that takes rehearsal presses: checked here, handed on. */
  private rehearse(conn: Connection, m: ClientMessage): void {
    const waiting = this.mirrors.get(m.surface)?.waiting
    const control = waiting?.description.controls.find((c) => c.id === m.control)
    let accepted = false
    if (waiting?.rehearse && control && controlSends(control.kind, m.type)) {
      const message: ClientMessage =
        m.type === 'value' ? { ...m, value: clampValue(control.kind, m.value) ?? Math.min(1, Math.max(0, m.value)) } : m
      accepted = waiting.rehearse(message)
      const key = `${m.surface}\u0000${m.control}`
      if (accepted && m.type === 'down')
        conn.rehearsing.set(key, { type: 'up', surface: m.surface, control: m.control })
      if (m.type === 'up') conn.rehearsing.delete(key)
    }
    if (!accepted) {
      this.logOnce(conn, 'refused:control', 'ignored input for a control that does not take it', {
        surface: m.surface,
        control: m.control,
        type: m.type,
      })
    }
  }

  /** A browser went: the keys it held down on waiting surfaces are let go, as a web surface's are. */
  private releaseRehearsal(conn: Connection): void {
    for (const up of conn.rehearsing.values()) this.mirrors.get(up.surface)?.waiting?.rehearse?.(up)
    conn.rehearsing.clear()
  }

  private logOnce(conn: Connection, what: string, message: string, fields: Record<string, unknown> = {}): void {
    const key = `conn${conn.id}:${what}`
    conn.logKeys.add(key)
    log.once(key, 'warn', message, { connection: conn.id, ...fields })
  }

  private broadcast(message: ServerMessage): void {
    for (const conn of this.connections) conn.enqueue(message)
  }

  /**
   * Shows a configured hardware surface whose device is not plugged in: a greyed mirror "waiting for" it,
   * which shows the feedback the engine gives it and, with `rehearse`, takes presses. The device's own
   * mirror replaces it when it opens; a surface open now is left alone.
   */
  showWaiting(waiting: WaitingMirror): void {
    const id = waiting.description.id
    const shown = this.mirrors.get(id)
    if (shown && !shown.waiting) return
    this.addMirror(waiting.description, waiting)
  }

  /** Takes a waiting surface's mirror away (a reload removed it); the mirror of an open device stays. */
  removeWaiting(surfaceId: string): void {
    if (this.mirrors.get(surfaceId)?.waiting) this.removeMirror(surfaceId)
  }

  /**
   * The bindings changed (a reload): the mirror of each open device that lists no controls of its own is
   * drawn again with the controls now bound on it.
   */
  boundChanged(): void {
    for (const mirror of [...this.mirrors.values()]) {
      if (!mirror.waiting && mirror.source.controls.length === 0) this.addMirror(mirror.source)
    }
  }

  private addMirror(source: SurfaceDescription, waiting?: WaitingMirror): void {
    if (this.closed || this.own.has(source.id)) return
    const surface = source.id
    const bound = !waiting && source.controls.length === 0 ? this.boundControls?.(surface) : undefined
    const description = bound?.length ? { ...source, controls: [...bound] } : source
    this.mirrors.get(surface)?.unfollow()
    const view = mirrorView(description)
    if (waiting) view.waiting = { for: waiting.waitingFor, rehearse: waiting.rehearse !== undefined }
    const mirror: Mirror = {
      source,
      view,
      ...(waiting ? { waiting } : {}),
      rendered: new RenderedControls(description, this.images, (control, err) =>
        log.once(`mirror-render:${surface}:${control}`, 'error', 'could not render a mirrored key', {
          surface,
          control,
          err,
        }),
      ),
      unfollow: () => undefined,
    }
    this.mirrors.set(surface, mirror)
    this.broadcast({ type: 'surface', surface: mirror.view })
    // Hardware shows the shared page: one view follows it for every browser.
    const feedback = (): void => undefined
    const page = (info: PageInfo): void => {
      mirror.page = {
        type: 'page',
        surface,
        ...(info.page !== undefined ? { page: info.page } : {}),
        pages: [...info.pages],
      }
      if (this.mirrors.get(surface) === mirror) this.broadcast(mirror.page)
    }
    mirror.unfollow = this.pages?.openView(surface, 'mirror', { feedback, page }, false) ?? mirror.unfollow
    for (const [control, feedback] of this.registry?.feedbackOf(description.id) ?? []) {
      this.mirrorFeedback(description.id, control, feedback)
    }
  }

  private removeMirror(surfaceId: string): void {
    const mirror = this.mirrors.get(surfaceId)
    if (!mirror) return
    this.mirrors.delete(surfaceId)
    mirror.unfollow()
    this.broadcast({ type: 'removed', surface: surfaceId })
  }

  private mirrorFeedback(surfaceId: string, control: ControlId, feedback: Feedback): void {
    if (!this.mirrors.get(surfaceId)?.rendered.queue(control, feedback)) return
    // Drawn only while a browser looks; the first one to connect draws what waited (onConnection).
    if (this.connections.size > 0) this.mirrorFlush ??= setImmediate(() => this.flushMirrors())
  }

  /** Renders the newest feedback of each mirrored control once per turn of the event loop. */
  private flushMirrors(): void {
    if (this.mirrorFlush) clearImmediate(this.mirrorFlush)
    this.mirrorFlush = undefined
    for (const mirror of this.mirrors.values()) {
      if (!mirror.rendered.hasPending) continue
      for (const message of mirror.rendered.flush()) this.broadcast(message)
    }
  }
}
