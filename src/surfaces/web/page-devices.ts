/**
 * Devices a page brings along: a Stream Deck plugged into the browser's machine, opened by the page
 * script through WebHID (issue 26.2), registered over the page's own WebSocket. The web server only
 * routes: it hands each deck message of a page that may send input (it passed the Host, Origin and
 * token checks of the socket, and is not a read-only viewer) to the port, and tells the port when the
 * page's socket closes. What a registration may be, and what it becomes, is the port's (the
 * browser-deck family, reached through the driver table; see `src/surfaces/drivers.ts`).
 */
import type { DeckClientMessage, DeckServerMessage } from '../../face/protocol.js'

/** One page's socket, as the port sees it. */
export interface PageDeviceLink {
  /** Unique among the server's sockets for the life of the process. */
  readonly id: number
  /** Sends a message to the page (through the socket's bounded outgoing queue). */
  send(message: DeckServerMessage): void
  /** Whether the socket is still open (a registration that finishes after it closed is dropped). */
  isOpen(): boolean
}

export interface PageDevicePort {
  /** A deck message from a page that may register decks. */
  handle(link: PageDeviceLink, message: DeckClientMessage): void
  /** The page's socket closed: every deck it registered is unplugged. */
  drop(link: PageDeviceLink): void
}
