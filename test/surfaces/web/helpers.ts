/**
 * Test seams for the web surface: an in-memory SurfaceRegistry, a recording WebSocket client, and a web surface
 * server on port 0 closed with what it serves.
 */
import { EventHub } from '../../../src/events.js'
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import { onTestFinished, vi } from 'vitest'
import WebSocket from 'ws'
import type { ServerMessage } from '../../../src/face/protocol.js'
import type { ControlId } from '../../../src/face/control-id.js'
import type { Feedback } from '../../../src/face/feedback.js'
import type { SurfaceEvent, SurfaceRegistry, SurfaceRegistryEvents } from '../../../src/surfaces/types.js'
import { WebSurfaceServer, type WebSurfaceServerOptions } from '../../../src/surfaces/web/server.js'
import type { WebSurface } from '../../../src/surfaces/web/web-surface.js'
import { SurfaceManager } from '../../../src/surfaces/manager.js'
import { MidiDriver } from '../../../src/surfaces/midi/driver.js'
import { ShuttleDriver } from '../../../src/surfaces/shuttle/driver.js'
import { XkeysDriver } from '../../../src/surfaces/xkeys/driver.js'
import { openJsonSocket } from '../../helpers/json-socket.js'
import { FakeHotplug } from '../helpers/fake-hotplug.js'
import { FakeMidiBackend } from '../helpers/fake-midi.js'
import { MemoryShuttleTransport } from '../helpers/fake-shuttle.js'
import { MemoryXkeysTransport, type FakeXkeysHid } from '../helpers/fake-xkeys.js'
import type { SurfaceDescription } from '../../../src/face/surface.js'

/** A SurfaceRegistry as the manager implements it, driven by hand. */
export class FakeRegistry implements SurfaceRegistry {
  private readonly hub = new EventHub<SurfaceRegistryEvents>()
  readonly events = this.hub.listenable
  private readonly surfaces = new Map<string, { description: SurfaceDescription; feedback: Map<ControlId, Feedback> }>()

  list(): SurfaceDescription[] {
    return [...this.surfaces.values()].map((s) => s.description)
  }
  feedbackOf(surfaceId: string): ReadonlyMap<ControlId, Feedback> {
    return this.surfaces.get(surfaceId)?.feedback ?? new Map()
  }
  add(description: SurfaceDescription): void {
    this.surfaces.set(description.id, { description, feedback: new Map() })
    this.hub.emit('added', description)
  }
  remove(id: string): void {
    this.surfaces.delete(id)
    this.hub.emit('removed', id)
  }
  feedback(id: string, control: ControlId, feedback: Feedback): void {
    this.surfaces.get(id)!.feedback.set(control, feedback)
    this.hub.emit('feedback', id, control, feedback)
  }
}

/** A Stream Deck XL-like physical surface description (2×2 here to keep pages small). */
export function physicalDeck(id: string, size = 72): SurfaceDescription {
  const controls: SurfaceDescription['controls'] = []
  for (let i = 0; i < 4; i++) {
    controls.push({
      id: `key:${i}`,
      kind: 'key',
      row: Math.floor(i / 2),
      column: i % 2,
      capabilities: { image: { width: size, height: size } },
    })
  }
  controls.push({ id: 'button:0', kind: 'button', capabilities: { led: true } })
  return { id, driver: 'streamdeck', model: 'Stream Deck test', grid: { rows: 2, columns: 2 }, controls }
}

/** Records every input event of a surface. */
export function recordInput(surface: WebSurface): SurfaceEvent[] {
  const events: SurfaceEvent[] = []
  surface.events.on('input', (e) => events.push(e))
  return events
}

export interface Client {
  ws: WebSocket
  messages: ServerMessage[]
  /** Waits until a received message matches, and returns it. */
  waitFor<T extends ServerMessage['type']>(
    type: T,
    match?: (m: Extract<ServerMessage, { type: T }>) => boolean,
  ): Promise<Extract<ServerMessage, { type: T }>>
  send(value: unknown): void
  close(): Promise<void>
}

export async function connect(pageUrl: string, headers: Record<string, string> = {}): Promise<Client> {
  const url = new URL('ws', pageUrl)
  url.protocol = 'ws:'
  const { ws, messages } = await openJsonSocket<ServerMessage>(url, headers)
  return {
    ws,
    messages,
    async waitFor(type, match) {
      type M = Extract<ServerMessage, { type: typeof type }>
      return vi.waitFor(
        () => {
          const found = messages.find((m): m is M => m.type === type && (match ? match(m as M) : true))
          if (!found) throw new Error(`no ${type} message yet`)
          return found
        },
        { timeout: 5000, interval: 10 },
      )
    },
    send(value) {
      ws.send(typeof value === 'string' ? value : JSON.stringify(value))
    },
    close() {
      return new Promise<void>((resolve) => {
        if (ws.readyState === ws.CLOSED) return resolve()
        ws.once('close', () => resolve())
        ws.close()
      })
    },
  }
}

/**
 * Kept by every page a test opens (before its own script runs): the WebSockets the page opens, newest
 * last, so `roundTrip` can use the page's own socket.
 */
const KEEP_SOCKETS = `{
  const Native = window.WebSocket
  const sockets = []
  window.__testSockets = sockets
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args)
      sockets.push(this)
    }
  }
}`

/** A page in a browser context of its own, closed when the test finishes. */
export async function freshPage(browser: Browser, options: BrowserContextOptions): Promise<Page> {
  const context = await browser.newContext(options)
  onTestFinished(() => context.close())
  await context.addInitScript({ content: KEEP_SOCKETS })
  return context.newPage()
}

