/**
 * What the page's status strip says, from the daemon's `/api/status` and `/api/errors` (no DOM here,
 * so Node tests read it as the page does):
 *
 * - the application link in plain words: `application: connected` or `application: not reachable`,
 *   and for a while after the link came back, `reconnected` beside it. The link's own error texts are
 *   put in words (`socket closed (1006)` is "not reachable", already said), the raw text kept for the
 *   tooltip;
 * - `config reloaded` for a while after a good reload, and `config refused: an older mapping runs`
 *   while the file on disk is refused (`configState`);
 * - why the daemon is not recording, while a recording it was asked for failed (`recording`);
 * - the latest errors that have not cleared (an error the daemon marks `cleared` is dropped);
 * - while the application is not connected and no simulator stands in for it, that panelbridge is waiting
 *   for it, at which URL, and how its command interface is reached (`WAITING_HELP`);
 * - while the replay is on, where its playhead is and its clip: in, out and length (`replay`, issue 43).
 *
 * The replies are read as untrusted JSON: only the fields shown are taken, each checked for its type.
 */

/** How often the strip asks for the daemon's status, ms. */
export const STATUS_POLL_MS = 2000
/** Errors shown, newest first. */
export const STRIP_MAX_ERRORS = 3
/** How long `reconnected` and `config reloaded` stay on the strip, ms. */
export const STRIP_NOTICE_MS = 15_000

/** The fields the strip reads from the two replies. */
export interface StripReading {
  link: 'connected' | 'stale'
  since: string
  error: string
  simulated: boolean
  /** The default application's URL (`app.url`, else the default entry of `apps`), when the status gives it. */
  url?: string
  config?: { state: 'ok' | 'refused'; lastGoodLoad: string; error: string }
  /** A recording asked for that failed: the daemon's sentence, and the file. */
  recordingFailed?: { error: string; file: string }
  errors: { time: string; message: string }[]
  /** The replay, while it is on (its state known and not off): times in seconds in the buffer, each when known. */
  replay?: StripReplay
}

/** The replay as the strip reads it from `/api/status`'s `replay`. */
export interface StripReplay {
  state: string
  position?: number
  in?: number
  out?: number
  /** The clip: out − in. */
  length?: number
  speed?: number
}

/** What the strip shows now, and what it remembers for the next reading. */
export interface StripView {
  reading: StripReading
  /** `application: …`. */
  linkText: string
  /** The link's error in words, when they add to `linkText`; its raw text is `linkTitle`. */
  linkDetail?: string
  linkTitle?: string
  /** `config refused: an older mapping runs`, while it is so. */
  refusedText?: string
  /** `recording stopped: …` or `not recording: …`, while a recording asked for has failed. */
  recordingText?: string
  /**
   * While the application is not connected and no simulator stands in for it: that panelbridge waits for
   * it, at which URL, and how its command interface is reached (`WAITING_HELP`).
   */
  waiting?: { text: string; help: readonly string[] }
  /** For a while after the event: `reconnected`, `config reloaded`. */
  notices: string[]
  errors: { time: string; message: string }[]
  /** `Replay ▶ 12.0 s  in 7.5  out 12.0  clip 4.5 s` while the replay is on; its state and speed are `replayTitle`. */
  replayText?: string
  replayTitle?: string
  /** Until when (epoch ms) each notice stays. */
  reconnectedUntil: number
  reloadedUntil: number
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

/** The default application's URL: `app.url` when the status has it, else the default entry of `apps`. */
function appUrl(s: Record<string, unknown>): string {
  const own = text(record(s.app).url)
  if (own !== '') return own.slice(0, MAX_URL_LENGTH)
  const apps = Array.isArray(s.apps) ? s.apps.slice(0, 16).map(record) : []
  return text(apps.find((a) => a.default === true)?.url).slice(0, MAX_URL_LENGTH)
}

/** Longest application URL shown. */
const MAX_URL_LENGTH = 200

/**
 * ASSUMED: the replay states that mean "off" (the simulator's `disabled`, and `off` should a daemon say so);
 * any other state the daemon names means the replay is on and the strip shows it.
 */
const REPLAY_OFF_STATES: readonly string[] = ['disabled', 'off']
/** Longest replay state name taken. */
const MAX_STATE_LENGTH = 40
/** Largest time or speed shown; beyond it (or not a finite number) the value is unknown. */
const MAX_REPLAY_VALUE = 1e7

/** A finite number of a sane size, else undefined. */
function replayNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= MAX_REPLAY_VALUE ? value : undefined
}

/** `/api/status`'s `replay` while it is on; undefined when it is off, unknown or not of its shape. */
function readReplay(value: unknown): StripReplay | undefined {
  const r = record(value)
  const state = text(r.state).slice(0, MAX_STATE_LENGTH)
  if (state === '' || REPLAY_OFF_STATES.includes(state)) return undefined
  const replay: StripReplay = { state }
  const fields = ['position', 'in', 'out', 'length', 'speed'] as const
  for (const field of fields) {
    const n = replayNumber(r[field])
    if (n !== undefined) replay[field] = n
  }
  // The daemon gives the length with both marks; an older or other reply may give the marks alone.
  if (replay.length === undefined && replay.in !== undefined && replay.out !== undefined) {
    replay.length = replay.out - replay.in
  }
  return replay
}

/** Seconds with one decimal, or `–` when not known. */
function seconds(value: number | undefined): string {
  if (value === undefined) return '–'
  const shown = value.toFixed(1)
  return shown === '-0.0' ? '0.0' : shown
}

