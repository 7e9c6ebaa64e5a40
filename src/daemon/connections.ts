/**
 * The daemon server's connections, so that no one peer takes the box (issue 24, items 1 and 2). Each
 * socket is tracked from accept with its state:
 *
 * - `pending`: connected, its request head not finished (a slow or silent peer);
 * - `idle`: keep-alive between requests;
 * - `active`: a request being answered (or waiting its turn behind one, when pipelined);
 * - `stream`: answering `GET /api/events` (counted by the event stream, `maxEventStreams`);
 * - `upgraded`: a page socket (WebSocket), counted apart (`maxPageSockets`).
 *
 * **Budgets.** Plain HTTP (pending, idle, active) has `maxConnections`; event streams and page sockets
 * have their own, so that neither can starve the others. When a new connection finds the plain budget
 * full, the oldest idle connection, or the oldest pending one that has had `pendingGraceMs` to send its
 * head, is closed to make room (as nginx and HAProxy drop the oldest idle): a peer holding sockets open
 * without using them loses them, not the next client. Connections too fresh to judge (a burst of
 * clients all at once) are let in beyond the budget up to `maxConnectionBurst`; past that the new one is
 * refused with a 503 and `Retry-After`.
 *
 * **Turns.** A connection's requests are answered one at a time: the next pipelined request is not
 * handled while the previous answer is unsent or more than `pipelineBufferBytes` wait on the socket,
 * so a peer that pipelines and never reads holds one answer's worth of memory, not one per request.
 * A connection whose answer makes no progress for `writeStallTimeoutMs` (its peer does not read) is
 * closed, and so at once is one owing more than the outgoing bound (`outgoing-bound.ts`): its requests
 * waiting their turn count as answers owed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Logger } from '../log.js'
import { OUTGOING_LIMITS, overOutgoingBound } from '../outgoing-bound.js'
import { rawReply, RETRY_AFTER_SECONDS } from './http.js'

export type ConnectionState = 'pending' | 'idle' | 'active' | 'stream' | 'upgraded'

/** The registry's bounds (part of `DaemonServerLimits`). */
export interface ConnectionLimits {
  /** Plain HTTP connections (pending, idle or answering); past it the oldest idle or stale pending is closed. */
  maxConnections: number
  /** Plain HTTP connections at most, briefly (a burst of fresh ones); past it a new one is answered 503. */
  maxConnectionBurst: number
  /** A connection's time to send its request head before it may be closed to make room, ms. */
  pendingGraceMs: number
  /** Page sockets (WebSockets) open at once; more are answered 503. */
  maxPageSockets: number
  /** Bytes an answer may leave waiting on its socket before the connection's next request is handled. */
  pipelineBufferBytes: number
  /** A connection whose unsent answer has not moved for this long is closed, ms. */
  writeStallTimeoutMs: number
}

interface Connection {
  readonly socket: Socket
  state: ConnectionState
  /** When it entered its state (performance.now()): the oldest pending or idle goes first. */
  since: number
  /** Requests of this connection waiting for their turn, in order. */
  readonly turns: (() => void)[]
  /** A request of this connection is being answered. */
  busy: boolean
  /** Bytes that had left the socket at the last sweep, and since when they have not moved. */
  flushed: number
  stalledSince: number | undefined
}

/** A 503 written straight on a socket (no HTTP exchange on it yet), asking to come back later. */
export function rawBusyReply(): string {
  return rawReply(503).replace('\r\n\r\n', `\r\nRetry-After: ${RETRY_AFTER_SECONDS}\r\n\r\n`)
}

const PLAIN: ReadonlySet<ConnectionState> = new Set(['pending', 'idle', 'active'])

export class Connections {
  private readonly all = new Map<Socket, Connection>()
  private sweeper: NodeJS.Timeout | undefined

  constructor(
    private readonly limits: ConnectionLimits,
    /** The server's logger: each kind of closing is logged once per server. */
    private readonly log: Logger,
  ) {}

  /** Every socket, upgraded ones included (`close()` ends them all). */
  sockets(): IterableIterator<Socket> {
    return this.all.keys()
  }

  /** How many connections are in `state` (for tests and the bench). */
  count(state: ConnectionState): number {
    let n = 0
    for (const c of this.all.values()) if (c.state === state) n++
    return n
  }

  /** A new socket: tracked, room made for it, or refused when every plain connection is busy. */
  accept(socket: Socket): void {
    const conn: Connection = {
      socket,
      state: 'pending',
      since: performance.now(),
      turns: [],
      busy: false,
      flushed: 0,
      stalledSince: undefined,
    }
    this.all.set(socket, conn)
    socket.once('close', () => this.all.delete(socket))
    const plain = this.plainCount()
    const evicted = plain > this.limits.maxConnections && this.evictOldest(conn)
    if (!evicted && plain > this.limits.maxConnectionBurst) this.refuse(conn)
    this.sweeper ??= setInterval(() => this.sweep(), sweepEveryMs(this.limits.writeStallTimeoutMs)).unref()
  }

