/**
 * panelbridge's own defaults that more than one layer needs. This module imports nothing, so every
 * layer may import it without crossing a boundary (src/surfaces never imports src/api).
 */

/** panelbridge's own listener (web surface, status, remote API). Never 9022–9025 (decisions: Ports). */
export const DEFAULT_PANELBRIDGE_PORT = 8088
/** Network listeners bind here unless the config says otherwise. */
export const DEFAULT_LISTEN_HOST = '127.0.0.1'
