/**
 * The browser-deck family without a browser: the page protocol's deck messages and their bounds, the
 * hub's registrations (bounded per page and in all, known models only, one registration per serial),
 * the surface a registration opens as (its model's controls, whatever the page sends; the page's input
 * checked against them; feedback sent back as faces), and a closed page unplugging its decks.
 */
import { describe, expect, it } from 'vitest'
import { BrowserDeckDriver } from '../../../src/surfaces/browser-deck/driver.js'
import { BrowserDeckHub, MAX_DECKS_PER_PAGE } from '../../../src/surfaces/browser-deck/hub.js'
import type { HotplugChange } from '../../../src/surfaces/hotplug.js'
import type { SurfaceEvent } from '../../../src/surfaces/types.js'
import type { PageDeviceLink } from '../../../src/surfaces/web/page-devices.js'
import { MAX_DECK_SERIAL_LENGTH, parsePageMessage, type DeckServerMessage } from '../../../src/face/protocol.js'
import { until } from '../../helpers/until.js'

/** A page's socket: what the hub sent it. */
function page(id: number): PageDeviceLink & { sent: DeckServerMessage[]; open: boolean } {
  const link = {
    id,
    sent: [] as DeckServerMessage[],
    open: true,
    send: (m: DeckServerMessage) => link.sent.push(m),
    isOpen: () => link.open,
  }
  return link
}

const add = (deck: number, serial: string, model = 'original-mk2') =>
  ({ type: 'deck-add', deck, model, serial }) as const

function states(link: { sent: DeckServerMessage[] }): string[] {
  return link.sent.flatMap((m) => (m.type === 'deck-state' ? [`${m.deck}:${m.state}`] : []))
}

describe('the page protocol’s deck messages', () => {
  it('takes a deck registration, removal and input of the right shape', () => {
    expect(parsePageMessage('{"type":"deck-add","deck":0,"model":"xl","serial":" AB12 "}', false)).toEqual({
      ok: true,
      deck: { type: 'deck-add', deck: 0, model: 'xl', serial: 'AB12' },
    })
    expect(
      parsePageMessage('{"type":"deck-input","deck":1,"control":"encoder:0","input":"rotate","delta":-3}', false),
    ).toEqual({
      ok: true,
      deck: { type: 'deck-input', deck: 1, control: 'encoder:0', input: 'rotate', delta: -3 },
    })
    // A control's input is parsed as before.
    expect(parsePageMessage('{"type":"down","surface":"a","control":"key:1"}', false)).toEqual({
      ok: true,
      message: { type: 'down', surface: 'a', control: 'key:1' },
    })
  })

  it.each([
    ['a deck number out of range', '{"type":"deck-add","deck":16,"model":"xl","serial":"A"}', 'bad deck'],
    ['a fractional deck number', '{"type":"deck-remove","deck":0.5}', 'bad deck'],
    ['a model that is no model id', '{"type":"deck-add","deck":0,"model":"XL<script>","serial":"A"}', 'bad deck model'],
    ['a long model id', `{"type":"deck-add","deck":0,"model":"${'x'.repeat(33)}","serial":"A"}`, 'bad deck model'],
    [
      'a serial over the cap',
      `{"type":"deck-add","deck":0,"model":"xl","serial":"${'S'.repeat(MAX_DECK_SERIAL_LENGTH + 1)}"}`,
      'bad deck serial',
    ],
    [
      'a serial with control characters',
      '{"type":"deck-add","deck":0,"model":"xl","serial":"A\\nB"}',
      'bad deck serial',
    ],
    [
      'a rotate of no steps',
      '{"type":"deck-input","deck":0,"control":"encoder:0","input":"rotate","delta":0}',
      'bad delta',
    ],
    ['an input of no kind', '{"type":"deck-input","deck":0,"control":"key:0","input":"value"}', 'bad deck input'],
    ['an unknown deck message', '{"type":"deck-reboot","deck":0}', 'unknown type'],
  ])('refuses %s', (_what, frame, reason) => {
    expect(parsePageMessage(frame, false)).toEqual({ ok: false, reason })
  })
})

