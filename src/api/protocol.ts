/**
 * The application's protocol vocabulary that is not a command entry: ports, play states, replay
 * states, file extensions, notification event names and the QWebChannel object names.
 *
 * Everything marked ASSUMED is a choice from `shared/spec/decisions.md` where the contract and the
 * protocol notes leave room. Each lives here once, so that checking it against a live application
 * corrects it in one line. Per-command parameter names that are assumed live in the command
 * catalogue (`commands.ts`), marked `assumed: true` on the entry.
 */

/** The real application's default ports. */
export const APP_DEFAULT_PORTS = {
  /** HTTP command interface (protocol notes 1.1). */
  http: 9022,
  /** QWebChannel WebSocket (protocol notes 1.2). */
  ws: 9023,
} as const

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

/** The simulator's assumed defaults (decisions). */
export const SIM_ASSUMED_DEFAULTS = {
  /** ASSUMED: default in-animation / out-animation length of a simulated title, in ms. */
  animationMs: 1000,
  /** ASSUMED: default replay buffer length, seconds. All replay times are seconds. */
  replayBufferSeconds: 20,
} as const

/** Instant-replay states as the simulator models them (decisions: Replay states). ASSUMED names. */
export const REPLAY_STATES = ['disabled', 'armed', 'recording', 'replay', 'playback'] as const
export type ReplayState = (typeof REPLAY_STATES)[number]

/** File extensions. `.nbtitle` is seen in the vendor's docs; the others are ASSUMED (decisions). */
export const FILE_EXTENSIONS = {
  title: '.nbtitle',
  layerList: '.nblist',
  project: '.nbproj',
  package: '.zip',
} as const

/** Notification senders' events (protocol notes 2.2). */
export const SENDER_EVENTS = {
  /** The event types a panelbridge sender subscribes to. */
  subscribed: ['play', 'data', 'control'],
  /** The default sender's events as the real application lists them. */
  defaultSender: 'play,control,data,play-data',
} as const

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

/** The QWebChannel scheduler: the one object every client uses, its signals and keys. */
export const SCHEDULER_CHANNEL = {
  /** The object's name (protocol notes 1.3). */
  object: 'scheduler',
  /** Its notification signal (protocol notes 2.1). */
  notifySignal: 'onNotify',
  /**
   * Scheduler signals that say something changed without saying what (protocol notes 2.1 [docs D-sig,
   * code S1]). Each is connected when the init reply lists it; each re-reads the titles.
   */
  changeSignals: ['_cmp_v1_handleFeedbackChangeEvent', 'variablesChanged', 'messageIn'],
  /** The layer play states' key: `{<title id>: {playState: 'running'|'paused'}}` (protocol notes 2.4 [code S1]). */
  layerStateKey: 'newblue.automation.layerstate',
  /** How panelbridge announces itself with `notifyClientConnected` (protocol notes 1.3). */
  clientAppId: 'com.panelbridge.daemon',
} as const

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
