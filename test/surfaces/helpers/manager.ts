/**
 * A surface manager for a test: stopped when the test finishes (`onTestFinished`, no hand-kept list),
 * with an in-memory hot-plug source and an access check that allows everything unless the test says
 * otherwise, and what it announced recorded in order. `manage` runs it over ListDrivers (the manager's
 * own edges), `deckManaged` over the real Stream Deck driver and library on in-memory HID devices.
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { afterEach, beforeEach, onTestFinished, vi } from 'vitest'
import type { LogLevel, LogRecord } from '../../../src/log.js'
import type { SurfaceClaim } from '../../../src/families/claims.js'
import type { AccessCheck, HotplugSource } from '../../../src/surfaces/hotplug.js'
import { SurfaceManager, type SurfaceManagerOptions, type SurfaceStatus } from '../../../src/surfaces/manager.js'
import { KeyRenderer } from '../../../src/surfaces/render/key-renderer.js'
import { StreamDeckDriver } from '../../../src/surfaces/streamdeck/driver.js'
import type { SurfaceDriver, SurfaceEvent } from '../../../src/surfaces/types.js'
import { captureLogs } from '../../helpers/logs.js'
import { MemoryStreamDeckTransport, rawImageEncoder } from './fake-hid.js'
import { FakeHotplug } from './fake-hotplug.js'
import { ListDriver } from './surfaces.js'
import type { DetectedDevice } from '../../../src/face/surface.js'

/** The timers a manager uses, and `performance.now()` it measures backoff and stability with. */
export const MANAGER_CLOCK: Parameters<typeof vi.useFakeTimers>[0] = {
  toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
}

/** How long and how often `vi.waitFor` / `expect.poll` look (real timers only: with fake ones they move the clock). */
export const WAIT = { timeout: 8000, interval: 5 }

export interface Managed<H extends HotplugSource = FakeHotplug> {
  manager: SurfaceManager
  hotplug: H
  input: SurfaceEvent[]
  /** Ids of the surfaces announced `added`, and `removed`, in order. */
  added: string[]
  removed: string[]
  status: SurfaceStatus[]
}

/** A manager over `options`, stopped when the test finishes; `hotplug` defaults to a live FakeHotplug. */
export function managed<H extends HotplugSource = FakeHotplug>(
  options: Omit<SurfaceManagerOptions, 'hotplug'> & { hotplug?: H } = {},
): Managed<H> {
  const hotplug = options.hotplug ?? (new FakeHotplug() as unknown as H)
  const manager = new SurfaceManager({ access: () => Promise.resolve('ok'), ...options, hotplug })
  onTestFinished(() => manager.stop())
  const seen: Managed<H> = { manager, hotplug, input: [], added: [], removed: [], status: [] }
  manager.events.on('input', (e) => seen.input.push(e))
  manager.events.on('added', (d) => seen.added.push(d.id))
  manager.events.on('removed', (id) => seen.removed.push(id))
  manager.events.on('status', (s) => seen.status.push(s))
  return seen
}

/** The rig's FakeHotplug (a live one unless `live: false`), and the access check and claims it was given, if any. */
function rigOptions(opts: {
  live?: boolean
  access?: AccessCheck
  claims?: readonly SurfaceClaim[]
  hotplug?: FakeHotplug
}) {
  return {
    hotplug: opts.hotplug ?? new FakeHotplug(opts.live ?? true),
    ...(opts.access ? { access: opts.access } : {}),
    ...(opts.claims ? { claims: opts.claims } : {}),
  }
}

/** Short timings for the manager's own edges: a poll every 50 ms, retries from 100 ms to 1 s, calls cut at 500 ms. */
export function manage(
  drivers: SurfaceDriver[],
  opts: { claims?: readonly SurfaceClaim[]; live?: boolean; access?: AccessCheck; hotplug?: FakeHotplug } = {},
): Managed {
  return managed({
    drivers,
    ...rigOptions(opts),
    pollMs: 50,
    rescanDelaysMs: [0, 20, 60],
    retryInitialMs: 100,
    retryMaxMs: 1000,
    stableMs: 10_000,
    callTimeoutMs: 500,
  })
}

