/**
 * How a surface's connection is retried after a fault, shared by the surface manager (a USB device that
 * failed to open or dropped) and the network Stream Deck's connection (a deck that refused or dropped
 * its TCP link), so both back off alike. Its own module so the network deck's connection needs nothing
 * of the manager.
 */
export const SURFACE_RETRY = {
  /** First retry delay after a fault; doubles per consecutive fault. */
  retryInitialMs: 1000,
  retryMaxMs: 30_000,
  /** A surface that stayed open this long starts its next backoff from the beginning. */
  stableMs: 10_000,
} as const
