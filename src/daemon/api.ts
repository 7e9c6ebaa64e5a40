/**
 * What the daemon's HTTP server (remote API, status, metrics, web page) needs from the running daemon,
 * as interfaces: the server is built and tested against them, the daemon implements them.
 */
import type { ControlId, ControlKind } from '../face/control-id.js'
import type { SentCommand } from '../mappings/sender.js'
import type { ReplayStatus } from '../mappings/playhead.js'
import type { FamilyServiceStatus } from '../surfaces/driver-family.js'

/** `GET /api/status`. */
export interface DaemonStatus {
  version: string
  /** The config file in use (or `bundled default`). */
  config: string
  /** The built-in simulator stands in for the application (`app.simulate`). */
  simulated: boolean
  app: { state: 'connected' | 'stale'; since: string; error?: string }
  surfaces: {
    name: string
    driver: string
    state: 'open' | 'waiting' | 'failed' | 'permission-denied'
    model?: string
    device?: string
    page?: string
  }[]
  /**
   * The bindings' commands: `sent` and `failed` are the operator's (presses, turns, faders); `own` counts
   * apart what the engine sent on its own (the jog entering replay mode, polls, reads before a clip verb).
   */
  commands: { sent: number; failed: number; own?: { sent: number; failed: number } }
  /** The replay as panelbridge knows it (issue 43): its state, playhead, in and out points, clip length, speed (seconds). */
  replay?: ReplayStatus
  /**
   * Whether the config file on disk runs (an extension): `refused` when the last reload was refused or
   * failed and an older mapping runs on. Always set by the daemon; optional for other `DaemonApi`s.
   */
  configState?: ConfigStateStatus
  /**
   * Every application with its link (issue 27, an extension): the default one first as `app:`
   * alone names it (`main`), then the others of `apps:`. `app` above stays the default one's.
   */
  apps?: AppStatus[]
  /**
   * The recording (`run --record`, `record:`; an extension): `failed` when the file asked for could not
   * be opened or written, and the daemon runs on without it. Always set by the daemon.
   */
  recording?: RecordingStatus
  /**
   * The Companion Satellite server while the config's `satellite:` runs it (issue 44, an extension): the
   * ports it bound, the clients attached and the devices they added.
   */
  satellite?: FamilyServiceStatus
}

/** One application as `GET /api/status` lists it. */
export interface AppStatus {
  name: string
  /** Its HTTP URL (the simulator's when simulated). */
  url: string
  simulated: boolean
  default: boolean
  mirrorOf?: string
  link: { state: 'connected' | 'stale'; since: string; error?: string }
}

/** `GET /api/status`'s `recording`. */
export interface RecordingStatus {
  /** `off`: none asked for; `recording`; `failed`: asked for, but the file could not be opened or written. */
  state: 'off' | 'recording' | 'failed'
  /** The file asked for (absolute), unless `off`. */
  file?: string
  /** While `failed`: a sentence saying so (`not recording: cannot open FILE: permission denied (EACCES)`). */
  error?: string
}

/** `GET /api/status`'s `configState`: the file on disk against the mapping that runs. */
export interface ConfigStateStatus {
  /** `ok`: the file on disk runs; `refused`: it was refused (or failed to apply), an older mapping runs. */
  state: 'ok' | 'refused'
  /** When the mapping that runs was loaded (ISO time): at start, or its last good reload. */
  lastGoodLoad: string
  /** While `refused`: when, and the first problem (`file:line:col: message`). */
  refusedAt?: string
  error?: string
}

/** `GET /api/surfaces/{surface}/controls/{control}`: flat, absent fields left out, never the image. */
export interface ControlState {
  surface: string
  control: ControlId
  page: string | null
  label?: string
  color?: string
  textColor?: string
  badge?: string
  detail?: string
  value?: number
  led?: string
}

export type InjectKind = 'press' | 'down' | 'up' | 'rotate' | 'value'

/** Why an event could not be injected (the server maps it to 404 or 409). */
export type InjectRefusal =
  | { status: 404; code: 'UNKNOWN_SURFACE' | 'UNKNOWN_CONTROL'; message: string }
  | { status: 409; code: 'SURFACE_NOT_OPEN' | 'EVENT_NOT_TAKEN'; message: string }