/**
 * The manager tests' most common start: a ListDriver with `plugged` present (failing every open with
 * `failOpen` when given), managed (as `manage`) and started.
 */
export async function startedList(
  plugged: readonly string[] = [],
  opts: Parameters<typeof manage>[1] & { failOpen?: Error } = {},
): Promise<Managed & { driver: ListDriver }> {
  const driver = new ListDriver()
  for (const id of plugged) driver.plug(id)
  const { failOpen, ...manageOpts } = opts
  if (failOpen) driver.failOpen = failOpen
  const rig = manage([driver], manageOpts)
  await rig.manager.start()
  return { driver, ...rig }
}

/** A claim of the ListDriver `list` (or of `driver`). */
export const claim = (name: string, match: SurfaceClaim['match'], driver = 'list'): SurfaceClaim => ({
  name,
  driver,
  match,
})
/** A detected device, for matching by hand. */
export const device = (extra: Partial<DetectedDevice>): DetectedDevice => ({
  driver: 'x',
  id: 'D',
  model: 'Deck',
  ...extra,
})

const renderer = new KeyRenderer()

/** The real Stream Deck driver over `transport`, drawing keys at once (no frame pacing). */
export function deckDriver(transport: MemoryStreamDeckTransport): StreamDeckDriver {
  return new StreamDeckDriver({ transport, renderer, encodeJPEG: rawImageEncoder, frameMs: 0 })
}

/** A manager over the Stream Deck driver on an in-memory transport (unless `drivers` says otherwise). */
export function deckManaged(options: Omit<SurfaceManagerOptions, 'hotplug'> & { hotplug?: FakeHotplug } = {}) {
  const transport = new MemoryStreamDeckTransport()
  const driver = deckDriver(transport)
  return { transport, driver, ...managed({ drivers: [driver], ...options }) }
}

/**
 * The manager tests' Stream Deck rig: a 20 ms poll, rescans at 0, 20 and 60 ms after a change, retries from
 * 30 ms to 200 ms; what the manager announced also as `events`.
 */
export function deckRig(opts: { live?: boolean; access?: AccessCheck; drivers?: SurfaceDriver[] } = {}) {
  const rig = deckManaged({
    ...rigOptions(opts),
    ...(opts.drivers ? { drivers: opts.drivers } : {}),
    pollMs: 20,
    rescanDelaysMs: [0, 20, 60],
    retryInitialMs: 30,
    retryMaxMs: 200,
  })
  return { ...rig, events: { input: rig.input, added: rig.added, removed: rig.removed, status: rig.status } }
}

/**
 * The manager tests' log capture and clock, registered once per file: the real timers come back after every
 * test (a test may have put the manager on MANAGER_CLOCK), and each describe that calls `capture(level)` has
 * the global log of each of its tests captured (at `level` when given), read as `records` or `startingWith`.
 */
export function useManagerLogs() {
  let current: LogRecord[] = []
  afterEach(() => {
    vi.useRealTimers()
  })
  return {
    capture(level?: LogLevel): void {
      beforeEach(() => {
        current = captureLogs(level)
      })
    },
    /** What the running test logged. */
    get records(): LogRecord[] {
      return current
    },
    /** The records whose message starts with `prefix`. */
    startingWith(prefix: string): LogRecord[] {
      return current.filter((l) => l.message.startsWith(prefix))
    },
  }
}

/** `deckRig()` with a Stream Deck MK.2 (serial AAA) at /dev/hidraw1, started: the deck open as surface `AAA`. */
export async function startedDeckRig() {
  const rig = deckRig()
  rig.transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw1', 'AAA')
  await rig.manager.start()
  return rig
}
