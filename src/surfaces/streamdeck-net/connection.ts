/**
 * One configured network deck address (`host:port`) kept connected: the deck behind it (a Studio, or a
 * Network Dock and the deck plugged into it) built with the library's own HID device and model factory
 * each time the connection comes up, and dropped when it goes.
 *
 * - Reconnect: a connection that fails or drops is tried again with the surface manager's back-off
 *   (`SURFACE_RETRY`: from 1 s, doubling, at most 30 s; from the start again after a connection that
 *   stayed up 10 s), so a dock off the network comes back by itself without a restart.
 * - A dock's child deck: the dock reports the deck plugged into it (and every plug and unplug) with the
 *   TCP port that reaches it; the child is a connection of its own to that port, the deck it is (its own
 *   model, controls and serial), closed when the dock reports it gone or the dock itself drops.
 * - Every change (a deck up, a deck gone) is told to `onChange`: the driver's hot-plug source, so the
 *   manager rescans, closes a surface whose deck went (`waiting`) and opens one that came back.
 */
import type { StreamDeck } from '@elgato-stream-deck/core'
import type { Logger } from '../../log.js'
import { SURFACE_RETRY } from '../retry.js'
import { DeckLink } from './link.js'
import {
  loadNetLibrary,
  TcpProperties,
  type ChildInfo,
  type EncodeJPEG,
  type NetModel,
  type TcpHid,
} from './library.js'
import type { NetDeckTransport } from './socket.js'

/** The Network Dock's model id in the library: a dock has no controls of its own, only a child deck. */
const DOCK_MODEL = 'network-dock'

/** How long a deck that answered its keepalive may take to tell its model and serial. */
const DECK_OPEN_TIMEOUT_MS = 5000

/** A deck that is up, as the driver lists it. */
export interface NetDeck {
  /** The serial number: the deck's identity. */
  readonly serial: string
  /** The library's model id (`studio`, `xl`, ...) and its display name. */
  readonly modelId: string
  readonly model: string
  /** The configured address it is reached through (`deckAddress`; a dock's child: the dock's). */
  readonly via: string
  /** Where this deck's own connection goes (`tcp://host:port`). */
  readonly path: string
  readonly deck: StreamDeck
  /** Resolves when this deck's connection drops (or is closed). */
  readonly gone: Promise<void>
}

/** How reconnecting is paced. */
export interface Backoff {
  initialMs: number
  maxMs: number
  stableMs: number
}

/**
 * The surface manager's back-off. A function, not a constant: the manager's module imports the driver
 * tables (through the udev rules) and so this module, so its defaults are read when used, not at load.
 */
export function defaultBackoff(): Backoff {
  return {
    initialMs: SURFACE_RETRY.retryInitialMs,
    maxMs: SURFACE_RETRY.retryMaxMs,
    stableMs: SURFACE_RETRY.stableMs,
  }
}

export interface DeckConnectionOptions {
  transport: NetDeckTransport
  encodeJPEG: EncodeJPEG
  log: Logger
  backoff: Backoff
  onChange: () => void
  /**
   * Told when a dock (or a Studio's child port) has said what is plugged into it and it is nothing (or
   * it could not say): there is no deck to wait for there, where a deck coming up is told by `onChange`.
   */
  onEmpty?: () => void
  /** The configured address (`deckAddress`; for a dock's child: the dock's). */
  via: string
  /** For a dock's child: its serial as the dock reported it. */
  childSerial?: string
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

export class DeckConnection {
  private link: DeckLink | undefined
  private current: NetDeck | undefined
  private child: DeckConnection | undefined
  private retry: NodeJS.Timeout | undefined
  private attempts = 0
  private upSince = 0
  private closed = false
  readonly via: string

  constructor(
    readonly host: string,
    readonly port: number,
    private readonly o: DeckConnectionOptions,
  ) {
    this.via = o.via
  }

  /** The decks up now: this connection's (unless it is a dock) and its child's. */
  decks(): NetDeck[] {
    return [...(this.current ? [this.current] : []), ...(this.child?.decks() ?? [])]
  }

