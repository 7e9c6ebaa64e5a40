/**
 * The surface manager: finds devices (per driver, without opening them), opens them, follows USB
 * hot-plug, and keeps every device behind its own error boundary.
 *
 * - Detection: every driver's `detect()` on start, on every hot-plug change (at once, after 1 s and after
 *   3 s, because the HID node often appears a moment after the USB attach), on retry timers, and every
 *   `pollMs` where no hot-plug source works.
 * - Identity: the driver's `DetectedDevice.id` (serial number, else `vendor:product@path`); last feedback
 *   and brightness are kept per id and re-applied when the device comes back.
 * - Error boundary: a driver that throws while opening, or an open surface that emits `error` or throws
 *   from `setFeedback`, is closed, logged once and retried with exponential backoff. A device is taken
 *   as unplugged only when detection no longer lists it, never from the text of an error.
 * - Permissions: a detected device whose node fails `fs.access(R_OK | W_OK)` is reported once, with the
 *   udev rule file to install, and is not opened until a later scan finds it accessible.
 * - Claims and names: with `claims`, only the devices that a configured surface claims are opened (the
 *   rest are left to other software, such as the vendor's own); every event, feedback and status then
 *   carries the configured surface name (`desk`), and the map from device identity to name lives here
 *   only. Without claims (`'all'`, the set-up check tool), every device is opened under its identity.
 */
import { EventHub, type Listenable } from '../events.js'
import { createLogger, type Logger } from '../log.js'
import {
  SurfaceClaimError,
  assignClaims,
  validateClaims,
  type ClaimedDevice,
  type SurfaceClaim,
} from '../families/claims.js'
import { checkDeviceAccess, usbHotplugSource, type AccessCheck, type HotplugSource } from './hotplug.js'
import type { ControlId } from '../face/control-id.js'
import type { Surface, SurfaceDriver, SurfaceEvent, SurfaceRegistry, SurfaceRegistryEvents } from './types.js'
import type { Feedback } from '../face/feedback.js'
import { SURFACE_RETRY } from './retry.js'
import { UDEV_FILES, UDEV_GROUP, UDEV_INSTALL_HINT } from '../families/udev.js'
import { lightFeedback, lightOnly } from '../families/lights.js'
import type { SurfaceDescription, DetectedDevice } from '../face/surface.js'

/** Defaults, named so the timing of the manager can be read in one place. */
export const MANAGER_DEFAULTS = {
  /** Detection poll interval where no hot-plug events are available. */
  pollMs: 2000,
  /** Rescans after each hot-plug change. */
  rescanDelaysMs: [0, 1000, 3000] as readonly number[],
  /** The retry after a fault (`retry.ts`, shared with the network decks' connections). */
  ...SURFACE_RETRY,
  /** A driver's detect() or open() that takes longer is a fault: one hung device must not stall the scan. */
  callTimeoutMs: 10_000,
} as const

export type SurfaceState = 'open' | 'closed' | 'failed' | 'permission-denied' | 'waiting'

/** What the status API and logs show about one surface. */
export interface SurfaceStatus {
  /** The configured surface name (the device identity when nothing is claimed by name). */
  name: string
  /** The device identity, when a device is behind the surface. */
  device?: string
  driver: string
  model?: string
  state: SurfaceState
  /** Human-readable detail (the fault, or which udev rule file to install). */
  message?: string
  /** For `failed`: when the next attempt happens. */
  retryInMs?: number
}

export interface SurfaceManagerEvents extends SurfaceRegistryEvents {
  /** Input from any open surface, under its configured name. */
  input: [event: SurfaceEvent]
  status: [status: SurfaceStatus]
  /** A scan of `driver` found these devices that no claim takes (changed since its last scan). */
  unclaimed: [driver: string, devices: readonly DetectedDevice[]]
}

