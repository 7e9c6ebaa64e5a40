/**
 * The command catalogue: one typed entry per command of the application's HTTP command interface.
 *
 * Sources: the 58 commands of `shared/spec/command-interface.md` (the contract) and the few commands a
 * control panel needs from `shared/spec/protocol-notes.md` (`schedule`, `getTitleControlInfo`, `readTitle`,
 * `getPlayStatus`, `getTitlesPlayStatus`, `getInputsPlayStatus`).
 *
 * Every name or shape the contract leaves open is settled by `shared/spec/decisions.md` and marked
 * `assumed: true` here, with a note. This file is the only place such a choice is written down, so that
 * checking it against a live application corrects it in one line.
 *
 * The catalogue is a const object; mapped types derive each command's parameter and reply types from it,
 * so `client.call('replay_set_scrub_position', { position: 3.2 })` is checked on both sides.
 */
import { SCHEDULE_ACTIONS } from './protocol.js'

// ---------------------------------------------------------------------------------------------------
// Spec types

/** Type of a parameter as the caller passes it. */
export type ParamType = 'string' | 'number' | 'boolean' | 'string[]' | 'object'

/**
 * How a parameter is written into a GET query (and into a POST body):
 * - `text`: strings and numbers as their text (the default for `string` and `number`);
 * - `flag`: a boolean as `'1'` / `'0'` — the application's flags (`merge=1`, `verbose=1`, ...);
 * - `word`: a boolean as `'true'` / `'false'`;
 * - `csv`: a string array as comma-separated values (the default for `string[]`);
 * - `json`: an object as JSON text (the default for `object`).
 */
export type GetEncoding = 'text' | 'flag' | 'word' | 'csv' | 'json'

export interface ParamSpec<T extends ParamType = ParamType, R extends boolean = boolean> {
  readonly type: T
  readonly required: R
  readonly encoding: GetEncoding
  /** Allowed values of a string parameter (runtime check and literal type). */
  readonly values?: readonly string[]
  /** The name or encoding was not seen in the contract or the notes: chosen in decisions.md. */
  readonly assumed?: boolean
  readonly note?: string
  /**
   * `variables`: in the POST transport this parameter is sent as the body's top-level `variables`
   * member, not inside `parameters` (protocol notes 1.1: variables travel beside the parameters).
   */
  readonly body?: 'variables'
}

/** Type of a scalar reply field after conversion. `flag` is the string `'0'` or `'1'`. */
export type ScalarType = 'string' | 'number' | 'integer' | 'boolean' | 'flag'
export type FieldType = ScalarType | 'array' | 'object'

/** A reply field. Arrays may name their item type; objects may name their fields. */
export interface FieldSpec<T extends FieldType = FieldType, O extends boolean = boolean> {
  readonly type: T
  /** A missing optional field is not an error; a missing required one is `BAD_ENVELOPE`. */
  readonly optional: O
  readonly items?: ScalarType | Shape
  readonly fields?: Shape
  /**
   * The application echoes this string from the query without form-decoding it (`New+Title`), so the
   * client turns `+` into spaces (protocol notes 5.2).
   */
  readonly formEncoded?: boolean
  readonly assumed?: boolean
  readonly note?: string
}
export type Shape = Readonly<Record<string, FieldSpec>>

/** `unlisted`: not in the catalogue, a command the application has and panelbridge does not know (sent as written). */
export type CommandGroup =
  'title' | 'videoIn' | 'output' | 'replay' | 'project' | 'notification' | 'playout' | 'unlisted'

export interface CommandSpec {
  readonly group: CommandGroup
  /**
   * `contract`: one of the contract's 58 commands; `notes`: seen in the real application (protocol
   * notes); `unlisted`: built at run time for a command the catalogue lacks (`codec.unlistedSpec`).
   */
  readonly source: 'contract' | 'notes' | 'unlisted'
  readonly summary: string
  readonly params: Readonly<Record<string, ParamSpec>>
  readonly reply: Shape
  /** The contract shows this command's reply as a bare `{}`: that is a valid, successful reply. */
  readonly emptyReplyAllowed?: boolean
  /**
   * The parameters that select what the command acts on, when leaving them all out (or empty) makes the
   * application act on **everything** (every title, for `schedule`). A binding that sends it without
   * them must say so on purpose (`all: true`, checked by the loader).
   */
  readonly allWhenEmpty?: readonly string[]
  /** The reply's `command` / `reply` carry this name instead of the command's own (contract: removeTitleInput). */
  readonly replyAlias?: string
  /** Some of this entry (params or reply shape) is an assumption from decisions.md; see `note`. */
  readonly assumed?: boolean
  readonly note?: string
}

