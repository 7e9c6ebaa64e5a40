/**
 * The daemon: wires the application links (`apps.ts`, one per application, `app:` alone being the one
 * named `main`; `app-link.ts`: the simulator with `simulate`, the command client, the notification
 * link) and the router the engine reaches them by, the app state, the surface manager, the engine, the input door
 * (`input.ts`), the remote API's view (`projection.ts`) and the HTTP listener (`listener.ts`), and keeps
 * them running. Its lifecycle: start, reload, stop.
 *
 * - Reload on a change of the config file (its folder is watched: editors replace files) and on
 *   SIGHUP (`reload.ts`, which reads and checks the file off the event loop); `applyConfig` applies
 *   `listen`, `app` and `surfaces` changes without dropping what did not change, all or nothing (the new
 *   listener bound and the new simulator started before anything is swapped). A refused file is logged
 *   once with every problem; the last good mapping keeps running.
 * - One idempotent stop path that blanks the surfaces, closes the links and ends within STOP_BOUND_MS.
 * - systemd: READY=1 once the surfaces and the link have started, STATUS= on state changes,
 *   RELOADING=1 around reloads, watchdog keep-alives (see `daemon/sd-notify.ts`).
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AppState } from '../api/app-state.js'
import { SYSTEM_CONFIG } from '../defaults.js'
import { createLogger, type Logger } from '../log.js'
import { prepareMapping } from '../mappings/compile-slices.js'
import { Engine } from '../mappings/engine.js'
import { AppRouter } from '../mappings/app-router.js'
import type { CommandPort, SentCommand } from '../mappings/sender.js'
import { KeyPictures } from '../mappings/pictures.js'
import { formatProblem, loadConfigFile } from '../mappings/load.js'
import type { Config, SurfaceConfig } from '../mappings/schema.js'
import { claimsOfConfig, driverConfigsOf, takesDriverOptions, webSurfaceOptions } from '../mappings/surfaces.js'
import {
  configureDrivers,
  familyServices,
  hardwareDrivers,
  hardwareHotplug,
  pageDevicePort,
  withServiceDrivers,
} from '../surfaces/drivers.js'
import type { FamilyService, FamilyServiceStatus } from '../surfaces/driver-family.js'
import type { AccessCheck, HotplugSource } from '../surfaces/hotplug.js'
import { SurfaceManager } from '../surfaces/manager.js'
import { UnclaimedDevices } from './unclaimed.js'
import { KeyRenderer } from '../surfaces/render/key-renderer.js'
import type { ControlId } from '../face/control-id.js'
import type { SurfaceDriver } from '../surfaces/types.js'
import { KeyImages } from '../surfaces/web/key-images.js'
import { WebSurfaceServer } from '../surfaces/web/server.js'
import { WebSurface } from '../surfaces/web/web-surface.js'
import type {
  CommandEvent,
  ControlState,
  DaemonApi,
  DaemonEvent,
  DaemonMetrics,
  DaemonStatus,
  InjectKind,
  InjectRefusal,
  FindApi,
  InjectRehearsal,
  RecentError,
  RecordFollower,
  RecordFollowing,
} from './api.js'
import { ConfigEditor, editHistoryFolder } from './config-edit.js'
import { editChoices, liveNames } from './edit-choices.js'
import { FIND_TIMEOUT_MS, FindMode } from './find.js'
import { AppLinks, type PreparedLinks } from './apps.js'
import { InputDoor } from './input.js'
import { applyBrightness, sameButBrightness } from './brightness.js'
import { Listener, type ServeFn } from './listener.js'
import { watchMissingTitles } from './missing-titles.js'
import { PrometheusMetrics } from './metrics.js'
import type { Prepared } from './prepared.js'
import { DaemonProjection } from './projection.js'
import { ConfigReloader } from './reload.js'
import type { RecordWanted } from './recorder.js'
import { Recording } from './recording.js'
import { createNotifier, type Notifier } from './sd-notify.js'
import { startDaemonServer } from './server.js'
import { boundControls, WaitingSurfaces } from './waiting.js'

/** The config that ships with the package: the simulator and a web console. */
export const BUNDLED_CONFIG = fileURLToPath(new URL('../../config/default.yaml', import.meta.url))

/**
 * How long a control selected by pressing is lit, ms. ASSUMED: long enough to be seen from the desk,
 * short enough not to be taken for the control's own feedback.
 */
const FLASH_MS = 300

