/**
 * `run --trace` (or `PANELBRIDGE_TRACE=1`): one line per command the bindings send, with its outcome,
 * for commissioning a show: which key sent what, with which parameters, and what came back how fast.
 *
 *     trace 14:02:11.482 console/key:0 schedule {"action":"automatic","title":"Lower Third"} ok 3.1 ms
 *     trace 14:02:12.907 console/jog replay_set_scrub_position {"position":0.2} APP_ERROR "bad request" 2.4 ms
 *
 * The lines are the daemon's command records (`DaemonOptions.onCommand`, the same as the `command`
 * event of `GET /api/events`), whose parameters have their secrets replaced already, from the first
 * command at start on; the line redacts its texts once more and is bounded (TRACE.maxParamsChars,
 * TRACE.maxMessageChars), so a hostile reply or a huge parameter cannot flood the terminal and no secret
 * reaches it.
 */
import { redactText } from '../redact.js'
import type { CommandEvent } from './api.js'

/** The command trace's switch and bounds. */
export const TRACE = {
  /** The parameters' JSON in a trace line is cut to this many characters. */
  maxParamsChars: 400,
  /** A failure's text in a trace line is cut to this many characters. */
  maxMessageChars: 200,
  /** The environment variable that turns the trace on as `--trace` does (`1`, `true` or `yes`). */
  env: 'PANELBRIDGE_TRACE',
} as const

/** Whether the trace is wanted: `--trace`, or TRACE.env set to 1, true or yes. */
export function traceWanted(flag: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env[TRACE.env]?.trim().toLowerCase()
  return flag || v === '1' || v === 'true' || v === 'yes'
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

/** `14:02:11.482`, local time. */
function clock(at: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0')
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${String(at.getMilliseconds()).padStart(3, '0')}`
}

/** One command as one trace line (no newline inside: every text is JSON-quoted or has none). */
export function formatTraceLine(e: CommandEvent, at: Date = new Date()): string {
  const params = cut(redactText(JSON.stringify(e.params)), TRACE.maxParamsChars)
  const why = e.message !== undefined ? ` ${JSON.stringify(cut(redactText(e.message), TRACE.maxMessageChars))}` : ''
  // Origin and command name come from the config: quoted when they hold a control character or a quote.
  return `trace ${clock(at)} ${word(e.origin)} ${word(e.command)} ${params} ${word(e.outcome)}${why} ${e.durationMs} ms`
}

/** A name as it stands (`streaming poll` too), or JSON-quoted when it has a control character or a quote. */
function word(text: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f"]/.test(text) ? JSON.stringify(text) : text
}

/** The daemon's `onCommand` for the trace: a line per command to `write` (stdout in `run`). */
export function traceTo(write: (text: string) => void): (e: CommandEvent) => void {
  return (e) => write(`${formatTraceLine(e)}\n`)
}
