/**
 * The application's protocol vocabulary that is not a command entry: ports, play states, replay
 * states, file extensions, notification event names and the QWebChannel object names.
 *
 * Everything marked ASSUMED is a choice from `shared/spec/decisions.md` where the contract and the
 * protocol notes leave room. Each lives here once, so that checking it against a live application
 * corrects it in one line. Per-command parameter names that are assumed live in the command
 * catalogue (`commands.ts`), marked `assumed: true` on the entry.
 */

/** Default HTTP command-interface port of the real application (protocol notes 1.1). */
export const DEFAULT_HTTP_PORT = 9022
/** Default QWebChannel WebSocket port of the real application (protocol notes 1.2). */
export const DEFAULT_WS_PORT = 9023

/** Title play states seen in the real application (protocol notes 2.4; decisions: Title play state). */
export const PLAY_STATES = ['Off', 'Running', 'Paused'] as const
export type PlayState = (typeof PLAY_STATES)[number]
/** `Running` and `Paused` both mean the title is on air. */
export function isOnAir(state: PlayState): boolean {
  return state === 'Running' || state === 'Paused'
}
/**
 * Normalises a play-state string from the application. The real application has been seen to use
 * `Running`/`Paused`/`Off`, lowercase `running`/`paused` (layer state), `Rendering` (OvrStream) and
 * `Done` (placeholder). Unknown strings return undefined so the caller can ignore them.
 */
export function parsePlayState(raw: unknown): PlayState | undefined {
  if (typeof raw !== 'string') return undefined
  switch (raw.trim().toLowerCase()) {
    case 'off':
    case 'done':
      return 'Off'
    case 'running':
    case 'rendering':
      return 'Running'
    case 'paused':
      return 'Paused'
    default:
      return undefined
  }
}

/** `schedule` actions (protocol notes 4.1). */
export const SCHEDULE_ACTIONS = [
  'animateIn',
  'animateOut',
  'alert',
  'cutin',
  'cutout',
  'render',
  'update',
  'still',
  'automatic',
] as const
export type ScheduleAction = (typeof SCHEDULE_ACTIONS)[number]

/** ASSUMED: default in-animation / out-animation length of a simulated title, in ms (decisions). */
export const SIM_DEFAULT_ANIMATION_MS = 1000

/** Instant-replay states as the simulator models them (decisions: Replay states). ASSUMED names. */
export const REPLAY_STATES = ['disabled', 'armed', 'recording', 'replay', 'playback'] as const
export type ReplayState = (typeof REPLAY_STATES)[number]
/** ASSUMED: default replay buffer length, seconds (decisions). All replay times are seconds. */
export const REPLAY_DEFAULT_BUFFER_SECONDS = 20

/** File extensions. `.nbtitle` is seen in the vendor's docs; the others are ASSUMED (decisions). */
export const FILE_EXTENSIONS = {
  title: '.nbtitle',
  layerList: '.nblist',
  project: '.nbproj',
  package: '.zip',
} as const

/** Notification event types a panelbridge sender subscribes to (protocol notes 2.2). */
export const NOTIFICATION_EVENTS = ['play', 'data', 'control'] as const
/** The default sender's events as the real application lists them (protocol notes 2.2). */
export const DEFAULT_SENDER_EVENTS = 'play,control,data,play-data'

/** QWebChannel message types (Qt's qwebchannel.js `QWebChannelMessageTypes`; protocol notes 1.3). */
export const QWC_MESSAGE = {
  signal: 1,
  propertyUpdate: 2,
  init: 3,
  idle: 4,
  debug: 5,
  invokeMethod: 6,
  connectToSignal: 7,
  disconnectFromSignal: 8,
  setProperty: 9,
  response: 10,
} as const

/** QWebChannel: the one object every client uses, and its notification signal (protocol notes 1.3, 2.1). */
export const QWC_SCHEDULER_OBJECT = 'scheduler'
export const QWC_NOTIFY_SIGNAL = 'onNotify'
/** How panelbridge announces itself with `notifyClientConnected` (protocol notes 1.3). */
export const CLIENT_APP_ID = 'com.panelbridge.daemon'

/** Error strings the application answers with (contract: Errors; decisions: Errors). */
export const APP_ERRORS = {
  timelineNoTitle: "unable to find title from 'title' or 'id' attributes",
  selectTitleNoName: 'No such title name',
  setTitleNameNoTitle: 'no title found.',
  videoInIconMissing: 'missing width or height or video attributes',
  unknownCommand: 'unknown command',
  invalidParams: 'invalid params',
  unsubscribeDefault: 'cannot do an unsubscribe with the default notification sender',
  /** ASSUMED text for a command sent in a state where it cannot act (decisions: Errors). */
  badRequest: 'bad request',
} as const

/**
 * A refusal with its reason, as the simulator answers one: `bad request: <reason>` (the reasons are
 * src/app-kit/simulator/refusals.ts's, ASSUMED).
 */
export function refusalText(reason: string): string {
  return `${APP_ERRORS.badRequest}: ${reason}`
}

/** Whether an application error is a refusal in the current state: `bad request`, bare or with its reason. */
export function isRefusal(appMessage: string | undefined): boolean {
  return appMessage === APP_ERRORS.badRequest || (appMessage?.startsWith(`${APP_ERRORS.badRequest}: `) ?? false)
}
