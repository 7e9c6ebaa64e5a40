/**
 * The daemon: wires the simulator (with `app.simulate`), the command client, the notification link,
 * the app state, the surface manager, the engine and the HTTP server, and keeps them running.
 *
 * - Reload on a change of the config file (its folder is watched: editors replace files) and on
 *   SIGHUP, through `engine.apply`: `listen`, `app` and `surfaces` changes are applied without dropping
 *   what did not change. A refused file is logged once with every problem; the last good mapping keeps
 *   running.
 * - One idempotent stop path that blanks the surfaces, closes the links and ends within STOP_BOUND_MS.
 * - systemd: READY=1 once the surfaces and the link have started, STATUS= on state changes,
 *   RELOADING=1 around reloads, watchdog keep-alives (see `daemon/sd-notify.ts`).
 */
import { existsSync, watch, type FSWatcher } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AppState } from '../api/app-state.js'
import { CommandClient } from '../api/client.js'
import { NotificationLink } from '../api/notifications.js'
import { DEFAULT_WS_PORT } from '../api/protocol.js'
import type {
  ControlState,
  DaemonApi,
  DaemonEvent,
  DaemonMetrics,
  DaemonStatus,
  InjectKind,
  InjectRefusal,
  RecentError,
} from './api.js'
import { PrometheusMetrics } from './metrics.js'
import { InputDoor } from './input.js'
import { DaemonProjection } from './projection.js'
import { createNotifier, type Notifier } from './sd-notify.js'
import { SYSTEM_CONFIG } from '../defaults.js'
import { readListenToken } from './auth.js'
import { startDaemonServer } from './server.js'
import { createLogger, type Logger } from '../log.js'
import { Engine } from '../mappings/engine.js'
import { formatProblem, loadConfigFile } from '../mappings/load.js'
import type { Config, SurfaceConfig } from '../mappings/schema.js'
import { claimsOfConfig, driverConfigsOf, takesDriverOptions, webSurfaceOptions } from '../mappings/surfaces.js'
import type { SimulatorHandle } from '../simulator/index.js'
import type { AccessCheck, HotplugSource } from '../surfaces/hotplug.js'
import { SurfaceManager } from '../surfaces/manager.js'
import { KeyRenderer } from '../surfaces/render/key-renderer.js'
import { configureDrivers, hardwareDrivers, hardwareHotplug } from '../surfaces/drivers.js'
import type { ControlId, SurfaceDriver } from '../surfaces/types.js'
import { KeyImages } from '../surfaces/web/key-images.js'
import { WebSurfaceServer } from '../surfaces/web/server.js'
import { WebSurface } from '../surfaces/web/web-surface.js'

/** The config that ships with the package: the simulator and a web console. */
export const BUNDLED_CONFIG = fileURLToPath(new URL('../../config/default.yaml', import.meta.url))
/** Editors write a file in bursts (truncate, write, rename): a reload waits for quiet this long, ms. */
export const RELOAD_DEBOUNCE_MS = 200

/** Which config `run` uses without `--config`, and why. */
export function defaultConfigPath(exists: (p: string) => boolean = existsSync): { path: string; why: string } {
  if (exists(SYSTEM_CONFIG)) return { path: SYSTEM_CONFIG, why: 'the system config' }
  return { path: BUNDLED_CONFIG, why: `the bundled default (no ${SYSTEM_CONFIG})` }
}

/** Starts the HTTP server; the daemon passes its API, its metrics and the web page's server. */
export type ServeFn = (options: {
  host: string
  port: number
  token?: string
  api: DaemonApi
  web: WebSurfaceServer
}) => Promise<{ url: string; close(): Promise<void> }>

