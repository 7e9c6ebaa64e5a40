/**
 * How the engine sends: through the command client, at most once (never retried, never queued: a
 * command that cannot be sent is reported at once), recording what every outcome implies of state the
 * application does not notify (`src/api/implied-state.ts`). It is the one place where every command the
 * bindings send, and its outcome, is known:
 *
 * - every command is logged at debug with its outcome and duration (parameters redacted by the logger);
 * - every one is reported to the observer (`SendObserver`) as a `SentCommand`, parameters already
 *   redacted (src/redact.ts), for the metrics, `/api/events`' `command` event and `run --trace`;
 * - a failure is a warning, in one line with the application's own error text, except where it is no
 *   news: a command cancelled by panelbridge itself (the client closed at a stop or a change of
 *   application: `ABORTED`), a failure the behaviour expects (`SendOptions.expected`: the jog's "not in
 *   replay mode" before it enters replay mode), and the repeats of a repeating sender (`repeating`: the
 *   streaming poll), which warns once per outage and says once when it works again.
 */
import { performance } from 'node:perf_hooks'
import type { AppState } from '../api/app-state.js'
import type { CallOptions, CallResult } from '../api/client.js'
import { AppError, CommandError, NotSentError } from '../api/errors.js'
import { applyImpliedState } from '../api/implied-state.js'
import type { Logger } from '../log.js'
import { redact } from '../redact.js'
import { notePlayhead } from './playhead.js'

/** The part of the command client the engine uses (the daemon passes the real client). */
export interface CommandPort {
  callByName(name: string, params?: Record<string, unknown>, options?: CallOptions): Promise<CallResult>
}

export type SendFailure = { ok: false; code: string; message: string }

export type SendResult =
  | { ok: true; reply: Readonly<Record<string, unknown>> }
  /** `message` is what a person should read: the application's error text, or what went wrong on the way. */
  | SendFailure

/** How one send is logged. */
export interface SendOptions {
  /** A failure this returns true for is part of the behaviour's plan: logged at debug, not warned. */
  expected?: (failure: SendFailure) => boolean
  /**
   * The same command sent again and again from one origin (a poll): its failures are warned once per
   * outage (until one succeeds), and the first success after them is logged once.
   */
  repeating?: boolean
  /** The application of `apps:` a command action names (`app:`); the router sends by it (issue 27). */
  app?: string
  /**
   * The router sends to the mirrors only (the main has not answered the binding's previous press): each
   * mirror that has answered its own gets it; none free answers `BUSY` (`app-router.ts`).
   */
  mirrorsOnly?: boolean
  /**
   * The engine's own command, not the operator's (the jog entering replay mode, a poll, a read before a
   * clip verb): its failures are counted apart from the operator's (`/api/status`, `/metrics`).
   */
  own?: boolean
}

/** The code of a press not sent to an application still answering the binding's previous one. */
const BUSY = 'BUSY'

/** A press not sent because its application has not answered the binding's previous one (`mirrorsOnly`). */
export function busy(message: string): SendFailure {
  return { ok: false, code: BUSY, message }
}

/** Whether a result is `busy()`'s: nothing was sent, and nothing failed. */
export function isBusy(r: SendResult): boolean {
  return !r.ok && r.code === BUSY
}

/** One command sent and its outcome, as the observer sees it. */
export interface SentCommand {
  command: string
  /** The parameters sent, secrets replaced by `***` and bounded (src/redact.ts `redact`). */
  params: Record<string, unknown>
  /** Who sent it: `surface/control`, or `streaming poll`. */
  origin: string
  /** `ok`, or the error code (`APP_ERROR`, `TIMEOUT`, `CONNECTION_REFUSED`, ...). */
  outcome: string
  /** A failure's text for a person (the application's own words where it gave some; redacted). */
  message?: string
  /** From handing it to the client to its reply or failure, ms. */
  durationMs: number
  /** The application it went to, when the config has several (`apps:`); absent with `app:` alone. */
  app?: string
  /** The engine sent it on its own (`SendOptions.own`), not for an operator's command. */
  own?: true
}

/**
 * What the sender reports: one call per command, with `ok` or the error code, and the whole record.
 * (Two leading arguments for the metrics' counters, which need no more.)
 */
export type SendObserver = (command: string, outcome: string, sent: SentCommand) => void

export class Sender {
  /** Origins of repeating sends whose last attempt failed, with how many failed in a row. */
  private readonly outages = new Map<string, number>()

  constructor(
    private readonly client: CommandPort,
    private readonly state: AppState,
    private readonly log: Logger,
    private readonly observe?: SendObserver,
    /** Names the application in every record (set only when there are several). */
    private readonly app?: string,
  ) {}