/**
 * The barrier that proves an absence on a page without waiting a time: a round trip on the page's own
 * socket. First a timer of the page's own, set now, with `batchMs` (the page's longest batching delay
 * for what the test did; timers of equal delay run in the order set), so that whatever the page queued
 * before it has been sent. Then a deck message the server answers on the same socket (the test
 * servers take no browser decks, and a viewer's socket none either: the answer is a refusal, which a
 * page with no deck of that number ignores). The server handles one socket's messages in order, and
 * the page its socket's: when the answer is in, the server has handled everything the page sent
 * before it, and the page has handled everything the server sent it before the answer.
 */
export async function roundTrip(page: Page, batchMs = 0): Promise<void> {
  await page.evaluate(`(async () => {
    await new Promise((resolve) => setTimeout(resolve, ${batchMs}))
    const ws = window.__testSockets.filter((s) => s.readyState === WebSocket.OPEN).at(-1)
    if (!ws) throw new Error('the page has no open socket')
    const deck = 15 // the last deck number a page may use; no test page has a deck
    const answered = new Promise((resolve) =>
      ws.addEventListener('message', function on(e) {
        if (typeof e.data !== 'string') return
        const m = JSON.parse(e.data)
        if (m.type === 'deck-state' && m.deck === deck) {
          ws.removeEventListener('message', on)
          resolve()
        }
      }),
    )
    ws.send(JSON.stringify({ type: 'deck-add', deck, model: 'test-barrier', serial: 'barrier' }))
    await answered
  })()`)
}

/** As `connect`, and closed when the test finishes. */
export async function connectForTest(pageUrl: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = await connect(pageUrl, headers)
  onTestFinished(() => client.close())
  return client
}

/**
 * Resolves after the `setImmediate` turns queued before it: a web surface sends the feedback set on it in one
 * such turn (WebSurface's flush), so whatever was set before this call has gone out by then. No clock involved.
 */
export function flushTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** Hardware behind a manager: a ShuttlePro v2, an XK-24 and a Behringer X-Touch Mini, each in memory. */
export interface HardwareMirrors {
  manager: SurfaceManager
  shuttles: MemoryShuttleTransport
  xkeys: MemoryXkeysTransport
  midi: FakeMidiBackend
  /** The X-keys panel as opened (its backlight writes). */
  panel(): FakeXkeysHid
}

/** The configured names of the three surfaces. */
export const HARDWARE = { shuttle: 'replay', xkeys: 'titles', midi: 'desk' } as const
const X_TOUCH_PORT = 'X-TOUCH MINI:X-TOUCH MINI MIDI 1 24:0'

/**
 * A real SurfaceManager with the real Contour Shuttle, X-keys and MIDI drivers (their libraries and the
 * X-Touch Mini's shipped profile) over in-memory devices, each claimed under a configured name.
 */
export async function hardwareMirrors(): Promise<HardwareMirrors> {
  const shuttles = new MemoryShuttleTransport()
  shuttles.plug('shuttlepro_v2', '/dev/hidraw-shuttle')
  const xkeys = new MemoryXkeysTransport()
  xkeys.plug('XK24', '/dev/hidraw-xkeys')
  const midi = new FakeMidiBackend({ inputs: [X_TOUCH_PORT], outputs: [X_TOUCH_PORT] })
  const manager = new SurfaceManager({
    drivers: [
      new ShuttleDriver({ transport: shuttles }),
      new XkeysDriver({ transport: xkeys }),
      new MidiDriver({ backend: midi, surfaces: [{ input: 'X-TOUCH MINI', profile: 'behringer-x-touch-mini' }] }),
    ],
    claims: [
      { name: HARDWARE.shuttle, driver: 'shuttle', match: { model: 'shuttlepro_v2' } },
      { name: HARDWARE.xkeys, driver: 'xkeys', match: { model: 'XK24' } },
      { name: HARDWARE.midi, driver: 'midi', match: { port: 'X-TOUCH MINI' } },
    ],
    hotplug: new FakeHotplug(),
    access: () => Promise.resolve('ok'),
    rescanDelaysMs: [0],
  })
  await manager.start()
  await vi.waitFor(() => {
    if (manager.list().length !== 3) throw new Error('the hardware is not open yet')
  })
  return {
    manager,
    shuttles,
    xkeys,
    midi,
    panel: () => xkeys.lastOpened('/dev/hidraw-xkeys')!,
  }
}

/** A web surface server listening on port 0 and its page's URL; `close` closes it, then what it was started with. */
export interface WebServerRig {
  server: WebSurfaceServer
  url: string
  close(): Promise<void>
}

/**
 * Starts a WebSurfaceServer on port 0. Its `close` closes the server and then, in order, each of `after` (the
 * surfaces it serves, the manager behind it): the test's own things, which the server leaves open.
 */
export async function startWebServer(
  options: WebSurfaceServerOptions,
  ...after: (() => Promise<void>)[]
): Promise<WebServerRig> {
  const server = new WebSurfaceServer(options)
  const close = async (): Promise<void> => {
    await server.close()
    for (const done of after) await done()
  }
  try {
    return { server, url: await server.listen({ port: 0 }), close }
  } catch (err) {
    await close()
    throw err
  }
}

/**
 * As `startWebServer`, closed when the test finishes. Called before the test opens browsers or clients (in its
 * `beforeEach`), it is closed after them: `onTestFinished` runs the last registered first.
 */
export async function webServerForTest(
  options: WebSurfaceServerOptions,
  ...after: (() => Promise<void>)[]
): Promise<WebServerRig> {
  const rig = await startWebServer(options, ...after)
  onTestFinished(() => rig.close())
  return rig
}