export interface SurfaceManagerOptions {
  drivers?: SurfaceDriver[]
  /** The configured surfaces that take devices; `'all'` (the default) opens every device found. */
  claims?: readonly SurfaceClaim[] | 'all'
  /** Defaults to USB hot-plug from the `usb` package. */
  hotplug?: HotplugSource
  /** Defaults to `fs.access` on the device node. */
  access?: AccessCheck
  pollMs?: number
  rescanDelaysMs?: readonly number[]
  retryInitialMs?: number
  retryMaxMs?: number
  stableMs?: number
  callTimeoutMs?: number
  logger?: Logger
}

/** A driver call that did not answer in time. */
export class DriverTimeoutError extends Error {
  override readonly name = 'DriverTimeoutError'
  readonly code = 'ETIMEDOUT'
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`)
  }
}

interface Entry {
  surface: Surface
  /** The surface's description under its configured name. */
  description: SurfaceDescription
  /** The device identity (the driver's `description.id`). */
  device: string
  /** Undefined for static surfaces (added with `addSurface`): they are not detected, so never retried. */
  driver: SurfaceDriver | undefined
  openedAt: number
  /** Whether `added` was announced: `removed` is announced only for a surface that was. */
  announced: boolean
  unlisten: () => void
  /** Its controls that show feedback by a light only: they are given `lightFeedback` of it. */
  lights: ReadonlySet<ControlId>
}

interface Backoff {
  attempts: number
  until: number
}

export class SurfaceManager implements SurfaceRegistry {
  private readonly hub = new EventHub<SurfaceManagerEvents>()
  /** Input, added/removed, feedback and status; readers cannot emit. */
  readonly events: Listenable<SurfaceManagerEvents> = this.hub.listenable

  private readonly drivers: SurfaceDriver[]
  private readonly hotplug: HotplugSource
  private readonly access: AccessCheck
  private readonly o: Required<Omit<SurfaceManagerOptions, 'drivers' | 'claims' | 'hotplug' | 'access' | 'logger'>>
  private readonly log: Logger
  /** Open surfaces by configured name. */
  private readonly entries = new Map<string, Entry>()
  private claims: readonly SurfaceClaim[] | 'all'
  /** The latest status of each surface by name (waiting, open, failed, ...). */
  private readonly latest = new Map<string, SurfaceStatus>()
  private readonly backoff = new Map<string, Backoff>()
  private readonly feedback = new Map<string, Map<ControlId, Feedback>>()
  private readonly brightness = new Map<string, number>()
  private readonly denied = new Set<string>()
  /** The driver that offered each device id the manager tried to open: a scan forgets only its own. */
  private readonly offeredBy = new Map<string, string>()
  /** The ids of each driver's unclaimed devices at its last scan: `unclaimed` is emitted on a change. */
  private readonly unclaimedIds = new Map<string, string>()
  private readonly retryTimers = new Map<string, NodeJS.Timeout>()
  private hotplugTimers: NodeJS.Timeout[] = []
  private poll: NodeJS.Timeout | undefined
  private scanning: Promise<void> | undefined
  private rescanWanted = false
  private started = false
  /** Whether hot-plug (or polling) has been started; see watch(). */
  private watching = false
  private stopping: Promise<void> | undefined

  constructor(opts: SurfaceManagerOptions = {}) {
    this.drivers = opts.drivers ?? []
    this.claims = opts.claims ?? 'all'
    if (this.claims !== 'all') {
      const problems = validateClaims(this.claims)
      if (problems.length > 0) throw new SurfaceClaimError(problems)
    }
    for (const d of this.drivers) d.claimsChanged?.(this.claims)
    this.hotplug = opts.hotplug ?? usbHotplugSource()
    this.access = opts.access ?? checkDeviceAccess
    this.log = opts.logger ?? createLogger('surfaces')
    this.o = {
      pollMs: opts.pollMs ?? MANAGER_DEFAULTS.pollMs,
      rescanDelaysMs: opts.rescanDelaysMs ?? MANAGER_DEFAULTS.rescanDelaysMs,
      retryInitialMs: opts.retryInitialMs ?? MANAGER_DEFAULTS.retryInitialMs,
      retryMaxMs: opts.retryMaxMs ?? MANAGER_DEFAULTS.retryMaxMs,
      stableMs: opts.stableMs ?? MANAGER_DEFAULTS.stableMs,
      callTimeoutMs: opts.callTimeoutMs ?? MANAGER_DEFAULTS.callTimeoutMs,
    }
  }

  /** Starts hot-plug (or polling) and runs the first scan. Resolves when the first scan is done. */
  async start(): Promise<void> {
    if (this.started || this.stopping) return
    this.started = true
    await this.watch()
    if (this.stopping) return
    await this.rescan()
  }

  /**
   * The drivers that have work: every one with `'all'`, else those some claim names. Only they detect,
   * so a driver no configured surface uses never loads its library (node-hid, the MIDI system).
   */
  private activeDrivers(): readonly SurfaceDriver[] {
    const claims = this.claims
    return claims === 'all' ? this.drivers : this.drivers.filter((d) => claims.some((c) => c.driver === d.name))
  }

  /**
   * Starts hot-plug (or polling) once some driver has work, at start or when a reload first claims a
   * device: a daemon whose surfaces are all on the web page never loads libusb.
   */
  private async watch(): Promise<void> {
    if (this.watching || this.activeDrivers().length === 0) return
    this.watching = true
    let live = false
    try {
      live = await this.hotplug.start((change) => this.onHotplug(change))
    } catch (err) {
      this.log.once('hotplug', 'warn', 'hot-plug source failed to start; polling instead', { error: err })
    }
    if (this.stopping) return
    if (!live) {
      this.poll = setInterval(() => this.spawn('poll', () => this.rescan()), this.o.pollMs)
    }
  }

  /** Runs detection for every driver now (serialised: a call during a scan queues one more scan). */
  rescan(): Promise<void> {
    if (this.stopping) return Promise.resolve()
    if (this.scanning) {
      this.rescanWanted = true
      return this.scanning
    }
    this.scanning = (async () => {
      do {
        this.rescanWanted = false
        for (const driver of this.activeDrivers()) {
          if (this.stopping) return
          await this.scanDriver(driver)
        }
      } while (this.rescanWanted && !this.stopping)
    })().finally(() => {
      this.scanning = undefined
    })
    return this.scanning
  }

  /**
   * Replaces the claims (a reload). Surfaces whose claim is gone or changed are closed; the rest stay
   * open untouched; a rescan then opens what the new claims take. Throws `SurfaceClaimError` (and changes
   * nothing) when the claims contradict each other.
   */
  async setClaims(claims: readonly SurfaceClaim[] | 'all'): Promise<void> {
    if (claims !== 'all') {
      const problems = validateClaims(claims)
      if (problems.length > 0) throw new SurfaceClaimError(problems)
    }
    const before = this.claims
    this.claims = claims
    for (const d of this.drivers) d.claimsChanged?.(claims)
    const same = (name: string): boolean => {
      if (before === 'all' || claims === 'all') return before === claims
      const a = before.find((c) => c.name === name)
      const b = claims.find((c) => c.name === name)
      return a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b)
    }
    for (const [name, entry] of [...this.entries]) {
      if (entry.driver && !same(name)) await this.detach(name)
    }
    for (const name of [...this.latest.keys()]) {
      if (!this.entries.has(name) && (claims === 'all' || !claims.some((c) => c.name === name)))
        this.latest.delete(name)
    }
    if (this.started) await this.watch()
    await this.rescan()
  }

  /** The latest status of every configured or open surface. */
  statuses(): SurfaceStatus[] {
    return [...this.latest.values()]
  }

  /** Adds a surface that is not detected (e.g. a web surface). Its faults close it; it is not retried. */
  addSurface(surface: Surface): void {
    const id = surface.description.id
    if (this.stopping) throw new Error(`surface manager is stopped; cannot add ${id}`)
    if (this.entries.has(id)) throw new Error(`a surface with id ${JSON.stringify(id)} is already open`)
    this.attach(surface, undefined)
  }

  /** Closes and forgets an open surface (static or detected; a detected one comes back on the next scan). */
  async removeSurface(surfaceId: string): Promise<void> {
    await this.detach(surfaceId)
  }

  /** Records the feedback of one control (re-applied when the surface reopens) and applies it. */
  setFeedback(surfaceId: string, control: ControlId, feedback: Feedback): void {
    let controls = this.feedback.get(surfaceId)
    if (!controls) this.feedback.set(surfaceId, (controls = new Map<ControlId, Feedback>()))
    controls.set(control, feedback)
    const entry = this.entries.get(surfaceId)
    if (entry) {
      try {
        entry.surface.setFeedback(control, shownBy(entry, control, feedback))
      } catch (err) {
        this.onSurfaceError(surfaceId, err)
        return
      }
    }
    this.hub.emit('feedback', surfaceId, control, feedback)
  }

  /**
   * Lights one control of an open surface for `ms`, then shows its own feedback again (find-by-pressing
   * shows the control it selected, issue 42): a key goes white, an LED on. Nothing is recorded; a control
   * that cannot show either (a jog) shows nothing.
   */
  flash(surfaceId: string, control: ControlId, ms: number): void {
    const entry = this.entries.get(surfaceId)
    if (!entry) return
    const own = (): Feedback => this.feedback.get(surfaceId)?.get(control) ?? {}
    const { image: _image, picture: _picture, ...rest } = own()
    try {
      entry.surface.setFeedback(
        control,
        shownBy(entry, control, { ...rest, color: '#ffffff', textColor: '#000000', led: 'on' }),
      )
    } catch (err) {
      this.onSurfaceError(surfaceId, err)
      return
    }
    const back = setTimeout(() => {
      if (this.entries.get(surfaceId) !== entry) return
      try {
        entry.surface.setFeedback(control, shownBy(entry, control, own()))
      } catch (err) {
        this.onSurfaceError(surfaceId, err)
      }
    }, ms)
    back.unref?.()
  }

  /** Sets (and remembers) a surface's brightness, 0..100. */
  setBrightness(surfaceId: string, percent: number): void {
    this.brightness.set(surfaceId, percent)
    const entry = this.entries.get(surfaceId)
    if (!entry) return
    try {
      entry.surface.setBrightness(percent)
    } catch (err) {
      this.onSurfaceError(surfaceId, err)
    }
  }

  /** Forgets a surface's brightness: nothing is sent at its next open (the device keeps its own). */
  forgetBrightness(surfaceId: string): void {
    this.brightness.delete(surfaceId)
  }

  list(): SurfaceDescription[] {
    return [...this.entries.values()].map((e) => e.description)
  }

  feedbackOf(surfaceId: string): ReadonlyMap<ControlId, Feedback> {
    return this.feedback.get(surfaceId) ?? new Map()
  }

  /** Whether a surface with this id is open now. */
  isOpen(surfaceId: string): boolean {
    return this.entries.has(surfaceId)
  }

  /**
   * Closes (blanks) every surface and stops hot-plug and timers. Idempotent. Listeners others added to
   * `events` stay theirs to remove.
   */
  stop(): Promise<void> {
    this.stopping ??= this.doStop()
    return this.stopping
  }

  private async doStop(): Promise<void> {
    if (this.poll) clearInterval(this.poll)
    this.poll = undefined
    for (const t of [...this.retryTimers.values(), ...this.hotplugTimers]) clearTimeout(t)
    this.retryTimers.clear()
    this.hotplugTimers = []
    this.hotplug.stop()
    if (this.scanning) await this.scanning
    await Promise.all([...this.entries.keys()].map((id) => this.detach(id)))
  }

  private onHotplug(change: 'attach' | 'detach'): void {
    if (this.stopping) return
    this.log.debug('usb change', { change })
    // A new change restarts the sequence: the device list settles a few seconds after the last change.
    for (const t of this.hotplugTimers) clearTimeout(t)
    this.hotplugTimers = this.o.rescanDelaysMs.map((ms) => {
      const t = setTimeout(() => {
        this.hotplugTimers = this.hotplugTimers.filter((x) => x !== t)
        this.spawn('hotplug rescan', () => this.rescan())
      }, ms)
      return t
    })
  }

  private async scanDriver(driver: SurfaceDriver): Promise<void> {
    let found: DetectedDevice[]
    try {
      found = await this.bounded(`${driver.name}: detect`, driver.detect(), () => undefined)
      this.log.clear(`detect:${driver.name}`)
    } catch (err) {
      this.log.once(`detect:${driver.name}`, 'warn', `${driver.name}: detection failed; will try again`, { error: err })
      return
    }
    const present = new Set(found.map((d) => d.id))
    const wanted = this.assign(found)
    // Unplugged (open, from this driver, no longer listed), or now claimed under another name.
    for (const [name, entry] of [...this.entries]) {
      if (entry.driver !== driver) continue
      if (!present.has(entry.device)) {
        this.log.info('surface unplugged', { surface: name, device: entry.device })
        await this.detach(name)
      } else if (wanted.get(entry.device)?.name !== name) {
        await this.detach(name)
      }
    }
    // Why only this driver's ids: another driver's devices are missing from `found` but not unplugged, and
    // forgetting their backoff would retry a failing device at every scan.
    for (const [id, owner] of [...this.offeredBy]) {
      if (owner !== driver.name || present.has(id)) continue
      this.offeredBy.delete(id)
      this.backoff.delete(id)
      this.denied.delete(id)
      this.log.clear(`perm:${id}`)
    }
    if (this.claims !== 'all') {
      const taken = new Set([...wanted.values()].map((w) => w.name))
      for (const claim of this.claims) {
        if (claim.driver !== driver.name || taken.has(claim.name)) continue
        if (this.latest.get(claim.name)?.state === 'waiting') continue
        this.status({
          name: claim.name,
          driver: driver.name,
          state: 'waiting',
          message: 'no matching device found yet',
        })
      }
      for (const device of found) {
        if (!wanted.has(device.id)) {
          this.log.once(`unclaimed:${device.id}`, 'info', 'device not claimed by any surface; left to other software', {
            driver: driver.name,
            model: device.model,
            device: device.id,
          })
        }
      }
      const unclaimed = found.filter((d) => !wanted.has(d.id))
      const ids = unclaimed.map((d) => d.id).join('\u0000')
      if ((this.unclaimedIds.get(driver.name) ?? '') !== ids) {
        this.unclaimedIds.set(driver.name, ids)
        this.hub.emit('unclaimed', driver.name, unclaimed)
      }
    }
    for (const { device, name } of wanted.values()) {
      if (this.stopping) return
      if (this.entries.has(name)) continue
      const b = this.backoff.get(device.id)
      if (b && b.until > performance.now()) continue
      await this.tryOpen(driver, device, name)
    }
  }

  /**
   * Which detected device each configured surface of this driver takes, by device id (see
   * `assignClaims`: each surface keeps the device it holds while that still matches).
   */
  private assign(found: DetectedDevice[]): Map<string, ClaimedDevice> {
    if (this.claims === 'all') return new Map(found.map((device) => [device.id, { device, name: device.id }]))
    return assignClaims(this.claims, found, (name) => this.entries.get(name)?.device)
  }

  private async tryOpen(driver: SurfaceDriver, device: DetectedDevice, name: string): Promise<void> {
    this.offeredBy.set(device.id, driver.name)
    if (device.path) {
      let access: Awaited<ReturnType<AccessCheck>>
      try {
        access = await this.access(device.path)
      } catch (err) {
        this.log.once(`access:${device.id}`, 'warn', 'could not check access to the device node', {
          surface: device.id,
          path: device.path,
          error: err,
        })
        access = 'ok'
      }
      if (access === 'missing') return // gone between detection and now; the next scan settles it
      if (access === 'denied') {
        this.denied.add(device.id)
        const message =
          `no permission to open ${device.model} at ${device.path}: install ${UDEV_FILES.headless} ` +
          `(headless box; add the service user to group ${UDEV_GROUP}) or ${UDEV_FILES.desktop} (desktop session): ` +
          UDEV_INSTALL_HINT
        if (this.log.once(`perm:${device.id}`, 'warn', message, { surface: name, device: device.id })) {
          this.status({
            name,
            device: device.id,
            driver: driver.name,
            model: device.model,
            state: 'permission-denied',
            message,
          })
        }
        return
      }
      this.denied.delete(device.id)
      this.log.clear(`perm:${device.id}`)
    }
    let surface: Surface
    try {
      surface = await this.bounded(`${driver.name}: open ${device.id}`, driver.open(device), (late) =>
        // An open that answers after its timeout is closed at once; the retry opens it afresh.
        this.spawn('late open', () => this.closeQuietly(device.id, late)),
      )
    } catch (err) {
      this.fault(name, device.id, driver.name, device.model, err, 'open', 0)
      return
    }
    if (this.stopping || this.entries.has(name)) {
      await this.closeQuietly(device.id, surface)
      return
    }
    this.attach(surface, driver, name)
  }

  private attach(surface: Surface, driver: SurfaceDriver | undefined, name = surface.description.id): void {
    const d = surface.description
    const description: SurfaceDescription = name === d.id ? d : { ...d, id: name, device: d.id }
    const onInput = (event: SurfaceEvent): void => {
      this.hub.emit('input', event.surface === name ? event : { ...event, surface: name })
    }
    const onError = (err: Error): void => this.onSurfaceError(name, err)
    const onClosed = (): void => {
      // Closed by the device side (not by us: we unlisten before closing).
      if (this.entries.get(name)?.surface === surface) this.spawn('closed', () => this.detach(name))
    }
    surface.events.on('input', onInput)
    surface.events.on('error', onError)
    surface.events.on('closed', onClosed)
    const entry: Entry = {
      surface,
      description,
      device: d.id,
      driver,
      openedAt: performance.now(),
      announced: false,
      lights: new Set(d.controls.filter(lightOnly).map((c) => c.id)),
      unlisten: () => {
        surface.events.off('input', onInput)
        surface.events.off('error', onError)
        surface.events.off('closed', onClosed)
      },
    }
    this.entries.set(name, entry)
    this.log.clear(`fault:${d.id}`)
    this.log.info('surface open', { surface: name, device: d.id, driver: d.driver, model: d.model })
    try {
      // A device that comes back gets its surface's brightness and feedback at once.
      const b = this.brightness.get(name)
      if (b !== undefined) surface.setBrightness(b)
      for (const [control, fb] of this.feedback.get(name) ?? [])
        surface.setFeedback(control, shownBy(entry, control, fb))
    } catch (err) {
      this.onSurfaceError(name, err)
      return
    }
    entry.announced = true
    this.hub.emit('added', description)
    this.status({ name, device: d.id, driver: d.driver, model: d.model, state: 'open' })
  }

  private onSurfaceError(name: string, err: unknown): void {
    const entry = this.entries.get(name)
    if (!entry) return
    const d = entry.surface.description
    const openFor = performance.now() - entry.openedAt
    this.spawn('fault', async () => {
      await this.detach(name)
      if (entry.driver) {
        this.fault(name, entry.device, d.driver, d.model, err, 'run', openFor)
      } else {
        this.log.once(`fault:${name}`, 'warn', `surface ${name} failed and was closed`, { error: err })
      }
    })
  }

  /** Records a fault of a device, logs it once, and schedules the retry. */
  private fault(
    name: string,
    id: string,
    driver: string,
    model: string,
    err: unknown,
    phase: 'open' | 'run',
    openFor: number,
  ): void {
    if (this.stopping) return
    const prev = this.backoff.get(id)
    const attempts = prev && openFor < this.o.stableMs ? prev.attempts + 1 : 1
    const delay = Math.min(this.o.retryMaxMs, this.o.retryInitialMs * 2 ** (attempts - 1))
    this.backoff.set(id, { attempts, until: performance.now() + delay })
    const message = `${phase === 'open' ? 'could not open' : 'closed after a fault:'} ${model} (${id}); retrying with backoff`
    this.log.once(`fault:${id}`, 'warn', message, { surface: name, device: id, error: err })
    this.status({
      name,
      device: id,
      driver,
      model,
      state: 'failed',
      message: err instanceof Error ? err.message : String(err),
      retryInMs: delay,
    })
    // One retry timer per device: a stale timer from an earlier fault must not cut this backoff short.
    const previous = this.retryTimers.get(id)
    if (previous) clearTimeout(previous)
    const t = setTimeout(() => {
      this.retryTimers.delete(id)
      // Why mark it due: libuv measures timers from the loop's cached clock, so a timer can fire a little
      // before `until` as performance.now() sees it; the scan would then skip the device and, with no
      // further hot-plug event, never retry it.
      const b = this.backoff.get(id)
      if (b) b.until = 0
      this.spawn('retry', () => this.rescan())
    }, delay)
    this.retryTimers.set(id, t)
  }

  private async detach(name: string): Promise<void> {
    const entry = this.entries.get(name)
    if (!entry) return
    this.entries.delete(name)
    entry.unlisten()
    await this.closeQuietly(entry.device, entry.surface)
    const d = entry.surface.description
    if (entry.announced) this.hub.emit('removed', name)
    this.status({ name, device: entry.device, driver: d.driver, model: d.model, state: 'closed' })
  }

  private async closeQuietly(id: string, surface: Surface): Promise<void> {
    // A surface that errors during close must not keep its error unhandled.
    const swallow = (err: Error): void => this.log.debug('error while closing', { surface: id, error: err })
    surface.events.on('error', swallow)
    try {
      await surface.close()
    } catch (err) {
      this.log.debug('surface did not close cleanly', { surface: id, error: err })
    } finally {
      surface.events.off('error', swallow)
    }
  }

  private status(s: SurfaceStatus): void {
    this.latest.set(s.name, s)
    this.hub.emit('status', s)
  }

  /** Races a driver call against `callTimeoutMs`; a result that arrives too late goes to `late`. */
  private bounded<T>(what: string, call: Promise<T>, late: (value: T) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let done = false
      const timer = setTimeout(() => {
        done = true
        reject(new DriverTimeoutError(what, this.o.callTimeoutMs))
      }, this.o.callTimeoutMs)
      call.then(
        (value) => {
          clearTimeout(timer)
          if (done) late(value)
          else resolve(value)
        },
        (err: unknown) => {
          clearTimeout(timer)
          if (done) this.log.debug(`${what} failed after its timeout`, { error: err })
          else reject(err instanceof Error ? err : new Error(String(err)))
        },
      )
    })
  }

  /** Runs a background task; a throw is logged, never unhandled. */
  private spawn(what: string, task: () => Promise<void>): void {
    task().catch((err: unknown) => this.log.error(`surface manager: ${what} failed`, { error: err }))
  }
}

/** What a surface's control is given of a feedback: a light's own (`lightFeedback`), else the feedback. */
function shownBy(entry: Entry, control: ControlId, feedback: Feedback): Feedback {
  return entry.lights.has(control) ? lightFeedback(feedback) : feedback
}
