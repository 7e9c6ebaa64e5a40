/**
 * The daemon server's connections, so that no one peer takes the box (issue 24, items 1 and 2; issue
 * 46, item 3). Each socket is tracked from accept with its state:
 *
 * - `waiting`: connected and not read yet: its client has `maxReadingPerClient` connections being read;
 * - `pending`: connected and read, its request head not finished (a slow or silent peer);
 * - `idle`: keep-alive between requests;
 * - `active`: a request being answered (or waiting its turn behind one, when pipelined);
 * - `stream`: answering `GET /api/events` (counted by the event stream, `maxEventStreams`);
 * - `upgraded`: a page socket (WebSocket), counted apart (`maxPageSockets`).
 *
 * **Clients.** A client is one remote address. Its connections are read `maxReadingPerClient` at a time
 * (pending, idle or active); the server accepts every socket paused, and one past that share waits,
 * unread and costing nothing but its socket, until one of the same client's ends (the client's oldest
 * idle keep-alive one is closed to make room). So a client that opens thousands of connections at once
 * is served a few at a time while another client's request is read as soon as it arrives: one client's
 * flood queues behind itself, never in front of the others. A client holds at most
 * `maxConnectionsPerClient` connections, and `maxPageSocketsPerClient` page sockets; past either the new
 * one is answered 503. A waiting connection that is not read within the server's header time-out is
 * answered 503 too (`isWaiting`).
 *
 * **Budgets.** Plain HTTP being read (pending, idle, active) has `maxConnections`; event streams and
 * page sockets have their own, so that neither can starve the others. When a connection to be read
 * finds the plain budget full, the oldest idle connection, or the oldest pending one that has had
 * `pendingGraceMs` to send its head, is closed to make room (as nginx and HAProxy drop the oldest idle):
 * a peer holding sockets open without using them loses them, not the next client. Connections too fresh
 * to judge (a burst of clients all at once), waiting ones included, are let in beyond the budget up to
 * `maxConnectionBurst`; past that the new one is refused with a 503 and `Retry-After`.
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

export type ConnectionState = 'waiting' | 'pending' | 'idle' | 'active' | 'stream' | 'upgraded'

/** The registry's bounds (part of `DaemonServerLimits`). */
export interface ConnectionLimits {
  /** Plain HTTP connections being read (pending, idle or answering); past it the oldest idle or stale pending is closed. */
  maxConnections: number
  /** Plain HTTP connections at most, waiting ones included, briefly (a burst of fresh ones); past it a new one is answered 503. */
  maxConnectionBurst: number
  /** A connection's time to send its request head before it may be closed to make room, ms. */
  pendingGraceMs: number
  /** Page sockets (WebSockets) open at once; more are answered 503. */
  maxPageSockets: number
  /** Page sockets one client (one remote address) may have open at once; more are answered 503. */
  maxPageSocketsPerClient: number
  /** Plain connections of one client read at once; its others wait, unread, for one of them to end. */
  maxReadingPerClient: number
  /** Connections one client may hold at once, waiting ones included; more are answered 503. */
  maxConnectionsPerClient: number
  /** Bytes an answer may leave waiting on its socket before the connection's next request is handled. */
  pipelineBufferBytes: number
  /** A connection whose unsent answer has not moved for this long is closed, ms. */
  writeStallTimeoutMs: number
}

/** One remote address's connections. */
interface Client {
  readonly address: string
  /** Every connection of this client the registry holds. */
  held: number
  /** Its plain connections being read (pending, idle, active). */
  readonly reading: Set<Connection>
  /**
   * Its connections not read yet, newest last; the newest is read first (a flood's latest request is
   * the one its sender still waits for; the oldest time out). Those gone leave lazily (`unqueue`).
   */
  waiting: Connection[]
  /** How many of `waiting` still wait. */
  waitingCount: number
  /** Its page sockets. */
  pageSockets: number
}