// ---------------------------------------------------------------------------------------------------
// Small builders: they keep the table below readable and keep literal types for the mapped types.

type ParamOptions = Partial<Pick<ParamSpec, 'encoding' | 'assumed' | 'note' | 'body'>>
type FieldOptions = Pick<FieldSpec, 'formEncoded' | 'assumed' | 'note'>

const DEFAULT_ENCODING: Record<ParamType, GetEncoding> = {
  string: 'text',
  number: 'text',
  boolean: 'flag',
  'string[]': 'csv',
  object: 'json',
}

/** An optional parameter. */
function opt<T extends ParamType>(type: T, o: ParamOptions = {}): ParamSpec<T, false> {
  return { type, required: false, ...o, encoding: o.encoding ?? DEFAULT_ENCODING[type] }
}
/** A required parameter. */
function req<T extends ParamType>(type: T, o: ParamOptions = {}): ParamSpec<T, true> {
  return { type, required: true, ...o, encoding: o.encoding ?? DEFAULT_ENCODING[type] }
}
/** A string parameter restricted to a list of values. */
function oneOf<const V extends readonly string[], R extends boolean>(
  values: V,
  required: R,
): Omit<ParamSpec<'string', R>, 'values'> & { readonly values: V } {
  return { type: 'string', required, encoding: 'text', values }
}

/** A required reply field. */
function f<T extends ScalarType | 'array' | 'object'>(type: T, o: FieldOptions = {}): FieldSpec<T, false> {
  return { type, optional: false, ...o }
}
/** An optional reply field; every "not shown" shape is optional so that a real reply never fails on it. */
function maybe<T extends ScalarType | 'array' | 'object'>(type: T, o: FieldOptions = {}): FieldSpec<T, true> {
  return { type, optional: true, ...o }
}
/** A required array field with typed items. */
function arrayOf<const I extends ScalarType | Shape>(
  items: I,
  o: FieldOptions = {},
): Omit<FieldSpec<'array', false>, 'items'> & { readonly items: I } {
  return { type: 'array', optional: false, items, ...o }
}
/** An optional array field with typed items. */
function maybeArrayOf<const I extends ScalarType | Shape>(
  items: I,
  o: FieldOptions = {},
): Omit<FieldSpec<'array', true>, 'items'> & { readonly items: I } {
  return { type: 'array', optional: true, items, ...o }
}
/** A required object field with typed fields. */
function objectOf<const S extends Shape>(
  fields: S,
  o: FieldOptions = {},
): Omit<FieldSpec<'object', false>, 'fields'> & { readonly fields: S } {
  return { type: 'object', optional: false, fields, ...o }
}

/** Keeps the literal types of the table while checking every entry against `CommandSpec`. */
function defineCatalogue<const C extends Record<string, CommandSpec>>(catalogue: C): C {
  return catalogue
}

// ---------------------------------------------------------------------------------------------------
// Shared pieces

/** Title selection: `id` (UUID, braced) or `title` (name or UUID). */
const TITLE_SELECT = { id: opt('string'), title: opt('string') }
/** New-title parameters shared by newTitle, loadTitle and duplicateTitle. */
const NEW_TITLE = { newId: opt('string'), newName: opt('string'), newPosition: opt('number'), channel: opt('number') }

/** Item of `videoIns` in getVideoInInfo (contract: Video input). */
const VIDEO_IN = {
  add: maybe('flag'),
  audio: maybe('flag'),
  config: maybe('string'),
  name: maybe('string'),
  setup: maybe('flag'),
  type: maybe('string'),
  video: maybe('flag'),
} as const

