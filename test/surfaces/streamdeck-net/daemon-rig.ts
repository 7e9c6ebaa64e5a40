/**
 * Network Stream Decks for the tests: the decks an in-memory network answers with at the addresses the tests'
 * configs name, and a daemon in this process over them with the network driver as the daemon makes its own
 * (passive), frames drawn at once and quick reconnects. The one rig of the daemon, brightness and command tests.
 */
import { onTestFinished } from 'vitest'
import type { Daemon } from '../../../src/daemon/daemon.js'
import { StreamDeckNetDriver } from '../../../src/surfaces/streamdeck-net/driver.js'
import { testDaemon } from '../../helpers/in-process-daemon.js'
import { FakeNetDeck, type FakeNetwork } from './fake-net-deck.js'

/**
 * `deck`, sending its keepalive every second while the test runs, as a real deck does: the driver takes a deck
 * silent for 5 s (NET_DECK_LINK.silenceTimeoutMs) as gone, so a test that outlasts that on a loaded machine
 * would otherwise see a reconnect it did not make (the brightness sent twice, keys repainted).
 */
function keptAlive(deck: FakeNetDeck): FakeNetDeck {
  const timer = setInterval(() => deck.keepalive(), 1000)
  onTestFinished(() => clearInterval(timer))
  return deck
}

/** A Stream Deck Studio (serial STUDIO01) answering at `host`, port 5343. */
export const addStudio = (network: FakeNetwork, host = '127.0.0.5'): FakeNetDeck =>
  keptAlive(network.add(host, 5343, new FakeNetDeck({ model: 'studio', serial: 'STUDIO01' })))

/** A Network Dock (DOCK01) at 127.0.0.6:5343 with an XL (XL0001) docked, which answers at the dock's port 5344. */
export function addDockedXl(network: FakeNetwork): { dock: FakeNetDeck; xl: FakeNetDeck } {
  const dock = keptAlive(network.add('127.0.0.6', 5343, new FakeNetDeck({ model: 'network-dock', serial: 'DOCK01' })))
  const xl = keptAlive(network.add('127.0.0.6', 5344, new FakeNetDeck({ model: 'xl', serial: 'XL0001', child: true })))
  dock.docked = { deck: xl, port: 5344 }
  return { dock, xl }
}

/** The daemon over `file` with a network driver over `network`. */
export function netDeckDaemon(file: string, network: FakeNetwork): Promise<Daemon> {
  const driver = new StreamDeckNetDriver({
    transport: network,
    frameMs: 0,
    backoff: { initialMs: 50, maxMs: 200, stableMs: 10_000 },
    // As the daemon's own drivers are: detection does not wait for a deck's first answer.
    passive: true,
  })
  return testDaemon(file, [driver])
}
