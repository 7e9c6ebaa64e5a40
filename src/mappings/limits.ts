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
} as const
