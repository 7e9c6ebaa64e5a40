/**
 * One rule for every queue of bytes the daemon sends (issue 46, item 2): a peer must read. What waits
 * to be sent to one peer (its socket's buffer and whatever waits in the daemon for it) is bounded; past
 * the bound the peer is dropped, its connection closed so that what waited is let go, and the drop is
 * logged once per kind of sender (a peer that never reads is not logged a line per message).
 *
 * Each sender measures its own unsent bytes and calls `overOutgoingBound` after it queues; the bounds
 * of every sender are here, in one record:
 * - HTTP pipelines (`daemon/connections.ts`): the answers a connection still owes, each request waiting
 *   its turn counted as `pipelinedRequestBytes`, with what waits on its socket;
 * - event streams (`daemon/event-stream.ts`, `record-stream.ts`): the server's `maxEventStreamBufferBytes`;
 * - page sockets (`surfaces/web/outgoing.ts`): the socket's `bufferedAmount` and the messages queued;
 * - network Stream Decks (`surfaces/streamdeck-net/link.ts`): the socket's buffer (keepalive answers);
 * - the application's QWebChannel link (`api/qwebchannel.ts`): the socket's `bufferedAmount`;
 * - Companion Satellite clients (`surfaces/satellite/server.ts`): the socket's buffer, against
 *   `SATELLITE_LIMITS.unreadBytes`.
 */
import type { Logger } from './log.js'

/** The bounds of what waits to be sent to one peer, bytes. */
export const OUTGOING_LIMITS = {
  /**
   * Unsent bytes one peer may hold, for a sender without a bound of its own. ASSUMED: 4 MiB, a few
   * seconds of a busy page's key faces on a slow link; a peer that reads never comes near it.
   */
  maxUnsentBytes: 4 * 1024 * 1024,
  /**
   * What one pipelined request waiting its turn counts for: its parsed request and the answer owed.
   * ASSUMED: 4 KiB, a few times what one holds, so a connection may have 1,024 requests waiting; a
   * client that reads has a few, or a few hundred written at once.
   */
  pipelinedRequestBytes: 4 * 1024,
  /**
   * Unsent bytes a network Stream Deck may hold. ASSUMED: 1 MiB: a deck's own traffic is key images
   * (a few kilobytes each, sent as they change) and keepalive answers; one that does not read them is
   * not a deck that works.
   */
  maxUnsentDeckBytes: 1024 * 1024,
  /**
   * Unsent bytes a page socket may hold. ASSUMED: 8 MiB: its queue keeps only the newest face of each
   * key, so a page that reads slowly holds a few surfaces' worth of key images; what grows past that is
   * a page that does not read.
   */
  maxUnsentPageBytes: 8 * 1024 * 1024,
} as const

/** What the rule needs to say of a dropped peer. */
export interface OutgoingPeer {
  /** The kind of sender (`http`, `page`, `deck`...): the drop is logged once per kind and logger. */
  kind: string
  log: Logger | undefined
  /** Closes the peer's connection, so that what waited for it is let go. */
  drop(): void
}

/**
 * Whether `unsentBytes` is past `limitBytes`; when it is, the peer is dropped and, the first time for
 * its kind, a warning says so.
 */
export function overOutgoingBound(peer: OutgoingPeer, unsentBytes: number, limitBytes: number): boolean {
  if (unsentBytes <= limitBytes) return false
  peer.log?.once(`outgoing-bound:${peer.kind}`, 'warn', 'dropped a peer that does not read what it is sent', {
    peer: peer.kind,
    unsentBytes,
    limitBytes,
  })
  peer.drop()
  return true
}
