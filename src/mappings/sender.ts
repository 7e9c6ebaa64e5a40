/**
 * How the engine sends: through the command client, at most once (never retried, never queued: a
 * command that cannot be sent is reported at once), recording what every outcome implies of state the
 * application does not notify (`src/api/implied-state.ts`), and logging each failure in one line with
 * the application's own error text.
 */
import type { AppState } from '../api/app-state.js'
import type { CallOptions, CallResult } from '../api/client.js'
import { AppError, CommandError } from '../api/errors.js'
import { applyImpliedState } from '../api/implied-state.js'
import type { Logger } from '../log.js'

/** The part of the command client the engine uses (the daemon passes the real client). */
export interface CommandPort {
  callByName(name: string, params?: Record<string, unknown>, options?: CallOptions): Promise<CallResult>
}

export type SendResult =
  | { ok: true; reply: Readonly<Record<string, unknown>> }
  /** `message` is what a person should read: the application's error text, or what went wrong on the way. */
  | { ok: false; code: string; message: string }

/** What the sender reports for metrics: one call per command, with `ok` or the error code. */
export type SendObserver = (command: string, outcome: string) => void

export class Sender {
  constructor(
    private readonly client: CommandPort,
    private readonly state: AppState,
    private readonly log: Logger,
    private readonly observe?: SendObserver,
  ) {}

  /** Sends one command for `origin` (e.g. `console/key:0`, for the log line). Never throws. */
  async send(command: string, params: Record<string, unknown>, origin: string): Promise<SendResult> {
    try {
      const r = await this.client.callByName(command, params, { unlisted: true })
      applyImpliedState(this.state, command, params, { ok: true, reply: r.raw })
      this.observe?.(command, 'ok')
      return { ok: true, reply: r.raw }
    } catch (err) {
      const e = err instanceof CommandError ? err : new CommandError('NETWORK', command, String(err))
      const appMessage = e instanceof AppError ? e.appMessage : undefined
      applyImpliedState(this.state, command, params, { ok: false, ...(appMessage !== undefined ? { appMessage } : {}) })
      this.observe?.(command, e.code)
      const message = appMessage ?? shortReason(e)
      this.log.warn(`${origin}: ${command} failed: ${message}`, { control: origin, command, code: e.code })
      return { ok: false, code: e.code, message }
    }
  }
}

/** A few words for a key's detail line: what went wrong, without the command name the key already implies. */
const REASONS: Partial<Record<CommandError['code'], string>> = {
  CONNECTION_REFUSED: 'application not reachable',
  TIMEOUT: 'no reply in time',
  NETWORK: 'network error',
  ABORTED: 'cancelled',
}

function shortReason(e: CommandError): string {
  const known = REASONS[e.code]
  if (known !== undefined) return known
  return e.message.startsWith(`${e.command}: `) ? e.message.slice(e.command.length + 2) : e.message
}
