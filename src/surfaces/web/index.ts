/**
 * The web surface: configured `web` surfaces drawn in a browser, and a read-only mirror of every
 * other surface, served over HTTP and a WebSocket (see `server.ts` and `../../face/protocol.ts`).
 *
 * Wiring in the daemon. The page paints keys itself with the hardware's key layout; the renderer is
 * shared only for keys whose feedback carries a pre-rendered image, which the daemon draws:
 *
 * ```ts
 * const images = new KeyImages(renderer)
 * const desk = new WebSurface({ id: 'browser', rows: 3, columns: 5, images })
 * manager.addSurface(desk) // the engine sees it like hardware
 * const web = new WebSurfaceServer({ surfaces: [desk], registry: manager, images, basePath: '/surfaces' })
 * http.on('request', (req, res) => web.handleRequest(req, res) || otherRoutes(req, res))
 * http.on('upgrade', (req, socket, head) => web.handleUpgrade(req, socket, head) || socket.destroy())
 * ```
 */
export { KeyImages, type KeyImageRenderer, type KeySize } from './key-images.js'
export { escapeHtml } from './page.js'
export {
  parseClientMessage,
  WEB_PROTOCOL_VERSION,
  type ClientMessage,
  type ServerMessage,
  type WebControlState,
  type WebControlView,
  type WebSurfaceView,
} from '../../face/protocol.js'
export {
  DEFAULT_WEB_HOST,
  DEFAULT_WEB_PORT,
  WebSurfaceServer,
  type ListenOptions,
  type WebSurfaceServerOptions,
} from './server.js'
export { WEB_DRIVER, WebSurface, type WebSurfaceOptions } from './web-surface.js'