/**
 * An injected event taken for rehearsal: the surface is waiting for its device (not plugged in) and takes
 * presses (`rehearse: true`, or `run --rehearse`). The reply says so: `{"ok":true,"rehearsal":true,...}`.
 */
export interface InjectRehearsal {
  rehearsal: true
  /** What the surface waits for (`Stream Deck XL`). */
  waitingFor: string
}

/** A line for the page's status strip. */
export interface RecentError {
  time: string
  message: string
  /** When the fault cleared (an extension: the link came back, the surface opened, a good reload). */
  cleared?: string
}

/**
 * A surface's state as `GET /api/events` sends it (`event: surface`): the surface manager's status.
 * `name` is the configured surface name; `device` the device identity behind it (serial number, else
 * `vendor:product@path`, or a MIDI port's name).
 */
export interface SurfaceStateEvent {
  name: string
  driver: string
  state: 'open' | 'closed' | 'failed' | 'permission-denied' | 'waiting'
  device?: string
  model?: string
  /** The fault, or which udev rule file to install. */
  message?: string
  /** For `failed`: when the next attempt happens, ms. */
  retryInMs?: number
}

/**
 * One control event as `GET /api/events` sends it (`event: input`): what the engine received, under
 * the configured surface name, with the device and driver behind it.
 */
export interface InputEvent {
  surface: string
  driver: string
  /** The device identity behind the surface (absent for a web surface). */
  device?: string
  /** Canonical control id (`key:3`, `note:1:60`, `cc:1:7`). */
  control: ControlId
  kind: ControlKind
  /** The panel's own name for the control where it numbers them apart (`key 7` on an X-keys). */
  label?: string
  type: 'down' | 'up' | 'rotate' | 'value'
  /** `down` of a velocity-sensitive control, 0..1. */
  velocity?: number
  /** `rotate`: signed steps, positive clockwise. */
  delta?: number
  /** `value`: normalised, 0..1 (or -1..1 for centred controls). */
  value?: number
  /** `value`: the device's own value, where it has one. */
  raw?: number
  /** The event was injected through the remote API (`POST .../press` etc.), not sent by a device. */
  injected?: true
}

/**
 * One command the bindings sent and its outcome, as `GET /api/events` sends it (`event: command`):
 * the sender's record (src/mappings/sender.ts), parameters with their secrets replaced by `***`.
 */
export type CommandEvent = SentCommand

/**
 * A device the daemon sees that no `surfaces:` entry claims, as `GET /api/events` sends it (`event:
 * unclaimed`, an extension for `panelbridge learn`; issue 26 item 2): a Stream Deck a page registered
 * (`driver: browser-deck`). Sent for each at once, when one comes (`present`) and when it goes or is
 * claimed (`gone`).
 */
export interface UnclaimedDeviceEvent {
  driver: string
  /** The device identity (serial number, else the page's number for it). */
  device: string
  model?: string
  state: 'present' | 'gone'
  /** The `surfaces:` entry that would claim it, without a name (`{ driver: browser-deck, model: plus, serial: X }`). */
  entry?: Record<string, string | number | boolean>
  /** Its presses come as `event: unclaimed-input` while a reader follows; false: the daemon does not see them. */
  presses: boolean
}

/** A control event of an unclaimed device (`event: unclaimed-input`): it reaches no binding. */
export interface UnclaimedInputEvent {
  driver: string
  device: string
  control: ControlId
  kind: ControlKind
  type: 'down' | 'up' | 'rotate'
  /** `rotate`: signed steps, positive clockwise. */
  delta?: number
}

/** What `GET /api/events` streams. */
export type DaemonEvent =
  | { type: 'surface'; surface: SurfaceStateEvent }
  | { type: 'input'; input: InputEvent }
  | { type: 'command'; command: CommandEvent }
  | { type: 'unclaimed'; unclaimed: UnclaimedDeviceEvent }
  | { type: 'unclaimed-input'; input: UnclaimedInputEvent }
  | { type: 'selected'; selected: SelectedEvent }

/**
 * A control chosen by pressing it while find-by-pressing is armed (`event: selected`, issue 42): the
 * press was taken for the editor and sent no command. `page` is the page the surface was on (null for a
 * surface without pages).
 */
