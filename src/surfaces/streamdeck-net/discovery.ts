/**
 * Finding network decks by mDNS, only where an entry asks (`discover: true`): the library's own
 * `StreamDeckTcpDiscoveryService` (loaded then, never before; it queries the network every 10 s). A deck
 * announces its serial (a Network Dock: the dock's); an entry names the serial it wants, and the driver
 * connects to the address a matching announcement gives. Nothing else on the network is connected to:
 * another operator's deck that announces itself is left alone.
 */
import type { Logger } from '../../log.js'
import { lateImport } from '../../installed.js'

/** What an announcement tells (the library's `StreamDeckTcpDefinition`, the part used here). */
export interface Announcement {
  address: string
  port: number
  serialNumber?: string
  modelName: string
}

/** A running discovery. */
export interface DeckDiscovery {
  stop(): void
}

/** Starts a discovery; `up` gets every announcement seen. Tests pass an in-memory one: no broadcasts. */
export type DiscoveryStarter = (up: (a: Announcement) => void, log: Logger) => DeckDiscovery

interface LibraryDiscovery {
  on(event: 'up', listener: (a: Announcement) => void): unknown
  readonly knownStreamDecks: Announcement[]
  destroy(): void
}

/** The library's mDNS discovery, loaded on the first call. */
export const mdnsDiscovery: DiscoveryStarter = (up, log) => {
  let service: LibraryDiscovery | undefined
  let stopped = false
  lateImport('@elgato-stream-deck/tcp', () => import('@elgato-stream-deck/tcp'))
    .then((lib) => {
      if (stopped) return
      // Why the cast: the library's class is typed against its own core; we read the fields above.
      service = new lib.StreamDeckTcpDiscoveryService() as unknown as LibraryDiscovery
      service.on('up', up)
      for (const known of service.knownStreamDecks) up(known)
    })
    .catch((err: unknown) => log.once('mdns', 'warn', 'network deck discovery could not start', { error: err }))
  return {
    stop() {
      stopped = true
      service?.destroy()
      service = undefined
    },
  }
}
