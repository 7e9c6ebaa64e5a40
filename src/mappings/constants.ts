/**
 * The binding engine's named constants and its assumed choices, in one place.
 */

/** Page words of `press: { page: ... }` that are not page names. */
export const PAGE_WORDS = { previous: 'previous', next: 'next' } as const

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

/** The engine's defaults and tunables. */
export const ENGINE_TUNABLES = {
  /** Default hold-to-confirm time, ms. */
  defaultConfirmMs: 1500,
  /** How often the confirm countdown in `detail` is redrawn, ms. */
  confirmTickMs: 100,
  /** Default hold time of `hold:`, ms. */
  defaultHoldMs: 800,

  /** Default jog step: frames per detent. */
  defaultStepFrames: 1,
  /** A jog wheel that rested this long re-reads the play position (playback moves it meanwhile), ms. */
  jogReseedAfterMs: 1000,
  /**
   * Detents a wheel reports per full turn when `frames_per_turn` is given without `detents_per_turn` (a
   * Contour jog's 10).
   */
  defaultDetentsPerTurn: 10,
  /** What a held `fine` key divides a jog's step by, by default. */
  defaultFineDivide: 4,
  /**
   * The jog's cursor resolution: sub-units per frame. Every detent moves a whole number of them (the same
   * number either way), so n detents forward then n back return exactly; positions sent are whole frames.
   */
  jogSubframes: 5040,
  /**
   * The least time between two scrub positions sent by one jog, ms. A fast wheel on a fast link no
   * longer sends one per round trip (hundreds a second, each costing both programs CPU), and every frame
   * the application shows (up to 100 a second) still gets a newer position. The hand's last position
   * goes out at most this long after the one before, so it is also most of the jog's lag: ASSUMED 10 ms,
   * the longest that keeps the lag under 25 ms on the smallest box (at 16 ms it reached 25.3 ms).
   */
  jogMinIntervalMs: 10,
  /**
   * After the application refused a scrub (or entering replay mode), the jog sends nothing for this
   * long, ms: a wheel spun outside replay mode shows the failure without asking again at every round
   * trip. The next turn after it tries again with the newest position. ASSUMED: a quarter second.
   */
  jogRetryAfterRefusalMs: 250,
  /** Frame rate assumed when the application's play info gives none (ASSUMED: 30 fps). */
  assumedFrameRate: 30,

  /**
   * The speed sent when the shuttle ring returns to centre. ASSUMED (decisions.md: "Shuttle centre"):
   * `replay_set_replay_speed` with speed 0 is taken to mean "stop". One constant, to correct in one line.
   */
  shuttleCentreSpeed: 0,

  /** How often the streaming state is polled (`getStreamHostServer`) while a control shows it, ms. */
  streamingPollMs: 5000,

  /** Encoder acceleration: turns closer together than this count as fast, ms. */
  rotateFastMs: 40,
  /** The most a fast turn multiplies a detent by. */
  rotateMaxMultiplier: 4,

  /** Input older than this when the engine sees it is dropped (never a late press), ms. */
  maxInputAgeMs: 1000,
  /** How many pages `previous` can go back. */
  pageHistory: 16,
} as const

/** Feedback colours when a binding gives none. */
export const FEEDBACK_COLORS = {
  /** The play-state palette (background colours). */
  play: { Running: '#c00000', Paused: '#d08000', Off: '#202020' },
  /** Lit and unlit colours of indicator feedback (replay state, streaming, tally). */
  indicatorOn: '#00a000',
  indicatorOff: '#202020',
  /** Label colour. */
  text: '#ffffff',
} as const
