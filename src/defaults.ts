/**
 * panelbridge's own defaults that more than one layer needs. This module imports nothing, so every
 * layer may import it without crossing a boundary (src/surfaces never imports src/api).
 */

/** panelbridge's own listener (web surface, status, remote API). Never 9022–9025 (decisions: Ports). */
export const DEFAULT_PANELBRIDGE_PORT = 8088
/** Network listeners bind here unless the config says otherwise. */
export const DEFAULT_LISTEN_HOST = '127.0.0.1'

/** The config `run`, `devices` and `learn` read without `--config`, when it exists (the service's file). */
export const SYSTEM_CONFIG = '/etc/panelbridge/config.yaml'
/**
 * The longest a graceful stop (SIGINT or SIGTERM) may take before the process exits anyway, ms. The
 * systemd unit's TimeoutStopSec is above it (test/ops/systemd-unit.test.ts).
 */
export const STOP_BOUND_MS = 3000
/**
 * The application profile (`config/app-profiles/`) the simulator plays when none is named, and the one
 * `probe` compares a real application with: the current Captivate as NewBlue's module sees it. Here, not
 * in the simulator's modules, so that `probe --help` names it without loading them.
 */
export const DEFAULT_APP_PROFILE = 'captivate'
