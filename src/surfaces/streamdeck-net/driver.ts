/**
 * The network Stream Deck driver (`driver: streamdeck-net`): the mapping file's entries name the
 * addresses (`host`, `port`); the driver keeps each connected (`connection.ts`) and lists the decks that
 * are up, a dock's child deck as the deck it is, each by its serial. Nothing connects, and the library
 * is never loaded, until an entry names an address. An entry with `discover: true` (and the serial the
 * deck announces) instead has the library's mDNS discovery find the address (`discovery.ts`): discovery
 * runs only while such an entry exists.
 *
 * Detection lists, never opens: the connections are the driver's, made when the config names them and
 * closed when it no longer does (or the manager stops). A deck going or coming is a hot-plug change of
 * the driver's own source, so the manager rescans at once.
 */
import {
  DEFAULT_DECK_PORT,
  DEFAULT_NET_BRIGHTNESS,
  discoveredAddress,
  entryAddress,
  type NetDeckConfig,
} from '../../families/streamdeck-net.js'
import { createLogger } from '../../log.js'
import { lateImport } from '../../installed.js'
import type { HotplugChange, HotplugSource } from '../hotplug.js'
import { KeyRenderer } from '../render/key-renderer.js'
import { DeviceBytesCache } from '../streamdeck/device-bytes.js'
import { StreamDeckSurface } from '../streamdeck/surface.js'
import type { SurfaceDriver } from '../types.js'
import { defaultBackoff, DeckConnection, type Backoff, type NetDeck } from './connection.js'
import { mdnsDiscovery, type Announcement, type DeckDiscovery, type DiscoveryStarter } from './discovery.js'
import type { EncodeJPEG } from './library.js'
import { tcpTransport, type NetDeckTransport } from './socket.js'
import { NetDeckSurface } from './surface.js'
import type { DetectedDevice } from '../../face/surface.js'

const NET_DRIVER = 'streamdeck-net'

export {
  DEFAULT_DECK_PORT,
  DEFAULT_NET_BRIGHTNESS,
  deckAddress,
  discoveredAddress,
  entryAddress,
  parseDeckAddress,
  type NetDeckConfig,
} from '../../families/streamdeck-net.js'

/** How long a detection waits for the configured decks' first answer (after that, they are listed once up). */
export const FIRST_ANSWER_WAIT_MS = 3000

/** JPEG quality for key images (as the USB decks'). */
const JPEG_QUALITY = 95

export interface StreamDeckNetDriverOptions {
  /** Defaults to the library's mDNS discovery (used only while an entry asks). Tests pass an in-memory one. */
  discovery?: DiscoveryStarter
  /** Defaults to TCP. Tests pass an in-memory transport. */
  transport?: NetDeckTransport
  renderer?: KeyRenderer
  /** Defaults to the library's encoder (jpeg-turbo or jpeg-js), quality 95. */
  encodeJPEG?: EncodeJPEG
  backoff?: Backoff
  frameMs?: number
  /**
   * The daemon's driver: detection never waits for a newly configured deck's first answer (the driver's
   * hot-plug source has the manager rescan when it comes), so an unreachable address does not hold up
   * the other drivers' scan. `devices` and `learn` wait, to list what the addresses reach.
   */
  passive?: boolean
}

let netBytes: DeviceBytesCache | undefined

/**
 * Device bytes of the network decks: their own cache (the library's core here is not the USB decks', so
 * neither are its prepared buffers), made with the first network deck.
 */
export function netDeviceBytes(): DeviceBytesCache {
  netBytes ??= new DeviceBytesCache()
  return netBytes
}

/** Bytes the network decks' cache holds (none before a network deck opened). */
export function netDeviceBytesCached(): number {
  return netBytes?.bytes ?? 0
}

const libraryEncodeJPEG: EncodeJPEG = async (buffer, width, height) => {
  const { encodeJPEG } = await lateImport('@elgato-stream-deck/node-lib', () => import('@elgato-stream-deck/node-lib'))
  return encodeJPEG(buffer, width, height, { quality: JPEG_QUALITY })
}

export class StreamDeckNetDriver implements SurfaceDriver {
  readonly name = NET_DRIVER
  private readonly connections = new Map<string, DeckConnection>()
  private entries: readonly NetDeckConfig[] = []
  private readonly renderer: KeyRenderer
  private readonly log = createLogger(NET_DRIVER)
  private listener: ((change: HotplugChange) => void) | undefined
  private firstAnswers: Promise<void> | undefined
  private discovery: DeckDiscovery | undefined
  /** The addresses (`discoveredAddress`) of the entries that ask for discovery. */
  private discoverable = new Set<string>()

  constructor(private readonly opts: StreamDeckNetDriverOptions = {}) {
    this.renderer = opts.renderer ?? new KeyRenderer()
  }

