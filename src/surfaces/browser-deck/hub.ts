/**
 * The Stream Decks pages have registered (issue 26.2): the page-device port of the web server
 * (`../web/page-devices.ts`) on one side, the browser-deck driver's device list and hot-plug source on
 * the other. A registration is a device plugged in: the surface manager finds it at its next scan (a
 * hot-plug `attach` asks for one at once) and opens it when a `surfaces:` entry claims it; a page that
 * removes its deck, or whose socket closes, unplugs it (`detach`), and the surface shows `waiting`.
 *
 * Bounds: a page registers at most MAX_DECKS_PER_PAGE decks at once, all pages MAX_BROWSER_DECKS; a
 * model must be one of the model table's, whose controls the deck then has (the page's word on keys
 * is never taken); a serial another registration holds is refused. The protocol bounds the strings.
 *
 * No page takes a claimed deck's place: decks whose serial no `surfaces:` entry claims (`setClaims`)
 * fill at most MAX_UNCLAIMED_DECKS of the slots, so the rest stay free for the decks the config names;
 * and should the claimed ones need more, the oldest unclaimed deck no surface has open is dropped (its
 * page is told why). A claim by model alone reserves nothing: any page can offer that model.
 */
import { createLogger } from '../../log.js'
import { listenerHotplugSource, type HotplugChange, type HotplugSource } from '../hotplug.js'
import type { PageDeviceLink, PageDevicePort } from '../web/page-devices.js'
import type { DeckClientMessage, DeckServerMessage } from '../../face/protocol.js'
import { browserDeckModel, type BrowserDeckModel } from '../../families/browser-deck.js'
import type { DetectedDevice } from '../../face/surface.js'
import type { SurfaceClaim } from '../../families/claims.js'

/** A deck's input as the page sends it. */
export type BrowserDeckInput = Extract<DeckClientMessage, { type: 'deck-input' }>

/** The driver name of the family (the `driver:` of the mapping file). */
export const BROWSER_DECK_DRIVER = 'browser-deck'
/** Decks one page may register at once: a laptop with a deck or two, not a rack. */
export const MAX_DECKS_PER_PAGE = 2
/** Decks every page together may register at once. */
const MAX_BROWSER_DECKS = 16
/**
 * Of them, decks whose serial no surface claims: the rest are kept for the claimed ones, so pages
 * registering junk never lock out the deck the config names. ASSUMED: half.
 */
const MAX_UNCLAIMED_DECKS = 8

/** One deck a page registered. */
export interface Registration {
  readonly link: PageDeviceLink
  /** The page's number for it. */
  readonly deck: number
  readonly model: BrowserDeckModel
  readonly serial: string
  /** Its device identity: the serial, else one of its page's. */
  readonly id: string
  /** Where its input goes while it is an open surface. */
  input?: (message: BrowserDeckInput) => void
}

const log = createLogger('browser-deck')

export class BrowserDeckHub implements PageDevicePort {
  /** In the order they registered (the oldest unclaimed one is the first dropped). */
  private readonly decks = new Map<string, Registration>()
  /**
   * Registrations whose model is being looked up, by link and deck number, with whether a surface
   * claims their serial (they count against the bounds).
   */
  private readonly pending = new Map<string, boolean>()
  /** The serials the configured surfaces claim (trimmed, as claims match them). */
  private claimed = new Set<string>()
  private readonly listeners = new Set<(change: HotplugChange) => void>()
  /** Who takes the input of decks no surface has open (`learn` through the daemon; issue 26 item 2). */
  private readonly unclaimedInput = new Set<(reg: Registration, message: BrowserDeckInput) => void>()

  handle(link: PageDeviceLink, message: DeckClientMessage): void {
    switch (message.type) {
      case 'deck-add':
        this.add(link, message).catch((err: unknown) => log.warn('could not register a browser deck', { err }))
        return
      case 'deck-remove':
        return this.remove(this.find(link, message.deck))
      case 'deck-input': {
        const reg = this.find(link, message.deck)
        if (reg?.input) reg.input(message)
        else if (reg && this.unclaimedInput.size > 0) for (const l of this.unclaimedInput) l(reg, message)
        else log.once(`input:${link.id}:${message.deck}`, 'debug', 'input from a browser deck no surface has open')
      }
    }
  }

  drop(link: PageDeviceLink): void {
    for (const reg of [...this.decks.values()]) if (reg.link === link) this.remove(reg)
  }

  /** The decks registered now, as detection lists devices. */
  list(): DetectedDevice[] {
    return [...this.decks.values()].map((reg) => ({
      driver: BROWSER_DECK_DRIVER,
      id: reg.id,
      model: reg.model.name,
      modelId: reg.model.id,
      ...(reg.serial !== '' ? { serial: reg.serial } : {}),
    }))
  }

  /** The configured surfaces' claims (at start and after every reload): the serials they claim have room kept. */
  setClaims(claims: readonly SurfaceClaim[] | 'all'): void {
    const serials = claims === 'all' ? [] : claims.filter((c) => c.driver === BROWSER_DECK_DRIVER)
    this.claimed = new Set(serials.flatMap((c) => (c.match.serial !== undefined ? [c.match.serial.trim()] : [])))
  }

