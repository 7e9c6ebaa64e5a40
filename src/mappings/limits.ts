/** Limits of the mapping file that keep a typo (or a hostile file) from building something absurd. */
export const CONFIG_LIMITS = {
  /**
   * The largest mapping file read, bytes. ASSUMED: a control room's file (a few decks and consoles, every
   * page of each) is tens of KiB; four times the largest seen leaves room, and within it the `yaml`
   * library's document of any text is cheap enough to build on every load.
   */
  fileBytes: 256 * 1024,
  surfaces: 64,
  pagesPerSurface: 64,
  /** ASSUMED: a control room binds hundreds of controls; ten XL decks of 32 keys on 6 pages is 1,920. */
  bindings: 2000,
  /** Actions in one press sequence. */
  sequence: 32,
  steps: 64,
  /** Longest wait in a sequence, ms. */
  waitMs: 60_000,
  /** Longest hold or confirmation time, ms. */
  holdMs: 30_000,
  label: 512,
  name: 128,
  /** Names in `listen.allowed_hosts`. */
  allowedHosts: 32,
  /** Longest of those names (a DNS name's own bound). */
  hostName: 253,
  /** How many alias expansions a file may make (a "billion laughs" file stops here). */
  aliases: 100,
  /** The deepest nesting of any value in the file. */
  depth: 32,
  /** The longest name a message repeats whole: a 10,000-character key is not echoed back whole. */
  nameShownChars: 64,
  /**
   * The longest name a suggestion is looked for. ASSUMED (issue 24 asks for a cap, not a figure): every
   * name the file format knows (keys, commands, parameters, play states) is far shorter, and a surface or
   * page name is at most 128 characters; a name past this is not a typo of a short one.
   */
  suggestMaxChars: 64,
  /** How many saved versions the editor keeps. */
  historyVersions: 20,
} as const