export interface DaemonOptions {
  /** The config file; required (the CLI resolves the default). */
  config: string
  /**
   * Surface drivers (default: every one of `hardwareDrivers`, passive: a driver that learns its devices
   * from the config lists none while the config names none). Tests pass in-memory ones; the drivers that
   * read the config (MIDI, report-map HID) get its entries.
   */
  drivers?: SurfaceDriver[]
  /** USB hot-plug (default libusb's); MIDI drivers' port rescans are joined to it. */
  hotplug?: HotplugSource
  access?: AccessCheck
  /** Serves the page, the remote API and the metrics (default: `startDaemonServer`). */
  serve?: ServeFn
  /** Default: Prometheus metrics on a registry of this daemon's own. */
  metrics?: DaemonMetrics & { text(): Promise<string>; readonly contentType: string }
  notifier?: Notifier
  /** Watch the config file's folder for changes (default true). */
  watch?: boolean
  logger?: Logger
}

interface Running {
  config: Config
  simulator: SimulatorHandle | undefined
  client: CommandClient
  link: NotificationLink
  appUrl: string
  notificationsUrl: string
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** The port of an http(s) URL, or its protocol's default. */
function portOf(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
}

export class Daemon implements DaemonApi {
  private readonly log: Logger
  private readonly notifier: Notifier
  private readonly state = new AppState()
  private readonly manager: SurfaceManager
  private readonly engine: Engine
  private readonly renderer = new KeyRenderer()
  private readonly images = new KeyImages(this.renderer)
  private readonly webServer: WebSurfaceServer
  /** Every input, a device's or an injected one, reaches the engine through it. */
  private readonly door: InputDoor
  /** What the remote API sees of this daemon. */
  private readonly api: DaemonProjection
  private readonly webSurfaces = new Map<string, { surface: WebSurface; config: SurfaceConfig }>()
  private readonly drivers: SurfaceDriver[]
  private running!: Running
  private server: { url: string; close(): Promise<void> } | undefined
  private listenKey = ''
  private watcher: FSWatcher | undefined
  private reloadTimer: NodeJS.Timeout | undefined
  private reloading: Promise<boolean> | undefined
  private stopping: Promise<void> | undefined
  private readonly detachState: () => void
  private readonly metrics: NonNullable<DaemonOptions['metrics']>

  private constructor(
    private readonly options: DaemonOptions,
    config: Config,
  ) {
    this.log = options.logger ?? createLogger('daemon')
    this.notifier = options.notifier ?? createNotifier({ log: this.log.child('systemd') })
    this.metrics = options.metrics ?? new PrometheusMetrics()
    const metrics = this.metrics
    this.drivers = options.drivers ?? hardwareDrivers({ renderer: this.renderer, passive: true }).map((e) => e.driver)
    configureDrivers(this.drivers, driverConfigsOf(config.surfaces))
    this.manager = new SurfaceManager({
      drivers: this.drivers,
      claims: claimsOfConfig(config.surfaces),
      hotplug: hardwareHotplug(this.drivers, options.hotplug),
      ...(options.access ? { access: options.access } : {}),
    })
    this.engine = new Engine({
      // The engine reaches the client through this indirection so that an `app.url` change swaps it.
      client: { callByName: (name, params, opts) => this.running.client.callByName(name, params, opts) },
      state: this.state,
      surfaces: this.manager,
      logger: this.log.child('engine'),
      onSend: (_command, outcome) => this.api.countSend(outcome),
      onRequest: (ms: number) => metrics.eventToRequest(ms),
    })
    this.webServer = new WebSurfaceServer({ registry: this.manager, images: this.images })
    this.door = new InputDoor(this.engine)
    this.api = new DaemonProjection({
      configFile: options.config,
      manager: this.manager,
      engine: this.engine,
      state: this.state,
      door: this.door,
      running: () => ({ config: this.running.config, simulated: this.running.simulator !== undefined }),
    })
    this.manager.events.on('input', (e) => this.door.enter(e, 'surface'))
    this.manager.events.on('status', (s) => {
      this.api.publishSurface(s)
      if (s.state === 'open') metrics.surfaceOpened()
      if (s.state === 'failed') {
        metrics.surfaceFailed()
        this.api.recordError(`${s.name}: ${s.message ?? 'failed'}`)
      }
      metrics.setOpenSurfaces(this.manager.list().length)
      this.notifier.status(this.statusLine())
    })
    const onLink = (): void => {
      const up = this.state.link.status === 'connected'
      metrics.setLinkUp(up)
      if (!up && this.state.link.status === 'stale' && this.state.link.error)
        this.api.recordError(`application link: ${this.state.link.error}`)
      this.notifier.status(this.statusLine())
    }
    this.state.on('link', onLink)
    this.detachState = () => this.state.off('link', onLink)
  }

