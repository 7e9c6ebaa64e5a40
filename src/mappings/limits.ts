/** Limits of the mapping file that keep a typo (or a hostile file) from building something absurd. */
export const CONFIG_LIMITS = {
  surfaces: 64,
  pagesPerSurface: 64,
  bindings: 4096,
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