export interface SelectedEvent {
  surface: string
  control: ControlId
  page: string | null
}

/** `GET /api/config` (issue 42): the mapping file, the hash of its bytes, and whether the editor may write it. */
export interface ConfigInfo {
  path: string
  /** SHA-256 of the file's bytes, hex. */
  hash: string
  writable: boolean
  /** Why not, when not writable (editing switched off, a read-only file, a symbolic link, …). */
  reason?: string
  /** Whether editing is switched on (`listen.edit`); off, the page shows no editor at all. */
  enabled: boolean
}

/** A parameter of a command as the editor's form shows it. */
export interface ParamChoice {
  name: string
  type: 'string' | 'number' | 'boolean' | 'string[]' | 'object'
  /** Its type as a mapping file writes it (`animateIn | cutin | …`, `number`). */
  typeText: string
  required: boolean
  values?: string[]
  note?: string
  /** What it names, for a picker: a title, a title id, a video input, a replay input. */
  names?: 'title' | 'title id' | 'video input' | 'replay input'
}

/** A command as the editor's picker lists it. */
export interface CommandChoice {
  name: string
  summary: string
  /** A press of it waits for a hold before it is sent. */
  confirm: boolean
  /** The parameters that, all left out, make it act on every target. */
  allWhenEmpty: string[]
  params: ParamChoice[]
}

/** Names to pick from: the live application's when it answered, else those the file already uses. */
export interface NameChoices {
  from: 'application' | 'file'
  names: string[]
}

/** `GET /api/config/choices` (issue 42 item 2): what the page's editor offers. */
export interface EditChoices {
  /** The catalogue, grouped and headed as the command reference. */
  groups: { group: string; title: string; commands: CommandChoice[] }[]
  names: { titles: NameChoices; videoInputs: NameChoices; replayInputs: NameChoices }
}

/** A control's binding as the editor reads it (`GET …/binding`). */
export interface BindingView {
  hash: string
  file: string
  line: number
  yaml: string
  /** The binding's YAML mapping as JSON, without `on` and `page`. */
  binding: Record<string, unknown>
  /** The binding is written where the editor cannot change it alone (a merge key, an alias): why. */
  readOnly?: string
}

/** Which binding: a control, and the page asked for (see `locateBinding`). */
export interface BindingAddress {
  surface: string
  control: ControlId
  page?: string
}

/**
 * Why an edit was refused; the server maps `status` to the answer. `hash` where the file's current hash
 * is to be shown (409, and 404 `NO_BINDING`); `problems` for 422.
 */
export interface EditRefusal {
  status: 403 | 404 | 409 | 422 | 500
  code:
    | 'EDIT_DISABLED'
    | 'NOT_EDITABLE'
    | 'NO_BINDING'
    | 'CONFIG_CHANGED'
    | 'CONFIG_REFUSED'
    | 'NOTHING_TO_UNDO'
    | 'RELOAD_FAILED'
  message: string
  hash?: string
  problems?: { path: string; message: string }[]
}

/** What the remote API edits the mapping file through (issue 42 item 6; `config-edit.ts`). */
export interface ConfigEditApi {
  info(): Promise<ConfigInfo>
  /** What the editor's form offers (read-only; the application asked only its listings). */
  choices(): Promise<EditChoices>
  read(at: BindingAddress): Promise<BindingView | EditRefusal>
  /** Resolves once the reload that follows the save has applied. */
  put(at: BindingAddress, hash: string, binding: unknown): Promise<{ hash: string } | EditRefusal>
  remove(at: BindingAddress, hash: string): Promise<{ hash: string } | EditRefusal>
  undo(hash: string): Promise<{ hash: string } | EditRefusal>
}

/** Find-by-pressing (issue 42 item 1; `find.ts`): arms the surfaces named (all without), or refuses. */
export interface FindApi {
  arm(surfaces?: readonly string[]): { armed: string[] | 'all'; timeoutMs: number } | InjectRefusal
  disarm(): void
}

