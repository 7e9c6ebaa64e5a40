/**
 * A daemon with the browser-deck driver, reached as the page reaches it: a plain WebSocket on the daemon's page
 * socket (`<page>ws`) speaking the page protocol, as the page's deck script does. The one rig of the tests that
 * register decks over that socket (the socket's checks, learn's unclaimed decks) or through a real page.
 */
import { onTestFinished } from 'vitest'
import WebSocket from 'ws'
import type { Daemon } from '../../../src/daemon/daemon.js'
import { BrowserDeckDriver } from '../../../src/surfaces/browser-deck/driver.js'
import { cutinBindings, simulatedDaemonConfig, testDaemon } from '../../helpers/in-process-daemon.js'

/** The socket tests' config: a browser deck `laptop` (serial SER1) whose key 0 cuts in the simulator's "Lower Third". */
export const laptopDeckConfig = (listen?: string): string =>
  simulatedDaemonConfig('  laptop: { driver: browser-deck, serial: SER1 }\n', cutinBindings('laptop/key:0'), listen)

/** The daemon over `file` with a browser-deck driver of its own, which the test reads (`driver.hub`). */
export async function browserDeckDaemon(file: string): Promise<{ daemon: Daemon; driver: BrowserDeckDriver }> {
  const driver = new BrowserDeckDriver()
  return { daemon: await testDaemon(file, [driver]), driver }
}

/** The page socket's address on 127.0.0.1 and the page's own Origin there. */
export function pageSocketOf(daemon: Daemon): { origin: string; ws: string } {
  const page = new URL(daemon.url)
  return { origin: `http://127.0.0.1:${page.port}`, ws: `ws://127.0.0.1:${page.port}${page.pathname}ws` }
}

/** Opens a socket; resolves with it once open (closed when the test finishes), or with the HTTP status that refused it. */
export function connectSocket(url: string, headers: Record<string, string>): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    ws.once('open', () => {
      onTestFinished(() => ws.close())
      resolve(ws)
    })
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.once('error', reject)
  })
}

/** The page's own socket (its Origin, no token: a daemon on loopback), once open; refused, it rejects. */
export async function pageSocket(daemon: Daemon): Promise<WebSocket> {
  const { origin, ws } = pageSocketOf(daemon)
  const socket = await connectSocket(ws, { origin })
  if (typeof socket === 'number') throw new Error(`the page socket was refused: ${socket}`)
  return socket
}

/** One page-protocol message, as the page sends it. */
export const sendJson = (ws: WebSocket, message: unknown): void => ws.send(JSON.stringify(message))