interface Connection {
  readonly socket: Socket
  readonly client: Client
  state: ConnectionState
  /** In its client's `waiting` list, not read yet. */
  queued: boolean
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

/** Why a page socket was refused (`Connections.upgrade`): too many open, or too many of its client's. */
export type PageSocketRefusal = 'too-many' | 'too-many-of-client'

const PLAIN: ReadonlySet<ConnectionState> = new Set(['pending', 'idle', 'active'])
const READ: ReadonlySet<ConnectionState> = PLAIN

export class Connections {
  private readonly all = new Map<Socket, Connection>()
  private readonly clients = new Map<string, Client>()
  /** How many connections are in each state, kept as they move (no walk over thousands per accept). */
  private readonly counts: Record<ConnectionState, number> = {
    waiting: 0,
    pending: 0,
    idle: 0,
    active: 0,
    stream: 0,
    upgraded: 0,
  }
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
    return this.counts[state]
  }

  /** Whether `socket` is still waiting to be read (its client's share is being read). */
  isWaiting(socket: Socket): boolean {
    return this.all.get(socket)?.state === 'waiting'
  }

  /**
   * A new socket, accepted paused (see the head of this file): read now when its client has room, else
   * left waiting its turn; refused when its client, or everyone, holds too many.
   */
  accept(socket: Socket): void {
    const client = this.clientOf(socket.remoteAddress ?? '')
    const conn: Connection = {
      socket,
      client,
      state: 'waiting',
      queued: false,
      since: performance.now(),
      turns: [],
      busy: false,
      flushed: 0,
      stalledSince: undefined,
    }
    this.all.set(socket, conn)
    this.counts.waiting++
    client.held++
    socket.once('close', () => this.forget(conn))
    this.sweeper ??= setInterval(() => this.sweep(), sweepEveryMs(this.limits.writeStallTimeoutMs)).unref()
    if (client.held > this.limits.maxConnectionsPerClient) {
      return this.refuse(conn, 'refused-client-connection', 'refused a connection: its client holds too many', {
        limit: this.limits.maxConnectionsPerClient,
      })
    }
    if (client.reading.size < this.limits.maxReadingPerClient) return this.read(conn)
    client.waiting.push(conn)
    client.waitingCount++
    conn.queued = true
    this.log.once(
      'client-queued',
      'info',
      "a client's connections wait their turn: it opened more than are read at once",
      {
        limit: this.limits.maxReadingPerClient,
      },
    )
    this.makeRoomIn(client)
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

  /**
   * Room for one more page socket? When there is, the socket is counted as one (undefined); else why
   * not, and the caller refuses it.
   */
  upgrade(socket: Socket): PageSocketRefusal | undefined {
    const conn = this.all.get(socket)
    if (conn === undefined) return undefined
    if (this.counts.upgraded >= this.limits.maxPageSockets) return 'too-many'
    if (conn.client.pageSockets >= this.limits.maxPageSocketsPerClient) return 'too-many-of-client'
    this.enter(conn, 'upgraded')
    return undefined
  }

  /** Stops the sweep (the server is closing; the sockets are closed by the caller). */
  close(): void {
    if (this.sweeper) clearInterval(this.sweeper)
    this.sweeper = undefined
  }

  private clientOf(address: string): Client {
    let client = this.clients.get(address)
    if (client === undefined) {
      client = { address, held: 0, reading: new Set(), waiting: [], waitingCount: 0, pageSockets: 0 }
      this.clients.set(address, client)
    }
    return client
  }

  /** Starts reading a connection (its client has room): room made in the plain budget, or refused. */
  private read(conn: Connection): void {
    this.enter(conn, 'pending')
    conn.socket.resume()
    const plain = this.plainCount()
    const evicted = plain > this.limits.maxConnections && this.evictOldest(conn)
    if (!evicted && plain + this.counts.waiting > this.limits.maxConnectionBurst) {
      this.refuse(conn, 'refused-connection', 'refused a connection: every one is busy', {
        limit: this.limits.maxConnectionBurst,
      })
    }
  }

  /** The client's newest waiting connections are read, as many as its share has room for. */
  private readNext(client: Client): void {
    while (client.reading.size < this.limits.maxReadingPerClient && client.waitingCount > 0) {
      const conn = client.waiting.pop()
      if (conn === undefined) return
      if (this.unqueue(conn)) this.read(conn) // else gone meanwhile
    }
  }

  /**
   * A client with a connection waiting and its share full: its oldest idle keep-alive connection, or
   * oldest one read that has had `pendingGraceMs` and still not sent its head, is closed, so that its
   * newest is read (a client's silent or dribbling sockets never hold its own next request).
   */
  private makeRoomIn(client: Client): void {
    const stale = performance.now() - this.limits.pendingGraceMs
    let oldest: Connection | undefined
    for (const c of client.reading) {
      if (!(c.state === 'idle' || (c.state === 'pending' && c.since <= stale))) continue
      if (oldest === undefined || c.since < oldest.since) oldest = c
    }
    if (oldest !== undefined) this.closeForRoom(oldest)
  }

  /**
   * Takes a connection out of its client's waiting ones (false when it was not among them); the list
   * is compacted once mostly made of connections gone.
   */
  private unqueue(conn: Connection): boolean {
    if (!conn.queued) return false
    conn.queued = false
    const { client } = conn
    client.waitingCount--
    if (client.waiting.length > 64 && client.waiting.length > 2 * client.waitingCount) {
      client.waiting = client.waiting.filter((c) => c.queued)
    }
    return true
  }

  private enter(conn: Connection, state: ConnectionState): void {
    if (this.all.get(conn.socket) !== conn) return // gone: its answer closing late changes nothing
    this.unqueue(conn) // read after all (a refusal drains what it sent)
    const { client } = conn
    this.counts[conn.state]--
    this.counts[state]++
    if (conn.state === 'upgraded') client.pageSockets--
    if (state === 'upgraded') client.pageSockets++
    conn.state = state
    conn.since = performance.now()
    if (READ.has(state)) client.reading.add(conn)
    else if (client.reading.delete(conn)) this.readNext(client)
  }

  /** The connection is gone (closed, refused, evicted or dropped): its counts go, its client's next is read. */
  private forget(conn: Connection): void {
    if (this.all.get(conn.socket) !== conn) return
    this.all.delete(conn.socket)
    const { client } = conn
    this.counts[conn.state]--
    if (conn.state === 'upgraded') client.pageSockets--
    client.held--
    this.unqueue(conn)
    if (client.reading.delete(conn)) this.readNext(client)
    if (client.held === 0) this.clients.delete(client.address)
  }

  private plainCount(): number {
    return this.counts.pending + this.counts.idle + this.counts.active
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
    this.closeForRoom(oldest)
    return true
  }

  /** Closes an idle or slow connection to make room for a new one, logged once. */
  private closeForRoom(conn: Connection): void {
    this.log.once('evicted', 'info', 'closed the oldest idle or slow connection to make room for a new one', {
      state: conn.state,
      limit: this.limits.maxConnections,
    })
    // A pending peer may still read its answer; an idle one asked nothing (a keep-alive close is normal).
    if (conn.state === 'pending' && conn.socket.bytesWritten === 0 && conn.socket.writable) {
      conn.socket.write(rawBusyReply())
    }
    this.forget(conn)
    conn.socket.destroy()
  }

  /** Answers a connection 503 and lets it go, logged once per kind of refusal (`key`). */
  private refuse(conn: Connection, key: string, message: string, fields: Record<string, unknown>): void {
    this.log.once(key, 'warn', message, fields)
    this.forget(conn)
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
        this.forget(conn)
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

  /**
   * Closes plain connections whose unsent answer has not moved for `writeStallTimeoutMs`, and makes room
   * for a client whose connections wait while its share holds a stale one (`makeRoomIn`).
   */
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
    // A client's waiting connection arrived while its share was all fresh: room is made once one is stale.
    for (const client of this.clients.values()) if (client.waitingCount > 0) this.makeRoomIn(client)
    if (this.all.size === 0) this.close()
  }
}

/** The sweep runs a few times per stall time-out, at most once a second. */
function sweepEveryMs(stallMs: number): number {
  return Math.max(10, Math.min(1_000, Math.floor(stallMs / 4)))
}
