/**
 * The daemon's way to the application (`app:` of the config): the built-in simulator when
 * `app.simulate` asks for it, the command client and the notification link. Started together and
 * stopped together; a reload that changes `app` replaces all three (`Daemon.applyConfig`).
 */
import type { AppState } from '../api/app-state.js'
import { CommandClient } from '../api/client.js'
import { NotificationLink } from '../api/notifications.js'
import { DEFAULT_WS_PORT } from '../api/protocol.js'
import type { Logger } from '../log.js'
import type { Config } from '../mappings/schema.js'
import type { SimulatorHandle } from '../simulator/index.js'
import type { DaemonMetrics } from './api.js'

export interface AppLink {
  /** The simulator standing in for the application (`app.simulate`), else undefined. */
  simulator: SimulatorHandle | undefined
  client: CommandClient
  link: NotificationLink
  /** The application's HTTP URL (the simulator's when simulated), without a trailing slash. */
  appUrl: string
  notificationsUrl: string
}

export interface AppLinkDeps {
  /** The store the link keeps up to date (the daemon's, kept across a change of application). */
  state: AppState
  metrics: DaemonMetrics
  /** The daemon's logger: the link logs under its `notifications` child. */
  log: Logger
}

/** The port of an http(s) URL, or its protocol's default. */
function portOf(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
}

/** The simulator (when asked for), the client and the link for `app`. The link is not started yet. */
export async function startAppLink(app: Config['app'], deps: AppLinkDeps): Promise<AppLink> {
  const { simulator, appUrl, notificationsUrl } = await startSimulatorFor(app, deps.log)
  const metrics = deps.metrics
  const client = new CommandClient({
    baseUrl: appUrl,
    ...(app.timeout_ms !== undefined ? { timeoutMs: app.timeout_ms } : {}),
    ...(app.send_deadline_ms !== undefined ? { sendDeadlineMs: app.send_deadline_ms } : {}),
    onCall: (r: { command: string; latencyMs: number; code?: string }) =>
      metrics.commandDone(r.command, r.code ?? 'ok', r.latencyMs),
  })
  const link = new NotificationLink({
    url: notificationsUrl,
    state: deps.state,
    logger: deps.log.child('notifications'),
  })
  link.on('phase', (phase) => {
    if (phase === 'waiting-to-retry') metrics.reconnect()
  })
  link.on('notification', () => {
    // The store announces on the next turn and the engine draws in that announcement.
    const at = performance.now()
    setImmediate(() => metrics.notificationToFeedback(performance.now() - at))
  })
  return { simulator, client, link, appUrl, notificationsUrl }
}

/** Stops the link, closes the client, then the simulator. */
export async function stopAppLink(r: AppLink): Promise<void> {
  r.link.stop()
  await r.client.close()
  await r.simulator?.close()
}

/** The URLs of the application, and the simulator started in its place when `app.simulate` asks for it. */
async function startSimulatorFor(
  app: Config['app'],
  log: Logger,
): Promise<{ simulator: SimulatorHandle | undefined; appUrl: string; notificationsUrl: string }> {
  const url = new URL(app.url)
  const simulate = app.simulate
  if (simulate === undefined || simulate === false) {
    return {
      simulator: undefined,
      appUrl: app.url.replace(/\/$/, ''),
      notificationsUrl: app.notifications ?? `ws://${url.hostname}:${DEFAULT_WS_PORT}`,
    }
  }
  const ws = app.notifications ? new URL(app.notifications) : undefined
  // Loaded only when asked for: a daemon driving the real application never holds the simulator's code.
  const { startSimulator } = await import('../simulator/index.js')
  const simulator = await startSimulator({
    host: url.hostname,
    // The daemon never reads the simulator's in-memory command log: keeping it would only grow.
    commandLogMax: 0,
    httpPort: portOf(url),
    wsPort: ws ? portOf(ws) : url.port === '0' ? 0 : DEFAULT_WS_PORT,
    // `simulate: {profile: NAME}` plays that variant of the application; `true`, the default one.
    ...(simulate === true ? {} : { profile: simulate.profile }),
  })
  log.warn('SIMULATED: the built-in simulator stands in for the application', {
    url: simulator.httpUrl,
    profile: simulator.profile.name,
  })
  return { simulator, appUrl: simulator.httpUrl, notificationsUrl: simulator.wsUrl }
}
