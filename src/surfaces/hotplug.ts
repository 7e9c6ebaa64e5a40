/**
 * Hot-plug sources and the device-node access check: the two OS boundaries of the surface manager,
 * kept tiny so tests inject events and answers here and nowhere above.
 */
import { constants } from 'node:fs'
import { access } from 'node:fs/promises'
import { lateImport } from '../installed.js'
import { createLogger } from '../log.js'

export type HotplugChange = 'attach' | 'detach'

/** Tells the manager that something was plugged in or out. */
export interface HotplugSource {
  /**
   * Starts delivering changes. Resolves `false` when this machine cannot deliver them (no libusb, or
   * libusb without hot-plug support); the manager then polls detection instead.
   */
  start(listener: (change: HotplugChange) => void): Promise<boolean>
  /** Stops delivering changes and releases what `start` took. Idempotent. */
  stop(): void
}

/** Hot-plug events from the `usb` package (libusb). Loaded on first use, so a missing libusb is not fatal. */
export function usbHotplugSource(): HotplugSource {
  let detach: (() => void) | undefined
  const log = createLogger('hotplug')
  return {
    async start(listener) {
      let mod: typeof import('usb')
      try {
        mod = await lateImport('usb', () => import('usb'))
      } catch (err) {
        log.once('usb-missing', 'warn', 'USB hot-plug unavailable (libusb could not be loaded); polling instead', {
          error: err,
        })
        return false
      }
      const usb = mod.usb
      // Why: without kernel hot-plug support libusb would poll every 500 ms itself and enumerate every USB
      // device; the manager's own poll is cheaper (it only lists HID devices) and has one timer to stop.
      if ((usb as unknown as { INIT_ERROR?: unknown }).INIT_ERROR || !usb._supportedHotplugEvents()) return false
      const onAttach = (): void => listener('attach')
      const onDetach = (): void => listener('detach')
      usb.on('attach', onAttach)
      usb.on('detach', onDetach)
      // Hot-plug events must not keep the process alive after everything else has stopped.
      usb.unrefHotplugEvents()
      detach = () => {
        usb.off('attach', onAttach)
        usb.off('detach', onDetach)
      }
      return true
    },
    stop() {
      detach?.()
      detach = undefined
    },
  }
}

/**
 * Several hot-plug sources as one (USB and a driver's own, such as MIDI's port rescans): live only when
 * every source is live, because the manager polls detection only when the one source it has is not.
 */
export function combineHotplugSources(...sources: HotplugSource[]): HotplugSource {
  return {
    async start(listener) {
      const live = await Promise.all(sources.map((s) => s.start(listener)))
      return live.every(Boolean)
    },
    stop() {
      for (const s of sources) s.stop()
    },
  }
}

/**
 * A hot-plug source over a set of listeners that an in-process hub notifies (network and page devices
 * come and go with their links, so the manager scans at once): each source adds one listener and
 * removes only its own.
 */
export function listenerHotplugSource(listeners: Set<(change: HotplugChange) => void>): HotplugSource {
  let listener: ((change: HotplugChange) => void) | undefined
  return {
    start: (l) => {
      listener = l
      listeners.add(l)
      return Promise.resolve(true)
    },
    stop: () => {
      if (listener) listeners.delete(listener)
      listener = undefined
    },
  }
}

/** `onChange` on every change `source` delivers, until the returned function stops it. */
export function watchChanges(source: HotplugSource, onChange: () => void): () => void {
  void source.start(() => onChange())
  return () => source.stop()
}

/** `ok`: readable and writable; `denied`: exists but this user may not open it; `missing`: no such node. */
export type DeviceAccess = 'ok' | 'denied' | 'missing'
export type AccessCheck = (path: string) => Promise<DeviceAccess>

/**
 * Checks a device node with `fs.access(R_OK | W_OK)` and branches on the error code, never on its text.
 * Paths that are not files (e.g. a macOS IOService path) answer `ok`: there is nothing to check there.
 */
export const checkDeviceAccess: AccessCheck = async (path) => {
  if (!path.startsWith('/')) return 'ok'
  try {
    await access(path, constants.R_OK | constants.W_OK)
    return 'ok'
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EACCES' || code === 'EPERM') return 'denied'
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing'
    throw err
  }
}