  /** The driver's own hot-plug source: a deck up or gone. Stopping it closes every connection. */
  readonly hotplug: HotplugSource = {
    start: (listener) => {
      this.listener = listener
      return Promise.resolve(true)
    },
    stop: () => {
      this.listener = undefined
      this.closeAll()
    },
  }

  /**
   * Takes the config's entries: connects to new addresses, closes those no longer named; runs discovery
   * while an entry asks for it (and only then).
   */
  configure(entries: readonly NetDeckConfig[]): void {
    this.entries = entries
    const wanted = new Set(entries.map(entryAddress))
    for (const [address, connection] of [...this.connections]) {
      if (wanted.has(address)) continue
      connection.close()
      this.connections.delete(address)
    }
    const started: Promise<void>[] = []
    for (const entry of entries) {
      const address = entryAddress(entry)
      if (entry.host === undefined || this.connections.has(address)) continue
      started.push(this.connect(address, entry.host, entry.port ?? DEFAULT_DECK_PORT))
    }
    if (started.length > 0 && this.opts.passive !== true) this.firstAnswers = Promise.all(started).then(() => undefined)
    this.discover(entries.filter((e) => e.host === undefined && e.discover === true).map(entryAddress))
  }

  /** Keeps `address` connected to `host:port`; resolves when a deck first comes up there, or a dock there is empty. */
  private connect(address: string, host: string, port: number): Promise<void> {
    let answered: () => void = () => undefined
    const first = new Promise<void>((resolve) => (answered = resolve))
    const connection = new DeckConnection(host, port, {
      transport: this.opts.transport ?? tcpTransport,
      encodeJPEG: this.opts.encodeJPEG ?? libraryEncodeJPEG,
      log: this.log.child(address),
      backoff: this.opts.backoff ?? defaultBackoff(),
      via: address,
      onChange: () => {
        answered()
        this.listener?.('attach')
      },
      // A dock with nothing plugged in has answered too: no deck is coming to wait for.
      onEmpty: answered,
    })
    this.connections.set(address, connection)
    connection.start()
    return first
  }

  /** Runs discovery while some entry wants a discovered deck (`addresses`: theirs), else stops it. */
  private discover(addresses: readonly string[]): void {
    this.discoverable = new Set(addresses)
    if (addresses.length === 0) {
      this.discovery?.stop()
      this.discovery = undefined
      return
    }
    this.discovery ??= (this.opts.discovery ?? mdnsDiscovery)((a) => this.announced(a), this.log)
  }

  /** A deck announced itself: connected to when an entry names its serial (again if its address changed). */
  private announced(a: Announcement): void {
    if (a.serialNumber === undefined || a.serialNumber.trim() === '') return
    const address = discoveredAddress(a.serialNumber)
    if (!this.discoverable.has(address)) return
    const current = this.connections.get(address)
    if (current?.host === a.address && current.port === a.port) return
    current?.close()
    this.log.info('network deck discovered', { serial: a.serialNumber, address: `${a.address}:${a.port}` })
    void this.connect(address, a.address, a.port)
  }

  async detect(): Promise<DetectedDevice[]> {
    const first = this.firstAnswers
    if (first) {
      // Once: the first scan after a config names new decks gives them a moment to answer.
      this.firstAnswers = undefined
      let timer: NodeJS.Timeout | undefined
      await Promise.race([first, new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_ANSWER_WAIT_MS)))])
      clearTimeout(timer)
    }
    return this.decks().map((d) => ({
      driver: this.name,
      id: d.serial,
      model: d.model,
      modelId: d.modelId,
      serial: d.serial,
      port: d.via,
    }))
  }

  open(device: DetectedDevice): Promise<NetDeckSurface> {
    const found = this.decks().find((d) => d.serial === device.id)
    if (!found) return Promise.reject(new Error(`${this.name}: deck ${device.id} is not connected`))
    const inner = new StreamDeckSurface(found.deck, found.serial, {
      renderer: this.renderer,
      logger: this.log.child(found.serial),
      deviceBytes: netDeviceBytes(),
      ...(this.opts.frameMs !== undefined ? { frameMs: this.opts.frameMs } : {}),
    })
    const surface = new NetDeckSurface(inner, this.name, this.brightnessOf(found), found.gone)
    return Promise.resolve(surface)
  }

  /** Closes every connection and stops discovery (the manager stopped). */
  closeAll(): void {
    this.discover([])
    for (const connection of this.connections.values()) connection.close()
    this.connections.clear()
  }

  private decks(): NetDeck[] {
    return [...this.connections.values()].flatMap((c) => c.decks())
  }

  /** The entry's brightness: the entry that names this deck's serial, else the one of its address. */
  private brightnessOf(deck: NetDeck): number {
    const entry =
      this.entries.find((e) => e.serial !== undefined && e.serial.trim() === deck.serial) ??
      this.entries.find((e) => entryAddress(e) === deck.via)
    return entry?.brightness ?? DEFAULT_NET_BRIGHTNESS
  }
}