/** Reply of getVideoFormat and setVideoFormat: all strings in the contract; `interlaced` is '0' when progressive. */
const VIDEO_FORMAT = {
  frameRate: f('string'),
  height: f('string'),
  interlaced: f('flag'),
  width: f('string'),
} as const

/** Item of `recentProjects` (contract: Recent project). */
const RECENT_PROJECT = {
  creationDate: maybe('string'),
  modifiedDate: maybe('string'),
  extension: maybe('string'),
  filename: maybe('string'),
  name: maybe('string'),
  filesize: maybe('integer'),
  notes: maybe('string'),
  tags: maybe('array', { assumed: true, note: 'tag properties: not shown' }),
  thumbnailData: maybe('string'),
  thumbnailUri: maybe('string'),
  uri: maybe('string'),
} as const

/** Object `settings` of replay_get_settings (contract: Replay settings). */
const REPLAY_SETTINGS = {
  armedPortList: maybe('array', { assumed: true, note: 'input descriptor properties: not shown' }),
  bufferLength: maybe('number', { note: 'seconds (assumed unit)' }),
  muteGraphicsOnReplay: maybe('boolean'),
  playSpeed: maybe('number'),
  transIn: maybe('string'),
  transOut: maybe('string'),
  usesExternalSwitcher: maybe('boolean'),
} as const

/** Item of `senders` in getSubscriptions (contract: Subscription sender). */
const SENDER = {
  name: maybe('string'),
  id: maybe('string'),
  input: maybe('string'),
  events: maybe('string'),
  is_default: maybe('flag'),
} as const

/** Subscription parameters: comma-separated strings where '' or 'all' means all (contract). */
const SUBSCRIPTION = { sender: opt('string'), id: opt('string'), input: opt('string'), events: opt('string') }

const ASSUMED_REPLY = "reply fields beyond the envelope: not in the application's documentation; assumed shape"
const ASSUMED_POSITION = 'param name `position` (seconds in the buffer) assumed'
const ASSUMED_SPEED = 'param name `speed` assumed: 1 normal, 0.5 half, negative reverse'

/**
 * What each `schedule` action does, for whoever meets the list (`panelbridge commands schedule`, the
 * command reference, `check`'s message for an action it does not know). The names are the
 * application's (protocol notes 4.1), which say what `update`, `still` and `automatic` do; the play
 * actions follow decisions.md (Title play state); `alert` is the simulator's model (in, hold, out).
 */
export const SCHEDULE_ACTION_WORDS: Readonly<Record<(typeof SCHEDULE_ACTIONS)[number], string>> = {
  animateIn: 'plays the in-animation, then the title holds on air',
  animateOut: 'plays the out-animation, then the title is off',
  alert: 'plays the title as an alert: in, a moment on air, out again',
  cutin: 'on air at once, no animation',
  cutout: 'off at once, no animation',
  render: 'renders the title with the variables given (not documented further)',
  update: "sets the variables given, with the title's update animation",
  still: 'sets the variables given at once, no animation',
  automatic: "in when the title is off, out when it is on air (a 'go' key)",
}
const SCHEDULE_ACTION_NOTE = SCHEDULE_ACTIONS.map((a) => `${a}: ${SCHEDULE_ACTION_WORDS[a]}`).join('; ')

// ---------------------------------------------------------------------------------------------------
// The catalogue

