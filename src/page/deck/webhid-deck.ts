/**
 * A Stream Deck on the browser's machine (issue 26.2), the page's side: a separate bundle
 * (`../../deck-script.ts`), loaded only when someone presses "connect a Stream Deck", so a page that
 * never does loads none of the WebHID library. Chrome asks for the device (`requestStreamDecks`), the
 * library opens it, and the deck is registered over the page's socket by its model id and serial; the
 * daemon decides what it is (a surface, when a `surfaces:` entry claims it). Its presses go to the
 * daemon as `deck-input`; what the daemon shows comes back as faces this module paints at the key's
 * size with the daemon's key layout (`../../face/key-paint.ts`) and writes with the library.
 */
import { requestStreamDecks, type StreamDeckWeb } from '@elgato-stream-deck/webhid'
import { paintKey } from '../../face/key-paint.js'
import type { DeckClientMessage, DeckServerMessage } from '../../face/protocol.js'

/** What the page hands this module: its socket and where to say how each deck is. */
export interface DeckHost {
  send(message: DeckClientMessage): void
  /** Shows a line about a deck (its state, or why it was refused). */
  say(deck: number, text: string): void
}

interface OpenDeck {
  deck: StreamDeckWeb
  number: number
  model: string
  serial: string
  /** Writes to the device, one after another. */
  writes: Promise<void>
}

/** The control id of a library control, as the daemon names it (the USB deck's ids). */
function controlIdOf(control: { type: string; index: number; feedbackType?: string }): string | undefined {
  if (control.type === 'button') return `${control.feedbackType === 'none' ? 'button' : 'key'}:${control.index}`
  if (control.type === 'encoder') return `encoder:${control.index}`
  return undefined
}

export class WebHidDecks {
  private readonly decks = new Map<number, OpenDeck>()
  private next = 0

  constructor(private readonly host: DeckHost) {}

  /** Asks Chrome for decks (a user gesture must lead here) and registers each. */
  async connect(): Promise<number> {
    const found = await requestStreamDecks()
    for (const deck of found) await this.add(deck)
    return found.length
  }

  /** The socket opened again: every deck registers afresh (the daemon dropped them with the old socket). */
  registerAgain(): void {
    for (const d of this.decks.values())
      this.host.send({ type: 'deck-add', deck: d.number, model: d.model, serial: d.serial })
  }

  /** One message from the daemon about a deck. */
  handle(m: DeckServerMessage): void {
    const d = this.decks.get(m.deck)
    if (!d) return
    switch (m.type) {
      case 'deck-state':
        this.host.say(m.deck, `${d.deck.PRODUCT_NAME} ${d.serial}: ${m.state}${m.detail ? ` (${m.detail})` : ''}`)
        if (m.state !== 'open') this.write(d, () => d.deck.clearPanel())
        if (m.state === 'refused') this.forget(d)
        return
      case 'deck-brightness':
        return this.write(d, () => d.deck.setBrightness(m.percent))
      case 'deck-color':
        return this.color(d, m.control, m.rgb)
      case 'deck-key':
        return this.key(d, m.control, m.face, m.image)
    }
  }

  private async add(deck: StreamDeckWeb): Promise<void> {
    const serial = await deck.getSerialNumber().catch(() => '')
    const d: OpenDeck = { deck, number: this.next++, model: deck.MODEL, serial, writes: Promise.resolve() }
    this.decks.set(d.number, d)
    const input = (type: 'down' | 'up', control: Parameters<typeof controlIdOf>[0]): void => {
      const id = controlIdOf(control)
      if (id !== undefined) this.host.send({ type: 'deck-input', deck: d.number, control: id, input: type })
    }
    deck.on('down', (c) => input('down', c))
    deck.on('up', (c) => input('up', c))
    deck.on('rotate', (c, delta) => {
      const id = controlIdOf(c)
      if (id !== undefined && delta !== 0)
        this.host.send({ type: 'deck-input', deck: d.number, control: id, input: 'rotate', delta })
    })
    deck.on('error', (err) => {
      console.warn('panelbridge: the Stream Deck failed', err)
      this.forget(d)
    })
    this.host.send({ type: 'deck-add', deck: d.number, model: d.model, serial })
    this.host.say(d.number, `${deck.PRODUCT_NAME} ${serial}: registering…`)
  }

  private forget(d: OpenDeck): void {
    if (this.decks.get(d.number) !== d) return
    this.decks.delete(d.number)
    this.host.send({ type: 'deck-remove', deck: d.number })
    d.deck.removeAllListeners()
    d.writes = d.writes.then(() => d.deck.close()).catch(() => undefined)
  }

  /** Queues a write to the device; a failed one is logged and the next goes on. */
  private write(d: OpenDeck, job: () => Promise<void>): void {
    d.writes = d.writes.then(job).catch((err: unknown) => console.warn('panelbridge: a Stream Deck write failed', err))
  }

  private key(d: OpenDeck, control: string, face: Parameters<typeof paintKey>[1], image?: string): void {
    const index = /^key:(\d+)$/.exec(control)?.[1]
    const c = d.deck.CONTROLS.find((x) => x.type === 'button' && x.index === Number(index))
    if (index === undefined || !c || c.type !== 'button' || c.feedbackType !== 'lcd') return
    const { width, height } = c.pixelSize
    this.write(d, async () => {
      const canvas = document.createElement('canvas')
      canvas.width = width
      canvas.height = height
      const ctx = canvas.getContext('2d')
      if (!ctx) return
      if (image !== undefined) {
        const img = new Image()
        img.src = image
        await img.decode()
        ctx.drawImage(img, 0, 0, width, height)
      } else paintKey(ctx, face, width, height)
      const rgba = new Uint8Array(ctx.getImageData(0, 0, width, height).data.buffer)
      await d.deck.fillKeyBuffer(c.index, rgba, { format: 'rgba' })
    })
  }

  private color(d: OpenDeck, control: string, [r, g, b]: [number, number, number]): void {
    const [kind, n] = control.split(':')
    const index = Number(n)
    if (kind === 'key') this.write(d, () => d.deck.fillKeyColor(index, r, g, b))
    else if (kind === 'encoder') this.write(d, () => d.deck.setEncoderColor(index, r, g, b))
  }
}

/** The module's entry: the page calls this with its host on the first "connect a Stream Deck". */
export function createDecks(host: DeckHost): WebHidDecks {
  return new WebHidDecks(host)
}