export interface DaemonApi {
  status(): DaemonStatus
  /** The control's state, or why there is none (404 unknown surface or control). */
  controlState(surface: string, control: ControlId): ControlState | InjectRefusal
  /**
   * Injects an event as if the device sent it (`press` is down then up; `rotate` takes an integer
   * delta; `value` a normalised value; `down` its lease in ms, undefined for the default: the press is
   * cancelled when its `up` has not come by then). Resolves once the event is accepted; the commands
   * it causes run as the engine runs them.
   */
  inject(
    surface: string,
    control: ControlId,
    kind: InjectKind,
    arg?: number,
  ): InjectRefusal | InjectRehearsal | undefined
  /** The latest errors, newest first, for the status strip (a `cleared` one is no longer so). */
  recentErrors(): RecentError[]
  /**
   * Follows the surfaces (`GET /api/events`, an extension of the remote API): calls `listener` at once
   * with the state of every surface the daemon knows, then with every state change and every control
   * event, until the returned function is called. Read-only: nothing is taken from the daemon. A daemon
   * without it answers 404 there.
   */
  watchEvents?(listener: (event: DaemonEvent) => void): () => void
  /**
   * Follows the recording (`GET /api/record`, an extension): undefined when the daemon is not recording;
   * else the start line to send first and how to stop following, and `follower` is given every line the
   * recording makes from then on, and `end` once it stops. A daemon without it answers 404 there.
   */
  watchRecord?(follower: RecordFollower): RecordFollowing | undefined
  /** The mapping file's editor (`/api/config`, `…/binding`): a daemon without it answers 404 there. */
  readonly edit?: ConfigEditApi
  /** Find-by-pressing (`/api/find`): a daemon without it answers 404 there. */
  readonly findByPressing?: FindApi
}

/** A reader of the recording (`GET /api/record`). Called on the input path: it must not wait. */
export interface RecordFollower {
  /** One line of the recording, the file's text without its newline. */
  line(text: string): void
  /** The recording stopped; `why` is for the reader. */
  end(why: string): void
}

/** What following the recording gives. */
export interface RecordFollowing {
  /** A start line of the recording's format, as of now (`continued: true`, the pages now). */
  start: string
  stop(): void
}

/** What the daemon reports to the metrics (`GET /metrics`). */
export interface DaemonMetrics {
  /** A surface event reached the engine and a command request was handed to the client, ms later. */
  eventToRequest(ms: number): void
  /** A command's reply (or failure) came back, ms after sending; `outcome` is `ok` or the error code. */
  commandDone(command: string, outcome: string, ms: number): void
  /** A notification reached the store and its feedback was applied to the surfaces, ms later. */
  notificationToFeedback(ms: number): void
  /**
   * The latest input's press reached a step of its way to the light (`panelbridge_press_stage_seconds`):
   * the application heard from, the state updated, the look drawn, the face written. Called by the room
   * that owns the step, every time it happens; only the press's next step counts.
   */
  pressStep?(step: 'notified' | 'applied' | 'drawn' | 'written'): void
  reconnect(): void
  surfaceOpened(): void
  surfaceFailed(): void
  setOpenSurfaces(count: number): void
  /** The state of every surface the daemon knows now, one entry per surface (`open`, `failed`, `permission-denied`, …). */
  setSurfaceStates(states: Iterable<string>): void
  setLinkUp(up: boolean): void
  /** The config file on disk runs (`ok`) or was refused (`refused`); the mapping that runs was loaded at `lastGoodLoadMs` (epoch ms). */
  setConfigState(state: 'ok' | 'refused', lastGoodLoadMs: number): void
  /** The editor saved the mapping file (issue 42): a binding put or deleted, or a save undone. */
  configEdited?(kind: 'put' | 'delete' | 'undo'): void
  /** The recording's state (`off`, `recording`, `failed`). Optional: a daemon that cannot record needs none. */
  setRecording?(state: RecordingStatus['state']): void
  /** Issue 27, by application (optional: a daemon of one application needs none): its link up or not. */
  setAppLinkUp?(app: string, up: boolean): void
  /** A command sent to an application, `ok` or its error code. */
  appCommand?(app: string, outcome: string): void
  /** A binding's command failed: the operator's, or the engine's own (`own`; issue 43 item 6). */
  sentCommandFailed?(own: boolean): void
  /** A mirror began to diverge from its main: `command` (one side failed) or `state` (a title apart). */
  mirrorDiverged?(mirror: string, reason: 'command' | 'state'): void
}