/** Which config `run` uses without `--config`, and why. */
export function defaultConfigPath(exists: (p: string) => boolean = existsSync): { path: string; why: string } {
  if (exists(SYSTEM_CONFIG)) return { path: SYSTEM_CONFIG, why: 'the system config' }
  return { path: BUNDLED_CONFIG, why: `the bundled default (no ${SYSTEM_CONFIG})` }
}

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
  /** Longest a reload may take, ms (default RELOAD_TIMEOUT_MS). */
  reloadTimeoutMs?: number
  /** Every command the bindings send, with its outcome, parameters redacted, from the first (`run --trace`). */
  onCommand?: (command: CommandEvent) => void
  /**
   * `run --rehearse`: every configured hardware surface whose device is not plugged in takes presses from
   * the page and the remote API (as `rehearse: true` on each; see `waiting.ts`).
   */
  rehearse?: boolean
  /** `run --record FILE`: the trace to write (over the config's `record:`; see `recorder.ts`). */
  record?: RecordWanted
  /** Where the editor keeps the saved versions (default `editHistoryFolder`, in the state folder). */
  editHistory?: string
  logger?: Logger
}

/** The top-level section of the config a family's listener reads (`satellite:`); undefined when absent. */
function sectionOf(config: Config, section: string): unknown {
  return (config as unknown as Record<string, unknown>)[section]
}