  /**
   * Loads the config and starts everything. A config with errors refuses to start (ConfigError with
   * every problem); a port that is taken, likewise.
   */
  static async start(options: DaemonOptions): Promise<Daemon> {
    const file = resolve(options.config)
    const loaded = await loadConfigFile(file)
    const log = options.logger ?? createLogger('daemon')
    for (const p of loaded.problems) if (p.severity === 'warning') log.warn(formatProblem(p))
    if (!loaded.config)
      throw new DaemonConfigError(loaded.problems.filter((p) => p.severity === 'error').map(formatProblem))
    const daemon = new Daemon({ ...options, config: file, logger: log }, loaded.config)
    try {
      await daemon.startAll(loaded.config)
    } catch (err) {
      await daemon.stop()
      throw err
    }
    return daemon
  }

  /** The HTTP server's URL (the web page). */
  get url(): string {
    return this.server?.url ?? ''
  }
  get configFile(): string {
    return this.options.config
  }
  /** The application the daemon drives (the simulator's when `app.simulate`). */
  get appUrl(): string {
    return this.running.appUrl
  }

  private async startAll(config: Config): Promise<void> {
    this.running = await this.startApp(config)
    this.applyWebSurfaces(config)
    this.engine.apply(config)
    this.running.link.setFilter({ titles: this.engine.followedTitles() })
    await this.manager.start()
    this.running.link.start()
    await this.listen(config)
    if (this.options.watch !== false) this.watchConfig()
    this.log.info('panelbridge running', {
      config: this.options.config,
      url: this.url,
      app: this.running.appUrl,
      simulated: this.running.simulator !== undefined,
    })
    this.notifier.ready(this.statusLine())
    this.notifier.startWatchdog()
  }

  /** The simulator (when asked for), the client and the link for `app`. */
  private async startApp(config: Config): Promise<Running> {
    const url = new URL(config.app.url)
    let simulator: SimulatorHandle | undefined
    let appUrl = config.app.url.replace(/\/$/, '')
    let notificationsUrl = config.app.notifications ?? `ws://${url.hostname}:${DEFAULT_WS_PORT}`
    const simulate = config.app.simulate
    if (simulate !== undefined && simulate !== false) {
      const ws = config.app.notifications ? new URL(config.app.notifications) : undefined
      // Loaded only when asked for: a daemon driving the real application never holds the simulator's code.
      const { startSimulator } = await import('../simulator/index.js')
      simulator = await startSimulator({
        host: url.hostname,
        // The daemon never reads the simulator's in-memory command log: keeping it would only grow.
        commandLogMax: 0,
        httpPort: portOf(url),
        wsPort: ws ? portOf(ws) : url.port === '0' ? 0 : DEFAULT_WS_PORT,
        // `simulate: {profile: NAME}` plays that variant of the application; `true`, the default one.
        ...(simulate === true ? {} : { profile: simulate.profile }),
      })
      appUrl = simulator.httpUrl
      notificationsUrl = simulator.wsUrl
      this.log.warn('SIMULATED: the built-in simulator stands in for the application', {
        url: appUrl,
        profile: simulator.profile.name,
      })
    }
    const client = new CommandClient({
      baseUrl: appUrl,
      ...(config.app.timeout_ms !== undefined ? { timeoutMs: config.app.timeout_ms } : {}),
      onCall: (r: { command: string; latencyMs: number; code?: string }) =>
        this.metrics.commandDone(r.command, r.code ?? 'ok', r.latencyMs),
    })
    const link = new NotificationLink({
      url: notificationsUrl,
      state: this.state,
      logger: this.log.child('notifications'),
    })
    const metrics = this.metrics
    link.on('phase', (phase) => {
      if (phase === 'waiting-to-retry') metrics.reconnect()
    })
    link.on('notification', () => {
      // The store announces on the next turn and the engine draws in that announcement.
      const at = performance.now()
      setImmediate(() => metrics.notificationToFeedback(performance.now() - at))
    })
    return { config, simulator, client, link, appUrl, notificationsUrl }
  }