/** The replay line: a play mark while it plays, a pause mark otherwise, then the playhead and the clip. */
export function replayLine(replay: StripReplay): string {
  const mark = replay.state === 'playback' ? '▶' : '‖'
  const length = replay.length === undefined ? '–' : `${seconds(replay.length)} s`
  const position = replay.position === undefined ? '–' : `${seconds(replay.position)} s`
  return `Replay ${mark} ${position}  in ${seconds(replay.in)}  out ${seconds(replay.out)}  clip ${length}`
}

/** The fields the strip shows, from the two replies; errors that have cleared are left out. */
export function readStrip(status: unknown, errors: unknown): StripReading {
  const s = record(status)
  const app = record(s.app)
  const cfg = record(s.configState)
  const list = record(errors).errors
  const url = appUrl(s)
  const reading: StripReading = {
    link: app.state === 'connected' ? 'connected' : 'stale',
    since: text(app.since),
    error: text(app.error),
    simulated: s.simulated === true,
    errors: (Array.isArray(list) ? list : [])
      .filter((e) => record(e).cleared === undefined)
      .slice(0, STRIP_MAX_ERRORS)
      .map((e) => ({ time: text(record(e).time), message: inWords(text(record(e).message)) })),
  }
  const rec = record(s.recording)
  if (rec.state === 'failed')
    reading.recordingFailed = { error: text(rec.error) || 'not recording', file: text(rec.file) }
  if (url !== '') reading.url = url
  const replay = readReplay(s.replay)
  if (replay) reading.replay = replay
  if (cfg.state === 'ok' || cfg.state === 'refused') {
    reading.config = { state: cfg.state, lastGoodLoad: text(cfg.lastGoodLoad), error: text(cfg.error) }
  }
  return reading
}

/**
 * The notification link's own texts (src/api/notifications.ts) in words. ASSUMED: a close with 1006
 * (no close frame: refused or dropped), 1005 or 1001 means the application is not there; a 1000 close
 * is the application ending the link. Other texts stand as they are.
 */
const LINK_WORDS: readonly [RegExp, string][] = [
  [/socket closed \((1001|1005|1006)\)/g, 'application not reachable'],
  [/socket closed \(1000\)/g, 'the application closed the link'],
  [/socket silent for \d+ ms/g, 'the application stopped answering'],
]
/** What `linkText` already says when the link is down. */
const NOT_REACHABLE = 'application not reachable'

/**
 * How the application's command interface is reached, as the application's own documentation gives it:
 * its HTTP port (9022 unless its `Generic HTML.httpPort` preference says otherwise), where that preference
 * lives, and that the application may not start properly when another program holds its port.
 */
export const WAITING_HELP: readonly string[] = [
  'Start NewBlue Captivate (or Titler Live) on that machine: its HTTP command interface answers there while it runs, on port 9022 unless its Generic HTML.httpPort preference names another port.',
  'That preference is set on Windows in the registry under HKCU\\SOFTWARE\\NewBlue\\Captivate, and on macOS with defaults in the com.newblue.captivate domain.',
  'Nothing else may hold that port: the application may then not start properly.',
  'If the application answers at another address or port, set app.url in panelbridge’s config file to it.',
]

/** A line with the link's texts put in words (`application link: socket closed (1006)` → `application link: application not reachable`). */
export function inWords(line: string): string {
  let out = line
  for (const [pattern, words] of LINK_WORDS) out = out.replace(pattern, words)
  return out.replace(/^application link: application not reachable$/, NOT_REACHABLE)
}

/** The strip's view of a reading, given the one before (undefined for the first) and the time now. */
export function viewStrip(reading: StripReading, before: StripView | undefined, now: number): StripView {
  const prev = before?.reading
  const cameBack =
    prev !== undefined && reading.link === 'connected' && (prev.link === 'stale' || prev.since !== reading.since)
  const reconnectedUntil = cameBack ? now + STRIP_NOTICE_MS : (before?.reconnectedUntil ?? 0)
  const reloaded =
    prev?.config !== undefined &&
    reading.config !== undefined &&
    prev.config.lastGoodLoad !== reading.config.lastGoodLoad
  const reloadedUntil = reloaded ? now + STRIP_NOTICE_MS : (before?.reloadedUntil ?? 0)
  const view: StripView = {
    reading,
    linkText: reading.link === 'connected' ? 'application: connected' : 'application: not reachable',
    notices: [],
    errors: reading.errors,
    reconnectedUntil: reading.link === 'connected' ? reconnectedUntil : 0,
    reloadedUntil,
  }
  if (reading.link !== 'connected' && reading.error) {
    const words = inWords(reading.error)
    if (words !== NOT_REACHABLE) view.linkDetail = words
    view.linkTitle = reading.error
  }
  if (reading.link !== 'connected' && !reading.simulated) {
    const at = reading.url ? ` at ${reading.url}` : ''
    view.waiting = { text: `Waiting for the application${at}`, help: WAITING_HELP }
  }
  if (reading.link === 'connected' && now < reconnectedUntil) view.notices.push('reconnected')
  if (reading.recordingFailed) view.recordingText = reading.recordingFailed.error
  if (reading.replay) {
    view.replayText = replayLine(reading.replay)
    const speed = reading.replay.speed === undefined ? '' : `, speed ${reading.replay.speed}`
    view.replayTitle = `replay: ${reading.replay.state}${speed}; times in seconds in the replay buffer`
  }
  if (reading.config?.state === 'refused') view.refusedText = 'config refused: an older mapping runs'
  else if (now < reloadedUntil) view.notices.push('config reloaded')
  return view
}
