/**
 * `GET /api/events`: Server-Sent Events from `DaemonApi.watchEvents()` (an extension of the pinned
 * remote API, read-only, for `panelbridge learn`). `event: surface` with a `SurfaceStateEvent` for
 * every surface at once and on every change, `event: input` with an `InputEvent` per control event,
 * `event: command` with a `CommandEvent` per command the bindings sent (secrets already replaced),
 * `: keep-alive` comments every `eventStreamHeartbeatMs`. At most `maxEventStreams` at once (503
 * beyond); a reader that lets more than `maxEventStreamBufferBytes` pile up is dropped.
 *
 * The server has checked Host and token before a request gets here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '../log.js'
import type { DaemonApi, DaemonEvent } from './api.js'
import { allow, COMMON_HEADERS, HttpError } from './http.js'

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
  private readonly streams = new Map<ServerResponse, () => void>()
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
    const stop = watch((e) => this.write(res, `event: ${e.type}\ndata: ${JSON.stringify(payloadOf(e))}\n\n`))
    this.follow(res, stop)
  }

  /** Ends every stream (the server is closing). */
  close(): void {
    for (const forget of [...this.streams.values()]) forget()
  }

  /** Keeps a stream until it closes, with the heartbeat running while any is open. */
  private follow(res: ServerResponse, stop: () => void): void {
    const forget = (): void => {
      this.streams.delete(res)
      stop()
      if (this.streams.size === 0 && this.heartbeat) {
        clearInterval(this.heartbeat)
        this.heartbeat = undefined
      }
    }
    this.streams.set(res, forget)
    // The snapshot alone may have overrun a reader that never reads.
    if (res.destroyed) return forget()
    res.once('close', forget)
    this.heartbeat ??= setInterval(() => {
      for (const r of this.streams.keys()) this.write(r, ': keep-alive\n\n')
    }, this.o.limits.eventStreamHeartbeatMs).unref()
  }

  /** Writes to a stream; a reader that lets too much pile up is dropped. */
  private write(res: ServerResponse, text: string): void {
    if (res.destroyed) return
    res.write(text)
    if (res.writableLength > this.o.limits.maxEventStreamBufferBytes) {
      this.o.log.once('slow-event-stream', 'warn', 'dropped an event stream whose reader fell behind', {
        limitBytes: this.o.limits.maxEventStreamBufferBytes,
      })
      res.destroy()
    }
  }
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
  }
}