  /** Sends one command for `origin` (e.g. `console/key:0`, for the log line). Never throws. */
  async send(
    command: string,
    params: Record<string, unknown>,
    origin: string,
    options: SendOptions = {},
  ): Promise<SendResult> {
    const started = performance.now()
    let result: SendResult
    try {
      const r = await this.client.callByName(command, params, { unlisted: true })
      applyImpliedState(this.state, command, params, { ok: true, reply: r.raw })
      notePlayhead(this.state, command, params, { ok: true, reply: r.raw })
      result = { ok: true, reply: r.raw }
    } catch (err) {
      const e = err instanceof CommandError ? err : new CommandError('NETWORK', command, String(err))
      const appMessage = e instanceof AppError ? e.appMessage : undefined
      applyImpliedState(this.state, command, params, { ok: false, ...(appMessage !== undefined ? { appMessage } : {}) })
      result = { ok: false, code: e.code, message: appMessage ?? shortReason(e) }
    }
    this.report(command, params, origin, options, result, performance.now() - started)
    return result
  }

  /** The log line (debug, or a warning when it is news) and the observer's record. */
  private report(
    command: string,
    params: Record<string, unknown>,
    origin: string,
    options: SendOptions,
    result: SendResult,
    ms: number,
  ): void {
    const durationMs = Math.round(ms * 10) / 10
    const outcome = result.ok ? 'ok' : result.code
    const on = this.app !== undefined ? { app: this.app } : {}
    const fields = { control: origin, command, params, outcome, durationMs, ...on }
    if (result.ok) {
      this.log.debug(`${origin}: ${command} ok (${durationMs} ms)`, fields)
      this.recovered(command, origin, options)
    } else if (this.isNews(result, origin, options)) {
      const where = this.app !== undefined ? ` on ${this.app}` : ''
      this.log.warn(
        `${origin}: ${command} failed${where}: ${result.message}${options.repeating ? REPEATING_NOTE : ''}`,
        {
          control: origin,
          command,
          code: result.code,
          ...on,
        },
      )
    } else {
      this.log.debug(`${origin}: ${command} failed: ${result.message} (${durationMs} ms)`, fields)
    }
    this.observe?.(command, outcome, {
      command,
      params: redact(params) as Record<string, unknown>,
      origin,
      outcome,
      ...(result.ok ? {} : { message: result.message }),
      durationMs,
      ...(this.app !== undefined ? { app: this.app } : {}),
      // A failure the behaviour expected (the jog's scrub refused before it enters replay mode) is part of
      // the engine's plan, not the operator's failure.
      ...(options.own === true || (!result.ok && options.expected?.(result) === true) ? { own: true as const } : {}),
    })
  }

  /** Whether a failure is worth a warning (and, for a repeating sender, counts it). */
  private isNews(failure: SendFailure, origin: string, options: SendOptions): boolean {
    // ABORTED is panelbridge's own doing (a stop, a change of application): nothing failed on air.
    if (failure.code === 'ABORTED') return false
    if (options.expected?.(failure) === true) return false
    if (!options.repeating) return true
    const before = this.outages.get(origin)
    this.outages.set(origin, (before ?? 0) + 1)
    return before === undefined
  }

  /** A repeating sender's success after an outage: said once. */
  private recovered(command: string, origin: string, options: SendOptions): void {
    if (!options.repeating) return
    const failures = this.outages.get(origin)
    if (failures === undefined) return
    this.outages.delete(origin)
    this.log.info(`${origin}: ${command} works again (after ${failures} failed)`, {
      control: origin,
      command,
      failures,
    })
  }
}

/** Said with a repeating sender's first failure: the next ones are quiet until it works again. */
const REPEATING_NOTE = ' (said once until it works again)'

/** A few words for a key's detail line: what went wrong, without the command name the key already implies. */
const REASONS: Partial<Record<CommandError['code'], string>> = {
  CONNECTION_REFUSED: 'application not reachable',
  TIMEOUT: 'no reply in time',
  NETWORK: 'network error',
  ABORTED: 'cancelled',
}

function shortReason(e: CommandError): string {
  // Dropped before it went out: the key says it was never sent, not that a reply was missed.
  if (e instanceof NotSentError) return e.reason === 'deadline' ? 'not sent in time' : 'not sent: connection lost'
  const known = REASONS[e.code]
  if (known !== undefined) return known
  return e.message.startsWith(`${e.command}: `) ? e.message.slice(e.command.length + 2) : e.message
}
