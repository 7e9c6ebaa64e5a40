/**
 * The "connect a Stream Deck" button (issue 26.2). The WebHID code is a bundle of its own
 * (`/browser-deck.js`, from `./deck/webhid-deck.ts`), added as a script on the first press of the button, so a
 * page that never connects a deck loads none of it. WebHID exists in Chrome and Edge, and only in a
 * secure context (the page over HTTPS, or at localhost / 127.0.0.1); elsewhere the button is not shown
 * and a line says why. A read-only viewer gets neither.
 */
import type { DeckServerMessage, ServerMessage } from '../face/protocol.js'
import type { WebHidDecks } from './deck/webhid-deck.js'

/** The deck bundle, next to the page whatever path the page is mounted under. */
const DECK_SCRIPT = 'browser-deck.js'
/** The global the deck bundle defines (`DECK_SCRIPT_GLOBAL` of `../deck-script.ts`). */
const DECK_GLOBAL = 'panelbridgeDeck'

type DeckModule = typeof import('./deck/webhid-deck.js')

/** Loads the deck bundle as a classic script (the page's CSP allows this origin's) and returns its exports. */
function loadDeckScript(): Promise<DeckModule> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script')
    script.src = new URL(DECK_SCRIPT, location.href).href
    script.onload = () => {
      const module = (window as unknown as Record<string, DeckModule | undefined>)[DECK_GLOBAL]
      if (module) resolve(module)
      else reject(new Error('the deck script defined nothing'))
    }
    script.onerror = () => reject(new Error('the deck script did not load'))
    document.head.append(script)
  })
}

function isDeckMessage(m: ServerMessage): m is DeckServerMessage {
  return m.type.startsWith('deck-')
}

export class BrowserDecks {
  private decks: WebHidDecks | undefined
  private readonly lines = new Map<number, HTMLElement>()
  private readonly box: HTMLElement

  constructor(
    parent: HTMLElement,
    private readonly sendText: (text: string) => void,
  ) {
    this.box = document.createElement('div')
    this.box.id = 'browser-decks'
    this.box.className = 'browser-decks'
    parent.append(this.box)
    // WebHID's interface: Chrome and Edge define it, in a secure context only.
    if (!('HID' in window) || !window.isSecureContext) {
      const note = document.createElement('span')
      note.className = 'note'
      note.textContent = window.isSecureContext
        ? 'A Stream Deck on this computer needs Chrome or Edge (WebHID).'
        : 'A Stream Deck on this computer needs this page over HTTPS or at localhost (WebHID).'
      this.box.append(note)
      return
    }
    const button = document.createElement('button')
    button.type = 'button'
    button.id = 'connect-deck'
    button.textContent = 'connect a Stream Deck'
    button.addEventListener('click', () => {
      this.connect().catch((err: unknown) => this.say(-1, `could not connect a Stream Deck: ${String(err)}`))
    })
    this.box.append(button)
  }

  /** A message from the server: a deck's, handled here; `hello` (a new socket) registers the decks again. */
  handle(m: ServerMessage): void {
    if (m.type === 'hello') this.decks?.registerAgain()
    else if (isDeckMessage(m)) this.decks?.handle(m)
  }

  private async connect(): Promise<void> {
    if (!this.decks) {
      // Fetched now, not with the page: a page that never connects a deck loads none of WebHID.
      const module = await loadDeckScript()
      this.decks = module.createDecks({
        send: (message) => this.sendText(JSON.stringify(message)),
        say: (deck, text) => this.say(deck, text),
      })
    }
    const count = await this.decks.connect()
    if (count === 0) this.say(-1, 'no Stream Deck chosen')
  }

  private say(deck: number, text: string): void {
    let line = this.lines.get(deck)
    if (!line) {
      line = document.createElement('span')
      line.className = 'deck-line'
      line.dataset.deck = String(deck)
      this.lines.set(deck, line)
      this.box.append(line)
    }
    line.textContent = text
  }
}