  start(): void {
    if (this.closed || this.link || this.retry) return
    const socket = this.o.transport.connect(this.host, this.port)
    const link = new DeckLink(socket, this.host, this.port, this.o.log)
    this.link = link
    let resolveGone: () => void = () => undefined
    const gone = new Promise<void>((resolve) => (resolveGone = resolve))
    link.once('ready', () => {
      this.upSince = Date.now()
      this.open(link, gone).catch((err: unknown) => {
        this.o.log.once(`open:${this.host}:${this.port}`, 'warn', 'the network deck could not be opened', {
          address: `${this.host}:${this.port}`,
          error: err,
        })
        link.close()
      })
    })
    link.once('disconnected', () => {
      resolveGone()
      this.dropped(link)
    })
  }

  /** Ends the connection and its child's for good (idempotent). */
  close(): void {
    this.closed = true
    if (this.retry) clearTimeout(this.retry)
    this.retry = undefined
    this.closeChild()
    this.link?.close()
  }

  private async open(link: DeckLink, gone: Promise<void>): Promise<void> {
    const lib = await loadNetLibrary()
    const hid = lib.hidDevice(link)
    // The deck forwards its HID device's errors once built; until then they are only worth a line.
    hid.on('error', (err) => this.o.log.debug('network deck error', { error: err }))
    const info = await withTimeout(hid.getDeviceInfo(), DECK_OPEN_TIMEOUT_MS, 'the deck')
    const model = lib.models.find((m) => m.productIds.includes(info.productId))
    if (!model) throw new Error(`unknown Stream Deck product id 0x${info.productId.toString(16)}`)
    const deck = model.factory(
      hid,
      { encodeJPEG: this.o.encodeJPEG },
      hid.isPrimary ? new TcpProperties(hid) : undefined,
    )
    const serial =
      this.o.childSerial ?? (await withTimeout(deck.getSerialNumber(), DECK_OPEN_TIMEOUT_MS, 'the serial number'))
    if (this.link !== link || this.closed) return
    this.o.log.clear(`open:${this.host}:${this.port}`)
    this.o.log.clear(`down:${this.host}:${this.port}`)
    if (model.id !== DOCK_MODEL) this.up(model, deck, serial.trim(), gone)
    if (hid.isPrimary) this.watchChild(hid)
  }

  private up(model: NetModel, deck: StreamDeck, serial: string, gone: Promise<void>): void {
    this.current = {
      serial,
      modelId: model.id,
      model: model.productName,
      via: this.via,
      path: `tcp://${this.host}:${this.port}`,
      deck,
      gone,
    }
    this.o.log.info('network deck connected', { address: `${this.host}:${this.port}`, model: model.productName })
    this.o.onChange()
  }

  /** Follows the deck plugged into a dock (or a Studio's child port): connects to it, or closes it when it goes. */
  private watchChild(hid: TcpHid): void {
    const follow = (info: ChildInfo | null): void => {
      if (this.closed || !this.link?.connected) return
      if (!info) return this.closeChild()
      if (this.child?.port === info.tcpPort) return
      this.closeChild()
      this.child = new DeckConnection(this.host, info.tcpPort, {
        ...this.o,
        via: this.via,
        childSerial: info.serialNumber,
      })
      this.child.start()
    }
    hid.onChildInfoChange = follow
    hid.getChildDeviceInfo().then(
      (info) => {
        follow(info)
        if (!info) this.o.onEmpty?.()
      },
      (err: unknown) => {
        this.o.log.debug('no child deck info', { error: err })
        this.o.onEmpty?.()
      },
    )
  }

  private closeChild(): void {
    if (!this.child) return
    this.child.close()
    this.child = undefined
    this.o.onChange()
  }

  private dropped(link: DeckLink): void {
    if (this.link !== link) return
    this.link = undefined
    const hadDeck = this.current !== undefined
    this.current = undefined
    this.closeChild()
    if (hadDeck) this.o.log.info('network deck disconnected', { address: `${this.host}:${this.port}` })
    if (hadDeck) this.o.onChange()
    if (this.closed) return
    const stable = this.upSince > 0 && Date.now() - this.upSince >= this.o.backoff.stableMs
    this.upSince = 0
    this.attempts = stable ? 1 : this.attempts + 1
    const delay = Math.min(this.o.backoff.maxMs, this.o.backoff.initialMs * 2 ** (this.attempts - 1))
    this.o.log.once(`down:${this.host}:${this.port}`, 'warn', 'network deck unreachable; retrying with back-off', {
      address: `${this.host}:${this.port}`,
      retryInMs: delay,
    })
    this.retry = setTimeout(() => {
      this.retry = undefined
      this.start()
    }, delay)
  }
}