  /** A registration by its device identity. */
  get(id: string): Registration | undefined {
    return this.decks.get(id)
  }

  /** Tells a registration's page what became of its deck (a closed page is not told). */
  tell(reg: Registration, message: DeckServerMessage): void {
    if (this.decks.get(reg.id) === reg) reg.link.send(message)
  }

  /**
   * Follows the input of decks that no surface has open (it reaches no binding): `learn` through the
   * daemon shows it. Returns how to stop.
   */
  watchUnclaimedInput(listener: (reg: Registration, message: BrowserDeckInput) => void): () => void {
    this.unclaimedInput.add(listener)
    return () => void this.unclaimedInput.delete(listener)
  }

  /** Registrations come and go as hot-plug changes, so the manager scans at once. */
  hotplug(): HotplugSource {
    return listenerHotplugSource(this.listeners)
  }

  private find(link: PageDeviceLink, deck: number): Registration | undefined {
    for (const reg of this.decks.values()) if (reg.link === link && reg.deck === deck) return reg
    return undefined
  }

  private async add(link: PageDeviceLink, m: Extract<DeckClientMessage, { type: 'deck-add' }>): Promise<void> {
    const refuse = (detail: string): void => {
      log.once(`refused:${link.id}:${detail}`, 'warn', 'refused a Stream Deck from a browser', { detail })
      link.send({ type: 'deck-state', deck: m.deck, state: 'refused', detail })
    }
    const slot = `${link.id}:${m.deck}`
    const ofPage = [...this.decks.values()].filter((r) => r.link === link).length
    const pendingOfPage = [...this.pending.keys()].filter((p) => p.startsWith(`${link.id}:`)).length
    if (this.find(link, m.deck) || this.pending.has(slot)) return refuse('this page registered that deck already')
    if (ofPage + pendingOfPage >= MAX_DECKS_PER_PAGE)
      return refuse(`a page registers at most ${MAX_DECKS_PER_PAGE} decks`)
    const claimed = this.isClaimed(m.serial)
    if (!claimed && this.unclaimedCount() >= MAX_UNCLAIMED_DECKS)
      return refuse(`at most ${MAX_UNCLAIMED_DECKS} browser decks that no surface claims at once`)
    if (this.decks.size + this.pending.size >= MAX_BROWSER_DECKS && !(claimed && this.dropOldestUnclaimed()))
      return refuse(`at most ${MAX_BROWSER_DECKS} browser decks at once`)
    const id = m.serial !== '' ? m.serial : `page${link.id}-deck${m.deck}`
    if (this.decks.has(id)) return refuse('a deck with this serial number is registered already')
    this.pending.set(slot, claimed)
    let model: BrowserDeckModel | undefined
    try {
      model = await browserDeckModel(m.model)
    } finally {
      this.pending.delete(slot)
    }
    if (!model) return refuse(`unknown Stream Deck model "${m.model}"`)
    // The page may have closed, or another page taken the serial, while the model was looked up.
    if (this.decks.has(id)) return refuse('a deck with this serial number is registered already')
    if (!link.isOpen()) return
    const reg: Registration = { link, deck: m.deck, model, serial: m.serial, id }
    this.decks.set(id, reg)
    log.info('a browser registered a Stream Deck', { device: id, model: model.name, page: link.id })
    link.send({
      type: 'deck-state',
      deck: m.deck,
      state: 'unclaimed',
      detail: `no surface claims it yet; to use it, add under surfaces: { driver: ${BROWSER_DECK_DRIVER}, model: ${model.id}${m.serial !== '' ? `, serial: ${m.serial}` : ''} }`,
    })
    this.fire('attach')
  }

  private isClaimed(serial: string): boolean {
    return serial.trim() !== '' && this.claimed.has(serial.trim())
  }

  /** Registered or being registered decks whose serial no surface claims. */
  private unclaimedCount(): number {
    let n = 0
    for (const reg of this.decks.values()) if (!this.isClaimed(reg.serial)) n++
    for (const claimed of this.pending.values()) if (!claimed) n++
    return n
  }

  /** Makes room for a claimed deck: the oldest unclaimed deck no surface has open goes. Whether one went. */
  private dropOldestUnclaimed(): boolean {
    for (const reg of this.decks.values()) {
      if (this.isClaimed(reg.serial) || reg.input) continue
      const detail = 'dropped to make room for a deck a surface claims'
      log.warn('dropped an unclaimed browser deck', { device: reg.id, page: reg.link.id, detail })
      reg.link.send({ type: 'deck-state', deck: reg.deck, state: 'refused', detail })
      this.remove(reg)
      return true
    }
    return false
  }

  private remove(reg: Registration | undefined): void {
    if (!reg || this.decks.get(reg.id) !== reg) return
    this.decks.delete(reg.id)
    reg.input = undefined
    log.info('a browser deck went', { device: reg.id, page: reg.link.id })
    this.fire('detach')
  }

  private fire(change: HotplugChange): void {
    for (const l of this.listeners) l(change)
  }
}
