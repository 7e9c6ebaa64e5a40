/**
 * `GET /api/events`: Server-Sent Events from `DaemonApi.watchEvents()` (an extension of the pinned
 * remote API, read-only, for `panelbridge learn`). `event: surface` with a `SurfaceStateEvent` for
 * every surface at once and on every change, `event: input` with an `InputEvent` per control event,
 * `event: command` with a `CommandEvent` per command the bindings sent (secrets already replaced),
 * `event: selected` with a `SelectedEvent` per control chosen by find-by-pressing,
 * `: keep-alive` comments every `eventStreamHeartbeatMs`. At most `maxEventStreams` at once (503
 * beyond).
 *
 * A reader that keeps up keeps its stream, however many events come at once (issue 24, item 4: a
 * reader reading as fast as it could was dropped after 537 events of a 5,000-turn burst, as the burst
 * was written in one run of code and passed the cap before the socket could send any of it). Events go
 * straight to the socket until it stops taking them (its buffer full: it waits to drain); then they wait
 * here, turns on the same control summed into one, and go out together when it drains. Only a reader
 * really behind is dropped: more than `maxEventStreamBufferBytes` unread (the socket's buffer and what
 * waits here) when checked after the socket had its chance to drain (a turn of the loop with its I/O),
 * or more than `HARD_LIMIT_FACTOR` (`stream-reader.ts`) times that at any moment. It is sent a last
 * `event: dropped` saying why, then the response ends.
 *
 * The server has checked Host and token before a request gets here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '../log.js'
import type { DaemonApi, DaemonEvent, InputEvent } from './api.js'
import { allow, COMMON_HEADERS, HttpError } from './http.js'
import { StreamReader } from './stream-reader.js'

/** The last event of a stream dropped for falling behind (README, the remote API). */
const DROPPED_EVENT = 'dropped'

/** The event stream's bounds (part of `DaemonServerLimits`). */
export interface EventStreamLimits {
  /** Concurrent `GET /api/events` streams; more are answered 503. */
  maxEventStreams: number
  /**
   * Bytes an event stream may have waiting to be sent (its reader is slow or gone); past this the
   * stream is dropped rather than kept growing in memory.
   */
  maxEventStreamBufferBytes: number
  /** An event stream gets a comment line this often, ms, so that a vanished reader is noticed. */
  eventStreamHeartbeatMs: number
}

export interface EventStreamsOptions {
  api: DaemonApi
  limits: EventStreamLimits
  /** The server's logger: faults are logged once per server. */
  log: Logger
}

/** The open event streams of one server. */
export class EventStreams {
  /** Each open stream, with the function that stops it. */
  private readonly streams = new Map<ServerResponse, { reader: Reader; forget: () => void }>()
  private heartbeat: NodeJS.Timeout | undefined

  constructor(private readonly o: EventStreamsOptions) {}

  /** Answers `GET /api/events` (or HEAD: the headers alone); throws the refusal (404, 405, 503). */
  open(req: IncomingMessage, res: ServerResponse, head: boolean): void {
    const { api, limits, log } = this.o
    allow(req, ['GET', 'HEAD'])
    const watch = api.watchEvents?.bind(api)
    if (!watch) throw new HttpError(404, 'NOT_FOUND', 'this daemon offers no event stream')
    if (this.streams.size >= limits.maxEventStreams) {
      log.once('too-many-event-streams', 'warn', 'refused an event stream: too many open', {
        limit: limits.maxEventStreams,
      })
      throw new HttpError(503, 'TOO_MANY_STREAMS', `at most ${limits.maxEventStreams} event streams at once`)
    }
    res.writeHead(200, {
      ...COMMON_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      // A reverse proxy in front must pass events on as they come, not collect them.
      'x-accel-buffering': 'no',
    })
    if (head) {
      res.end()
      return
    }
    res.flushHeaders()
    const reader = new Reader(res, limits.maxEventStreamBufferBytes, () => {
      log.once('slow-event-stream', 'warn', 'dropped an event stream whose reader fell behind', {
        limitBytes: limits.maxEventStreamBufferBytes,
      })
      // Dropped during the snapshot, it is not followed yet: `follow` stops it.
      this.streams.get(res)?.forget()
    })
    const stop = watch((e) => reader.send(e))
    this.follow(res, reader, stop)
  }