  private async stopApp(r: Running): Promise<void> {
    r.link.stop()
    await r.client.close()
    await r.simulator?.close()
  }

  /** Web surfaces are made by the daemon (the manager detects hardware); a changed one is replaced. */
  private applyWebSurfaces(config: Config): void {
    const wanted = new Map(Object.entries(config.surfaces).filter(([, s]) => s.driver === 'web'))
    for (const [name, entry] of [...this.webSurfaces]) {
      const next = wanted.get(name)
      if (next && sameJson(next, entry.config)) continue
      this.webSurfaces.delete(name)
      this.webServer.removeSurface(name)
      void this.manager.removeSurface(name)
      void entry.surface.close()
    }
    for (const [name, s] of wanted) {
      if (this.webSurfaces.has(name) || s.driver !== 'web') continue
      const surface = new WebSurface({ ...webSurfaceOptions(name, s), images: this.images })
      this.webSurfaces.set(name, { surface, config: s })
      this.manager.addSurface(surface)
      this.webServer.addSurface(surface)
    }
  }

  /**
   * The entries the drivers read (a reload; MIDI's and report-map HID's): the drivers take the new ones,
   * and a surface whose entry changed (profile, ports, relative modes, report map) reopens with it, its
   * feedback re-sent; one whose entry did not change stays open untouched. A changed claim alone is the
   * manager's (`setClaims`).
   */
  private async applyDriverConfigs(before: Config, after: Config): Promise<void> {
    configureDrivers(this.drivers, driverConfigsOf(after.surfaces))
    for (const [name, next] of Object.entries(after.surfaces)) {
      if (!takesDriverOptions(next)) continue
      const prev = Object.hasOwn(before.surfaces, name) ? before.surfaces[name] : undefined
      if (prev?.driver === next.driver && !sameJson(prev, next) && this.manager.isOpen(name)) {
        this.log.info('surface options changed; reopening it', { surface: name, driver: next.driver })
        await this.manager.removeSurface(name)
      }
    }
  }

  /** (Re)starts the HTTP server when `listen` changed. */
  private async listen(config: Config): Promise<void> {
    const token = await readListenToken(config.listen)
    const key = JSON.stringify([config.listen.host, config.listen.port, token !== undefined])
    if (this.server && key === this.listenKey) return
    const old = this.server
    this.server = undefined
    await old?.close()
    const serve: ServeFn = this.options.serve ?? ((o) => startDaemonServer({ ...o, metrics: this.metrics }))
    this.server = await serve({
      host: config.listen.host,
      port: config.listen.port,
      ...(token !== undefined ? { token } : {}),
      api: this,
      web: this.webServer,
    })
    this.listenKey = key
  }

  // ---- reload ------------------------------------------------------------------------------------

  /** Reloads the config file now. Resolves false when the file was refused (the old mapping runs on). */
  reload(): Promise<boolean> {
    if (this.stopping) return Promise.resolve(false)
    this.reloading ??= this.doReload().finally(() => {
      this.reloading = undefined
    })
    return this.reloading
  }