export const COMMANDS = defineCatalogue({
  // ---- Title commands (contract: 13)
  closeDesigner: { group: 'title', source: 'contract', summary: 'Closes the title designer.', params: {}, reply: {} },
  deleteTitle: {
    group: 'title',
    source: 'contract',
    summary: 'Deletes a title.',
    params: TITLE_SELECT,
    reply: { id: f('string') },
  },
  duplicateTitle: {
    group: 'title',
    source: 'contract',
    summary: 'Copies a title.',
    params: { ...TITLE_SELECT, ...NEW_TITLE },
    reply: { id: f('string'), title: f('string', { formEncoded: true, note: 'echoed form-encoded, as `New+Title`' }) },
  },
  getTimelineDuration: {
    group: 'title',
    source: 'contract',
    summary: "Duration of the title's graphic timeline.",
    params: TITLE_SELECT,
    reply: {
      id: maybe('string', { assumed: true }),
      duration: maybe('number', { assumed: true, note: 'seconds; ' + ASSUMED_REPLY }),
    },
    assumed: true,
    note: ASSUMED_REPLY,
  },
  loadTitle: {
    group: 'title',
    source: 'contract',
    summary: 'Loads a title from a title file.',
    params: { file: req('string'), ...NEW_TITLE },
    reply: {},
  },
  newTitle: { group: 'title', source: 'contract', summary: 'Creates a title.', params: NEW_TITLE, reply: {} },
  openDesigner: {
    group: 'title',
    source: 'contract',
    summary: 'Opens the title designer on a title.',
    params: TITLE_SELECT,
    reply: { id: f('string') },
  },
  saveTitle: {
    group: 'title',
    source: 'contract',
    summary: 'Saves a title to a title file.',
    params: { ...TITLE_SELECT, file: opt('string'), channel: opt('number') },
    reply: { id: f('string') },
  },
  selectTitle: {
    group: 'title',
    source: 'contract',
    summary: 'Selects a title, as a click in the UI.',
    params: { title: opt('string') },
    reply: {},
  },
  setTitleInput: {
    group: 'title',
    source: 'contract',
    summary: 'Assigns a video input to a title; merge combines it with the inputs it has.',
    params: { ...TITLE_SELECT, input: opt('string'), merge: opt('boolean', { encoding: 'flag' }) },
    reply: {},
  },
  removeTitleInput: {
    group: 'title',
    source: 'contract',
    summary: 'Removes a video input from a title.',
    params: { ...TITLE_SELECT, input: req('string') },
    reply: {},
    // Why: the contract shows this command answering with command/reply `setTitleInput`.
    replyAlias: 'setTitleInput',
  },
  setTitleName: {
    group: 'title',
    source: 'contract',
    summary: 'Renames a title.',
    params: { ...TITLE_SELECT, newName: opt('string') },
    reply: {},
  },
  setTitlePosition: {
    group: 'title',
    source: 'contract',
    summary: 'Moves a title in the list.',
    params: { ...TITLE_SELECT, position: opt('number') },
    reply: {},
  },

  // ---- Video input commands (contract: 7)
  closeVideoIn: {
    group: 'videoIn',
    source: 'contract',
    summary: 'Closes a video input.',
    // Why: this command takes `video`, not `videoIn` (the contract and the vendor's docs say so).
    params: { video: opt('string') },
    reply: {},
  },
  getAllVideoIns: {
    group: 'videoIn',
    source: 'contract',
    summary: 'Lists every video input device.',
    params: { verbose: opt('boolean', { encoding: 'flag' }) },
    reply: { count: f('string'), videoIns: arrayOf('string') },
  },
  getOpenedVideoIns: {
    group: 'videoIn',
    source: 'contract',
    summary: 'Lists the opened video inputs.',
    params: {},
    reply: { videoIns: f('array', { note: 'item properties: not shown' }) },
  },
  getVideoInIcon: {
    group: 'videoIn',
    source: 'contract',
    summary: "A PNG of an input's stream at a given size.",
    params: { width: req('number'), height: req('number'), video: opt('string') },
    reply: { image: maybe('string', { assumed: true, note: 'base64 PNG; ' + ASSUMED_REPLY }) },
    assumed: true,
    note: ASSUMED_REPLY,
  },
  getVideoInInfo: {
    group: 'videoIn',
    source: 'contract',
    summary: 'Details of a video input.',
    params: { videoIn: opt('string') },
    reply: { videoIns: arrayOf(VIDEO_IN) },
  },
  openVideoIn: {
    group: 'videoIn',
    source: 'contract',
    summary: 'Opens a video input.',
    params: { video: opt('string') },
    reply: {},
  },
  switchVideoIn: {
    group: 'videoIn',
    source: 'contract',
    summary: 'Makes a device active in the switcher on a channel.',
    params: { channel: req('number'), video: opt('string') },
    reply: {},
  },

  // ---- Output commands (contract: 6)
  getOutputDevice: {
    group: 'output',
    source: 'contract',
    summary: 'The output device.',
    params: {},
    reply: { device: f('string') },
  },
  getStreamHostServer: {
    group: 'output',
    source: 'contract',
    summary: 'Information on the current stream.',
    params: {},
    reply: {
      streaming: maybe('boolean', { assumed: true }),
      choice: maybe('string', { assumed: true }),
      serverUrl: maybe('string', { assumed: true }),
      containerFormat: maybe('string', { assumed: true }),
    },
    assumed: true,
    note: ASSUMED_REPLY + '; the stream key is never part of it',
  },
  setOutputDevice: {
    group: 'output',
    source: 'contract',
    summary: 'Chooses the output device, optionally for some channels only.',
    params: { device: opt('string'), channels: opt('string[]') },
    reply: {},
  },
  setStreamHostServers: {
    group: 'output',
    source: 'contract',
    summary: "Sets the stream container format. The application's documentation shows it answering `unknown command`.",
    params: { containerFormat: opt('string') },
    reply: {},
  },
  startStreaming: {
    group: 'output',
    source: 'contract',
    summary: 'Starts RTMP streaming.',
    params: {
      choice: opt('string'),
      serverUrl: opt('string'),
      streamKey: opt('string', { note: 'secret: redacted in logs' }),
    },
    reply: {},
  },
  stopStreaming: {
    group: 'output',
    source: 'contract',
    summary: 'Stops streaming.',
    params: {},
    reply: { folder: f('string'), subfolder: f('string') },
  },

  // ---- Instant replay commands (contract: 18)
  replay_arm_inputs: {
    group: 'replay',
    source: 'contract',
    summary: 'Arms a list of inputs and starts the replay buffer.',
    params: {
      inputs: req('string[]', { assumed: true, note: 'name `inputs`, comma-separated in a GET' }),
    },
    reply: {},
    assumed: true,
  },
  replay_commands: {
    group: 'replay',
    source: 'contract',
    summary: 'Lists the replay commands.',
    params: {},
    reply: { commands: arrayOf('string') },
  },
  replay_disarm_inputs: {
    group: 'replay',
    source: 'contract',
    summary: 'Removes inputs from the armed list; none left disables replay.',
    params: {
      inputs: req('string[]', { assumed: true, note: 'name `inputs`, comma-separated in a GET' }),
    },
    reply: {},
    assumed: true,
  },
  replay_enable: {
    group: 'replay',
    source: 'contract',
    summary: 'Starts instant replay when inputs are armed.',
    params: {
      speed: opt('number', {
        assumed: true,
        note: ASSUMED_SPEED + "; the application's documentation shows this parameter, likely by mistake",
      }),
    },
    reply: {},
    assumed: true,
  },
  replay_enable_scrubbing: {
    group: 'replay',
    source: 'contract',
    summary: 'Scrubbing on (leaves recording mode, enters replay mode) or off.',
    params: {
      enable: req('boolean', { encoding: 'word', assumed: true, note: 'name `enable`, `true`/`false`' }),
    },
    reply: {},
    assumed: true,
  },
  replay_enter_playback: {
    group: 'replay',
    source: 'contract',
    summary: 'Enters playback mode if replay is enabled.',
    params: {},
    reply: {},
  },
  replay_exit_playback: {
    group: 'replay',
    source: 'contract',
    summary: 'Exits playback mode.',
    params: {},
    reply: {},
  },
  replay_get_inputs: {
    group: 'replay',
    source: 'contract',
    summary: 'Lists inputs usable for replay.',
    params: {},
    reply: { inputs: f('array', { assumed: true, note: 'input object properties: not shown' }) },
  },
  replay_get_play_info: {
    group: 'replay',
    source: 'contract',
    summary: 'Statistics on the current playback (seconds, assumed unit).',
    params: {},
    reply: {
      frameRate: f('number'),
      replayDuration: f('number'),
      replayEnd: f('number'),
      replayScrubStart: f('number'),
      replayStart: f('number'),
      replayTime: f('number'),
    },
  },
  replay_get_replay_speed: {
    group: 'replay',
    source: 'contract',
    summary: 'Current replay speed.',
    params: {},
    reply: { speed: f('number') },
  },
  replay_get_settings: {
    group: 'replay',
    source: 'contract',
    summary: 'Current replay settings.',
    params: {},
    reply: { settings: objectOf(REPLAY_SETTINGS) },
  },
  replay_is_trial_mode: {
    group: 'replay',
    source: 'contract',
    summary: 'Whether instant replay is unlicensed (trial).',
    params: {},
    reply: { isTrial: f('boolean') },
  },
  replay_play_pause: {
    group: 'replay',
    source: 'contract',
    summary: 'In replay mode, toggles play/pause.',
    params: {},
    reply: {},
  },
  replay_set_in_point: {
    group: 'replay',
    source: 'contract',
    summary: 'Sets the play-in point.',
    params: { position: req('number', { assumed: true, note: ASSUMED_POSITION }) },
    reply: {},
    assumed: true,
  },
  replay_set_out_point: {
    group: 'replay',
    source: 'contract',
    summary: 'Sets the play-out point.',
    params: { position: req('number', { assumed: true, note: ASSUMED_POSITION }) },
    reply: {},
    assumed: true,
  },
  replay_set_replay_speed: {
    group: 'replay',
    source: 'contract',
    summary: "Sets the replay speed (the settings object's playSpeed).",
    params: { speed: req('number', { assumed: true, note: ASSUMED_SPEED }) },
    reply: {},
    assumed: true,
  },
  replay_set_scrub_position: {
    group: 'replay',
    source: 'contract',
    summary: 'In replay mode, sets the scrub position in seconds in the buffer.',
    params: { position: req('number', { assumed: true, note: ASSUMED_POSITION }) },
    reply: {},
    assumed: true,
  },
  replay_set_settings: {
    group: 'replay',
    source: 'contract',
    summary: 'Sets replay settings (structure of replay_get_settings).',
    params: { settings: req('object', { assumed: true, note: 'name `settings`, JSON text in a GET' }) },
    reply: {},
    assumed: true,
  },

  // ---- Project commands (contract: 11)
  checkProjectEdited: {
    group: 'project',
    source: 'contract',
    summary: 'Status of the current project.',
    params: {},
    reply: {
      filePath: f('string'),
      hasChanged: f('flag'),
      isCached: f('flag'),
      isCustomized: f('flag'),
      isLibraryScene: f('flag'),
      newFilePath: f('string'),
    },
  },
  clearPlaylist: {
    group: 'project',
    source: 'contract',
    summary: "Clears a channel's layer list.",
    params: { channel: opt('number') },
    reply: {},
  },
  closeProject: {
    group: 'project',
    source: 'contract',
    summary: 'Closes the project, saving first when asked.',
    params: {
      saveProject: opt('boolean', {
        encoding: 'flag',
        assumed: true,
        note: '`saveProject=1` saves first (the name of the XML form)',
      }),
      closeProject: opt('boolean', {
        encoding: 'flag',
        assumed: true,
        note: '`closeProject=1` confirms (the name of the XML form)',
      }),
    },
    reply: { filePath: f('string') },
    assumed: true,
    note: "flag names from the XML form; the application's documentation does not give the HTTP names",
  },
  getCurrentProject: {
    group: 'project',
    source: 'contract',
    summary: 'Full path of the current project and its icon.',
    params: {},
    reply: { filePath: maybe('string', { assumed: true }), icon: maybe('string', { assumed: true }) },
    assumed: true,
    note: ASSUMED_REPLY,
  },
  getRecentProjects: {
    group: 'project',
    source: 'contract',
    summary: 'Recently used projects.',
    params: {},
    reply: { recentProjects: arrayOf(RECENT_PROJECT) },
  },
  getVideoFormat: {
    group: 'project',
    source: 'contract',
    summary: 'The project video format.',
    params: {},
    reply: VIDEO_FORMAT,
  },
  loadPlaylist: {
    group: 'project',
    source: 'contract',
    summary: 'Loads a layer list into a channel.',
    params: { file: req('string'), channel: opt('number') },
    reply: {},
  },
  loadProject: {
    group: 'project',
    source: 'contract',
    summary: 'Loads a project, replacing the current one.',
    params: {
      file: req('string', { assumed: true, note: 'name `file` (the name of the XML form)' }),
      autoCache: opt('boolean', { encoding: 'flag', assumed: true, note: '`autoCache=1` enables' }),
      videoSource: opt('string', { assumed: true, note: 'name `videoSource`' }),
    },
    reply: {},
    // Why: the contract shows this reply as a bare `{}`.
    emptyReplyAllowed: true,
    assumed: true,
  },
  savePlaylist: {
    group: 'project',
    source: 'contract',
    summary: "Saves a channel's layer list to a file.",
    params: { file: opt('string'), channel: opt('number') },
    reply: {},
  },
  saveProject: {
    group: 'project',
    source: 'contract',
    summary: 'Saves the project.',
    params: { file: opt('string') },
    reply: {},
    // Why: the contract shows this reply as a bare `{}`.
    emptyReplyAllowed: true,
  },
  setVideoFormat: {
    group: 'project',
    source: 'contract',
    summary: 'Sets the project video format.',
    params: {
      width: req('number', { assumed: true, note: 'name `width`' }),
      height: req('number', { assumed: true, note: 'name `height`' }),
      frameRate: req('number', { assumed: true, note: 'name `frameRate`' }),
    },
    reply: VIDEO_FORMAT,
    assumed: true,
  },

  // ---- Notification commands (contract: 3)
  getSubscriptions: {
    group: 'notification',
    source: 'contract',
    summary: 'Lists subscriptions (blank sender: all).',
    params: { sender: opt('string') },
    reply: { sender: f('string'), senders: arrayOf(SENDER) },
  },
  subscribe: {
    group: 'notification',
    source: 'contract',
    summary: 'Creates a sender or appends events, inputs and ids to it.',
    params: SUBSCRIPTION,
    reply: {},
    // Why: the contract shows this reply as a bare `{}`.
    emptyReplyAllowed: true,
  },
  unSubscribe: {
    group: 'notification',
    source: 'contract',
    summary: 'Removes titles, inputs or events from a sender; the default sender is refused.',
    params: SUBSCRIPTION,
    reply: { id: f('string') },
  },

  // ---- From the protocol notes: what a control panel needs to play titles and read their state
  schedule: {
    group: 'playout',
    source: 'notes',
    summary: 'Plays, stops or updates titles.',
    params: {
      action: { ...oneOf(SCHEDULE_ACTIONS, true), note: SCHEDULE_ACTION_NOTE },
      ...TITLE_SELECT,
      channel: opt('number', { note: '-1 = all channels' }),
      queue: opt('string'),
      markIn: opt('string'),
      markOut: opt('string'),
      time: opt('number', { note: 'seconds since program launch' }),
      variables: opt('object', {
        body: 'variables',
        assumed: true,
        note: 'title variables {name: value}; POST body member `variables`, JSON text in a GET (assumed)',
      }),
    },
    reply: {},
    // Why: `scheduleAction` takes "empty string = all" (protocol notes 4.1), and `schedule` with neither
    // `id` nor `title` takes every title to air in the simulator (handlers/playout.ts, scheduleTargets).
    // (subscribe's empty `id` also means all titles, but it chooses notifications, it acts on no title.)
    allWhenEmpty: ['id', 'title'],
  },
  getTitleControlInfo: {
    group: 'playout',
    source: 'notes',
    summary: 'Titles with their status and variables.',
    params: { icon: opt('boolean', { encoding: 'flag' }), width: opt('number'), height: opt('number') },
    reply: {
      titles: arrayOf({
        id: maybe('string'),
        name: maybe('string'),
        status: maybe('string'),
        image: maybe('string'),
        variables: maybeArrayOf({ variable: maybe('string'), value: maybe('string'), type: maybe('string') }),
      }),
    },
  },
  readTitle: {
    group: 'playout',
    source: 'notes',
    summary: 'Title records with their inputs, running state and variables.',
    params: { channel: opt('number', { note: '-1 = all channels' }), input: opt('string'), title: opt('string') },
    reply: {
      titles: maybeArrayOf(
        {
          id: maybe('string'),
          name: maybe('string'),
          position: maybe('number'),
          channel: maybe('number'),
          input: maybe('string', { note: 'comma-separated input names' }),
          selected: maybe('flag'),
          running: maybe('object', { note: 'holds playState' }),
          variables: maybe('array'),
        },
        { assumed: true, note: 'JSON shape of the XML reply assumed' },
      ),
    },
    assumed: true,
    note: 'the JSON reply shape is assumed (only the XML form was seen)',
  },
  getPlayStatus: {
    group: 'playout',
    source: 'notes',
    summary: "A title's play state.",
    params: { ...TITLE_SELECT, channel: opt('number') },
    reply: {
      id: maybe('string', { assumed: true }),
      play: maybe('string', { assumed: true, note: 'Off / Running / Paused' }),
    },
    assumed: true,
    note: "reply field names assumed (the application's documentation names the command only)",
  },
  getTitlesPlayStatus: {
    group: 'playout',
    source: 'notes',
    summary: 'Play states of all titles.',
    params: { channel: opt('number') },
    reply: {
      titles: maybeArrayOf({ id: maybe('string'), name: maybe('string'), play: maybe('string') }, { assumed: true }),
    },
    assumed: true,
    note: "reply shape assumed (the application's documentation names the command only)",
  },
  getInputsPlayStatus: {
    group: 'playout',
    source: 'notes',
    summary: 'Play state per input.',
    params: { channel: opt('number', { note: '-1 = all channels' }) },
    reply: { inputs: f('array', { note: 'item properties: not shown' }) },
  },
})