  /** Ends every stream (the server is closing). */
  close(): void {
    for (const { forget } of [...this.streams.values()]) forget()
  }

  /** Keeps a stream until it closes, with the heartbeat running while any is open. */
  private follow(res: ServerResponse, reader: Reader, stop: () => void): void {
    // The snapshot alone may have overrun a reader that never reads.
    if (reader.finished || res.destroyed) return stop()
    const forget = (): void => {
      if (!this.streams.delete(res)) return
      stop()
      if (this.streams.size === 0 && this.heartbeat) {
        clearInterval(this.heartbeat)
        this.heartbeat = undefined
      }
    }
    this.streams.set(res, { reader, forget })
    res.once('close', forget)
    this.heartbeat ??= setInterval(() => {
      for (const { reader: r } of this.streams.values()) r.comment(': keep-alive\n\n')
    }, this.o.limits.eventStreamHeartbeatMs).unref()
  }
}

/** An event waiting for its reader's socket to drain: its text, or a turn still being summed. */
type Waiting = { text: string } | { turn: InputEvent }

/**
 * A turn's text may grow by this many bytes as turns are summed into it (the delta's digits): counted
 * up front, so that what waits is never under-counted.
 */
const TURN_SLACK_BYTES = 12

/** One reader of the stream: events straight to its socket, or waiting (turns summed) while it drains. */
class Reader extends StreamReader<Waiting> {
  /** The waiting turn of each control (`turnKey`), still summing; any other event closes them all. */
  private readonly turns = new Map<string, InputEvent>()

  send(e: DaemonEvent): void {
    this.deliver(
      () => format(e),
      () => this.queue(e),
    )
  }

  /** A comment line (the heartbeat): only to a socket that takes it now; one that waits is not idle. */
  comment(text: string): void {
    if (!this.finished && !this.res.destroyed && this.waiting.length === 0 && !this.res.writableNeedDrain) {
      this.res.write(text)
    }
  }

  private queue(e: DaemonEvent): void {
    if (e.type === 'input' && e.input.type === 'rotate' && e.input.delta !== undefined) {
      const key = turnKey(e.input)
      const open = this.turns.get(key)
      if (open) {
        open.delta = (open.delta ?? 0) + e.input.delta
        return
      }
      const turn = { ...e.input }
      this.turns.set(key, turn)
      this.waiting.push({ turn })
      this.waitingBytes += format(e).length + TURN_SLACK_BYTES
      return
    }
    // No turn is summed across another event: the order the reader sees stays the order things happened.
    this.turns.clear()
    const text = format(e)
    this.waiting.push({ text })
    this.waitingBytes += text.length
  }

  protected waitingText(): string {
    return this.waiting.map((w) => ('text' in w ? w.text : format({ type: 'input', input: w.turn }))).join('')
  }

  protected override clearWaiting(): void {
    super.clearWaiting()
    this.turns.clear()
  }

  protected droppedText(unread: number): string {
    const why = {
      reason: 'behind',
      message: `this reader fell behind: ${unread} bytes unread, over the limit of ${this.limit}; reconnect to follow again`,
      unreadBytes: unread,
      limitBytes: this.limit,
    }
    return `event: ${DROPPED_EVENT}\ndata: ${JSON.stringify(why)}\n\n`
  }
}

/** What turns must share to be summed: the surface, control, device and whether they were injected. */
function turnKey(e: InputEvent): string {
  return `${e.surface}\u0000${e.control}\u0000${e.device ?? ''}\u0000${e.injected === true ? 'api' : ''}`
}

/** An event as the stream sends it. */
function format(e: DaemonEvent): string {
  return `event: ${e.type}\ndata: ${JSON.stringify(payloadOf(e))}\n\n`
}

/** The JSON line of an event: the record its `type` names. */
function payloadOf(e: DaemonEvent): unknown {
  switch (e.type) {
    case 'surface':
      return e.surface
    case 'input':
      return e.input
    case 'command':
      return e.command
    case 'unclaimed':
      return e.unclaimed
    case 'unclaimed-input':
      return e.input
    case 'selected':
      return e.selected
  }
}