  private async doReload(): Promise<boolean> {
    this.notifier.reloading()
    try {
      const loaded = await loadConfigFile(this.options.config)
      if (!loaded.config) {
        const errors = loaded.problems.filter((p) => p.severity === 'error').map(formatProblem)
        this.log.error(`config refused; the last good mapping keeps running:\n${errors.join('\n')}`, {
          config: this.options.config,
          errors: errors.length,
        })
        this.api.recordError(`config refused: ${errors[0] ?? 'unreadable'}`)
        return false
      }
      const config = loaded.config
      const old = this.running
      if (!sameJson(old.config.app, config.app)) {
        // A new application (or the simulator toggled): new client and link; the engine keeps its state.
        await this.stopApp(old)
        this.running = await this.startApp(config)
        this.running.link.start()
      } else {
        this.running = { ...old, config }
      }
      this.applyWebSurfaces(config)
      await this.applyDriverConfigs(old.config, config)
      await this.manager.setClaims(claimsOfConfig(config.surfaces))
      this.engine.apply(config)
      this.running.link.setFilter({ titles: this.engine.followedTitles() })
      await this.listen(config)
      this.log.info('config reloaded', { config: this.options.config, bindings: config.bindings.length })
      return true
    } catch (err) {
      this.log.error('reload failed; the last good mapping keeps running', { error: err })
      this.api.recordError(`reload failed: ${err instanceof Error ? err.message : String(err)}`)
      return false
    } finally {
      this.notifier.ready(this.statusLine())
    }
  }

  private watchConfig(): void {
    const dir = dirname(this.options.config)
    const name = basename(this.options.config)
    try {
      this.watcher = watch(dir, (_event, file) => {
        if (file !== null && file !== name) return
        clearTimeout(this.reloadTimer)
        this.reloadTimer = setTimeout(() => void this.reload(), RELOAD_DEBOUNCE_MS)
      })
      this.watcher.on('error', (err) =>
        this.log.once('watch', 'warn', 'cannot watch the config folder', { error: err }),
      )
    } catch (err) {
      this.log.once('watch', 'warn', 'cannot watch the config folder; reload with SIGHUP', { error: err })
    }
  }

  // ---- stop --------------------------------------------------------------------------------------

  /** Blanks the surfaces, closes the links and the server. Idempotent; bounded by STOP_BOUND_MS by the caller. */
  stop(): Promise<void> {
    this.stopping ??= this.doStop()
    return this.stopping
  }

  private async doStop(): Promise<void> {
    this.notifier.stopping()
    this.notifier.close()
    clearTimeout(this.reloadTimer)
    this.watcher?.close()
    this.engine.stop()
    this.detachState()
    // The page's server first, so browsers get a clean close; then the listener, surfaces and links.
    await this.webServer.close()
    await Promise.allSettled([
      this.manager.stop(),
      this.server?.close(),
      this.running ? this.stopApp(this.running) : undefined,
    ])
    this.state.dispose()
  }

  // ---- DaemonApi: the projection's --------------------------------------------------------------

  status(): DaemonStatus {
    return this.api.status()
  }
  controlState(surface: string, control: ControlId): ControlState | InjectRefusal {
    return this.api.controlState(surface, control)
  }
  inject(surface: string, control: ControlId, kind: InjectKind, arg?: number): InjectRefusal | undefined {
    return this.api.inject(surface, control, kind, arg)
  }
  recentErrors(): RecentError[] {
    return this.api.recentErrors()
  }
  watchEvents(listener: (event: DaemonEvent) => void): () => void {
    return this.api.watchEvents(listener)
  }

  /** One line for systemd's STATUS=. */
  private statusLine(): string {
    const link = this.state.link.status === 'connected' ? 'application connected' : 'application link down'
    const open = this.manager.list().length
    const sim = this.running?.simulator ? ' (SIMULATED)' : ''
    return `${link}${sim}; ${open} surface${open === 1 ? '' : 's'} open`
  }
}

/** The config file was refused at start: every error, formatted `file:line:col: message`. */
export class DaemonConfigError extends Error {
  override readonly name = 'DaemonConfigError'
  constructor(readonly errors: readonly string[]) {
    super(`the config was refused:\n${errors.join('\n')}`)
  }
}