// ---------------------------------------------------------------------------------------------------
// Derived types

export type Catalogue = typeof COMMANDS
export type CommandName = keyof Catalogue

/** Every command name, in catalogue order. */
export const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[]

/** Looks a command up by a name that is not known at compile time (YAML bindings, the remote API). */
export function getCommandSpec(name: string): CommandSpec | undefined {
  return Object.prototype.hasOwnProperty.call(COMMANDS, name)
    ? (COMMANDS as Record<string, CommandSpec>)[name]
    : undefined
}
export function isCommandName(name: string): name is CommandName {
  return getCommandSpec(name) !== undefined
}

type ParamValue<P> = P extends { values: readonly (infer V)[] }
  ? V
  : P extends ParamSpec<infer T>
    ? T extends 'string'
      ? string
      : T extends 'number'
        ? number
        : T extends 'boolean'
          ? boolean
          : T extends 'string[]'
            ? string[]
            : Record<string, unknown>
    : never

type Simplify<T> = { [K in keyof T]: T[K] } & {}
type RequiredKeys<S> = { [K in keyof S]: S[K] extends { required: true } ? K : never }[keyof S]
type OptionalKeys<S> = Exclude<keyof S, RequiredKeys<S>>

/** Parameters of a command, from its catalogue entry. */
export type ParamsOf<N extends CommandName> = Simplify<
  { [K in RequiredKeys<Catalogue[N]['params']>]: ParamValue<Catalogue[N]['params'][K]> } & {
    [K in OptionalKeys<Catalogue[N]['params']>]?: ParamValue<Catalogue[N]['params'][K]>
  }
>

type ScalarValue<T> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'flag'
        ? '0' | '1'
        : never

type FieldValue<F> = F extends { type: 'array'; items: infer I }
  ? I extends ScalarType
    ? ScalarValue<I>[]
    : ShapeValue<I>[]
  : F extends { type: 'array' }
    ? unknown[]
    : F extends { type: 'object'; fields: infer S }
      ? ShapeValue<S>
      : F extends { type: 'object' }
        ? Record<string, unknown>
        : F extends { type: infer T }
          ? ScalarValue<T>
          : never

type OptionalFields<S> = { [K in keyof S]: S[K] extends { optional: true } ? K : never }[keyof S]
type ShapeValue<S> = Simplify<
  { [K in Exclude<keyof S, OptionalFields<S>>]: FieldValue<S[K]> } & {
    [K in OptionalFields<S>]?: FieldValue<S[K]>
  }
>

/** The typed reply fields of a command (beyond the envelope), after conversion to the catalogue's types. */
export type ReplyOf<N extends CommandName> = ShapeValue<Catalogue[N]['reply']>

/** True when a command has at least one required parameter. */
export type HasRequiredParams<N extends CommandName> = [RequiredKeys<Catalogue[N]['params']>] extends [never]
  ? false
  : true
