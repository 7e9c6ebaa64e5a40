/**
 * The binding engine's named constants and its assumed choices, in one place.
 */

/** Page words of `press: { page: ... }` that are not page names. */
export const PAGE_PREVIOUS = 'previous'
export const PAGE_NEXT = 'next'

/**
 * Commands that need a hold to confirm by default (destructive on air): the press fires when the
 * countdown ends while still held; releasing early sends nothing.
 */
export const CONFIRM_COMMANDS: ReadonlySet<string> = new Set([
  'stopStreaming',
  'closeProject',
  'clearPlaylist',
  'deleteTitle',
  'replay_disarm_inputs',
])
/** Default hold-to-confirm time, ms. */
export const DEFAULT_CONFIRM_MS = 1500
/** How often the confirm countdown in `detail` is redrawn, ms. */
export const CONFIRM_TICK_MS = 100
/** Default hold time of `hold:`, ms. */
export const DEFAULT_HOLD_MS = 800

/** Default jog step: frames per detent. */
export const DEFAULT_STEP_FRAMES = 1
/** A jog wheel that rested this long re-reads the play position (playback moves it meanwhile), ms. */
export const JOG_RESEED_AFTER_MS = 1000
/** Detents a wheel reports per full turn when `frames_per_turn` is given without `detents_per_turn` (a Contour jog's 10). */
export const DEFAULT_DETENTS_PER_TURN = 10
/** What a held `fine` key divides a jog's step by, by default. */
export const DEFAULT_FINE_DIVIDE = 4
/**
 * The jog's cursor resolution: sub-units per frame. Every detent moves a whole number of them (the same
 * number either way), so n detents forward then n back return exactly; positions sent are whole frames.
 */
export const JOG_SUBFRAMES = 5040
/** Frame rate assumed when the application's play info gives none (ASSUMED: 30 fps). */
export const ASSUMED_FRAME_RATE = 30

/**
 * The speed sent when the shuttle ring returns to centre. ASSUMED (decisions.md: "Shuttle centre"):
 * `replay_set_replay_speed` with speed 0 is taken to mean "stop". One constant, to correct in one line.
 */
export const SHUTTLE_CENTRE_SPEED = 0

/** How often the streaming state is polled (`getStreamHostServer`) while a control shows it, ms. */
export const STREAMING_POLL_MS = 5000

/** Encoder acceleration: turns closer together than this count as fast, ms. */
export const ROTATE_FAST_MS = 40
/** The most a fast turn multiplies a detent by. */
export const ROTATE_MAX_MULTIPLIER = 4

/** The play-state palette (background colours) when a binding gives none. */
export const DEFAULT_PLAY_COLORS = { Running: '#c00000', Paused: '#d08000', Off: '#202020' } as const
/** Lit and unlit colours of indicator feedback (replay state, streaming, tally). */
export const INDICATOR_ON = '#00a000'
export const INDICATOR_OFF = '#202020'
/** Label colour. */
export const DEFAULT_TEXT_COLOR = '#ffffff'

/** Input older than this when the engine sees it is dropped (never a late press), ms. */
export const MAX_INPUT_AGE_MS = 1000
/** How many pages `previous` can go back. */
export const PAGE_HISTORY = 16
