/**
 * Only a page that passed the daemon's checks registers a deck (issue 26.2): a real daemon bound beyond
 * loopback with a token, reached on 127.0.0.1 by a plain WebSocket speaking the page protocol. Without
 * the token, or from a foreign Origin or Host, the socket is refused before any message; a read-only
 * viewer's socket is told its deck is refused; the page's own socket (token cookie, its Origin)
 * registers the deck, which opens as the configured surface and presses through it.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type WebSocket from 'ws'
import { AUTH } from '../../../src/daemon/auth.js'
import { setLogSink } from '../../../src/log.js'
import type { DeckServerMessage } from '../../../src/face/protocol.js'
import { testConfigFile } from '../../helpers/files.js'
import { until } from '../../helpers/until.js'
import {
  browserDeckDaemon,
  connectSocket as connect,
  laptopDeckConfig,
  pageSocket,
  pageSocketOf,
} from './daemon-rig.js'

const previousSink = setLogSink(() => undefined)
afterAll(() => setLogSink(previousSink))

const TOKEN = 'correct-horse-battery-staple-42'

async function start() {
  const file = await testConfigFile('deck-socket', laptopDeckConfig(`{ host: 0.0.0.0, port: 0, token: "${TOKEN}" }`))
  const { daemon, driver } = await browserDeckDaemon(file)
  return { daemon, driver, ...pageSocketOf(daemon) }
}

/** The deck messages a socket receives. */
function deckMessages(ws: WebSocket): DeckServerMessage[] {
  const got: DeckServerMessage[] = []
  ws.on('message', (data: Buffer) => {
    const m = JSON.parse(data.toString()) as { type: string }
    if (m.type.startsWith('deck-')) got.push(m as DeckServerMessage)
  })
  return got
}

const REGISTER = JSON.stringify({ type: 'deck-add', deck: 0, model: 'original-mk2', serial: 'SER1' })

describe('a deck registers only over a page socket that passed the checks', () => {
  it('is refused without the token, from a foreign Origin or Host, and on a viewer’s socket; the page’s own registers', async () => {
    const { daemon, driver, origin, ws } = await start()
    const cookie = `${AUTH.cookieName}=${encodeURIComponent(TOKEN)}`
    expect(await connect(ws, { origin })).toBe(401)
    expect(await connect(ws, { origin, cookie: `${AUTH.cookieName}=wrong-token-of-some-length` })).toBe(401)
    expect(await connect(ws, { origin: 'http://evil.example', cookie })).toBe(403)
    expect(await connect(ws, { origin: 'http://evil.example', host: 'evil.example', cookie })).toBe(403)

    const viewer = await connect(`${ws}?view=1`, { origin, cookie })
    if (typeof viewer === 'number') throw new Error(`the viewer's socket was refused: ${viewer}`)
    const toViewer = deckMessages(viewer)
    viewer.send(REGISTER)
    await until('the viewer told', () => toViewer.length === 1)
    expect(toViewer).toEqual([{ type: 'deck-state', deck: 0, state: 'refused', detail: 'read-only viewer' }])
    expect(driver.hub.list()).toEqual([])

    const own = await connect(ws, { origin, cookie })
    if (typeof own === 'number') throw new Error(`the page's socket was refused: ${own}`)
    const toPage = deckMessages(own)
    own.send(REGISTER)
    await until('the deck open as laptop', () =>
      daemon.status().surfaces.some((s) => s.name === 'laptop' && s.state === 'open'),
    )
    const states = () => toPage.flatMap((m) => (m.type === 'deck-state' ? [m.state] : []))
    // A deck's newest state replaces an unsent older one (the page's outgoing queue): on a busy machine
    // 'unclaimed' may still be waiting when 'open' comes, and only 'open' is sent.
    await until('the page told', () => states().at(-1) === 'open')
    expect([['unclaimed', 'open'], ['open']]).toContainEqual(states())
    own.send(JSON.stringify({ type: 'deck-input', deck: 0, control: 'key:0', input: 'down' }))
    own.send(JSON.stringify({ type: 'deck-input', deck: 0, control: 'key:0', input: 'up' }))
    await until('the press sent', () => daemon.status().commands.sent === 1)

    // The socket drops: an unplug.
    own.close()
    await until('laptop waiting', () =>
      daemon.status().surfaces.some((s) => s.name === 'laptop' && s.state === 'waiting'),
    )
    expect(driver.hub.list()).toEqual([])
  })
})

describe('no page takes the place of the deck the config claims (issue 46 item 3)', () => {
  it('twelve sockets registering junk decks leave room: the deck claimed by serial still comes up', async () => {
    const file = await testConfigFile('deck-junk', laptopDeckConfig())
    const { daemon, driver } = await browserDeckDaemon(file)
    const junk: DeckServerMessage[][] = []
    for (let p = 0; p < 12; p++) {
      const socket = await pageSocket(daemon)
      junk.push(deckMessages(socket))
      for (let deck = 0; deck < 2; deck++)
        socket.send(JSON.stringify({ type: 'deck-add', deck, model: 'original-mk2', serial: `JUNK${p}-${deck}` }))
    }
    await until('every junk deck answered', () => junk.every((got) => got.length === 2))
    const refusals = junk.flat().flatMap((m) => (m.type === 'deck-state' && m.state === 'refused' ? [m.detail] : []))
    expect(refusals.length).toBeGreaterThan(0)
    expect(new Set(refusals)).toEqual(new Set(['at most 8 browser decks that no surface claims at once']))
    const own = await pageSocket(daemon)
    own.send(REGISTER)
    await until('the claimed deck open as laptop', () =>
      daemon.status().surfaces.some((s) => s.name === 'laptop' && s.state === 'open'),
    )
    expect(driver.hub.list().filter((d) => d.id.startsWith('JUNK'))).toHaveLength(8)
  })
})