describe('the browser-deck hub', () => {
  it('registers a known model, refuses an unknown one, and lists the deck as detection does', async () => {
    const hub = new BrowserDeckHub()
    const changes: HotplugChange[] = []
    await hub.hotplug().start((c) => changes.push(c))
    const p = page(1)
    hub.handle(p, add(0, 'SER1'))
    hub.handle(p, add(1, 'SER2', 'no-such-deck'))
    await until('both answered', () => p.sent.length === 2)
    expect(states(p).sort()).toEqual(['0:unclaimed', '1:refused'])
    expect(hub.list()).toEqual([
      { driver: 'browser-deck', id: 'SER1', model: 'Stream Deck MK.2', modelId: 'original-mk2', serial: 'SER1' },
    ])
    expect(changes).toEqual(['attach'])
  })

  it(`takes at most ${MAX_DECKS_PER_PAGE} decks a page, one registration per serial, and forgets a closed page's`, async () => {
    const hub = new BrowserDeckHub()
    const changes: HotplugChange[] = []
    await hub.hotplug().start((c) => changes.push(c))
    const [a, b] = [page(1), page(2)]
    for (let n = 0; n <= MAX_DECKS_PER_PAGE; n++) hub.handle(a, add(n, `A${n}`))
    hub.handle(b, add(0, 'A0'))
    hub.handle(b, add(1, 'B1'))
    await until('every registration answered', () => a.sent.length === MAX_DECKS_PER_PAGE + 1 && b.sent.length === 2)
    expect(states(a).filter((s) => s.endsWith('refused'))).toHaveLength(1)
    expect(states(b)).toEqual(['0:refused', '1:unclaimed'])
    expect(hub.list().map((d) => d.id)).toEqual(['A0', 'A1', 'B1'])
    hub.drop(a)
    expect(hub.list().map((d) => d.id)).toEqual(['B1'])
    expect(changes.filter((c) => c === 'detach')).toHaveLength(2)
    // A page that closed while its model was looked up registers nothing.
    const c = page(3)
    hub.handle(c, add(0, 'C0'))
    c.open = false
    hub.drop(c)
    // A later page's registration settles after it (the same cached model lookup, queued behind).
    const d = page(4)
    hub.handle(d, add(0, 'D0'))
    await until('the later page answered', () => d.sent.length === 1)
    expect(c.sent).toEqual([])
    expect(hub.list().map((x) => x.id)).toEqual(['B1', 'D0'])
  })

  it('keeps room for claimed serials: junk fills at most its share, and a claimed deck past the total drops the oldest junk', async () => {
    const hub = new BrowserDeckHub()
    const claimed = Array.from({ length: 9 }, (_, i) => `REAL${i}`)
    hub.setClaims(claimed.map((serial, i) => ({ name: `d${i}`, driver: 'browser-deck', match: { serial } })))
    const pages = Array.from({ length: 13 }, (_, i) => page(i + 1))
    // Eight pages of junk: the ninth junk deck is refused.
    for (let i = 0; i < 9; i++) hub.handle(pages[Math.floor(i / 2)]!, add(i % 2, `JUNK${i}`))
    await until('the junk answered', () => pages.slice(0, 5).reduce((n, p) => n + p.sent.length, 0) === 9)
    expect(hub.list().filter((d) => d.id.startsWith('JUNK'))).toHaveLength(8)
    // Nine claimed decks: the ninth takes the place of the oldest junk, whose page is told.
    for (let i = 0; i < 9; i++) hub.handle(pages[5 + Math.floor(i / 2)]!, add(i % 2, claimed[i]!))
    await until('every claimed deck registered', () => claimed.every((id) => hub.get(id) !== undefined))
    expect(hub.get('JUNK0')).toBeUndefined()
    expect(pages[0]!.sent.at(-1)).toEqual({
      type: 'deck-state',
      deck: 0,
      state: 'refused',
      detail: 'dropped to make room for a deck a surface claims',
    })
    expect(hub.list()).toHaveLength(16)
  })

  it("opens as its model's surface: the page's input is checked against the model, feedback goes back as faces", async () => {
    const driver = new BrowserDeckDriver()
    const p = page(1)
    driver.hub.handle(p, add(0, 'SER1'))
    await until('registered', () => driver.hub.list().length === 1)
    const surface = await driver.open((await driver.detect())[0]!)
    expect(states(p)).toEqual(['0:unclaimed', '0:open'])
    expect(surface.description).toMatchObject({ id: 'SER1', driver: 'browser-deck', grid: { rows: 3, columns: 5 } })
    expect(surface.description.controls.map((c) => c.id)).toEqual(Array.from({ length: 15 }, (_, i) => `key:${i}`))

    const events: SurfaceEvent[] = []
    surface.events.on('input', (e) => events.push(e))
    driver.hub.handle(p, { type: 'deck-input', deck: 0, control: 'key:15', input: 'down' }) // not on this model
    driver.hub.handle(p, { type: 'deck-input', deck: 0, control: 'encoder:0', input: 'rotate', delta: 1 })
    driver.hub.handle(p, { type: 'deck-input', deck: 0, control: 'key:3', input: 'rotate', delta: 1 }) // keys do not turn
    driver.hub.handle(p, { type: 'deck-input', deck: 1, control: 'key:3', input: 'down' }) // no such deck
    driver.hub.handle(p, { type: 'deck-input', deck: 0, control: 'key:3', input: 'down' })
    expect(events.map((e) => [e.type, e.control, e.surface])).toEqual([['down', 'key:3', 'SER1']])

    p.sent.length = 0
    surface.setFeedback('key:3', { color: '#ff0000', text: 'CUT', detail: ' ' })
    surface.setFeedback('key:99', { text: 'nowhere' })
    surface.setBrightness(140)
    expect(p.sent).toEqual([
      { type: 'deck-key', deck: 0, control: 'key:3', face: { color: '#ff0000', text: 'CUT' } },
      { type: 'deck-brightness', deck: 0, percent: 100 },
    ])

    // Closed by the manager (its claim went): the page is told, and its input goes nowhere.
    await surface.close()
    expect(states(p)).toEqual(['0:unclaimed'])
    driver.hub.handle(p, { type: 'deck-input', deck: 0, control: 'key:3', input: 'up' })
    expect(events).toHaveLength(1)
  })
})
