/**
 * Errors of the command client. Callers branch on `code`, never on message text.
 *
 * Messages never carry secrets: every text that may contain a query string or an application reply is
 * passed through `redactText` (a `streamKey=` parameter becomes `streamKey=***`).
 */
import { redactText } from '../redact.js'

/** Stable error codes of a command call. */
export const COMMAND_ERROR_CODES = [
  /** The application answered with an `error` field (even with `success: true`). */
  'APP_ERROR',
  /** No complete reply within the time-out. */
  'TIMEOUT',
  /** The application refused the connection (nothing listens on the port). */
  'CONNECTION_REFUSED',
  /** Any other network failure: reset, unreachable host, DNS, socket closed mid-reply. */
  'NETWORK',
  /** The application answered with an HTTP status other than 200. */
  'HTTP_STATUS',
  /** The body is not JSON. */
  'BAD_JSON',
  /** The JSON is not the expected envelope, names another command, or a field cannot be converted. */
  'BAD_ENVELOPE',
  /** `result.requestId` is present and differs from the id sent. */
  'REQUEST_ID_MISMATCH',
  /** The reply's body passed the client's size cap (`maxReplyBytes`); the rest was never read. */
  'REPLY_TOO_LARGE',
  /** The caller's AbortSignal fired, or the client was closed. */
  'ABORTED',
  /** The call was refused before sending: unknown command, unknown or missing parameter, wrong type. */
  'BAD_PARAMS',
] as const
export type CommandErrorCode = (typeof COMMAND_ERROR_CODES)[number]

/** Base class of every command-client error. */
export class CommandError extends Error {
  override readonly name: string = 'CommandError'
  /** Stable code to branch on. */
  readonly code: CommandErrorCode
  /** The command that failed. */
  readonly command: string
  /** The requestId the call carried, if it got that far. */
  readonly requestId: string | undefined

  constructor(
    code: CommandErrorCode,
    command: string,
    message: string,
    options: { cause?: unknown; requestId?: string } = {},
  ) {
    super(redactText(`${command}: ${message}`), options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.command = command
    this.requestId = options.requestId
  }
}

/** The application reported an `error` in its reply. `appMessage` is its text (redacted). */
export class AppError extends CommandError {
  override readonly name = 'AppError'
  readonly appMessage: string
  /** The full `result` object of the reply, for diagnostics. */
  readonly result: Readonly<Record<string, unknown>>
  constructor(command: string, appMessage: string, result: Record<string, unknown>, requestId?: string) {
    super('APP_ERROR', command, `application error: ${appMessage}`, requestId === undefined ? {} : { requestId })
    this.appMessage = redactText(appMessage)
    this.result = result
  }
}

export class TimeoutError extends CommandError {
  override readonly name = 'TimeoutError'
  constructor(
    command: string,
    readonly timeoutMs: number,
    options: { cause?: unknown; requestId?: string } = {},
  ) {
    super('TIMEOUT', command, `no reply within ${timeoutMs} ms`, options)
  }
}

/**
 * A command dropped before it went on the wire: the application did not take it within the send
 * deadline (its connections busy, a request queued behind a hung one), or the connection was lost
 * while it waited (the application restarting). Never sent later: a press replayed late is worse than a
 * press shown as failed. Code `TIMEOUT` for the deadline, `NETWORK` for the lost connection.
 */
export class NotSentError extends CommandError {
  override readonly name = 'NotSentError'
  constructor(
    command: string,
    readonly reason: 'deadline' | 'reconnect',
    deadlineMs: number,
    options: { cause?: unknown; requestId?: string } = {},
  ) {
    super(
      reason === 'deadline' ? 'TIMEOUT' : 'NETWORK',
      command,
      reason === 'deadline'
        ? `not sent within ${deadlineMs} ms (the application did not take it); dropped`
        : 'not sent: the connection to the application was lost while it waited; dropped',
      options,
    )
  }
}

export class HttpStatusError extends CommandError {
  override readonly name = 'HttpStatusError'
  /** The start of the body, redacted. */
  readonly bodySnippet: string
  constructor(
    command: string,
    readonly status: number,
    bodySnippet: string,
    requestId?: string,
  ) {
    super('HTTP_STATUS', command, `HTTP status ${status}`, requestId === undefined ? {} : { requestId })
    this.bodySnippet = redactText(bodySnippet)
  }
}

export class ReplyTooLargeError extends CommandError {
  override readonly name = 'ReplyTooLargeError'
  constructor(
    command: string,
    /** The cap, bytes. */
    readonly limitBytes: number,
    /** Body bytes received when the cap was passed (0 when a `content-length` header announced too many). */
    readonly receivedBytes: number,
    options: { requestId?: string; declaredBytes?: number } = {},
  ) {
    super(
      'REPLY_TOO_LARGE',
      command,
      options.declaredBytes === undefined
        ? `reply body passed ${limitBytes} bytes`
        : `reply body announced as ${options.declaredBytes} bytes, cap ${limitBytes}`,
      options.requestId === undefined ? {} : { requestId: options.requestId },
    )
  }
}

export class RequestIdMismatchError extends CommandError {
  override readonly name = 'RequestIdMismatchError'
  constructor(
    command: string,
    readonly sent: string,
    readonly received: string,
  ) {
    super('REQUEST_ID_MISMATCH', command, `reply carries requestId ${received}, sent ${sent}`, { requestId: sent })
  }
}

/** True for any command-client error; narrows `unknown` in catch blocks. */
export function isCommandError(err: unknown): err is CommandError {
  return err instanceof CommandError
}