  /**
   * A request with its head read: answered by `handle` in its connection's turn (at once when nothing
   * of that connection is in flight).
   */
  request(req: IncomingMessage, res: ServerResponse, handle: () => void): void {
    const conn = this.all.get(req.socket)
    // Refused or evicted (its socket is on its way out): nothing more is answered on it.
    if (conn === undefined) return void req.socket.destroy()
    if (conn.state !== 'stream' && conn.state !== 'upgraded') this.enter(conn, 'active')
    res.once('close', () => this.answered(conn))
    conn.turns.push(handle)
    if (this.owesTooMuch(conn)) return
    this.next(conn)
  }

  /** The connection now carries an event stream (its own budget, `maxEventStreams`). */
  streaming(socket: Socket): void {
    const conn = this.all.get(socket)
    if (conn) this.enter(conn, 'stream')
  }

  /** Room for one more page socket? When there is, the socket is counted as one; else the caller refuses it. */
  upgrade(socket: Socket): boolean {
    const conn = this.all.get(socket)
    if (conn === undefined) return true
    if (this.count('upgraded') >= this.limits.maxPageSockets) return false
    this.enter(conn, 'upgraded')
    return true
  }

  /** Stops the sweep (the server is closing; the sockets are closed by the caller). */
  close(): void {
    if (this.sweeper) clearInterval(this.sweeper)
    this.sweeper = undefined
  }

  private enter(conn: Connection, state: ConnectionState): void {
    conn.state = state
    conn.since = performance.now()
  }

  private plainCount(): number {
    let n = 0
    for (const c of this.all.values()) if (PLAIN.has(c.state)) n++
    return n
  }

  /** Closes the oldest idle, or pending past its grace, connection; false when there is none. */
  private evictOldest(except: Connection): boolean {
    const stale = performance.now() - this.limits.pendingGraceMs
    let oldest: Connection | undefined
    for (const c of this.all.values()) {
      if (c === except || !(c.state === 'idle' || (c.state === 'pending' && c.since <= stale))) continue
      if (oldest === undefined || c.since < oldest.since) oldest = c
    }
    if (oldest === undefined) return false
    this.log.once('evicted', 'info', 'closed the oldest idle or slow connection to make room for a new one', {
      state: oldest.state,
      limit: this.limits.maxConnections,
    })
    // A pending peer may still read its answer; an idle one asked nothing (a keep-alive close is normal).
    if (oldest.state === 'pending' && oldest.socket.bytesWritten === 0 && oldest.socket.writable) {
      oldest.socket.write(rawBusyReply())
    }
    this.all.delete(oldest.socket)
    oldest.socket.destroy()
    return true
  }

  private refuse(conn: Connection): void {
    this.log.once('refused-connection', 'warn', 'refused a connection: every one is busy', {
      limit: this.limits.maxConnectionBurst,
    })
    this.all.delete(conn.socket)
    conn.socket.end(rawBusyReply())
    // It asked nothing yet: do not wait for it to read the refusal.
    setTimeout(() => conn.socket.destroy(), 1_000).unref()
  }

  /**
   * Whether the connection was dropped for owing more than the outgoing bound (`outgoing-bound.ts`):
   * the answers waiting on its socket and those its pipelined requests are owed. A peer that writes
   * requests and never reads their answers is closed, and the requests it queued are let go.
   */
  private owesTooMuch(conn: Connection): boolean {
    const owed = conn.socket.writableLength + conn.turns.length * OUTGOING_LIMITS.pipelinedRequestBytes
    const peer = {
      kind: 'http',
      log: this.log,
      drop: () => {
        this.all.delete(conn.socket)
        conn.turns.length = 0
        conn.socket.destroy()
      },
    }
    return overOutgoingBound(peer, owed, OUTGOING_LIMITS.maxUnsentBytes)
  }

  /** Runs the connection's next request if it is its turn: nothing in flight, little waiting on the socket. */
  private next(conn: Connection): void {
    if (conn.busy || conn.turns.length === 0 || conn.socket.destroyed) return
    if (conn.socket.writableLength > this.limits.pipelineBufferBytes) {
      conn.socket.once('drain', () => this.next(conn))
      return
    }
    conn.busy = true
    conn.turns.shift()!()
  }

  private answered(conn: Connection): void {
    conn.busy = false
    if (conn.turns.length > 0) return this.next(conn)
    if (conn.state === 'active') this.enter(conn, 'idle')
  }

  /** Closes plain connections whose unsent answer has not moved for `writeStallTimeoutMs`. */
  private sweep(): void {
    const now = performance.now()
    for (const conn of this.all.values()) {
      if (!PLAIN.has(conn.state)) continue // page sockets and event streams watch their own readers
      const { socket } = conn
      const flushed = socket.bytesWritten - socket.writableLength
      if (socket.writableLength === 0 || flushed !== conn.flushed) {
        conn.flushed = flushed
        conn.stalledSince = undefined
        continue
      }
      conn.stalledSince ??= now
      if (now - conn.stalledSince < this.limits.writeStallTimeoutMs) continue
      this.log.once('stalled-reader', 'warn', 'closed a connection whose peer does not read its answers', {
        afterMs: this.limits.writeStallTimeoutMs,
      })
      socket.destroy()
    }
    if (this.all.size === 0) this.close()
  }
}

/** The sweep runs a few times per stall time-out, at most once a second. */
function sweepEveryMs(stallMs: number): number {
  return Math.max(10, Math.min(1_000, Math.floor(stallMs / 4)))
}