/** The running listeners' states for `/api/status`, each under its section's name. */
function serviceStatuses(services: readonly FamilyService[]): Record<string, FamilyServiceStatus> {
  const out: Record<string, FamilyServiceStatus> = {}
  for (const s of services) {
    const status = s.status()
    if (status) out[s.section] = status
  }
  return out
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

export class Daemon implements DaemonApi {
  private readonly log: Logger
  private readonly notifier: Notifier
  private readonly state = new AppState()
  private readonly manager: SurfaceManager
  private readonly engine: Engine
  /** Pictures under keys' labels: a surface that opens has its keys' sizes asked for. */
  private readonly pictures: KeyPictures
  private readonly renderer = new KeyRenderer()
  private readonly images = new KeyImages(this.renderer)
  private readonly webServer: WebSurfaceServer
  /** Every input, a device's or an injected one, reaches the engine through it. */
  private readonly door: InputDoor
  /** What the remote API sees of this daemon. */
  private readonly api: DaemonProjection
  private readonly listener: Listener
  private readonly reloader: ConfigReloader
  /** Configured hardware that is not plugged in: the page's waiting mirrors, rehearsal, the log line. */
  private readonly waiting: WaitingSurfaces
  private readonly webSurfaces = new Map<string, { surface: WebSurface; config: SurfaceConfig }>()
  private readonly drivers: SurfaceDriver[]
  /** The families' listeners (the Companion Satellite server), each configured by its top-level section. */
  private readonly services: FamilyService[]
  private readonly unclaimed: UnclaimedDevices
  /** The config in force. */
  private config!: Config
  private stopping: Promise<void> | undefined
  private readonly detachState: () => void
  private readonly metrics: NonNullable<DaemonOptions['metrics']>
  /** `run --record` / `record:`: every input, command and page change to a trace file, and its state. */
  private readonly recording: Recording
  /** Every application's link (issue 27; `app:` alone is one), and the engine's way to all of them. */
  private readonly apps: AppLinks
  private readonly router: AppRouter
  /** The mapping file's editor (`/api/config`, `…/binding`; issue 42). */
  readonly edit: ConfigEditor
  /** Find-by-pressing: armed, it takes the next input of an armed surface for the editor (issue 42). */
  private readonly find: FindMode

  private constructor(
    private readonly options: DaemonOptions,
    config: Config,
  ) {
    this.log = options.logger ?? createLogger('daemon')
    this.notifier = options.notifier ?? createNotifier({ log: this.log.child('systemd') })
    this.metrics = options.metrics ?? new PrometheusMetrics()
    this.drivers = withServiceDrivers(
      options.drivers ?? hardwareDrivers({ renderer: this.renderer, passive: true }).map((e) => e.driver),
      { renderer: this.renderer },
    )
    this.services = familyServices(this.drivers)
    configureDrivers(this.drivers, driverConfigsOf(config.surfaces))
    this.manager = new SurfaceManager({
      drivers: this.drivers,
      claims: claimsOfConfig(config.surfaces),
      hotplug: hardwareHotplug(this.drivers, options.hotplug),
      ...(options.access ? { access: options.access } : {}),
    })
    this.apps = new AppLinks({ state: this.state, metrics: this.metrics, log: this.log })
    this.router = new AppRouter({
      log: this.log.child('engine'),
      observe: (command, outcome, sent) => this.commandSent(outcome, sent),
      onDiverged: (mirror, reason) => this.metrics.mirrorDiverged?.(mirror, reason),
    })
    // Pictures under labels (`image:`, titles' thumbnails), asked for at the size of the key showing them,
    // of the application the key follows (the router's ports, `routeApps`).
    this.pictures = new KeyPictures({
      keySize: (on) => this.keySize(on),
      log: this.log.child('pictures'),
    })
    this.engine = new Engine({
      apps: this.router,
      // The press trace's `drawn`: the engine hands a control its new look (`./metrics.ts`).
      surfaces: {
        setFeedback: (surface, control, feedback) => {
          this.metrics.pressStep?.('drawn')
          this.manager.setFeedback(surface, control, feedback)
        },
      },
      logger: this.log.child('engine'),
      pictures: this.pictures,
      onPage: (surface, page, view) => this.recording.active?.page(surface, page, view),
      onRequest: (ms: number) => this.metrics.eventToRequest(ms),
    })
    this.webServer = new WebSurfaceServer({
      registry: this.manager,
      images: this.images,
      pages: this.engine,
      // Decks a browser opened through WebHID register over the page's socket (issue 26.2).
      pageDevices: pageDevicePort(this.drivers),
      // An open device that lists no controls (a generic MIDI controller) is drawn with its bound ones.
      boundControls: (surface) => (this.config ? boundControls(surface, this.config) : []),
      onKeysWritten: () => this.metrics.pressStep?.('written'),
    })
    this.door = new InputDoor(this.engine, this.log.child('input'))
    this.recording = new Recording({
      door: this.door,
      pageOf: (s) => this.engine.pageOf(s),
      log: this.log.child('record'),
      onState: (s) => this.metrics.setRecording?.(s.state),
    })
    this.waiting = new WaitingSurfaces({
      manager: this.manager,
      web: this.webServer,
      door: this.door,
      rehearseAll: options.rehearse === true,
      log: this.log,
    })
    this.api = new DaemonProjection({
      configFile: options.config,
      manager: this.manager,
      engine: this.engine,
      state: this.state,
      door: this.door,
      waiting: this.waiting,
      running: () => ({ config: this.config, simulated: this.apps.defaultLink?.simulator !== undefined }),
      configState: () => this.reloader.status(),
      recording: () => this.recording.status(),
      unclaimed: () => this.unclaimed.snapshot(),
      apps: () => this.apps.statuses(),
      services: () => serviceStatuses(this.services),
    })
    const serve: ServeFn = options.serve ?? ((o) => startDaemonServer({ ...o, metrics: this.metrics }))
    this.listener = new Listener({ serve, api: this, web: this.webServer, log: this.log })
    this.reloader = new ConfigReloader({
      file: options.config,
      apply: (next, signal) => this.applyConfig(next, signal),
      timeoutMs: options.reloadTimeoutMs,
      notifier: this.notifier,
      statusLine: () => this.statusLine(),
      recordError: (message, key) => this.api.recordError(message, key),
      clearError: (key) => this.api.clearError(key),
      onState: (s) => this.metrics.setConfigState(s.state, s.lastGoodLoad),
      log: this.log,
    })
    // Devices no entry claims (a page's Stream Deck), for learn through the event stream (issue 26 item 2).
    this.unclaimed = new UnclaimedDevices({
      drivers: this.drivers,
      claims: () => (this.config ? claimsOfConfig(this.config.surfaces) : []),
      publish: (e) => this.api.publishEvent(e),
      statuses: this.manager.events,
    })
    this.find = new FindMode({
      pageOf: (surface) => this.engine.pageOf(surface),
      selected: (selected) => {
        this.api.publishEvent({ type: 'selected', selected })
        this.webServer.findSelected(selected)
      },
      flash: (surface, control) => this.manager.flash(surface, control, FLASH_MS),
      armed: (surfaces) => this.webServer.findState(surfaces),
      ended: () => this.webServer.findState(undefined),
      log: this.log.child('find'),
    })
    this.door.gate = this.find
    this.webServer.setFind({
      arm: (page, surfaces) => this.find.arm(surfaces, { page }),
      disarm: () => this.find.disarm(),
      closed: (page) => this.find.ownerGone({ page }),
    })
    this.edit = new ConfigEditor({
      file: options.config,
      historyFolder: options.editHistory ?? editHistoryFolder(options.config),
      enabled: () => this.config.listen.edit !== false,
      ...(resolve(options.config) === BUNDLED_CONFIG
        ? { fixedReason: 'this is the bundled default config, part of the package: run with a config of your own' }
        : {}),
      reload: () => this.reload(),
      choices: () =>
        editChoices({
          config: this.config,
          ...(this.state.link.status === 'connected' ? { titles: this.state.titles() } : {}),
          ...this.defaultClient(),
        }),
      liveNames: () => liveNames(this.defaultClient().client),
      log: this.log.child('edit'),
      onSaved: (kind) => this.metrics.configEdited?.(kind),
    })
    this.manager.events.on('input', (e) => this.door.enter(e, 'surface'))
    // An unplugged or removed surface ends the presses held on it: nothing fires for them.
    this.manager.events.on('removed', (name) => this.door.surfaceGone(name))
    this.detachState = this.reportStates()
  }

  /**
   * Loads the config and starts everything. A config with errors refuses to start (ConfigError with
   * every problem); a port that is taken, likewise.
   */
  static async start(options: DaemonOptions): Promise<Daemon> {
    const file = resolve(options.config)
    // A picture file that cannot be read is a warning here (the key says why), an error to `check`.
    const loaded = await loadConfigFile(file, { imageProblems: 'warning' })
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
    return this.listener.url
  }
  get configFile(): string {
    return this.options.config
  }
  /** The application the daemon drives (the simulator's when `app.simulate`). */
  get appUrl(): string {
    return this.apps.defaultLink?.appUrl ?? ''
  }

  /** Surface and link state changes to the metrics, the status strip's errors, systemd and the event stream. */
  private reportStates(): () => void {
    const metrics = this.metrics
    this.manager.events.on('status', (s) => {
      this.api.publishSurface(s)
      if (s.state === 'open') {
        metrics.surfaceOpened()
        this.pictures.refresh()
        this.api.clearError(`surface:${s.name}`)
      }
      if (s.state === 'failed') {
        metrics.surfaceFailed()
        this.api.recordError(`${s.name}: ${s.message ?? 'failed'}`, `surface:${s.name}`)
      }
      metrics.setOpenSurfaces(this.manager.list().length)
      metrics.setSurfaceStates(this.manager.statuses().map((x) => x.state))
      this.notifier.status(this.statusLine())
    })
    const onLink = (): void => {
      const up = this.state.link.status === 'connected'
      metrics.setLinkUp(up)
      metrics.setAppLinkUp?.(this.apps.defaultApp, up)
      if (up) this.api.clearError('link')
      else if (this.state.link.status === 'stale' && this.state.link.error)
        this.api.recordError(`application link: ${this.state.link.error}`, 'link')
      this.notifier.status(this.statusLine())
    }
    this.state.on('link', onLink)
    const onApplied = (): void => metrics.pressStep?.('applied')
    this.state.on('applied', onApplied)
    // Titles the bindings follow that the application lacks: logged at link-up and every resync.
    const bindings = (): Config['bindings'] => this.config.bindings
    const detachMissing = watchMissingTitles({ state: this.state, bindings, log: this.log })
    return () => {
      this.state.off('link', onLink)
      this.state.off('applied', onApplied)
      detachMissing()
    }
  }

  private async startAll(config: Config): Promise<void> {
    this.config = config
    await this.apps.start(config)
    this.routeApps()
    await this.applyWebSurfaces(config)
    this.engine.apply(config)
    this.setLinkFilter()
    await this.recording.start(this.options.record, config, this.options.config)
    await this.waiting.apply(config)
    applyBrightness(this.manager, config.surfaces)
    await this.manager.start()
    // A family's listener that cannot bind refuses the start, as the daemon's own listener does.
    for (const service of this.services) await service.apply(sectionOf(config, service.section))
    this.apps.startLinks()
    await this.listener.apply(config.listen)
    if (this.options.watch !== false) await this.reloader.watch()
    this.log.info('panelbridge running', {
      config: this.options.config,
      url: this.url,
      app: this.appUrl,
      simulated: this.apps.defaultLink?.simulator !== undefined,
    })
    this.notifier.ready(this.statusLine())
    this.notifier.startWatchdog()
  }

  // ---- reload ------------------------------------------------------------------------------------

  /** Reloads the config file now. Resolves false when the file was refused (the old mapping runs on). */
  reload(): Promise<boolean> {
    return this.reloader.reload()
  }

  /**
   * A reload, all or nothing. Everything that can fail is prepared first while the old config runs on:
   * the listener's token read and its new server bound, the new application links made (their simulators
   * started). A failure there, or the reload's time-out (`signal`), closes what was prepared and changes
   * nothing. Then the swap, in this order: the one application link that can still fail (a simulator on
   * its old one's port), the listener, the other application links (the engine keeps its state), the web
   * surfaces, the drivers' entries, the surfaces' brightness, the claims, the engine's mapping, the links'
   * filter, the recording (`record:`).
   */
  private async applyConfig(config: Config, signal?: AbortSignal): Promise<void> {
    const old = this.config
    const listen = await this.listener.prepare(config.listen)
    let links: PreparedLinks | undefined
    let mapping: Prepared | undefined
    try {
      links = await this.apps.prepare(config)
      // The engine's new mapping, built a slice a turn beside the running one (compile-slices.ts).
      mapping = await prepareMapping(this.engine, config, signal ? { signal } : {})
      if (signal?.aborted) throw new Error('the reload timed out before it changed anything')
    } catch (err) {
      await Promise.allSettled([listen.abort(), links?.abort(), mapping?.abort()])
      throw err
    }
    await this.commitLinks(listen, links).catch(async (err: unknown) => {
      // Nothing else swapped yet: the other applications' new links are closed, and they run on as they were.
      await Promise.allSettled([mapping.abort(), links.abort()])
      throw err
    })
    // The other applications after the one that could fail: they were made beside the running ones and
    // cannot fail now, and a swap that failed above has left them as they were.
    await links.commit()
    this.config = config
    this.routeApps()
    await this.applyWebSurfaces(config)
    await this.waiting.apply(config)
    this.webServer.boundChanged()
    await this.applyDriverConfigs(old, config)
    applyBrightness(this.manager, config.surfaces, old.surfaces)
    await this.manager.setClaims(claimsOfConfig(config.surfaces))
    await mapping.commit()
    this.setLinkFilter()
    await this.applyServices(config)
    // Last: the recording's start line names the new mapping's pages. It never fails the reload.
    await this.recording.apply(this.options.record, config, this.options.config)
  }

  /**
   * A reload's families' listeners (the Satellite server): started, moved or stopped as their sections
   * say. ASSUMED: one that cannot bind its new address fails nothing else of the reload (the mapping has
   * swapped by then): it is logged and shown among the errors, and is stopped until the next reload.
   */
  private async applyServices(config: Config): Promise<void> {
    for (const service of this.services) {
      try {
        await service.apply(sectionOf(config, service.section))
        this.api.clearError(`service:${service.section}`)
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err)
        this.log.error(`${service.section}: could not start its server`, { error: err })
        this.api.recordError(`${service.section}: ${message}`, `service:${service.section}`)
      }
    }
  }

  /** The titles the bindings follow, to every link's filter (where they changed, or the link is new). */
  private setLinkFilter(): void {
    this.apps.setFilter(this.engine.followedTitles())
  }

  /**
   * Swaps in the application link that can still fail, then the listener. Each can fail only when it
   * could not be made beside the old one (the same port): what ran is then put back, both of them.
   */
  private async commitLinks(listen: Prepared, links: PreparedLinks): Promise<void> {
    try {
      await links.swap()
    } catch (err) {
      await listen.abort()
      throw err
    }
    try {
      await listen.commit()
    } catch (err) {
      // The listener has put its old server back; the application link goes back too.
      await links.undoSwap()
      throw err
    }
  }

  /**
   * Web surfaces are made by the daemon (the manager detects hardware); a changed one is replaced. The
   * old one is closed and gone from the manager before its successor is added: its late `closed` status
   * and `removed` event would otherwise land on the new surface of the same name (the status would say
   * `waiting` while it is open and taking presses, and its presses would be cancelled).
   */
  private async applyWebSurfaces(config: Config): Promise<void> {
    const wanted = new Map(Object.entries(config.surfaces).filter(([, s]) => s.driver === 'web'))
    for (const [name, entry] of [...this.webSurfaces]) {
      const next = wanted.get(name)
      if (next && sameJson(next, entry.config)) continue
      this.webSurfaces.delete(name)
      this.webServer.removeSurface(name)
      await this.manager.removeSurface(name)
      await entry.surface.close()
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
   * manager's (`setClaims`); a changed brightness alone reaches the open surface (`brightness.ts`).
   */
  private async applyDriverConfigs(before: Config, after: Config): Promise<void> {
    configureDrivers(this.drivers, driverConfigsOf(after.surfaces))
    for (const [name, next] of Object.entries(after.surfaces)) {
      if (!takesDriverOptions(next)) continue
      const prev = Object.hasOwn(before.surfaces, name) ? before.surfaces[name] : undefined
      if (prev?.driver === next.driver && !sameButBrightness(prev, next) && this.manager.isOpen(name)) {
        this.log.info('surface options changed; reopening it', { surface: name, driver: next.driver })
        await this.manager.removeSurface(name)
      }
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
    this.reloader.close()
    this.find.close()
    this.door.close()
    this.engine.stop()
    this.router.dispose()
    this.detachState()
    this.waiting.close()
    this.unclaimed.close()
    // The page's server first, so browsers get a clean close; then the listener, surfaces and links.
    await this.webServer.close()
    await Promise.allSettled([
      this.manager.stop(),
      this.listener.close(),
      this.apps.stop(),
      ...this.services.map((s) => s.close()),
    ])
    this.state.dispose()
    await this.recording.stop()
  }

  // ---- DaemonApi: the projection's --------------------------------------------------------------

  status(): DaemonStatus {
    return this.api.status()
  }
  controlState(surface: string, control: ControlId): ControlState | InjectRefusal {
    return this.api.controlState(surface, control)
  }
  inject(
    surface: string,
    control: ControlId,
    kind: InjectKind,
    arg?: number,
  ): InjectRefusal | InjectRehearsal | undefined {
    return this.api.inject(surface, control, kind, arg)
  }
  recentErrors(): RecentError[] {
    return this.api.recentErrors()
  }
  watchEvents(listener: (event: DaemonEvent) => void): () => void {
    return this.api.watchEvents(listener)
  }
  /** `POST /api/find` and `DELETE /api/find`: arms the surfaces named (every one without), or refuses one unknown. */
  readonly findByPressing: FindApi = {
    arm: (surfaces) => {
      const known = new Set(Object.keys(this.config.surfaces))
      const unknown = surfaces?.find((s) => !known.has(s))
      if (unknown !== undefined)
        return { status: 404, code: 'UNKNOWN_SURFACE', message: `no surface named ${JSON.stringify(unknown)}` }
      this.find.arm(surfaces)
      return { armed: this.find.surfaces ?? 'all', timeoutMs: FIND_TIMEOUT_MS }
    },
    disarm: () => this.find.disarm(),
  }

  /** `GET /api/record`: the recording's lines, while there is one. */
  watchRecord(follower: RecordFollower): RecordFollowing | undefined {
    return this.recording.active?.follow(follower)
  }

  /** The image size of a control (`surface/control`) of an open surface: a thumbnail is asked at it. */
  private keySize(on: string): { width: number; height: number } | undefined {
    const slash = on.indexOf('/')
    const surface = this.manager.list().find((d) => d.id === on.slice(0, slash))
    return surface?.controls.find((c) => c.id === on.slice(slash + 1))?.capabilities.image
  }

  /** A command sent, on any application: counts, events, `run --trace`, the recording, the metrics by application. */
  private commandSent(outcome: string, sent: SentCommand): void {
    this.api.countSend(outcome, sent.own === true)
    if (outcome !== 'ok') this.metrics.sentCommandFailed?.(sent.own === true)
    this.api.publishCommand(sent)
    this.options.onCommand?.(sent)
    this.recording.active?.command(sent)
    this.metrics.appCommand?.(sent.app ?? this.apps.defaultApp, outcome)
  }

  /** The default application's client, for the editor's listings (none before the links are in place). */
  private defaultClient(): { client?: CommandPort } {
    const client = this.apps.ports().get(this.apps.defaultApp)?.client
    return client ? { client } : {}
  }

  /** The router's applications (the links in place). */
  private routeApps(): void {
    const ports = this.apps.ports()
    this.router.setApps(this.apps.current, ports)
    // A thumbnail is asked of the application its key follows (issue 27 over 26.3; thumbnail-apps.ts).
    this.pictures.setApps(this.apps.current, ports)
  }

  /** One line for systemd's STATUS=. */
  private statusLine(): string {
    const link = this.state.link.status === 'connected' ? 'application connected' : 'application link down'
    const open = this.manager.list().length
    const sim = this.apps.defaultLink?.simulator ? ' (SIMULATED)' : ''
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
