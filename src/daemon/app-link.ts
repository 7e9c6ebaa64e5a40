/**
 * The daemon's way to one application (`app:`, or one of `apps:`): the built-in simulator when
 * `simulate` asks for it, the command client and the notification link. Started together and stopped
 * together; a reload that changes the application's section replaces all three (`apps.ts`).
 *
 * A reload makes the new link beside the old one (`prepareAppLink`): a simulator that cannot start
 * (its port taken) refuses the reload, and the old link runs on untouched. Only a simulator on the very
 * port the old one holds is started at `commit`, after the old stops; the old is started again when the
 * new cannot be.
 */
import type { AppState } from '../api/app-state.js'
import { CommandClient } from '../api/client.js'
import { NotificationLink } from '../api/notifications.js'
import { APP_DEFAULT_PORTS } from '../api/protocol.js'
import type { Logger } from '../log.js'
import type { Config } from '../mappings/schema.js'
import type { SimulatorHandle } from '../app-kit/simulator/index.js'
import type { DaemonMetrics } from './api.js'
import { listenRefusal, refusalCause } from '../listen-refusal.js'
import { isAddressInUse, type Prepared } from './prepared.js'
import { lateImport } from '../installed.js'

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
  /** Where `app` is in the mapping file (`app`, `apps.backup`), for errors that name a setting. Default `app`. */
  section?: string
}

/** The port of an http(s) URL, or its protocol's default. */
function portOf(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
}

/** The simulator (when asked for), the client and the link for `app`. The link is not started yet. */
export async function startAppLink(app: Config['app'], deps: AppLinkDeps): Promise<AppLink> {
  const { simulator, appUrl, notificationsUrl } = await startSimulatorFor(app, deps.log, deps.section ?? 'app')
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
  link.on('heard', () => metrics.pressStep?.('notified'))
  return { simulator, client, link, appUrl, notificationsUrl }
}

/** A link made beside the running one; `inPlace` when it is to be started on the old one's port at `commit`. */
export type PreparedLink = Prepared<AppLink> & { inPlace: boolean }

/**
 * The link for `next`, made while `current` (the link made for `current.app`) runs on: `commit` stops `current`
 * and starts the new one's notification link; `abort` closes the new one. Throws, having changed
 * nothing, when the new simulator cannot start, unless only the old simulator's own port is in its way
 * and `inPlace` allows it (then `commit` swaps it in place, and can still fail).
 */
export async function prepareAppLink(
  next: Config['app'],
  current: { app: Config['app']; link: AppLink },
  deps: AppLinkDeps,
  inPlace = true,
): Promise<PreparedLink> {
  let made: AppLink
  try {
    made = await startAppLink(next, deps)
  } catch (err) {
    if (!inPlace || !isAddressInUse(err) || !holdsWantedPort(current.link, next)) throw err
    return { inPlace: true, commit: () => swapInPlace(next, current, deps), abort: async () => {} }
  }
  return {
    inPlace: false,
    commit: async () => {
      await stopAppLink(current.link)
      made.link.start()
      return made
    },
    abort: () => stopAppLink(made),
  }
}

/** Whether the running simulator holds a port `next`'s simulator asks for (then it cannot start beside it). */
function holdsWantedPort(link: AppLink, next: Config['app']): boolean {
  if (!link.simulator) return false
  const held = [portOf(new URL(link.simulator.httpUrl)), portOf(new URL(link.simulator.wsUrl))]
  const wanted = simulatorPorts(next)
  return [wanted.httpPort, wanted.wsPort].some((p) => p !== 0 && held.includes(p))
}

/** The new simulator on the old one's port: the old stopped first, and started again when the new fails. */
async function swapInPlace(
  next: Config['app'],
  current: { app: Config['app']; link: AppLink },
  deps: AppLinkDeps,
): Promise<AppLink> {
  await stopAppLink(current.link)
  let made: AppLink
  try {
    made = await startAppLink(next, deps)
  } catch (err) {
    const again = await startAppLink(current.app, deps).catch((e: unknown) => {
      deps.log.error('the application link could not be started again after a failed reload', { error: e })
      return undefined
    })
    again?.link.start()
    throw new AppLinkSwapError(err, again)
  }
  made.link.start()
  return made
}

/** A swap on the old simulator's port failed: the new link's error, and the old one started again (if it could be). */
export class AppLinkSwapError extends Error {
  override readonly name = 'AppLinkSwapError'
  constructor(
    cause: unknown,
    readonly restored: AppLink | undefined,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause })
  }
}

/** Stops the link, closes the client, then the simulator. */
export async function stopAppLink(r: AppLink): Promise<void> {
  r.link.stop()
  await r.client.close()
  await r.simulator?.close()
}

/**
 * A simulator that could not take its port, in words that say what is in the way and what to change: it
 * names the simulator and its setting, the address, the likely cause, and the two ways out. The cause is
 * kept (`isAddressInUse` reads it). Any other error is returned as it is.
 */
export function simulatorListenError(err: unknown, app: Config['app'], section = 'app'): unknown {
  const refused = listenRefusal(err)
  if (!refused) return err
  const setting = refused.port === portOf(new URL(app.url)) ? `${section}.url` : `${section}.notifications`
  const fix = refused.inUse
    ? `to drive the application there, remove ${section}.simulate (or set it to false); ` +
      `to keep the simulator, give ${setting} another port`
    : `give ${setting} another port`
  return new Error(
    `the built-in simulator (${section}.simulate) cannot listen on ${refused.address}: ${refusalCause(refused)}; ${fix}`,
    { cause: err },
  )
}

/** The ports a simulator for `app` listens on (0: any free one). */
function simulatorPorts(app: Config['app']): { httpPort: number; wsPort: number } {
  const url = new URL(app.url)
  const ws = app.notifications ? new URL(app.notifications) : undefined
  return { httpPort: portOf(url), wsPort: ws ? portOf(ws) : url.port === '0' ? 0 : APP_DEFAULT_PORTS.ws }
}

/** The URLs of the application, and the simulator started in its place when `app.simulate` asks for it. */
async function startSimulatorFor(
  app: Config['app'],
  log: Logger,
  section: string,
): Promise<{ simulator: SimulatorHandle | undefined; appUrl: string; notificationsUrl: string }> {
  const url = new URL(app.url)
  const simulate = app.simulate
  if (simulate === undefined || simulate === false) {
    return {
      simulator: undefined,
      appUrl: app.url.replace(/\/$/, ''),
      notificationsUrl: app.notifications ?? `ws://${url.hostname}:${APP_DEFAULT_PORTS.ws}`,
    }
  }
  // Loaded only when asked for: a daemon driving the real application never holds the simulator's code.
  // From the tree the daemon started from: refused (the reload with it) once that tree was replaced.
  const { startSimulator } = await lateImport('the simulator', () => import('../app-kit/simulator/index.js'))
  const simulator = await startSimulator({
    host: url.hostname,
    // The daemon never reads the simulator's in-memory command log: keeping it would only grow.
    commandLogMax: 0,
    ...simulatorPorts(app),
    // `simulate: {profile: NAME}` plays that variant of the application; `true`, the default one.
    ...(simulate === true ? {} : { profile: simulate.profile }),
  }).catch((err: unknown) => {
    throw simulatorListenError(err, app, section)
  })
  log.warn('SIMULATED: the built-in simulator stands in for the application', {
    url: simulator.httpUrl,
    profile: simulator.profile.name,
  })
  return { simulator, appUrl: simulator.httpUrl, notificationsUrl: simulator.wsUrl }
}
