/**
 * `GET /api/record`: the recording's JSON lines (`run --record`, `record:`; `recorder.ts`) as they are
 * made, for a second machine to keep (an extension of the remote API, read-only, behind the token as
 * every `/api` route). `application/x-ndjson`: first a start line of the recording's format (`continued:
 * true`, the pages as they are now, so that what a reader keeps replays alone), then every line the
 * recording makes from then on, the same text as the file's. When the recording stops or the server
 * closes, a last line `{"kind":"end","reason":"stopped","message":...}` says which. A daemon that is not
 * recording answers 409 `NOT_RECORDING` (with why, when the recording asked for failed);
 * one that cannot record (another `DaemonApi`) 404.
 *
 * The input path never waits for a reader. A line goes straight to the socket until the socket stops
 * taking them; then it waits here, and all that waits goes out when the socket drains. A reader really
 * behind, more than `maxEventStreamBufferBytes` unread (the socket's buffer and what waits here) once the
 * socket had its chance to drain, or HARD_LIMIT_FACTOR times that at any moment, is dropped: its last
 * line `{"kind":"dropped","reason":"behind",...}` says why, then the response ends. The bounds are the
 * event stream's (`event-stream.ts`), and so is the budget of streams, counted apart: ASSUMED, a reader
 * of the recording is a reader of events like any other.
 *
 * The server has checked Host and token before a request gets here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '../log.js'
import type { DaemonApi } from './api.js'
import type { EventStreamLimits } from './event-stream.js'
import { allow, COMMON_HEADERS, HttpError } from './http.js'
import { StreamReader } from './stream-reader.js'

/** The `kind` of a recording stream's last line. */
export const RECORD_STREAM_KINDS = {
  /** The `kind` of the last line of a reader dropped for falling behind (README, the remote API). */
  dropped: 'dropped',
  /** The `kind` of the last line when the recording stops. */
  end: 'end',
} as const

export interface RecordStreamsOptions {
  api: DaemonApi
  limits: EventStreamLimits
  log: Logger
}

/** The open record streams of one server. */
export class RecordStreams {
  private readonly streams = new Map<ServerResponse, { reader: LineReader; forget: () => void }>()

  constructor(private readonly o: RecordStreamsOptions) {}

  /** Answers `GET /api/record` (or HEAD: the headers alone); throws the refusal (404, 405, 409, 503). */
  open(req: IncomingMessage, res: ServerResponse, head: boolean): void {
    const { api, limits, log } = this.o
    allow(req, ['GET', 'HEAD'])
    const watch = api.watchRecord?.bind(api)
    if (!watch) throw new HttpError(404, 'NOT_FOUND', 'this daemon offers no record stream')
    if (this.streams.size >= limits.maxEventStreams) {
      log.once('too-many-record-streams', 'warn', 'refused a record stream: too many open', {
        limit: limits.maxEventStreams,
      })
      throw new HttpError(503, 'TOO_MANY_STREAMS', `at most ${limits.maxEventStreams} record streams at once`)
    }
    const reader = new LineReader(res, limits.maxEventStreamBufferBytes, () => {
      log.once('slow-record-stream', 'warn', 'dropped a record stream whose reader fell behind', {
        limitBytes: limits.maxEventStreamBufferBytes,
      })
      this.streams.get(res)?.forget()
    })
    // Followed before the headers: whether the daemon records decides the answer. No line comes in between.
    const following = watch({ line: (text) => reader.send(text), end: (why) => reader.end(why) })
    if (!following) {
      // A recording asked for that failed says why (`recording stopped: cannot write FILE: the disk is full`).
      const recording = api.status().recording
      throw new HttpError(
        409,
        'NOT_RECORDING',
        recording?.state === 'failed' && recording.error
          ? recording.error
          : 'this daemon is not recording; start it with run --record FILE, or record: in the config',
      )
    }
    res.writeHead(200, {
      ...COMMON_HEADERS,
      'content-type': 'application/x-ndjson; charset=utf-8',
      // A reverse proxy in front must pass lines on as they come, not collect them.
      'x-accel-buffering': 'no',
    })
    if (head) {
      following.stop()
      res.end()
      return
    }
    res.flushHeaders()
    reader.send(following.start)
    if (reader.finished || res.destroyed) return following.stop()
    const forget = (): void => {
      if (this.streams.delete(res)) following.stop()
    }
    this.streams.set(res, { reader, forget })
    res.once('close', forget)
  }

  /** Ends every stream with a last line saying why (the server is closing). */
  close(): void {
    for (const { reader, forget } of [...this.streams.values()]) {
      reader.end('this server is closing (the daemon stops, or listen: changed); reconnect to follow again')
      forget()
    }
  }
}

/** One reader: lines straight to its socket, or waiting while it drains; dropped when really behind. */
class LineReader extends StreamReader<string> {
  send(line: string): void {
    const text = `${line}\n`
    this.deliver(
      () => text,
      () => {
        this.waiting.push(text)
        this.waitingBytes += text.length
      },
    )
  }

  /** The recording stopped: what waits goes, then the last line. */
  end(why: string): void {
    if (this.finished || this.res.destroyed) return
    this.finish(
      `${this.waiting.join('')}${JSON.stringify({ kind: RECORD_STREAM_KINDS.end, reason: 'stopped', message: why })}\n`,
    )
  }

  protected waitingText(): string {
    return this.waiting.join('')
  }

  protected droppedText(unread: number): string {
    const why = {
      kind: RECORD_STREAM_KINDS.dropped,
      reason: 'behind',
      message: `this reader fell behind: ${unread} bytes unread, over the limit of ${this.limit}; lines were lost, reconnect to follow again`,
      unreadBytes: unread,
      limitBytes: this.limit,
    }
    return `${JSON.stringify(why)}\n`
  }
}
